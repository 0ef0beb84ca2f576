// Persistent names: the interface whose port GUID (IPoIB: the last 8 bytes of the 20-byte
// address, drivers/infiniband/ulp/ipoib/ipoib_main.c ipoib_add_port) or MAC matches a
// configured name, or that sits at its PCI function and port or RDMA port (name_key.h),
// gets it, through the rename solver (temporary names for swaps and for
// an unrelated interface holding a wanted name). An IPoIB interface that appears only
// when ib_ipoib loads is renamed then.
#include "provision/base/drivers.h"
#include "provision/base/strings.h"
#include "provision/plan/builder.h"
#include "provision/plan/rdma_select.h"
#include "provision/plan/rename_solver.h"
#include "provision/resolve/name_key.h"

namespace rp {
namespace {

// Whether an interface is RDMA or IPoIB hardware: IPoIB, under an RDMA device, or driven
// by a NIC driver with an RDMA side (base/drivers.h).
bool rdma_hardware(const NetDev& n) {
  return n.type == kArphrdInfiniband || !n.rdma_device.empty() ||
         rdma_driver_for(n.driver).has_value();
}

const NetDev* netdev_by_index(const Inventory& inv, int ifindex) {
  for (const auto& n : inv.netdevs)
    if (n.ifindex == ifindex) return &n;
  return nullptr;
}

// The warning for a name whose interface is absent and will not appear, with what is
// present of the kind the key names.
void absent_name(PlanBuilder& b, const std::string& wanted, const Sourced<HwKey>& key) {
  const std::string what = "name " + wanted;
  const HwKey& k = key.value;
  switch (k.by) {
    case HwKey::By::kGuid:
    case HwKey::By::kMac:
      b.absent(key.source, what, k.is_guid() ? "interface with port GUID" : "interface with MAC",
               k.str(), b.present_addresses(k.is_guid()));
      return;
    case HwKey::By::kPci:
      b.absent(key.source, what, "interface at", k.str(), b.present_pci_ports());
      return;
    case HwKey::By::kRdmaPort:
      // rdma-core's rdma_rename may have renamed the device (mlx5_0 -> rocep175s0f0,
      // kernel-boot/rdma_rename.c): <ibdev>/<port> means the name the device has now.
      if (const std::string renamed = renamed_devices_hint(b.inv);
          !b.inv.find_rdma(k.device) && !renamed.empty()) {
        b.diag().warn(key.source, what + ": no RDMA device " + k.device +
                                      " is present; rdma-core's persistent naming "
                                      "(60-rdma-persistent-naming.rules) has renamed the RDMA "
                                      "devices here: " +
                                      renamed + "; name the interface by pci-<address>/<port>");
        return;
      }
      b.absent(key.source, what, "interface of RDMA port", k.str(), b.present_ports(false));
      return;
  }
}

}  // namespace

void plan_renames(PlanBuilder& b) {
  std::vector<RenameMove> moves;
  std::vector<std::string> reasons;
  std::map<const NetDev*, std::string> named;  // interface -> the name that claims it
  for (const auto& [wanted, key] : b.cfg.names) {
    const NetDev* n = netdev_for_key(b.inv, key.value);
    if (!n) {
      const std::optional<size_t> ipoib = b.module_action("ib_ipoib");
      const std::optional<PortGuid> guid = awaited_ipoib_guid(b.inv, key.value);
      if (guid && ipoib) {
        // The IPoIB netdev appears when ib_ipoib loads: rename it then.
        Action a{Rename{"", wanted, std::nullopt, *guid}, "absent", key.source};
        a.waiting_for = "IPoIB netdev of port GUID " + HwKey::of_guid(*guid).str();
        PlanBuilder::need(a, ipoib);
        b.set_iface(wanted, Iface{nullptr, b.add(std::move(a))});
      } else {
        absent_name(b, wanted, key);
      }
      continue;
    }
    if (const std::string also = also_named_by_key(b.inv, key.value, *n); !also.empty()) {
      b.diag().error(key.source, key.value.str() + " names " + n->name + " and " + also +
                                     " (the same function and dev_port): name it by its MAC");
      continue;
    }
    // Two keys of different kinds (a MAC and pci-<bdf>) may name one interface.
    if (auto [it, fresh] = named.emplace(n, wanted); !fresh) {
      b.diag().error(key.source, key.value.str() + " is interface " + n->name + ", which " +
                                     b.cfg.names.at(it->second).source + " names " +
                                     quote(it->second) + ": one interface, two names");
      continue;
    }
    if (n->name == wanted) continue;
    moves.push_back({n->ifindex, n->name, wanted});
    reasons.push_back(key.source);
  }
  std::map<std::string, int> holders;
  for (const auto& n : b.inv.netdevs) holders[n.name] = n.ifindex;
  // An interface in the way that is not being renamed itself must be RDMA hardware, or the
  // administrator must allow moving it: renaming a management NIC cuts the node off.
  std::vector<RenameMove> allowed;
  std::vector<std::string> allowed_reasons;
  for (size_t i = 0; i < moves.size(); ++i) {
    auto h = holders.find(moves[i].to);
    bool moving = false;
    for (const auto& m : moves) moving |= h != holders.end() && m.ifindex == h->second;
    const NetDev* holder = h == holders.end() ? nullptr : netdev_by_index(b.inv, h->second);
    if (holder && !moving && !rdma_hardware(*holder) && !b.cfg.allow_rename_other.value) {
      const NetDev* n = netdev_by_index(b.inv, moves[i].ifindex);
      b.diag().error(reasons[i], "interface " + holder->name + " (" + holder->address.str() +
                                     (holder->driver.empty() ? "" : ", " + holder->driver) +
                                     ") holds the name wanted for " + n->name + " (" +
                                     n->address.str() +
                                     ") and is not RDMA hardware: it is not renamed (allow_rename_"
                                     "other = yes in [general] allows it), so neither is " +
                                     n->name);
      continue;
    }
    allowed.push_back(moves[i]);
    allowed_reasons.push_back(reasons[i]);
  }
  moves.swap(allowed);
  reasons.swap(allowed_reasons);
  std::optional<size_t> prev;
  for (const RenameStep& s : solve_renames(moves, holders)) {
    const NetDev* n = netdev_by_index(b.inv, s.ifindex);
    std::string why = reasons[s.move];
    if (s.why == RenameStep::Why::kCycle) why += " (temporary name: its target is taken)";
    if (s.why == RenameStep::Why::kUnrelated) {
      why += " (moves the unrelated interface holding " + s.from + " out of the way)";
      b.diag().warn(reasons[s.move], "interface " + s.from + " (" + n->address.str() +
                                         ") holds the wanted name; it is renamed to " + s.to);
    }
    Action a{Rename{s.from, s.to, n->address, std::nullopt}, s.from, why};
    if (const Iface* f = b.iface(s.from)) PlanBuilder::need(a, f->producer);
    PlanBuilder::need(a, prev);
    prev = b.add(std::move(a));
    switch (s.why) {
      case RenameStep::Why::kWanted:
        b.set_iface(s.to, Iface{n, prev});
        b.set_final_name(n->name, s.to);
        b.forget_iface(s.from);
        break;
      case RenameStep::Why::kUnrelated:
        b.set_iface(s.to, Iface{n, prev});
        break;
      case RenameStep::Why::kCycle:
        break;
    }
  }
}

// NetworkManager in the initramfs, against this machine's interfaces and this plan's
// renames (the configuration alone: inputs/networkmanager.cc).
static void check_networkmanager_names(PlanBuilder& b) {
  const std::string nm =
      "NetworkManager configures this boot's network (" + b.cfg.boot.network_manager->str() + ")";
  // An IPoIB interface that is here under a name without the "ib" prefix (one udev gave
  // it, 70-persistent-ipoib.rules' "mlx4_ib0"): nm-initrd-generator makes an Ethernet
  // connection for that name (nmi-cmdline-reader.c reader_get_connection), which never
  // activates on it. Names this configuration gives were checked with the inputs.
  for (const auto& [name, src] : b.cfg.boot.ifaces) {
    const Iface* f = b.iface(name);
    if (!f || !f->netdev || f->netdev->type != kArphrdInfiniband || starts_with(name, "ib") ||
        b.cfg.names.count(name))
      continue;
    b.diag().error(src,
                   name + " is an IPoIB interface here, but " + nm +
                       ", and nm-initrd-generator makes an Ethernet connection for a name "
                       "without the \"ib\" prefix (nmi-cmdline-reader.c "
                       "reader_get_connection), which never activates on InfiniBand: name "
                       "it so that it starts with \"ib\" (rd.rdma.name=ib-" +
                       name + ":" +
                       (f->netdev->address.ipoib_guid() ? f->netdev->address.ipoib_guid()->str()
                                                        : std::string("<port GUID>")) +
                       ")");
  }
  // ib.pkey=: NetworkManager finds the parent by its name when it creates the partition
  // (nm-manager.c find_parent_device_for_connection) and waits for it otherwise; a parent
  // this plan renames away never comes.
  for (const auto& c : b.cfg.boot.nm_pkeys) {
    const std::string final = b.final_name(c.parent);
    if (final == c.parent) continue;
    b.diag().error(*c.nm_source,
                   "NetworkManager makes this partition on an interface named " + c.parent +
                       " (nm-manager.c find_parent_device_for_connection), and " +
                       b.cfg.names.at(final).source + " renames " + c.parent + " to " + final +
                       " before NetworkManager starts: write "
                       "ib.pkey=" +
                       final + "." + hex(c.pkey, 4));
  }
}

// dracut's ip= and bootdev= name the interface the boot's network is set up on
// (modules.d/40network/net-lib.sh ip_to_var; ifup waits for that name): one this plan
// renames away, or a typo of a name there is, leaves dracut waiting for an interface that
// never comes, far from the cause. Said as warnings, as ifname= clashes are errors.
namespace {

// Whether the boot will have an interface called `name` ("" when it will: named here or by
// dracut's ifname=, present or made by this plan, an IPoIB interface ib_ipoib will make, a
// virtual one dracut makes, bond=, vlan=...); "absent" when nothing provides it; else the
// warning that says why dracut will wait for it in vain.
std::string unprovided(const PlanBuilder& b, const std::string& name) {
  if (b.cfg.names.count(name) || b.cfg.boot.dracut_ifnames.count(name)) return "";
  if (const std::string final = b.final_name(name); final != name) {
    return cat({name, " is renamed to ", final, " (", b.cfg.names.at(final).source.str(),
                "): dracut would wait for ", name, " in vain; name ", final, " here"});
  }
  if (b.iface(name)) return "";  // present, or made by this plan
  // IPoIB interfaces appear when ib_ipoib loads, under the kernel's ib%d
  // (ipoib_main.c ipoib_add_port -> ipoib_intf_alloc with "ib%d").
  if (b.module_action("ib_ipoib") && name.rfind("ib", 0) == 0) return "";
  if (b.cfg.boot.dracut_virtual.count(name)) return "";  // dracut's bond=, vlan=... make it
  return "absent";
}

}  // namespace

void check_boot_ifaces(PlanBuilder& b) {
  if (b.cfg.boot.network_manager) check_networkmanager_names(b);
  for (const auto& [name, src] : b.cfg.boot.ifaces) {
    const std::string why = unprovided(b, name);
    if (why.empty()) continue;
    // Nothing present, named or made is called so: dracut's ifup (or NetworkManager)
    // waits for it until its own timeout, and the root is never mounted.
    if (why == "absent")
      b.absent(src, "the boot's network (dracut waits for it)", "interface", name,
               b.present_netdevs());
    else
      b.diag().warn(src, why);
  }
  // dracut's bond= slaves (parse-bond.sh; ifup.sh enslaves each as it appears): with none
  // of them the bond never carries the boot's network; without some it comes up with the
  // others and no link to fail over to.
  for (const auto& bond : b.cfg.boot.bonds) {
    std::vector<std::string> there, missing;
    for (const auto& s : bond.slaves) {
      const std::string why = unprovided(b, s);
      if (why.empty()) {
        there.push_back(s);
      } else if (why != "absent") {
        b.diag().warn(bond.source, why);
      } else {
        missing.push_back(s);
      }
    }
    for (const auto& s : missing) {
      if (there.empty()) {
        b.absent(bond.source, cat({"bond ", bond.name, " (dracut enslaves its slaves)"}),
                 "interface", s, b.present_netdevs());
      } else {
        b.absent_warn(bond.source,
                      cat({"bond ", bond.name, ": no interface ", s,
                           " is present and nothing here makes it: the bond comes up with ",
                           join(there, ", "), " alone, without a link to fail over to"}));
      }
    }
  }
}

}  // namespace rp
