#include "provision/plan/builder.h"

#include <algorithm>

#include "provision/base/sort.h"
#include "provision/base/strings.h"

namespace rp {

PlanBuilder::PlanBuilder(const Config& c, const Inventory& i, Plan& plan)
    : cfg(c), inv(i), plan_(plan), needs_(rp::module_needs(c, machine_of(c, i))) {
  for (const auto& n : inv.netdevs) ifaces_[n.name] = Iface{&n, std::nullopt};
}

size_t PlanBuilder::add(Action a) {
  plan_.actions.push_back(std::move(a));
  return plan_.actions.size() - 1;
}

void PlanBuilder::need(Action& a, std::optional<size_t> dep) {
  if (dep && std::find(a.after.begin(), a.after.end(), *dep) == a.after.end()) {
    a.after.push_back(*dep);
  }
}

std::optional<size_t> PlanBuilder::module_action(const std::string& module) const {
  auto it = module_action_.find(module);
  return it == module_action_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> PlanBuilder::load_module(const std::string& module,
                                               const std::string& reason) {
  if (auto i = module_action(module)) return i;
  if (inv.module_loaded(module)) return std::nullopt;
  if (auto f = cfg.forbidden.find(module); f != cfg.forbidden.end()) {
    note("module " + module + " (" + reason + ") is forbidden at " + f->second.source +
         " ('install " + module + " " + f->second.value + "'); not loaded");
    return std::nullopt;
  }
  for (const auto& b : cfg.blacklist) {
    if (b.value == module) {
      note("module " + module + " (" + reason + ") is blacklisted at " + b.source + "; not loaded");
      return std::nullopt;
    }
  }
  LoadModule p{module, "", std::nullopt};
  std::string why = reason;
  if (auto o = cfg.module_options.find(module);
      o != cfg.module_options.end() && o->second.source.origin != Source::Origin::kModprobeD) {
    p.options = o->second.value;
    // The source once: "options from" only when another input asks for the load.
    if (o->second.source.str() != reason) why += "; options from " + o->second.source;
  }
  const bool with_pfc = module == "mlx4_en" && pfc;
  if (with_pfc) {
    p.pfc = pfc;
    if (pfc_source != reason) why += "; PFC from " + pfc_source;
  }
  Action a{std::move(p), "not loaded", why};
  if (with_pfc) {
    for (size_t dep : port_actions_) need(a, dep);
  }
  const size_t i = add(std::move(a));
  module_action_[module] = i;
  return i;
}

std::optional<size_t> PlanBuilder::device_producer(const std::string& ibdev) const {
  if (auto it = planned_soft_.find(ibdev); it != planned_soft_.end()) return it->second.action;
  if (auto it = device_producer_.find(ibdev); it != device_producer_.end()) return it->second;
  return std::nullopt;
}

void PlanBuilder::add_planned_soft(const std::string& name, PlannedSoft s) {
  planned_soft_[name] = s;
}

const Iface* PlanBuilder::iface(const std::string& name) const {
  auto it = ifaces_.find(name);
  return it == ifaces_.end() ? nullptr : &it->second;
}

std::string PlanBuilder::final_name(const std::string& now) const {
  auto it = renamed_.find(now);
  return it == renamed_.end() ? now : it->second;
}

std::optional<size_t> PlanBuilder::up_action(const std::string& ifname) const {
  auto it = up_action_.find(ifname);
  return it == up_action_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

// "; present: a, b (did you mean 'a'?)", or "; none is present".
std::string present_hint(const std::string& wanted,
                         const std::vector<PlanBuilder::Candidate>& present) {
  if (present.empty()) return "; none is present";
  std::vector<std::string_view> keys;
  std::string list;
  for (const auto& c : present) {
    keys.push_back(c.key);
    list += (list.empty() ? "" : ", ") + c.shown;
  }
  std::string o = "; present: " + list;
  if (auto near = closest_word(wanted, keys); !near.empty()) {
    o += " (did you mean " + quote(near) + "?)";
  }
  return o;
}

void PlanBuilder::defer_soft(const std::string& device, const std::string& iface) {
  deferred_soft_[device] = iface;
  auto& v = plan_.online_ifaces;
  if (std::find(v.begin(), v.end(), iface) == v.end()) v.push_back(iface);
}

std::string PlanBuilder::deferred_iface(const RdmaSelector& sel) const {
  for (const auto& [device, iface] : deferred_soft_) {
    if ((sel.by == RdmaSelector::By::kName && sel.name == device) ||
        (sel.by == RdmaSelector::By::kNetdev && sel.name == iface))
      return iface;
  }
  return "";
}

void PlanBuilder::absent(const Source& where, const std::string& what, const std::string& noun,
                         const std::string& wanted, const std::vector<Candidate>& present) {
  const std::string said = what + ": no " + noun + " " + wanted + " is present";
  plan_.absent.push_back(said);
  if (!cfg.required.value) return plan_.diag.warn(where, said + present_hint(wanted, present));
  // rd.rdma.required=1: a boot that asked for it and goes on without it is a failed boot,
  // not a warning in the kernel log (check says the warning, apply fails the action).
  plan_.diag.warn(where, said + present_hint(wanted, present) + "; " + cfg.required.source.str() +
                             ": apply fails the boot on it");
  Action a{Require{what, noun, wanted}, "absent", where.str()};
  a.never = "no such " + noun + " is present" + present_hint(wanted, present);
  add(std::move(a));
}

void PlanBuilder::absent_wait(Action a, const std::string& noun, const std::string& wanted,
                              const std::vector<Candidate>& present) {
  plan_.absent.push_back(std::string(to_string(a.kind())) + " " + a.object() + ": no " + noun +
                         " " + wanted + " is present");
  a.never = "no such " + noun + " is present" + present_hint(wanted, present);
  add(std::move(a));
}

// "ib0 is renamed fab0 by <its name's source>: ...", when `wanted` is the name an
// interface has now and this plan gives it another one; else "".
std::string PlanBuilder::renamed_away(const std::string& wanted) const {
  const std::string final = final_name(wanted);
  if (final == wanted || iface(wanted)) return "";
  auto named = cfg.names.find(final);
  return "interface " + wanted + " is renamed " + final +
         (named == cfg.names.end() ? "" : " by " + named->second.source) +
         " before this applies: name it " + final;
}

void PlanBuilder::absent_iface(const Source& where, const std::string& what,
                               const std::string& noun, const std::string& wanted) {
  if (auto r = renamed_away(wanted); !r.empty()) return plan_.diag.warn(where, what + ": " + r);
  absent(where, what, noun, wanted, present_netdevs());
}

void PlanBuilder::absent_iface_wait(Action a, const std::string& wanted) {
  if (auto r = renamed_away(wanted); !r.empty()) {
    a.never = r;
    add(std::move(a));
    return;
  }
  absent_wait(std::move(a), "interface", wanted, present_netdevs());
}

std::vector<PlanBuilder::Candidate> PlanBuilder::present_ports(bool roce) const {
  std::vector<Candidate> out;
  for (const auto& d : inv.rdma) {
    for (const auto& p : d.ports) {
      if (roce && (p.link_layer != LinkLayer::kEthernet || d.iwarp())) continue;
      const std::string k = d.name + "/" + std::to_string(p.num);
      out.push_back({k, k});
    }
  }
  return out;
}

std::vector<PlanBuilder::Candidate> PlanBuilder::present_netdevs() const {
  std::vector<Candidate> out;
  for (const auto& n : inv.netdevs) {
    if (n.type == kArphrdLoopback) continue;
    const std::string final = final_name(n.name);
    out.push_back({final, final == n.name ? final : final + " (now " + n.name + ")"});
  }
  return out;
}

std::vector<PlanBuilder::Candidate> PlanBuilder::present_addresses(bool guid) const {
  std::vector<Candidate> out;
  // A name by GUID matches an InfiniBand port's GUID (its IPoIB interface's address ends
  // with it: ipoib_main.c ipoib_add_port), whether ib_ipoib has made the interface yet.
  for (const auto& d : inv.rdma) {
    for (const auto& p : d.ports) {
      if (!guid || !p.guid || p.link_layer != LinkLayer::kInfiniBand) continue;
      const std::string k = HwKey::of_guid(*p.guid).str();
      out.push_back({k, d.name + "/" + std::to_string(p.num) + " " + k});
    }
  }
  for (const auto& n : inv.netdevs) {
    if (guid || n.type != kArphrdEther) continue;
    if (auto m = n.address.mac()) {
      const std::string k = HwKey::of_mac(*m).str();
      out.push_back({k, n.name + " " + k});
    }
  }
  return out;
}

std::vector<PlanBuilder::Candidate> PlanBuilder::present_pci_ports() const {
  std::vector<Candidate> out;
  for (const auto& n : inv.netdevs) {
    if (!n.pci || !n.parent.empty() || n.type == kArphrdLoopback) continue;
    const std::string k = HwKey::of_pci(*n.pci, n.dev_port + 1).str();
    out.push_back({k, k + " " + n.name});
  }
  sort_by(out, [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
  return out;
}

}  // namespace rp
