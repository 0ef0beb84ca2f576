// IPoIB: P_Key children (`ip link add link ib0 name ib0.8001 type ipoib pkey 0x8001`,
// rtnetlink: drivers/infiniband/ulp/ipoib/ipoib_netlink.c ipoib_new_child_link), then the
// mode and the MTU of each configured IPoIB interface. The mode changes before the MTU:
// the MTU limit depends on it (ipoib_change_mtu: datagram up to the IB MTU - 4,
// connected up to IPOIB_CM_MTU 65520).
#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

// The IB link MTU of the port under `n`: libibverbs' active MTU, else the mlx4 port MTU
// this plan sets (the same run may lower it), else the one the port has now.
unsigned link_mtu_of(const Config& cfg, const Inventory& inv, const NetDev& n) {
  for (const auto& d : inv.rdma) {
    if (d.name != n.rdma_device) continue;
    for (const auto& p : d.ports) {
      if (p.num != n.rdma_port) continue;
      if (d.pci && p.num >= 1 && p.num <= 2) {
        if (auto it = cfg.mlx4.find(*d.pci); it != cfg.mlx4.end() && it->second.mtu[p.num - 1]) {
          return it->second.mtu[p.num - 1]->value;
        }
      }
      if (p.active_mtu) return p.active_mtu;
      if (!d.pci) continue;
      for (const auto& f : inv.pci) {
        if (!(f.address == *d.pci)) continue;
        for (const auto& m : f.mlx4_ports)
          if (m.port == p.num && m.mtu) return *m.mtu;
      }
    }
  }
  return 4096;  // the largest IB MTU: only obviously impossible values are refused
}

// Connected mode is possible exactly when the interface's hardware address carries the
// RC flag (ipoib.h: IPOIB_CM_SUPPORTED(ha) is ha[0] & IPOIB_FLAGS_RC, 0x80; ipoib_set_mode
// refuses "connected" otherwise). A child copies its parent's address (ipoib_vlan.c).
bool connected_possible(const NetDev& n) {
  return n.address.len == 20 && (n.address.bytes[0] & 0x80) != 0;
}

// Why `n` cannot run connected mode, in the words an administrator knows.
std::string no_connected_mode(const Inventory& inv, const NetDev& n, const std::string& ifname) {
  const RdmaDevice* d = inv.find_rdma(n.rdma_device);
  if ((d ? d->driver : n.driver) == "mlx5_core") {
    return ifname + " is Enhanced IPoIB (" + n.rdma_device +
           ", mlx5): connected mode is not supported, only datagram";
  }
  return ifname + " cannot run connected mode: its hardware address " + n.address.str() +
         " lacks the connected-mode flag (0x80 in the first byte), only datagram";
}

}  // namespace

void plan_pkey_children(PlanBuilder& b) {
  for (const auto& [k, c] : b.cfg.pkeys) {
    const Iface* parent = b.iface(c.parent);
    const uint16_t pkey = c.full_pkey();
    const std::string name = c.child_name();
    if (!parent) {
      b.absent_iface(c.source, "P_Key child " + name, "parent interface", c.parent);
      continue;
    }
    if (parent->netdev && parent->netdev->type != kArphrdInfiniband) {
      b.diag().error(c.source, "P_Key parent " + c.parent + " is not an IPoIB interface (type " +
                                   arphrd_name(parent->netdev->type) + ")");
      continue;
    }
    bool exists = false;
    for (const auto& n : b.inv.netdevs) {
      if (parent->netdev && n.parent == parent->netdev->name && n.pkey == pkey) {
        exists = true;
        if (n.name != name) {
          b.note("P_Key 0x" + hex(pkey, 4) + " on " + c.parent + " exists as " + n.name + ", not " +
                 name + "; left as it is");
        }
      }
    }
    if (exists) continue;
    std::optional<IpoibMode> mode = c.mode;
    if (auto ip = b.cfg.ipoib.find(name); !mode && ip != b.cfg.ipoib.end() && ip->second.mode) {
      mode = ip->second.mode->value;
    }
    if (mode == IpoibMode::kConnected && parent->netdev && !connected_possible(*parent->netdev)) {
      b.diag().error(c.source, no_connected_mode(b.inv, *parent->netdev, c.parent) +
                                   " (P_Key child " + name + ")");
      continue;
    }
    Action a{CreatePkeyChild{c.parent, name, pkey, mode}, "absent", c.source};
    if (!parent->netdev) a.waiting_for = c.parent;
    PlanBuilder::need(a, parent->producer);
    b.set_iface(name, Iface{nullptr, b.add(std::move(a))});
  }
}

void plan_ipoib(PlanBuilder& b) {
  for (const auto& [ifname, s] : b.cfg.ipoib) {
    const Iface* f = b.iface(ifname);
    const std::string src = s.mode ? s.mode->source.str() : s.mtu ? s.mtu->source.str() : "";
    if (!f) {
      b.absent_iface(s.mode ? s.mode->source : s.mtu->source, "IPoIB settings", "interface",
                     ifname);
      continue;
    }
    const NetDev* n = f->netdev;
    if (n && n->type != kArphrdInfiniband) {
      b.diag().error(src,
                     ifname + " is not an IPoIB interface (type " + arphrd_name(n->type) + ")");
      continue;
    }
    const IpoibMode mode =
        s.mode ? s.mode->value : (n && n->ipoib_mode ? *n->ipoib_mode : IpoibMode::kDatagram);
    if (s.mode && mode == IpoibMode::kConnected && n && !connected_possible(*n)) {
      b.diag().error(s.mode->source, no_connected_mode(b.inv, *n, ifname));
      continue;
    }
    if (s.mode && mode == IpoibMode::kDatagram && s.mtu && s.mtu->value > 4092) {
      continue;  // invalid on any machine: validate() has said so
    }
    if (s.mtu && n) {
      const unsigned link = link_mtu_of(b.cfg, b.inv, *n);
      const unsigned limit = mode == IpoibMode::kConnected ? 65520 : link - 4;
      if (s.mtu->value > limit) {
        b.diag().error(
            s.mtu->source,
            "MTU " + std::to_string(s.mtu->value) + " of " + ifname + " exceeds " +
                std::to_string(limit) + " for " + std::string(to_string(mode)) + " mode" +
                (mode == IpoibMode::kDatagram ? " (IB link MTU " + std::to_string(link) + " - 4)"
                                              : ""));
        continue;
      }
    }
    std::optional<size_t> last = f->producer;
    if (s.mode && (!n || n->ipoib_mode != mode)) {
      // A child created by this plan gets its mode at creation.
      const bool at_create =
          f->producer && b.action(*f->producer).kind() == ActionKind::kCreatePkeyChild;
      if (!at_create) {
        const std::string_view cur = !n              ? "unknown"
                                     : n->ipoib_mode ? to_string(*n->ipoib_mode)
                                                     : "";
        Action a{SetIpoibMode{ifname, mode}, std::string(cur), s.mode->source};
        if (!n) a.waiting_for = ifname;
        PlanBuilder::need(a, last);
        last = b.add(std::move(a));
      }
    }
    if (s.mtu && (!n || n->mtu != s.mtu->value)) {
      Action a{SetMtu{ifname, s.mtu->value}, n && n->mtu ? std::to_string(*n->mtu) : "unknown",
               s.mtu->source};
      if (!n) a.waiting_for = ifname;
      PlanBuilder::need(a, last);
      last = b.add(std::move(a));
    }
    if (last) b.set_producer(ifname, *last);
  }
}

}  // namespace rp
