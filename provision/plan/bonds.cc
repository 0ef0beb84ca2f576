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
//
// A bond= of both PFs of an mlx5 card in a mode RoCE LAG takes (plan_lag) replaces their
// two RDMA devices by one once dracut makes it, after apply: what the boot names of the
// two is said. A LAG already formed is followed by pci- and netdev- selectors
// (plan/rdma_select.cc).
#include "provision/base/sort.h"
#include "provision/base/strings.h"
#include "provision/plan/builder.h"
#include "provision/plan/rdma_select.h"

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
  const std::string said = cat({"bond ", bond.name, ": ", why});
  if (!b.cfg.required.value) return b.warn(bond.source, said);
  b.warn(bond.source,
         cat({said, "; ", b.cfg.required.source.str(), ": apply fails the boot on it"}));
  Action a{Require{cat({"bond ", bond.name}), "bond the kernel accepts", bond.name}, "refused",
           bond.source.str()};
  a.never = said;
  b.add(std::move(a));
}

// RoCE LAG (mlx5 lag/lag.c): the bonding modes whose transmit type it takes
// (mlx5_handle_changeupper_event: NETDEV_LAG_TX_TYPE_ACTIVEBACKUP or _HASH, which
// bond_main.c bond_lag_tx_type gives active-backup, balance-xor and 802.3ad).
bool lag_mode(const std::string& m) {
  return m == "active-backup" || m == "1" || m == "balance-xor" || m == "2" || m == "802.3ad" ||
         m == "4";
}

// The RDMA devices a bond= joins into a RoCE LAG when dracut makes it: its slaves are
// the interfaces of every mlx5 RoCE device on one PCI slot, and only those (the card's
// PFs: lag.c is_in_lag, "both its physical ports are slaves of the same lag master, and
// only them"; the kernel pairs PFs by system image GUID, mlx5_get_next_phys_dev_lag,
// which a card's PFs share), in a mode LAG takes. Another mlx5 device on that slot (a
// VF: LAG forms only without VFs in legacy mode, mlx5_lag_check_prereq) rules it out.
std::vector<const RdmaDevice*> lag_devices(const PlanBuilder& b, const BootContext::Bond& bond) {
  if (!lag_mode(bond.mode) || bond.slaves.size() < 2) return {};
  std::vector<const RdmaDevice*> devs;
  for (const auto& s : bond.slaves) {
    const Iface* f = b.iface(s);
    const NetDev* n = f ? f->netdev : nullptr;
    const RdmaDevice* d = n && n->type == kArphrdEther ? b.inv.find_rdma(n->rdma_device) : nullptr;
    if (!d || d->driver != "mlx5_core" || !d->pci || b.inv.roce_lag(*d)) return {};
    for (const RdmaDevice* o : devs)
      if (o == d || !o->pci->same_slot(*d->pci)) return {};
    devs.push_back(d);
  }
  for (const auto& d : b.inv.rdma) {
    bool in = false;
    for (const RdmaDevice* o : devs) in = in || o == &d;
    if (!in && d.driver == "mlx5_core" && d.pci && d.pci->same_slot(*devs[0]->pci)) return {};
  }
  sort_by(devs, [](const RdmaDevice* x, const RdmaDevice* y) { return *x->pci < *y->pci; });
  return devs;
}

// What the boot names of the devices a LAG will remove: RoCE defaults (rdma_cm's
// configfs values die with the device: cma.c cma_remove_one; the LAG device starts with
// the kernel's), waits and verify checks on their ports (the devices are gone once the
// bond forms, after apply: they pass here and mean nothing after). Said at check and
// image build.
void plan_lag(PlanBuilder& b, const BootContext::Bond& bond,
              const std::vector<const RdmaDevice*>& devs) {
  std::vector<std::string> names;
  for (const RdmaDevice* d : devs) names.push_back(d->name);
  const std::string pf0 = devs[0]->pci->str();
  const std::string lag =
      cat({"bond ", bond.name, " (", join(bond.slaves, ", "), ", mode ", bond.mode,
           ") takes both PFs of the mlx5 card at ", pf0,
           ": once dracut makes it, mlx5 forms a RoCE LAG, unregisters ", join(names, " and "),
           " and registers one device, mlx5_bond_<n>, on ", pf0, " with its port on ", bond.name,
           " (lag/lag.c mlx5_do_bond, mlx5_ib main.c)"});
  b.note(cat({lag, "; select it by pci-", pf0, " or netdev-", bond.name}));
  const auto names_one = [&](const RdmaSelector& sel) {
    if (sel.by == RdmaSelector::By::kAll) return false;
    for (const auto& [d, port] : select_rdma(b, sel, nullptr))
      for (const RdmaDevice* o : devs)
        if (d == o) return true;
    return false;
  };
  for (const auto& [k, setting] : b.cfg.roce) {
    if (!names_one(k.first)) continue;
    const Source& src = setting.mode ? setting.mode->source : setting.tos->source;
    b.warn(src, cat({"RoCE defaults for ", k.first.str(), ": ", lag,
                     "; the defaults are written before the bond forms and go with the device "
                     "(the LAG device starts with rdma_cm's own)"}));
  }
  for (const auto& w : b.cfg.wait) {
    if (w.value.kind != WaitItem::Kind::kPort || !names_one(w.value.device)) continue;
    b.warn(w.source, cat({"wait for ", w.value.str(), ": ", lag,
                          "; the wait is met before the bond forms, by a device that is gone "
                          "after"}));
  }
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
    if (const auto devs = lag_devices(b, bond); !devs.empty()) plan_lag(b, bond, devs);
    std::vector<std::string> ib, eth;
    for (const auto& s : bond.slaves) {
      if (ipoib(b, s)) ib.push_back(s);
      if (ethernet(b, s)) eth.push_back(s);
    }
    if (ib.empty()) continue;
    if (!eth.empty()) {
      refuse(b, bond,
             cat({"IPoIB slaves (", join(ib, ", "), ") beside Ethernet ones (", join(eth, ", "),
                  "): the bonding driver refuses a slave of another type than the first "
                  "(bond_main.c bond_enslave: \"Device type is different from other slaves\")"}));
      continue;
    }
    if (bond.mode == "active-backup" || bond.mode == "1") continue;
    refuse(b, bond,
           cat({"IPoIB slaves (", join(ib, ", "), ") in mode ",
                bond.mode.empty() ? std::string_view("balance-rr (the bonding driver's default: "
                                                     "bond= gives no mode=)")
                                  : std::string_view(bond.mode),
                ": the bonding driver takes an InfiniBand slave only in active-backup mode "
                "(bond_main.c bond_enslave: \"Only active-backup mode is supported for "
                "infiniband slaves\"), so the bond never gets a slave; write bond=",
                bond.name, ":", join(bond.slaves, ","), ":mode=active-backup,miimon=100"}));
  }
}

}  // namespace rp
