// Bonds as the boot's network (#42): dracut's bond= (35network-legacy parse-bond.sh, and
// nm-initrd-generator's reading of the same form) over IPoIB interfaces. The bonding
// driver takes an InfiniBand slave only in active-backup mode and only beside slaves of
// its own type (drivers/net/bonding/bond_main.c bond_enslave: "Only active-backup mode is
// supported for infiniband slaves", EOPNOTSUPP; "Device type is different from other
// slaves", EINVAL); it sets fail_over_mac=active itself for the first IPoIB slave (an
// IPoIB address cannot be set: same function). A bond dracut would make that the kernel
// refuses is said at check and image build, and fails the boot under rd.rdma.required=1,
// instead of a network that never comes up; the IPoIB slaves' ports are waited for
// ACTIVE as a boot interface's are (plan/waits.cc).
#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

// Whether `name` is (or will be) an IPoIB interface: present as one (ARPHRD_INFINIBAND),
// or named by a port GUID (the configuration's names and the node table's rows).
bool ipoib(const PlanBuilder& b, const std::string& name) {
  const Iface* f = b.iface(name);
  if (f && f->netdev) return f->netdev->type == kArphrdInfiniband;
  if (auto n = b.cfg.names.find(name); n != b.cfg.names.end()) return n->second.value.is_guid();
  for (const auto& [k, row] : b.cfg.nodes_by_guid)
    if (b.cfg.row_name(row) == name) return true;
  return false;
}

bool ethernet(const PlanBuilder& b, const std::string& name) {
  const Iface* f = b.iface(name);
  return f && f->netdev && f->netdev->type == kArphrdEther;
}

void refuse(PlanBuilder& b, const BootContext::Bond& bond, const std::string& why) {
  const std::string said = "bond " + bond.name + ": " + why;
  if (!b.cfg.required.value) return b.warn(bond.source, said);
  b.warn(bond.source, said + "; " + b.cfg.required.source.str() + ": apply fails the boot on it");
  Action a{Require{"bond " + bond.name, "bond the kernel accepts", bond.name}, "refused",
           bond.source.str()};
  a.never = said;
  b.add(std::move(a));
}

}  // namespace

std::vector<std::string> ipoib_bond_slaves(const PlanBuilder& b, const std::string& bond) {
  std::vector<std::string> out;
  for (const auto& bd : b.cfg.boot.bonds)
    if (bd.name == bond)
      for (const auto& s : bd.slaves)
        if (ipoib(b, s)) out.push_back(s);
  return out;
}

void plan_bonds(PlanBuilder& b) {
  for (const auto& bond : b.cfg.boot.bonds) {
    std::vector<std::string> ib, eth;
    for (const auto& s : bond.slaves) {
      if (ipoib(b, s)) ib.push_back(s);
      if (ethernet(b, s)) eth.push_back(s);
    }
    if (ib.empty()) continue;
    if (!eth.empty()) {
      refuse(b, bond,
             "IPoIB slaves (" + join(ib, ", ") + ") beside Ethernet ones (" + join(eth, ", ") +
                 "): the bonding driver refuses a slave of another type than the first "
                 "(bond_main.c bond_enslave: \"Device type is different from other slaves\")");
      continue;
    }
    if (bond.mode == "active-backup" || bond.mode == "1") continue;
    refuse(b, bond,
           "IPoIB slaves (" + join(ib, ", ") + ") in mode " +
               (bond.mode.empty() ? std::string("balance-rr (the bonding driver's default: "
                                                "bond= gives no mode=)")
                                  : bond.mode) +
               ": the bonding driver takes an InfiniBand slave only in active-backup mode "
               "(bond_main.c bond_enslave: \"Only active-backup mode is supported for "
               "infiniband slaves\"), so the bond never gets a slave; write "
               "bond=" +
               bond.name + ":" + join(bond.slaves, ",") + ":mode=active-backup,miimon=100");
  }
}

}  // namespace rp
