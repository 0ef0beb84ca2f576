// Selecting RDMA devices by name, PCI function, node GUID or interface, and reading
// rdma-core's persistent names (kernel-boot/rdma_rename.c).
#include "provision/plan/rdma_select.h"

#include <cstdio>

#include "provision/base/strings.h"

namespace rp {
namespace {

// rdma_rename's prefix is the protocol RDMA netlink reports for port 1
// (drivers/infiniband/core/nldev.c fill_dev_info, RDMA_NLDEV_ATTR_DEV_PROTOCOL): "ib",
// "roce", "iw" (or "opa", "usnic"); "rdma" when the kernel gives none.
std::string protocol_of(const RdmaDevice& d) {
  if (d.ports.empty()) return "rdma";
  if (d.driver == "hfi1") return "opa";  // rdma_cap_opa_mad: Omni-Path before InfiniBand
  const RdmaPort& p = d.ports.front();
  if (p.link_layer == LinkLayer::kInfiniBand) return "ib";
  if (p.link_layer == LinkLayer::kEthernet) return p.roce_v1 || p.roce_v2 ? "roce" : "iw";
  return "rdma";
}

bool prefix_fits(const std::string& prefix, const RdmaDevice& d) {
  const std::string proto = protocol_of(d);
  return prefix == "rdma" || prefix == proto || (prefix == "opa" && proto == "ib");
}

bool is_soft(const RdmaDevice& d) { return !d.parent_netdev.empty(); }

// by_guid (NAME_GUID, never part of NAME_FALLBACK): "x" and the node GUID's four groups,
// "%04x" each; nothing for GUID 0 (an mlx5 VF's until one is set), which by_guid refuses.
std::string guid_name(const std::optional<PortGuid>& g) {
  if (!g || g->value == 0) return "";
  char buf[24];
  std::snprintf(buf, sizeof buf, "x%016llx", static_cast<unsigned long long>(g->value));
  return buf;
}

// The scheme of rdma_rename (kernel-boot/rdma_rename.c) that makes `name` for `d`, or
// nullptr when it is none of d's persistent names.
const char* scheme_of(const RdmaDevice& d, const std::string& name) {
  if (is_soft(d)) return nullptr;
  for (const char* p : {"roce", "rdma", "usnic", "opa", "ib", "iw"}) {
    if (!starts_with(name, p) || !prefix_fits(p, d)) continue;
    const std::string rest = name.substr(std::string_view(p).size());
    for (const auto& n : d.persistent_names) {
      if (n == rest) return rest[0] == 'o' ? "NAME_ONBOARD" : "NAME_PCI";
    }
    if (!rest.empty() && rest == guid_name(d.node_guid)) return "NAME_GUID";
  }
  return nullptr;
}

// The present device rdma-core would have given `name`, if exactly one fits.
const RdmaDevice* renamed_from(const Inventory& inv, const std::string& name, std::string* how) {
  const RdmaDevice* found = nullptr;
  const char* scheme = nullptr;
  int n = 0;
  for (const auto& d : inv.rdma) {
    if (const char* s = scheme_of(d, name)) {
      found = &d;
      scheme = s;
      ++n;
    }
  }
  if (n != 1) return nullptr;
  if (how) {
    *how =
        name + " is rdma-core's persistent name (kernel-boot/rdma_rename.c " + scheme + ") of " +
        found->name +
        (found->pci ? " at " + found->pci->str() : " with node GUID " + found->node_guid->str()) +
        ", which has not been renamed here: " + found->name + " is meant";
  }
  return found;
}

// The RoCE LAG device that took over the RDMA device of PCI function `pci` or of the
// interface `ifname` (Inventory::roce_lag: one of its bond's slaves), with `*how` said.
const RdmaDevice* lag_of(const Inventory& inv, const std::optional<PciAddress>& pci,
                         const std::string& ifname, std::string* how) {
  for (const auto& d : inv.rdma) {
    const auto lag = inv.roce_lag(d);
    if (!lag) continue;
    for (const NetDev* s : lag->slaves) {
      if (!(pci && *s->pci == *pci) && s->name != ifname) continue;
      if (how)
        *how = cat({"means ", d.name, ", the RoCE LAG of ", lag->bond->name, " (",
                    roce_lag_text(*lag), "), which ", s->name, " on ", s->pci->str(),
                    " is a slave of: mlx5 unregistered the PFs' own RDMA devices when it formed "
                    "(lag/lag.c mlx5_do_bond)"});
      return &d;
    }
  }
  return nullptr;
}

}  // namespace

std::string roce_lag_text(const Inventory::RoceLag& lag) {
  std::string out = cat({lag.bond->bond_mode, lag.bond->bond_mode.empty() ? "" : ": "});
  for (const NetDev* s : lag.slaves)
    out += cat({s == lag.slaves.front() ? "" : ", ", s->pci->str(), " ", s->name});
  return out;
}

std::string roce_lag_hint(const Inventory& inv) {
  std::string out;
  for (const auto& d : inv.rdma)
    if (const auto lag = inv.roce_lag(d))
      out += cat({out.empty() ? "" : "; ", d.name, " is the RoCE LAG of ", lag->bond->name, " (",
                  roce_lag_text(*lag), ")"});
  if (out.empty()) return "";
  return out +
         ": mlx5 unregistered its PFs' RDMA devices when it formed (lag/lag.c mlx5_do_bond), so "
         "a kernel name of theirs is gone; select by pci-<PF> or netdev-<slave>, which follow "
         "it";
}

std::vector<std::string> rdma_core_names(const RdmaDevice& d) {
  std::vector<std::string> out;
  if (is_soft(d)) return out;
  for (const auto& n : d.persistent_names) out.push_back(protocol_of(d) + n);
  return out;
}

std::vector<SelectedDevice> select_rdma(const PlanBuilder& b, const RdmaSelector& sel,
                                        std::string* how) {
  std::vector<SelectedDevice> out;
  switch (sel.by) {
    case RdmaSelector::By::kAll:
      for (const auto& d : b.inv.rdma) out.push_back({&d, 0});
      break;
    case RdmaSelector::By::kName:
      if (const RdmaDevice* d = b.inv.find_rdma(sel.name)) {
        out.push_back({d, 0});
      } else if (const RdmaDevice* r = renamed_from(b.inv, sel.name, how)) {
        out.push_back({r, 0});
      }
      break;
    case RdmaSelector::By::kPci:
      for (const auto& d : b.inv.rdma)
        if (d.pci && *d.pci == sel.pci && !is_soft(d) && !b.inv.roce_lag(d)) out.push_back({&d, 0});
      // Either PF of a RoCE LAG: its one device (on the first PF).
      if (out.empty())
        if (const RdmaDevice* d = lag_of(b.inv, sel.pci, "", how)) out.push_back({d, 0});
      break;
    case RdmaSelector::By::kNodeGuid:
      for (const auto& d : b.inv.rdma)
        if (d.node_guid && *d.node_guid == sel.guid) out.push_back({&d, 0});
      break;
    case RdmaSelector::By::kNetdev: {
      const Iface* f = b.iface(sel.name);
      if (f && f->netdev && !f->netdev->rdma_device.empty()) {
        if (const RdmaDevice* d = b.inv.find_rdma(f->netdev->rdma_device)) {
          out.push_back({d, f->netdev->rdma_port});
        }
      } else if (f && f->netdev) {  // a slave of a RoCE LAG: the LAG device's port
        if (const RdmaDevice* d = lag_of(b.inv, std::nullopt, f->netdev->name, how))
          out.push_back({d, 1});
      }
      break;
    }
  }
  return out;
}

std::optional<std::string> planned_soft_on(const PlanBuilder& b, const std::string& ifname) {
  for (const auto& [name, sl] : b.planned_soft()) {
    const std::string& on = b.action(sl.action).get<CreateSoftLink>().netdev;
    if (on == ifname || b.final_name(on) == ifname) return name;
  }
  return std::nullopt;
}

std::string renamed_devices_hint(const Inventory& inv) {
  std::string out;
  for (const auto& d : inv.rdma) {
    if (!scheme_of(d, d.name)) continue;
    if (!out.empty()) out += ", ";
    out += d.name;
    if (d.pci) {
      out += " (pci-" + d.pci->str() + ")";
    } else if (d.node_guid) {
      out += " (guid-" + d.node_guid->str() + ")";
    }
  }
  return out;
}

std::string absent_name_warning(const Inventory& inv, const std::string& what) {
  const std::string renamed = renamed_devices_hint(inv);
  if (renamed.empty()) {
    const std::string lag = roce_lag_hint(inv);
    return lag.empty() ? "" : cat({what, ": no such device; ", lag});
  }
  return what +
         ": no such device; rdma-core's persistent naming (60-rdma-persistent-naming.rules) has "
         "renamed the RDMA devices here: " +
         renamed +
         "; select by pci-<address> or guid-<node GUID> to mean the same device under either "
         "name";
}

int specificity(const std::pair<RdmaSelector, unsigned>& k) {
  if (k.first.by == RdmaSelector::By::kAll) return k.second ? 1 : 0;
  return k.second || k.first.by == RdmaSelector::By::kNetdev ? 3 : 2;
}

}  // namespace rp
