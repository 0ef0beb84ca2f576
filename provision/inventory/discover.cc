// discover(): sysfs everywhere; on the live system links come from rtnetlink (the
// kernel's own view, with flags and carrier) and ports are completed through libibverbs.
#include <algorithm>
#include <cerrno>

#include "provision/base/sort.h"
#include "provision/inventory/inventory.h"
#include "provision/kernel/dcbnl.h"
#include "provision/kernel/rdma_nl.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/verbs.h"

namespace rp {

bool discover_netlink_links(Inventory& inv) {
  auto links = rtnl_list_links();
  if (!links) {
    inv.notes.push_back(links.error().str());
    return false;
  }
  for (auto& l : *links) {
    NetDev n;
    n.name = l.name;
    n.ifindex = l.ifindex;
    n.iflink = l.iflink;
    n.type = l.type;
    n.kind = l.kind;
    n.address = l.address;
    n.broadcast = l.broadcast;
    n.mtu = l.mtu;
    n.operstate = l.operstate;
    n.admin_up = l.admin_up;
    n.carrier = l.carrier;
    inv.netdevs.push_back(std::move(n));
  }
  // By name (base/sort.h: indices sorted, the NetDevs moved once).
  sort_by(inv.netdevs, [](const NetDev& a, const NetDev& b) { return a.name < b.name; });
  return true;
}

void discover_verbs(const Root& root, Inventory& inv) {
  if (!root.is_live() || !root.is_dir("/dev/infiniband")) return;
  auto devices = verbs_list_devices();
  if (!devices) {
    inv.notes.push_back(devices.error().str());
    return;
  }
  for (const auto& vd : *devices) {
    for (auto& d : inv.rdma) {
      if (d.name != vd.name) continue;
      d.seen_by_verbs = true;
      for (const auto& vp : vd.ports) {
        for (auto& p : d.ports) {
          if (p.num != vp.num) continue;
          p.active_mtu = vp.active_mtu;
          p.max_mtu = vp.max_mtu;
        }
      }
    }
  }
}

// A port's netdev from RDMA netlink where sysfs has none (a Soft-iWARP port: no `parent`
// file, and no netdev in its GID attributes before Linux 6.10). Only asked when such a
// port exists: one device dump and a port dump per device.
void discover_port_netdevs(Inventory& inv) {
  bool wanted = false;
  for (const auto& d : inv.rdma)
    for (const auto& p : d.ports)
      wanted |= p.link_layer == LinkLayer::kEthernet && p.netdev.empty() && d.parent_netdev.empty();
  if (!wanted) return;
  auto ports = rdma_port_netdevs();
  if (!ports) {
    inv.notes.push_back("RDMA netlink: " + ports.error().str());
    return;
  }
  for (auto& d : inv.rdma) {
    for (auto& p : d.ports) {
      for (const auto& r : *ports) {
        if (r.device != d.name || r.port != p.num || r.netdev.empty() || !p.netdev.empty())
          continue;
        p.netdev = r.netdev;
        if (d.soft_iwarp) d.parent_netdev = r.netdev;
      }
    }
  }
}

void discover_dcb(Inventory& inv, const DcbOps& ops, const std::vector<std::string>& names) {
  for (auto& n : inv.netdevs) {
    if (std::find(names.begin(), names.end(), n.name) == names.end()) continue;
    auto st = ops.get(n.name);
    if (st) {
      n.dcb = std::move(*st);
    } else {
      n.dcb_errno = st.error().errnum;
      if (n.dcb_errno != EOPNOTSUPP) inv.notes.push_back(st.error().str());
    }
  }
}

Inventory discover(const Root& root, Detail detail) {
  Inventory inv;
  discover_sysfs(root, inv, detail);
  if (root.is_live() && discover_netlink_links(inv)) {
    inv.netdev_source = "netlink";
  } else {
    discover_sysfs_netdevs(root, inv, detail);
    inv.netdev_source = "sysfs";
  }
  if (root.is_live()) discover_port_netdevs(inv);
  enrich_netdevs(root, inv);
  discover_presence(root, inv);
  discover_verbs(root, inv);
  if (detail == Detail::kFull) inv.nvme = discover_nvme_controllers(root);
  return inv;
}

}  // namespace rp
