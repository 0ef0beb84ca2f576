// PlanBuilder: what the capability planners (plan/modules.cc, mlx4.cc, names.cc,
// soft_links.cc, roce.cc, ipoib.cc, network.cc, waits.cc) share while they append
// actions in the kernel's order: the actions so far, which action produces an interface
// or a device, which action loads a module, and the name an interface ends up with.
// Each planner reads the Config and the Inventory and writes only through this.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "provision/resolve/module_needs.h"

namespace rp {

// What an interface name refers to once earlier actions have run.
struct Iface {
  const NetDev* netdev = nullptr;  // present now (under its current name)
  std::optional<size_t> producer;  // the action that creates, renames or reconfigures it
};

class PlanBuilder {
 public:
  PlanBuilder(const Config& cfg, const Inventory& inv, Plan& plan);

  const Config& cfg;
  const Inventory& inv;

  // Appends an action; returns its index.
  size_t add(Action a);
  const Action& action(size_t i) const { return plan_.actions[i]; }
  size_t size() const { return plan_.actions.size(); }
  // Makes `a` wait for `dep` (once), when there is one.
  static void need(Action& a, std::optional<size_t> dep);
  void note(std::string text) { plan_.notes.push_back(std::move(text)); }
  void warn(const Source& where, std::string text) { plan_.diag.warn(where, std::move(text)); }
  // An object the configuration names that is absent and will not appear: a warning at
  // `where`, "<what>: no <noun> <wanted> is present", followed by what is present of that kind
  // (key: what `wanted` is compared with; shown: how the list shows it) and, for a typo,
  // the one meant. A mistyped MAC or device name is no longer a quiet note.
  struct Candidate {
    std::string key, shown;
  };
  void absent(const Source& where, const std::string& what, const std::string& noun,
              const std::string& wanted, const std::vector<Candidate>& present);
  // The same where the boot goes on without it, less well (a bond's second slave): said,
  // and listed as absent (apply waits for udev's coldplug to bring it), never failed.
  void absent_warn(const Source& where, const std::string& said) {
    plan_.absent.push_back(said);
    warn(where, said);
  }
  // The same for a wait the administrator named: an action that fails at once with that
  // text (Action::never; `check` says it as a warning), so apply does not end in exit 0
  // and rd.rdma.required=1 stops the boot there rather than in dracut's wait for the
  // network, far from the cause.
  void absent_wait(Action a, const std::string& noun, const std::string& wanted,
                   const std::vector<Candidate>& present);
  // The same for an interface, with the interfaces listed by the names they will have;
  // a name this plan renames away is said as such ("ib0 is renamed fab0 by ..."), not
  // as a typo of itself.
  void absent_iface(const Source& where, const std::string& what, const std::string& noun,
                    const std::string& wanted);
  void absent_iface_wait(Action a, const std::string& wanted);
  // What is present, for those messages: every RDMA port ("mlx5_0/1"; RoCE ports only
  // with `roce`), every interface by the name it will have (with the name it has now
  // when that differs), every interface by hardware address.
  std::vector<Candidate> present_ports(bool roce) const;
  std::vector<Candidate> present_netdevs() const;
  std::vector<Candidate> present_addresses(bool guid) const;
  // Every interface on a PCI function, by the pci-<bdf>/<port> a name would give it.
  std::vector<Candidate> present_pci_ports() const;
  void defer_module(std::string module) { plan_.deferred_modules.push_back(std::move(module)); }
  Diagnostics& diag() { return plan_.diag; }

  // Which modules this machine needs (module_needs.h), computed once.
  const ModuleNeeds& module_needs() const { return needs_; }
  // Modules. load_module() plans a load once (none when loaded or blacklisted) and
  // returns the action that loads it, if any; module_action() only looks.
  std::optional<size_t> load_module(const std::string& module, const std::string& reason);
  std::optional<size_t> module_action(const std::string& module) const;
  void set_module_action(const std::string& module, size_t i) { module_action_[module] = i; }
  // mlx4_en's PFC masks, when asked for (set by the modules planner before any load).
  std::optional<PfcMasks> pfc;
  std::string pfc_source;

  // mlx4 port-type and port-MTU actions: mlx4_en loads after them.
  const std::vector<size_t>& port_actions() const { return port_actions_; }
  void add_port_action(size_t i) { port_actions_.push_back(i); }

  // Devices: the action that makes an RDMA device (re)appear (a port-type change
  // re-registers the card's devices; a soft link creates one).
  std::optional<size_t> device_producer(const std::string& ibdev) const;
  void set_device_producer(const std::string& ibdev, size_t i) { device_producer_[ibdev] = i; }
  // RDMA driver loads (mlx5_ib for mlx5_core, ...): the devices they register are not
  // known by name before, so an action on a named device that is absent now waits for the
  // last of them (the device must appear during apply).
  std::optional<size_t> driver_load() const { return driver_load_; }
  void set_driver_load(size_t i) { driver_load_ = i; }
  // Soft devices this plan creates: name -> (action, kind).
  struct PlannedSoft {
    size_t action;
    SoftKind kind;
  };
  const std::map<std::string, PlannedSoft>& planned_soft() const { return planned_soft_; }
  void add_planned_soft(const std::string& name, PlannedSoft s);
  // Soft devices made at the online point of an interface dracut makes after apply
  // (Plan::online_ifaces): device name -> that interface. What names the device (by its
  // name or by the interface) waits for that run instead of being absent now.
  void defer_soft(const std::string& device, const std::string& iface);
  // The interface whose online point makes the device `sel` means, or "".
  std::string deferred_iface(const RdmaSelector& sel) const;

  // Interfaces, by the name they have now or will have after earlier actions.
  const Iface* iface(const std::string& name) const;
  void set_iface(const std::string& name, Iface f) { ifaces_[name] = f; }
  void set_producer(const std::string& name, size_t i) { ifaces_[name].producer = i; }
  void forget_iface(const std::string& name) { ifaces_.erase(name); }
  // The name an interface present now will have once the renames have run.
  std::string final_name(const std::string& now) const;
  void set_final_name(const std::string& now, const std::string& final) { renamed_[now] = final; }
  // The link-up action of an interface, if any.
  std::optional<size_t> up_action(const std::string& ifname) const;
  void set_up_action(const std::string& ifname, size_t i) { up_action_[ifname] = i; }

 private:
  Plan& plan_;
  ModuleNeeds needs_;
  std::map<std::string, size_t> module_action_;
  std::vector<size_t> port_actions_;
  std::map<std::string, size_t> device_producer_;
  std::optional<size_t> driver_load_;
  std::map<std::string, PlannedSoft> planned_soft_;
  std::map<std::string, std::string> deferred_soft_;
  std::map<std::string, Iface> ifaces_;
  std::map<std::string, std::string> renamed_;
  std::map<std::string, size_t> up_action_;
  std::string renamed_away(const std::string& wanted) const;
};

// The capability planners, in the order build() runs them (plan/plan.cc).
void plan_mlx4_core(PlanBuilder& b);      // plan/mlx4.cc: mlx4_core before its port files
void plan_port_types(PlanBuilder& b);     // plan/mlx4.cc: mlx4_portN, mlx4_portN_mtu
void plan_modules(PlanBuilder& b);        // plan/modules.cc: PFC, drivers, asked-for modules
void plan_renames(PlanBuilder& b);        // plan/names.cc: persistent names
void check_boot_ifaces(PlanBuilder& b);   // plan/names.cc: ip=, bootdev= against the names
void plan_soft_links(PlanBuilder& b);     // plan/soft_links.cc: rxe/siw links
void plan_roce(PlanBuilder& b);           // plan/roce.cc: rdma_cm RoCE mode and ToS
void plan_pkey_children(PlanBuilder& b);  // plan/ipoib.cc: P_Key children
void plan_ipoib(PlanBuilder& b);          // plan/ipoib.cc: IPoIB mode, MTU
void plan_dcb(PlanBuilder& b);            // plan/dcb.cc: ETS, PFC, DSCP priorities (trust)
void plan_links_up(PlanBuilder& b);       // plan/network.cc: links up
void plan_addresses(PlanBuilder& b);      // plan/network.cc: addresses and routes
void plan_waits(PlanBuilder& b);          // plan/waits.cc: rd.rdma.wait
void plan_verify(PlanBuilder& b);         // plan/verify.cc: rd.rdma.verify=ports
void plan_expect(PlanBuilder& b);         // plan/expect.cc: rd.rdma.expect
void plan_nvmf_path(PlanBuilder& b);      // plan/nvmf.cc: an RDMA port for rd.nvmf.discover
// "; present: a, b (did you mean 'a'?)", or "; none is present": what PlanBuilder::absent
// appends to its warning.
std::string present_hint(const std::string& wanted,
                         const std::vector<PlanBuilder::Candidate>& present);
void plan_bonds(PlanBuilder& b);  // plan/bonds.cc: dracut's bond= over IPoIB
// The IPoIB interfaces among the slaves dracut's bond= gives `bond` (plan/bonds.cc).
std::vector<std::string> ipoib_bond_slaves(const PlanBuilder& b, const std::string& bond);
void plan_bootif(PlanBuilder& b);  // plan/bootif.cc: BOOTIF naming an InfiniBand port
// plan/rdma_names.cc: rd.rdma.devname, first (the rest is planned against the new names;
// `before`: the inventory with the names the devices have now).
struct RdmaNameMoves;
void plan_rdma_names(PlanBuilder& b, const RdmaNameMoves& planned, const Inventory& before);

// A link-up action for `ifname` (plan/network.cc): the one planned already, a new one when
// the interface is down or does not exist yet, none when it is up.
std::optional<size_t> plan_link_up(PlanBuilder& b, const std::string& ifname,
                                   const std::string& reason);
// Waits for port `port` of `dev` to be ACTIVE (plan/waits.cc), once per port and plan; a
// RoCE port's interface is brought up first. `carrier_grace`: WaitPort::carrier_grace.
void plan_port_wait(PlanBuilder& b, const std::string& dev, unsigned port,
                    const std::string& reason, bool carrier_grace = false);

// The RDMA ports the configuration involves (plan/waits.cc): what rd.rdma.wait=all waits
// for and rd.rdma.verify checks.
std::set<std::pair<std::string, unsigned>> involved_ports(const PlanBuilder& b);
// The ports under the interfaces of the boot's network (ip=, bootdev=).
std::set<std::pair<std::string, unsigned>> boot_ports(const PlanBuilder& b);
// The action that waits for port `port` of `device`, if the plan has one.
std::optional<size_t> wait_port_action(const PlanBuilder& b, const std::string& device,
                                       unsigned port);

}  // namespace rp
