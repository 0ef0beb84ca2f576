// make_plan(): Config + Inventory -> ordered actions. The order is the one the kernel
// implies (see DOMAIN.md): port types before mlx4_en and the RDMA drivers load, names
// before anything configures an interface, Soft-RoCE links and RoCE defaults after
// renames and re-registration, P_Key children before mode, mode before MTU, links up,
// addresses, then waiting for the ports.
#include "provision/plan/plan.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "provision/base/strings.h"
#include "provision/plan/drivers.h"

namespace rp {
namespace {

bool from_modprobe_d(const std::string& source) {
  return starts_with(source, "/lib/modprobe.d/") || starts_with(source, "/etc/modprobe.d/") ||
         starts_with(source, "/run/modprobe.d/");
}

std::string normalized_port_type(const std::string& sysfs_value) {
  // "auto (eth)" means the port is configured auto and currently sensed as eth.
  return starts_with(sysfs_value, "auto") ? "auto" : sysfs_value;
}

// What an interface name will refer to once earlier actions have run.
struct Iface {
  const NetDev* netdev = nullptr;  // present now (under its current name)
  std::optional<size_t> producer;  // the action that creates or renames it
  std::string key;                 // what it waits for when it does not exist yet
};

class Builder {
 public:
  Builder(const Config& cfg, const Inventory& inv, Plan& plan) : cfg_(cfg), inv_(inv), p_(plan) {}

  void build() {
    for (const auto& n : inv_.netdevs) ifaces_[n.name] = Iface{&n, std::nullopt, ""};
    early_modules();
    port_types();
    modules();
    renames();
    soft_links();
    roce();
    pkey_children();
    ipoib();
    links_up();
    addresses();
    waits();
  }

 private:
  size_t add(Action a) {
    p_.actions.push_back(std::move(a));
    return p_.actions.size() - 1;
  }

  static void need(Action& a, std::optional<size_t> dep) {
    if (dep && std::find(a.after.begin(), a.after.end(), *dep) == a.after.end()) {
      a.after.push_back(*dep);
    }
  }

  bool blacklisted(const std::string& module, std::string& source) const {
    for (const auto& b : cfg_.blacklist) {
      if (b.value == module) {
        source = b.source;
        return true;
      }
    }
    return false;
  }

  std::optional<size_t> load_module(const std::string& module, const std::string& reason) {
    if (auto it = module_action_.find(module); it != module_action_.end()) return it->second;
    if (inv_.module_loaded(module)) return std::nullopt;
    std::string bl;
    if (blacklisted(module, bl)) {
      p_.notes.push_back("module " + module + " (" + reason + ") is blacklisted at " + bl +
                         "; not loaded");
      return std::nullopt;
    }
    Action a{ActionKind::kLoadModule, module, "not loaded", "loaded", reason};
    a.value = module;
    if (auto o = cfg_.module_options.find(module);
        o != cfg_.module_options.end() && !from_modprobe_d(o->second.source)) {
      a.extra = o->second.value;
      a.reason += "; options from " + o->second.source;
    }
    if (module == "mlx4_en" && pfc_) {
      a.extra += std::string(a.extra.empty() ? "" : " ") + *pfc_;
      a.wanted = "loaded with " + *pfc_;
      a.reason += "; PFC from " + pfc_source_;
      for (size_t dep : port_type_actions_) need(a, dep);
    }
    size_t i = add(a);
    module_action_[module] = i;
    return i;
  }

  void early_modules() {
    // Port types are set through mlx4_core's sysfs files, before mlx4_en and mlx4_ib.
    if (!cfg_.mlx4.empty()) {
      load_module("mlx4_core", cfg_.mlx4.begin()->second.type[0]
                                   ? cfg_.mlx4.begin()->second.type[0]->source
                                   : "mlx4 port types");
    }
  }

  void port_types() {
    for (const auto& entry : cfg_.mlx4) {
      // Named, not structured bindings: the lambdas below capture them (C++17).
      const PciAddress& pci = entry.first;
      const Mlx4Setting& s = entry.second;
      const PciFunction* fn = nullptr;
      for (const auto& f : inv_.pci)
        if (f.address == pci) fn = &f;
      std::string reason;
      for (int i = 0; i < 2; ++i) {
        if (s.type[i] && reason.find(s.type[i]->source) == std::string::npos) {
          reason += (reason.empty() ? "" : ", ") + s.type[i]->source;
        }
      }
      if (!fn) {
        p_.notes.push_back("mlx4 " + pci.str() + " (" + reason + "): not present");
        continue;
      }
      if (fn->mlx4_ports.empty()) {
        auto loader = module_action_.find("mlx4_core");
        if (loader == module_action_.end()) {
          p_.notes.push_back("mlx4 " + pci.str() + " (" + reason +
                             "): no mlx4_port files (driver " +
                             (fn->driver.empty() ? "none" : fn->driver) + ")");
          continue;
        }
      }
      auto current = [&](unsigned port) -> std::string {
        for (const auto& m : fn->mlx4_ports)
          if (m.port == port) return m.value;
        return "";
      };
      auto wanted = [&](unsigned port) -> std::string {
        const auto& t = s.type[port - 1];
        return t ? std::string(to_string(t->value)) : normalized_port_type(current(port));
      };
      // eth,eth: the kernel validates a port against the other port's staged type, so
      // port 2 goes first; otherwise port 1 first (the executor retries the other order).
      std::vector<unsigned> order = {1, 2};
      if (wanted(1) == "eth" && wanted(2) == "eth") order = {2, 1};
      std::optional<size_t> last;
      for (unsigned port : order) {
        if (!s.type[port - 1]) continue;
        const std::string cur = current(port);
        const std::string want(to_string(s.type[port - 1]->value));
        if (!cur.empty() && normalized_port_type(cur) == want) continue;
        Action a{ActionKind::kSetPortType, pci.str() + " port " + std::to_string(port),
                 cur.empty() ? "absent" : cur, want, s.type[port - 1]->source};
        a.device = pci.str();
        a.port = port;
        a.value = want;
        if (fn->mlx4_ports.empty()) a.waiting_for = "mlx4_core to create mlx4_port files";
        need(a, module_action_.count("mlx4_core")
                    ? std::optional<size_t>(module_action_["mlx4_core"])
                    : std::nullopt);
        // The two ports of a card do not depend on each other: a refused port 1 (staged
        // until the other port agrees) must not skip the port 2 write that lets the kernel
        // apply both.
        last = add(a);
        port_type_actions_.push_back(*last);
      }
      for (unsigned port = 1; port <= 2; ++port) {
        if (!s.mtu[port - 1]) continue;
        std::string cur;
        for (const auto& m : fn->mlx4_ports)
          if (m.port == port) cur = m.mtu;
        const std::string want = std::to_string(s.mtu[port - 1]->value);
        if (cur == want) continue;
        Action a{ActionKind::kSetPortMtu, pci.str() + " port " + std::to_string(port) + " MTU",
                 cur.empty() ? "unknown" : cur, want, s.mtu[port - 1]->source};
        a.device = pci.str();
        a.port = port;
        a.value = want;
        need(a, last);
        last = add(a);
        port_type_actions_.push_back(*last);
      }
      if (last) {
        // A port-type change unregisters and re-registers the whole card: its RDMA
        // devices and netdevs vanish and come back.
        for (const auto& d : inv_.rdma)
          if (d.pci && *d.pci == pci) reregistered_[d.name] = *last;
        for (const auto& n : inv_.netdevs)
          if (n.pci && *n.pci == pci) ifaces_[n.name].producer = *last;
      }
    }
  }

  void pfc() {
    if (!cfg_.pfc_tx && !cfg_.pfc_rx) return;
    unsigned tx = cfg_.pfc_tx ? cfg_.pfc_tx->value : 0;
    unsigned rx = cfg_.pfc_rx ? cfg_.pfc_rx->value : tx;  // rx defaults to tx
    pfc_ = "pfctx=0x" + hex(tx, 2) + " pfcrx=0x" + hex(rx, 2);
    pfc_source_ = cfg_.pfc_tx ? cfg_.pfc_tx->source : cfg_.pfc_rx->source;
    if (!inv_.module_loaded("mlx4_en")) return;
    auto get = [&](const char* k) {
      auto it = inv_.module_params.find(k);
      return it == inv_.module_params.end() ? std::optional<uint64_t>() : parse_uint(it->second);
    };
    auto cur_tx = get("mlx4_en.pfctx"), cur_rx = get("mlx4_en.pfcrx");
    if (cur_tx == tx && cur_rx == rx) return;
    std::string cur = "pfctx=" + (cur_tx ? "0x" + hex(*cur_tx, 2) : std::string("?")) +
                      " pfcrx=" + (cur_rx ? "0x" + hex(*cur_rx, 2) : std::string("?"));
    if (!cfg_.allow_reload.value) {
      p_.diag.warn(pfc_source_, "mlx4_en is already loaded with " + cur + "; the wanted " + *pfc_ +
                                    " take effect only when mlx4_en is reloaded (allow_reload = "
                                    "yes in [general] lets rdma-provision do it)");
      return;
    }
    Action a{ActionKind::kReloadModule, "mlx4_en", cur, *pfc_, pfc_source_};
    a.value = "mlx4_en";
    a.extra = *pfc_;
    for (size_t dep : port_type_actions_) need(a, dep);
    module_action_["mlx4_en"] = add(a);
  }

  void modules() {
    pfc();
    bool any_eth = false, any_ib_port = false;
    for (const auto& [pci, s] : cfg_.mlx4)
      for (const auto& t : s.type) any_eth |= t && t->value == PortType::kEth;
    for (const auto& f : inv_.pci) {
      for (const auto& m : f.mlx4_ports) any_eth |= normalized_port_type(m.value) == "eth";
      if (auto rdma = rdma_driver_for(f.driver)) {
        load_module(std::string(*rdma),
                    "hardware: " + f.address.str() + " is driven by " + f.driver);
      }
    }
    if ((any_eth || pfc_) &&
        (inv_.module_loaded("mlx4_core") || module_action_.count("mlx4_core"))) {
      load_module("mlx4_en", pfc_ ? pfc_source_ : "mlx4 Ethernet ports");
    }
    for (const auto& d : inv_.rdma)
      for (const auto& p : d.ports) any_ib_port |= p.link_layer == LinkLayer::kInfiniBand;
    for (const auto& m : cfg_.modules) load_module(m.value, m.source);
    if (!cfg_.ipoib.empty())
      load_module("ib_ipoib", cfg_.ipoib.begin()->second.mode
                                  ? cfg_.ipoib.begin()->second.mode->source
                                  : "IPoIB settings");
    if (!cfg_.pkeys.empty()) load_module("ib_ipoib", cfg_.pkeys.begin()->second.source);
    for (const auto& [name, key] : cfg_.names) {
      if (key.value.is_guid && any_ib_port) load_module("ib_ipoib", key.source);
    }
    if (!cfg_.roce.empty()) {
      const auto& r = cfg_.roce.begin()->second;
      const std::string src = r.mode ? r.mode->source : r.tos ? r.tos->source : "RoCE defaults";
      // configfs itself is mounted (and, where it is a module, loaded) by the RoCE
      // executor: it is built into most kernels.
      load_module("rdma_cm", src);
    }
    for (const auto& [netdev, l] : cfg_.soft_links) {
      load_module(l.kind == SoftKind::kRxe ? "rdma_rxe" : "siw", l.source);
    }
  }

  // A netdev by the name it has now or will have after the renames.
  const Iface* iface(const std::string& name) const {
    auto it = ifaces_.find(name);
    return it == ifaces_.end() ? nullptr : &it->second;
  }

  const NetDev* netdev_for(const HwKey& key) const {
    for (const auto& n : inv_.netdevs) {
      if (key.is_guid && n.type == kArphrdInfiniband && n.parent.empty()) {
        if (auto g = n.address.ipoib_guid(); g && g->value == key.value) return &n;
      } else if (!key.is_guid && n.type == kArphrdEther) {
        if (auto m = n.address.mac(); m && HwKey::of_mac(*m) == key) return &n;
      }
    }
    return nullptr;
  }

  bool port_with_guid(uint64_t guid) const {
    for (const auto& d : inv_.rdma)
      for (const auto& p : d.ports)
        if (p.guid && p.guid->value == guid) return true;
    return false;
  }

  void renames() {
    struct Move {
      const NetDev* n;
      std::string from, to, reason;
    };
    std::vector<Move> pending;
    for (const auto& [wanted, key] : cfg_.names) {
      const NetDev* n = netdev_for(key.value);
      if (!n) {
        if (key.value.is_guid && port_with_guid(key.value.value) &&
            module_action_.count("ib_ipoib")) {
          // The IPoIB netdev appears when ib_ipoib loads: rename it then.
          Action a{ActionKind::kRename, wanted, "absent", wanted, key.source};
          a.waiting_for = "IPoIB netdev of port GUID " + key.value.str();
          a.value = wanted;
          a.extra = key.value.str();
          need(a, module_action_["ib_ipoib"]);
          size_t i = add(a);
          ifaces_[wanted] = Iface{nullptr, i, key.value.str()};
        } else {
          p_.notes.push_back("name " + wanted + " (" + key.source + "): no interface with " +
                             (key.value.is_guid ? "port GUID " : "MAC ") + key.value.str() +
                             " is present");
        }
        continue;
      }
      if (n->name == wanted) continue;
      pending.push_back({n, n->name, wanted, key.source});
    }
    // Who holds each name now. A rename whose target is taken waits for the holder to
    // move; a cycle (swap) or an unrelated holder is broken with a temporary name.
    std::map<std::string, const NetDev*> holder;
    for (const auto& n : inv_.netdevs) holder[n.name] = &n;
    std::optional<size_t> prev;
    auto emit = [&](const NetDev* n, const std::string& from, const std::string& to,
                    const std::string& reason, const std::string& why) {
      Action a{ActionKind::kRename, from, from, to, reason + why};
      a.device = from;
      a.value = to;
      a.extra = n->address.str();
      need(a, ifaces_[from].producer);
      need(a, prev);
      prev = add(a);
      holder.erase(from);
      holder[to] = n;
      return *prev;
    };
    while (!pending.empty()) {
      auto it = std::find_if(pending.begin(), pending.end(),
                             [&](const Move& m) { return !holder.count(m.to); });
      if (it != pending.end()) {
        size_t i = emit(it->n, it->from, it->to, it->reason, "");
        ifaces_[it->to] = Iface{it->n, i, ""};
        renamed_[it->n->name] = it->to;
        if (!holder.count(it->from)) ifaces_.erase(it->from);
        pending.erase(it);
        continue;
      }
      Move& m = pending.front();
      const NetDev* h = holder[m.to];
      const std::string temp = "rename" + std::to_string(h->ifindex);
      auto in_cycle =
          std::find_if(pending.begin(), pending.end(), [&](const Move& x) { return x.n == h; });
      if (in_cycle != pending.end()) {
        emit(h, in_cycle->from, temp, in_cycle->reason, " (temporary name: its target is taken)");
        in_cycle->from = temp;
      } else {
        emit(h, m.to, temp, m.reason,
             " (moves the unrelated interface holding " + m.to + " out of the way)");
        p_.diag.warn(m.reason, "interface " + m.to + " (" + h->address.str() +
                                   ") holds the wanted name; it is renamed to " + temp);
        ifaces_[temp] = Iface{h, prev, ""};
      }
    }
  }

  void soft_links() {
    std::set<std::string> taken;
    for (const auto& d : inv_.rdma) taken.insert(d.name);
    for (const auto& [netdev, l] : cfg_.soft_links) {
      // The netdev may be named by its name now or by the one it is being given.
      const Iface* f = iface(netdev);
      if (!f) {
        if (auto it = renamed_.find(netdev); it != renamed_.end()) f = iface(it->second);
      }
      const std::string kind(to_string(l.kind));
      if (!f) {
        p_.notes.push_back(kind + " link on " + netdev + " (" + l.source +
                           "): no such interface is present");
        continue;
      }
      bool exists = false;
      for (const auto& d : inv_.rdma) {
        if (f->netdev && (d.parent_netdev == f->netdev->name || d.parent_netdev == netdev)) {
          exists = true;
          if (!l.name.empty() && d.name != l.name) {
            p_.notes.push_back(kind + " link on " + netdev + " exists as " + d.name + ", not " +
                               l.name + "; left as it is");
          }
        }
      }
      if (exists) continue;
      std::string name = l.name;
      for (int i = 0; name.empty(); ++i) {
        if (!taken.count(kind + std::to_string(i))) name = kind + std::to_string(i);
      }
      taken.insert(name);
      Action a{ActionKind::kCreateSoftLink, name, "absent", kind + " on " + netdev, l.source};
      a.device = netdev;
      a.value = name;
      a.extra = kind;
      need(a, f->producer);
      need(a, module_action_.count(l.kind == SoftKind::kRxe ? "rdma_rxe" : "siw")
                  ? std::optional<size_t>(
                        module_action_[l.kind == SoftKind::kRxe ? "rdma_rxe" : "siw"])
                  : std::nullopt);
      planned_soft_[name] = {add(a), l.kind};
    }
  }

  struct PortRef {
    std::string dev;
    unsigned port;
    const RdmaPort* present;  // null for a planned soft device
    std::optional<size_t> producer;
    bool v2_only;
  };

  std::vector<PortRef> roce_ports(const std::string& dev, unsigned port) const {
    std::vector<PortRef> out;
    for (const auto& d : inv_.rdma) {
      if (dev != "*" && d.name != dev) continue;
      std::optional<size_t> prod;
      if (auto it = reregistered_.find(d.name); it != reregistered_.end()) prod = it->second;
      for (const auto& p : d.ports) {
        if (p.link_layer != LinkLayer::kEthernet) continue;
        if (port && p.num != port) continue;
        if (!p.roce_v1 && !p.roce_v2) continue;  // iWARP: no RoCE modes
        out.push_back({d.name, p.num, &p, prod, p.roce_v2 && !p.roce_v1});
      }
    }
    for (const auto& [name, sl] : planned_soft_) {
      if ((dev != "*" && name != dev) || sl.second != SoftKind::kRxe) continue;
      if (port > 1) continue;
      out.push_back({name, 1, nullptr, sl.first, true});
    }
    return out;
  }

  // A RoCE default (mode or ToS) of one port, after the device (when planned) and rdma_cm.
  static Action roce_action(ActionKind kind, const std::pair<std::string, unsigned>& k,
                            const PortRef& r, const std::string& cur, const std::string& want,
                            const std::string& source, std::optional<size_t> cm) {
    Action a{kind, k.first + "/" + std::to_string(k.second), cur.empty() ? "unknown" : cur, want,
             source};
    a.device = k.first;
    a.port = k.second;
    a.value = want;
    if (!r.present) a.waiting_for = k.first;
    need(a, r.producer);
    need(a, cm);
    return a;
  }

  void roce() {
    std::optional<size_t> cm = module_action_.count("rdma_cm")
                                   ? std::optional<size_t>(module_action_["rdma_cm"])
                                   : std::nullopt;
    // "*" first, so a specific device/port setting refines it.
    std::map<std::pair<std::string, unsigned>, std::pair<Sourced<RoceMode>, bool>> modes;
    std::map<std::pair<std::string, unsigned>, Sourced<unsigned>> toses;
    std::map<std::pair<std::string, unsigned>, PortRef> refs;
    auto rank = [](const std::pair<std::string, unsigned>& k) {
      return (k.first == "*" ? 0 : 2) + (k.second ? 1 : 0);
    };
    std::vector<std::pair<std::pair<std::string, unsigned>, const RoceSetting*>> order;
    for (const auto& [k, s] : cfg_.roce) order.push_back({k, &s});
    std::stable_sort(order.begin(), order.end(),
                     [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
    for (const auto& [k, s] : order) {
      auto ports = roce_ports(k.first, k.second);
      if (ports.empty()) {
        const std::string src = s->mode ? s->mode->source : s->tos ? s->tos->source : "";
        if (k.first != "*") {
          p_.notes.push_back("RoCE defaults for " + k.first +
                             (k.second ? "/" + std::to_string(k.second) : "") + " (" + src +
                             "): no such RoCE port is present");
        }
        continue;
      }
      for (const auto& r : ports) {
        refs.insert({{r.dev, r.port}, r});
        if (s->mode) modes[{r.dev, r.port}] = {*s->mode, r.v2_only};
        if (s->tos) toses[{r.dev, r.port}] = *s->tos;
      }
    }
    for (const auto& [k, m] : modes) {
      const PortRef& r = refs.at(k);
      if (m.first.value == RoceMode::kV1 && m.second && r.present) {
        p_.diag.error(m.first.source, "RoCE v1 is not supported by port " +
                                          std::to_string(k.second) + " of " + k.first +
                                          " (its GID table has only RoCE v2)");
        continue;
      }
      const std::string want(configfs_value(m.first.value));
      const std::string cur = r.present ? r.present->cm_roce_mode : "";
      if (cur == want) continue;
      roce_action_[k] =
          add(roce_action(ActionKind::kSetRoceMode, k, r, cur, want, m.first.source, cm));
    }
    for (const auto& [k, t] : toses) {
      const PortRef& r = refs.at(k);
      const std::string want = std::to_string(t.value);
      const std::string cur = r.present ? r.present->cm_roce_tos : "";
      if (cur == want) continue;
      Action a = roce_action(ActionKind::kSetRoceTos, k, r, cur, want, t.source, cm);
      if (auto it = roce_action_.find(k); it != roce_action_.end()) need(a, it->second);
      add(a);
    }
  }

  void pkey_children() {
    for (const auto& [k, c] : cfg_.pkeys) {
      const Iface* parent = iface(c.parent);
      // Policy: children are full members. Kernels differ on whether they OR in 0x8000
      // on create; we always do, so ib0.000a here is never ib0.800a elsewhere.
      const uint16_t pkey = static_cast<uint16_t>(c.pkey | 0x8000);
      const std::string name = c.name.empty() ? c.parent + "." + hex(pkey, 4) : c.name;
      if (!parent) {
        p_.notes.push_back("P_Key child " + name + " (" + c.source + "): parent " + c.parent +
                           " is not present");
        continue;
      }
      if (parent->netdev && parent->netdev->type != kArphrdInfiniband) {
        p_.diag.error(c.source, "P_Key parent " + c.parent + " is not an IPoIB interface (type " +
                                    arphrd_name(parent->netdev->type) + ")");
        continue;
      }
      bool exists = false;
      for (const auto& n : inv_.netdevs) {
        if (parent->netdev && n.parent == parent->netdev->name && n.pkey == pkey) {
          exists = true;
          if (n.name != name) {
            p_.notes.push_back("P_Key 0x" + hex(pkey, 4) + " on " + c.parent + " exists as " +
                               n.name + ", not " + name + "; left as it is");
          }
        }
      }
      if (exists) continue;
      Action a{ActionKind::kCreatePkeyChild, name, "absent",
               "P_Key 0x" + hex(pkey, 4) + " on " + c.parent, c.source};
      a.device = c.parent;
      a.value = name;
      a.port = pkey;
      auto ip = cfg_.ipoib.find(name);
      if (c.mode)
        a.extra = std::string(to_string(*c.mode));
      else if (ip != cfg_.ipoib.end() && ip->second.mode)
        a.extra = std::string(to_string(ip->second.mode->value));
      if (!parent->netdev) a.waiting_for = c.parent;
      need(a, parent->producer);
      ifaces_[name] = Iface{nullptr, add(a), ""};
    }
  }

  unsigned link_mtu_of(const NetDev& n) const {
    for (const auto& d : inv_.rdma) {
      if (d.name != n.rdma_device) continue;
      for (const auto& p : d.ports) {
        if (p.num != n.rdma_port) continue;
        if (p.active_mtu) return p.active_mtu;
        if (d.pci) {
          for (const auto& f : inv_.pci) {
            if (!(f.address == *d.pci)) continue;
            for (const auto& m : f.mlx4_ports)
              if (m.port == p.num && parse_uint(m.mtu))
                return static_cast<unsigned>(*parse_uint(m.mtu));
          }
        }
      }
    }
    return 4096;  // the largest IB MTU: only obviously impossible values are refused
  }

  bool enhanced_ipoib(const NetDev& n) const {
    // ConnectX-4 and later (mlx5) run Enhanced IPoIB: datagram only.
    if (const RdmaDevice* d = inv_.find_rdma(n.rdma_device)) return d->driver == "mlx5_core";
    return n.driver == "mlx5_core";
  }

  void ipoib() {
    for (const auto& [ifname, s] : cfg_.ipoib) {
      const Iface* f = iface(ifname);
      const std::string src = s.mode ? s.mode->source : s.mtu ? s.mtu->source : "";
      if (!f) {
        p_.notes.push_back("IPoIB settings for " + ifname + " (" + src + "): not present");
        continue;
      }
      const NetDev* n = f->netdev;
      if (n && n->type != kArphrdInfiniband) {
        p_.diag.error(src,
                      ifname + " is not an IPoIB interface (type " + arphrd_name(n->type) + ")");
        continue;
      }
      const IpoibMode mode = s.mode ? s.mode->value
                                    : (n && n->ipoib_mode == "connected" ? IpoibMode::kConnected
                                                                         : IpoibMode::kDatagram);
      if (s.mode && mode == IpoibMode::kConnected && n && enhanced_ipoib(*n)) {
        p_.diag.error(s.mode->source,
                      ifname + " is Enhanced IPoIB (" + n->rdma_device +
                          ", mlx5): connected mode is not supported, only datagram");
        continue;
      }
      if (s.mtu && n) {
        const unsigned limit = mode == IpoibMode::kConnected ? 65520 : link_mtu_of(*n) - 4;
        if (s.mtu->value > limit) {
          p_.diag.error(s.mtu->source,
                        "MTU " + std::to_string(s.mtu->value) + " of " + ifname + " exceeds " +
                            std::to_string(limit) + " for " + std::string(to_string(mode)) +
                            " mode" +
                            (mode == IpoibMode::kDatagram
                                 ? " (IB link MTU " + std::to_string(link_mtu_of(*n)) + " - 4)"
                                 : ""));
          continue;
        }
      }
      std::optional<size_t> last = f->producer;
      if (s.mode && (!n || n->ipoib_mode != to_string(mode))) {
        bool at_create =
            f->producer && p_.actions[*f->producer].kind == ActionKind::kCreatePkeyChild;
        if (!at_create) {
          Action a{ActionKind::kSetIpoibMode, ifname, n ? n->ipoib_mode : "unknown",
                   std::string(to_string(mode)), s.mode->source};
          a.device = ifname;
          a.value = std::string(to_string(mode));
          if (!n) a.waiting_for = ifname;
          need(a, last);
          last = add(a);
        }
      }
      if (s.mtu && (!n || n->mtu != s.mtu->value)) {
        Action a{ActionKind::kSetMtu, ifname, n ? std::to_string(n->mtu) : "unknown",
                 std::to_string(s.mtu->value), s.mtu->source};
        a.device = ifname;
        a.value = std::to_string(s.mtu->value);
        if (!n) a.waiting_for = ifname;
        need(a, last);
        last = add(a);
      }
      if (last) ifaces_[ifname].producer = last;
    }
  }

  void link_up(const std::string& ifname, const std::string& reason) {
    if (up_action_.count(ifname)) return;
    const Iface* f = iface(ifname);
    if (!f) return;
    if (f->netdev && f->netdev->admin_up && !f->producer) return;
    // A renamed or reconfigured link that was up stays up (the executor restores it);
    // only links that are down, or do not exist yet, get an explicit action.
    if (f->netdev && f->netdev->admin_up) return;
    Action a{ActionKind::kLinkUp, ifname, f->netdev ? "down" : "absent", "up", reason};
    a.device = ifname;
    if (!f->netdev) a.waiting_for = ifname;
    need(a, f->producer);
    up_action_[ifname] = add(a);
  }

  void links_up() {
    for (const auto& [name, key] : cfg_.names) link_up(name, key.source);
    for (const auto& [k, c] : cfg_.pkeys) {
      const uint16_t pkey = static_cast<uint16_t>(c.pkey | 0x8000);
      link_up(c.parent, c.source);
      link_up(c.name.empty() ? c.parent + "." + hex(pkey, 4) : c.name, c.source);
    }
    for (const auto& [ifname, s] : cfg_.ipoib) {
      link_up(ifname, s.mode ? s.mode->source : s.mtu ? s.mtu->source : "IPoIB settings");
    }
    for (const auto& [ifname, list] : cfg_.addresses) link_up(ifname, list.front().source);
    for (const auto& [netdev, l] : cfg_.soft_links) {
      auto it = renamed_.find(netdev);
      link_up(it == renamed_.end() ? netdev : it->second, l.source);
    }
    for (const auto& w : cfg_.wait) {
      if (w.value != "all" && w.value != "none" && w.value.find('/') == std::string::npos) {
        link_up(w.value, w.source);
      }
    }
  }

  void addresses() {
    for (const auto& [ifname, list] : cfg_.addresses) {
      const Iface* f = iface(ifname);
      if (!f) {
        p_.notes.push_back("addresses for " + ifname + " (" + list.front().source +
                           "): not present");
        continue;
      }
      for (const auto& a : list) {
        Action x{ActionKind::kAddAddress, ifname, "unknown", a.prefix.str(), a.source};
        x.device = ifname;
        x.value = a.prefix.str();
        if (!f->netdev) x.waiting_for = ifname;
        need(x, f->producer);
        if (auto u = up_action_.find(ifname); u != up_action_.end()) need(x, u->second);
        add(x);
      }
      auto routes = cfg_.routes.find(ifname);
      if (routes == cfg_.routes.end()) continue;
      for (const auto& r : routes->second) {
        const std::string dest = r.destination ? r.destination->str() : "default";
        Action x{ActionKind::kAddRoute, ifname, "unknown", dest + " via " + r.gateway.str(),
                 r.source};
        x.device = ifname;
        x.value = dest;
        x.extra = r.gateway.str();
        need(x, p_.actions.size() - 1);  // after the interface's addresses
        add(x);
      }
    }
  }

  void wait_port(const std::string& dev, unsigned port, const std::string& reason) {
    const std::string obj = dev + "/" + std::to_string(port);
    if (waited_.count(obj)) return;
    waited_.insert(obj);
    const RdmaDevice* d = inv_.find_rdma(dev);
    const RdmaPort* p = nullptr;
    if (d)
      for (const auto& x : d->ports)
        if (x.num == port) p = &x;
    std::optional<size_t> prod;
    if (auto it = reregistered_.find(dev); it != reregistered_.end()) prod = it->second;
    if (auto it = planned_soft_.find(dev); it != planned_soft_.end()) prod = it->second.first;
    if (!p && !prod) {
      p_.notes.push_back("wait for " + obj + " (" + reason + "): no such port is present");
      return;
    }
    if (p && p->state == PortState::kActive && !prod) return;
    Action a{ActionKind::kWaitPort, obj, p ? std::string(to_string(p->state)) : "absent", "ACTIVE",
             reason};
    a.device = dev;
    a.port = port;
    if (!p) a.waiting_for = dev;
    need(a, prod);
    // The port's link must be up for it to become ACTIVE (Soft-RoCE follows its netdev).
    // A planned soft device sits on the netdev its link action names (maybe by the name it
    // had before a rename).
    std::string netdev = p ? p->netdev : "";
    if (auto soft = planned_soft_.find(dev); !p && soft != planned_soft_.end()) {
      netdev = p_.actions[soft->second.first].device;
      if (auto r = renamed_.find(netdev); r != renamed_.end()) netdev = r->second;
    }
    if (auto u = up_action_.find(netdev); u != up_action_.end()) need(a, u->second);
    add(a);
  }

  void waits() {
    for (const auto& w : cfg_.wait) {
      if (w.value == "none") continue;
      if (w.value == "all") {
        for (const auto& d : inv_.rdma)
          for (const auto& p : d.ports) wait_port(d.name, p.num, w.source);
        for (const auto& [name, sl] : planned_soft_) wait_port(name, 1, w.source);
        continue;
      }
      if (auto slash = w.value.find('/'); slash != std::string::npos) {
        wait_port(w.value.substr(0, slash),
                  static_cast<unsigned>(parse_uint(w.value.substr(slash + 1)).value_or(0)),
                  w.source);
        continue;
      }
      const Iface* f = iface(w.value);
      if (!f) {
        p_.notes.push_back("wait for " + w.value + " (" + w.source + "): not present");
        continue;
      }
      if (f->netdev && f->netdev->carrier && !f->producer) continue;
      Action a{ActionKind::kWaitLink, w.value,
               f->netdev && f->netdev->carrier ? "carrier" : "no carrier", "carrier", w.source};
      a.device = w.value;
      if (!f->netdev) a.waiting_for = w.value;
      need(a, f->producer);
      if (auto u = up_action_.find(w.value); u != up_action_.end()) need(a, u->second);
      add(a);
    }
  }

  const Config& cfg_;
  const Inventory& inv_;
  Plan& p_;
  std::map<std::string, size_t> module_action_;
  std::vector<size_t> port_type_actions_;
  std::map<std::string, size_t> reregistered_;  // ibdev -> port-type action
  std::map<std::string, Iface> ifaces_;
  std::map<std::string, std::string> renamed_;  // name now -> final name
  std::map<std::string, std::pair<size_t, SoftKind>> planned_soft_;
  std::map<std::pair<std::string, unsigned>, size_t> roce_action_;
  std::map<std::string, size_t> up_action_;
  std::set<std::string> waited_;
  std::optional<std::string> pfc_;
  std::string pfc_source_;
};

}  // namespace

std::string_view to_string(ActionKind k) {
  switch (k) {
    case ActionKind::kLoadModule:
      return "load-module";
    case ActionKind::kReloadModule:
      return "reload-module";
    case ActionKind::kSetPortType:
      return "port-type";
    case ActionKind::kSetPortMtu:
      return "port-mtu";
    case ActionKind::kCreateSoftLink:
      return "soft-link";
    case ActionKind::kRename:
      return "rename";
    case ActionKind::kSetRoceMode:
      return "roce-mode";
    case ActionKind::kSetRoceTos:
      return "roce-tos";
    case ActionKind::kCreatePkeyChild:
      return "pkey-child";
    case ActionKind::kSetIpoibMode:
      return "ipoib-mode";
    case ActionKind::kSetMtu:
      return "mtu";
    case ActionKind::kLinkUp:
      return "link-up";
    case ActionKind::kAddAddress:
      return "address";
    case ActionKind::kAddRoute:
      return "route";
    case ActionKind::kWaitPort:
      return "wait-port";
    case ActionKind::kWaitLink:
      return "wait-link";
  }
  return "?";
}

void validate(const Config& cfg, const Inventory& inv, Diagnostics& diag) {
  for (const auto& [pci, s] : cfg.mlx4) {
    if (s.type[0] && s.type[1] && s.type[0]->value == PortType::kEth &&
        s.type[1]->value == PortType::kIb) {
      diag.warn(s.type[1]->source, "mlx4 " + pci.str() +
                                       ": port 1 eth with port 2 ib is refused by older HCAs and "
                                       "kernels (EOPNOTSUPP); only the hardware can tell");
    }
    for (int i = 0; i < 2; ++i) {
      if (s.type[i] && s.type[i]->value == PortType::kAuto) {
        diag.warn(s.type[i]->source, "mlx4 " + pci.str() + " port " + std::to_string(i + 1) +
                                         ": auto needs port sensing, which only some HCAs have "
                                         "(the kernel refuses it with EOPNOTSUPP otherwise)");
      }
    }
  }
  // Names: one name per device, one device per name, never two identical names.
  std::map<HwKey, std::string> by_key;
  for (const auto& [name, key] : cfg.names) {
    auto [it, fresh] = by_key.emplace(key.value, name);
    if (!fresh) {
      diag.error(key.source, key.value.str() + " is given two names, " + quote(it->second) +
                                 " and " + quote(name));
    }
  }
  std::set<std::string> children;
  std::map<std::pair<std::string, uint16_t>, std::string> full;  // with the 0x8000 bit
  for (const auto& [k, c] : cfg.pkeys) {
    auto [it, fresh] =
        full.emplace(std::pair(c.parent, static_cast<uint16_t>(c.pkey | 0x8000)), c.source);
    if (!fresh) {
      diag.error(c.source, "P_Key 0x" + hex(c.pkey, 4) + " on " + c.parent +
                               " is the same partition as the one at " + it->second +
                               " (children are full members: 0x8000 is ORed in)");
      continue;
    }
    const std::string name =
        c.name.empty() ? c.parent + "." + hex(static_cast<uint16_t>(c.pkey | 0x8000), 4) : c.name;
    if (!children.insert(name).second || cfg.names.count(name)) {
      diag.error(c.source, "interface name " + quote(name) + " is used twice");
    }
  }
  (void)inv;
}

Plan make_plan(const Config& cfg, const Inventory& inv) {
  Plan plan;
  plan.timeout_s = cfg.timeout_s.value;
  if (!cfg.enabled.value) {
    plan.enabled = false;
    plan.notes.push_back("disabled by " + cfg.enabled.source + ": nothing to do");
    return plan;
  }
  validate(cfg, inv, plan.diag);
  Builder(cfg, inv, plan).build();
  return plan;
}

}  // namespace rp
