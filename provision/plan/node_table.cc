#include "provision/plan/node_table.h"

namespace rp {

void resolve_node_table(const Inventory& inv, Config& cfg) {
  if (cfg.nodes_by_guid.empty() && cfg.nodes_by_mac.empty()) return;
  bool matched = false;
  std::string keys;  // this node's, for the note when no row is its
  for (const auto& n : inv.netdevs) {
    if (!n.parent.empty()) continue;  // P_Key children share the parent's GUID
    const NodeEntry* e = nullptr;
    if (auto g = n.address.ipoib_guid()) e = cfg.node_entry(HwKey::of_guid(*g));
    if (!e) {
      if (auto m = n.address.mac()) e = cfg.node_entry(HwKey::of_mac(*m));
    }
    if (!n.address.ipoib_guid() && !n.address.mac()) continue;
    if (!e) {
      if (auto g = n.address.ipoib_guid()) keys += (keys.empty() ? "" : ", ") + g->str();
      if (auto m = n.address.mac(); m && !(*m == MacAddress{})) {
        keys += (keys.empty() ? "" : ", ") + m->str();
      }
      continue;
    }
    matched = true;
    const Source src = e->source.through("node table");
    std::string ifname = n.name;
    for (const auto& [name, key] : cfg.names) {
      if (key.value == e->key) ifname = name;  // an explicit name wins over the row's
    }
    // The row's name, unless the interface is named otherwise or the name is taken.
    if (const std::string row = cfg.row_name(*e); !row.empty() && !cfg.names.count(row)) {
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
    if (!e->addresses.empty() && cfg.addresses[ifname].empty()) {
      for (const auto& a : e->addresses) cfg.addresses[ifname].push_back({a, src});
    }
  }
  if (!matched) {
    const size_t rows = cfg.nodes_by_guid.size() + cfg.nodes_by_mac.size();
    cfg.node_table_unmatched = "the node table (" + std::to_string(rows) + " row" +
                               (rows == 1 ? "" : "s") + ") has no row for this node (" +
                               (keys.empty() ? "no port GUID or MAC" : keys) +
                               "): the defaults apply";
  }
}

}  // namespace rp
