#include "provision/resolve/node_table.h"

#include "provision/base/strings.h"
#include "provision/resolve/name_key.h"

namespace rp {
namespace {

// A row whose key is a typo of `k` (at most two digits off), for the warning; none when
// two rows are as near (a cluster's MACs run in sequence: a stranger is near many rows).
const NodeEntry* row_near(const Config& cfg, const HwKey& k) {
  const auto& rows = k.is_guid() ? cfg.nodes_by_guid : cfg.nodes_by_mac;
  const std::string want = k.str();
  const NodeEntry* best = nullptr;
  size_t best_d = 3;
  bool tie = false;
  for (const auto& [v, e] : rows) {
    const size_t d = edit_distance(want, e.key.str(), 2);
    if (d < best_d) {
      best = &e, best_d = d, tie = false;
    } else if (d == best_d && d <= 2) {
      tie = true;
    }
  }
  return tie ? nullptr : best;
}

}  // namespace

Config resolve_node_table(const Inventory& inv, Config cfg) {
  if (cfg.nodes_by_guid.empty() && cfg.nodes_by_mac.empty()) return cfg;
  bool matched = false;
  std::string keys;                 // this node's, for the warning when no row is its
  const NodeEntry* near = nullptr;  // a row one or two digits off one of them
  for (const auto& n : inv.netdevs) {
    if (!n.parent.empty()) continue;  // P_Key children share the parent's GUID
    const NodeEntry* e = nullptr;
    if (auto g = n.address.ipoib_guid()) e = cfg.node_entry(HwKey::of_guid(*g));
    if (!e) {
      if (auto m = n.address.mac()) e = cfg.node_entry(HwKey::of_mac(*m));
    }
    if (!n.address.ipoib_guid() && !n.address.mac()) continue;
    if (!e) {
      std::optional<HwKey> k;
      if (auto g = n.address.ipoib_guid()) k = HwKey::of_guid(*g);
      if (auto m = n.address.mac(); m && !(*m == MacAddress{})) k = HwKey::of_mac(*m);
      if (!k) continue;
      keys += (keys.empty() ? "" : ", ") + k->str();
      if (!near) near = row_near(cfg, *k);
      continue;
    }
    matched = true;
    const Source src = e->source.through("node table");
    std::string ifname = n.name;
    bool by_function = false;  // named by pci-<bdf> or <ibdev>/<port>, which no row knows
    for (const auto& [name, key] : cfg.names) {
      if (key.value == e->key) ifname = name;  // an explicit name wins over the row's
      if (!key.value.is_address() && netdev_for_key(inv, key.value) == &n) {
        ifname = name;
        by_function = true;
      }
    }
    // The row's name, unless the interface is named otherwise or the name is taken.
    if (const std::string row = cfg.row_name(*e);
        !by_function && !row.empty() && !cfg.names.count(row)) {
      cfg.names[row] = {e->key, src};
      ifname = row;
    }
    if (e->mode || e->mtu) {
      auto& ip = cfg.ipoib[ifname];
      if (e->mode && !ip.mode) ip.mode = Sourced<IpoibMode>{*e->mode, src};
      if (e->mtu && !ip.mtu) ip.mtu = Sourced<unsigned>{*e->mtu, src};
    }
    for (uint16_t pkey : e->pkeys) {
      auto& c = cfg.pkeys[{ifname, pkey}];
      if (c.parent.empty()) {
        c.parent = ifname;
        c.pkey = pkey;
        c.source = src;
      }
    }
    // A soft device unless one is asked for on this interface already.
    if (e->soft && !cfg.soft_links.count(ifname)) {
      cfg.soft_links[ifname] = SoftLink{e->soft->kind, e->soft->name, src};
    }
    // The RDMA device under it gets the row's fixed name, unless the name is given already
    // or a setting names the device by this interface.
    if (!e->devname.empty() && !cfg.rdma_names.count(e->devname)) {
      bool named = false;
      for (const auto& [name, sel] : cfg.rdma_names)
        named |= sel.value.by == RdmaSelector::By::kNetdev &&
                 (sel.value.name == n.name || sel.value.name == ifname);
      if (!named) cfg.rdma_names[e->devname] = {{RdmaSelector::By::kNetdev, n.name, {}, {}}, src};
    }
    if (!e->addresses.empty() && cfg.addresses[ifname].empty()) {
      for (const auto& a : e->addresses) cfg.addresses[ifname].push_back({a, src});
    }
  }
  if (!matched) {
    const size_t rows = cfg.nodes_by_guid.size() + cfg.nodes_by_mac.size();
    cfg.node_table_unmatched =
        "the node table (" + std::to_string(rows) + " row" + (rows == 1 ? "" : "s") +
        ") has no row for this node (" + (keys.empty() ? "no port GUID or MAC" : keys) +
        "): the defaults apply" +
        (near ? " (did you mean the row " + near->key.str() + " at " + near->source.str() + "?)"
              : "");
  }
  return cfg;
}

}  // namespace rp
