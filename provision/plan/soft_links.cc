// Soft-RoCE (rxe) and Soft-iWARP (siw) links over an Ethernet interface, as `rdma link
// add NAME type rxe|siw netdev IF` makes them (RDMA netlink RDMA_NLDEV_CMD_NEWLINK,
// drivers/infiniband/core/nldev.c nldev_newlink). After the renames: the interface may
// be named by the name it has now or by the one it is given.
#include <set>

#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

// The link types siw attaches to (siw_main.c siw_dev_qualified: ARPHRD_ETHER,
// ARPHRD_IEEE802, ARPHRD_NONE and, with CONFIG_LOOPBACK, ARPHRD_LOOPBACK); siw_newlink
// answers -EINVAL for any other, an IPoIB interface (ARPHRD_INFINIBAND) among them.
bool siw_qualified(int arphrd) {
  constexpr int kArphrdIeee802 = 6, kArphrdNone = 0xFFFE;
  return arphrd == kArphrdEther || arphrd == kArphrdIeee802 || arphrd == kArphrdNone ||
         arphrd == kArphrdLoopback;
}

}  // namespace

void plan_soft_links(PlanBuilder& b) {
  std::set<std::string> taken;
  for (const auto& d : b.inv.rdma) taken.insert(d.name);
  for (const auto& [netdev, l] : b.cfg.soft_links) {
    const Iface* f = b.iface(netdev);
    if (!f) f = b.iface(b.final_name(netdev));
    const std::string kind(to_string(l.kind));
    // The configured name, or the first rxeN/siwN no device has (the kernel refuses a
    // name twice: EEXIST).
    const std::string& wanted = l.name;  // (a lambda cannot capture a structured binding)
    const auto name_of = [&] {
      std::string name = wanted;
      for (int i = 0; name.empty(); ++i)
        if (!taken.count(kind + std::to_string(i))) name = kind + std::to_string(i);
      taken.insert(name);
      return name;
    };
    if (!f) {
      // A bond dracut makes (bond=, enslaved by its ifup after apply): the link waits for
      // the bond's online point, where the module runs apply again (rxe_newlink refuses a
      // VLAN only, rxe.c; siw takes any Ethernet link).
      bool dracut_bond = false;
      for (const auto& bd : b.cfg.boot.bonds) dracut_bond = dracut_bond || bd.name == netdev;
      if (!dracut_bond) {
        b.absent_iface(l.source, kind + " link", "interface", netdev);
        continue;
      }
      const std::string name = name_of();
      b.defer_soft(name, netdev);
      b.note(cat({kind, " link ", name, " on ", netdev, " (", l.source.str(), "): dracut makes ",
                  netdev, " after apply (bond=, its ifup enslaves the slaves): made when ", netdev,
                  " is up, by apply again at its online point, with what names ", name,
                  ", before the root is mounted"}));
      continue;
    }
    if (l.kind == SoftKind::kSiw && f->netdev && !siw_qualified(f->netdev->type)) {
      b.diag().error(
          l.source,
          "siw link on " + netdev + ": the kernel refuses it (siw_main.c " +
              "siw_dev_qualified: Ethernet, IEEE 802, loopback and " + "ARPHRD_NONE links only; " +
              f->netdev->name + " is link type " + std::to_string(f->netdev->type) +
              (f->netdev->type == kArphrdInfiniband ? ", IPoIB: its port is RDMA already" : "") +
              ")");
      continue;
    }
    if (l.kind == SoftKind::kRxe && f->netdev && f->netdev->kind == "vlan") {
      b.diag().error(l.source, "rxe link on " + netdev +
                                   ": the kernel refuses it (rxe.c rxe_newlink: \"rxe creation "
                                   "allowed on top of a real device only\", EPERM for a VLAN "
                                   "interface); put it on the VLAN's parent, whose RoCE GIDs "
                                   "cover the VLAN's addresses too");
      continue;
    }
    bool exists = false;
    for (const auto& d : b.inv.rdma) {
      if (f->netdev && (d.parent_netdev == f->netdev->name || d.parent_netdev == netdev)) {
        exists = true;
        if (!l.name.empty() && d.name != l.name) {
          b.note(kind + " link on " + netdev + " exists as " + d.name + ", not " + l.name +
                 "; left as it is");
        }
      }
    }
    if (exists) continue;
    const std::string name = name_of();
    Action a{CreateSoftLink{netdev, name, l.kind}, "absent", l.source};
    PlanBuilder::need(a, f->producer);
    PlanBuilder::need(a, b.module_action(std::string(module_of(l.kind))));
    b.add_planned_soft(name, {b.add(std::move(a)), l.kind});
  }
}

}  // namespace rp
