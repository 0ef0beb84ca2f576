// Modules: mlx4_en with the PFC masks, the RDMA driver of each NIC driver present, the
// modules the inputs ask for, and those the configured capabilities need (ib_ipoib,
// rdma_cm, rdma_rxe, siw). libkmod adds the dependencies at apply time.
#include <map>
#include <set>
#include <string_view>

#include "provision/base/drivers.h"
#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

// "auto (eth)" is driven by mlx4_en as much as "eth".
bool is_eth(const std::string& sysfs_port_type) {
  return mlx4_link_layer(sysfs_port_type) == LinkLayer::kEthernet;
}

// The PFC masks for mlx4_en; a reload when it is loaded with other ones and the config
// allows it, else a warning (its parameters are read-only once loaded: en_main.c).
void plan_pfc(PlanBuilder& b) {
  const Config& cfg = b.cfg;
  if (!cfg.pfc_tx && !cfg.pfc_rx) return;
  const unsigned tx = cfg.pfc_tx ? cfg.pfc_tx->value : 0;
  // rx follows tx in our own short forms; `options mlx4_en pfctx=0x08` alone in modprobe.d
  // leaves pfcrx at the module's default, 0 (mlx4/en_main.c MLX4_EN_PARM_INT(pfcrx, 0)).
  const bool tx_from_modprobe = cfg.pfc_tx && from_modprobe_d(cfg.pfc_tx->source);
  const unsigned rx = cfg.pfc_rx ? cfg.pfc_rx->value : tx_from_modprobe ? 0 : tx;
  b.pfc = PfcMasks{tx, rx};
  b.pfc_source = cfg.pfc_tx ? cfg.pfc_tx->source : cfg.pfc_rx->source;
  if (!b.inv.module_loaded("mlx4_en")) return;
  auto get = [&](const char* k) {
    auto it = b.inv.module_params.find(k);
    return it == b.inv.module_params.end() ? std::optional<uint64_t>() : parse_uint(it->second);
  };
  auto cur_tx = get("mlx4_en.pfctx"), cur_rx = get("mlx4_en.pfcrx");
  if (cur_tx == tx && cur_rx == rx) return;
  const std::string cur = "pfctx=" + (cur_tx ? "0x" + hex(*cur_tx, 2) : std::string("?")) +
                          " pfcrx=" + (cur_rx ? "0x" + hex(*cur_rx, 2) : std::string("?"));
  if (!cfg.allow_reload.value) {
    b.diag().warn(b.pfc_source, "mlx4_en is already loaded with " + cur + "; the wanted " +
                                    b.pfc->str() +
                                    " take effect only when mlx4_en is reloaded (allow_reload = "
                                    "yes in [general] lets rdma-provision do it)");
    return;
  }
  Action a{ReloadModule{"mlx4_en", *b.pfc}, cur, b.pfc_source};
  for (size_t dep : b.port_actions()) PlanBuilder::need(a, dep);
  b.set_module_action("mlx4_en", b.add(std::move(a)));
}

// rdma-core loads its module lists per technology: kernel-boot/rdma-hw-modules.rules tags
// an RDMA device ID_RDMA_INFINIBAND, _ROCE, _IWARP or _OPA, and rdma-load-modules@.service
// then loads infiniband.conf, roce.conf, iwarp.conf or opa.conf; rdma.conf with any RDMA
// device (kernel-boot/rdma-description.rules). The same rule here, on what is present and
// what this plan makes appear.
struct Technologies {
  bool any = false, infiniband = false, roce = false, iwarp = false, opa = false;
};

Technologies technologies(const PlanBuilder& b) {
  Technologies t;
  const Inventory& inv = b.inv;
  for (const auto& d : inv.rdma) {
    t.any = true;
    t.opa |= d.driver == "hfi1";
    for (const auto& p : d.ports) {
      const bool iw = d.iwarp();
      t.infiniband |= p.link_layer == LinkLayer::kInfiniBand && d.driver != "hfi1";
      t.roce |= p.link_layer == LinkLayer::kEthernet && !iw;
      t.iwarp |= p.link_layer == LinkLayer::kEthernet && iw;
    }
  }
  // Devices this run makes appear: a driver whose device does not exist yet could be of
  // any technology until it registers (an mlx5 port is InfiniBand or Ethernet by firmware),
  // except where its files tell (mlx4 port types), and soft links are what they are.
  for (const auto& f : inv.pci) {
    bool has_device = false;
    for (const auto& d : inv.rdma) has_device |= d.pci && *d.pci == f.address;
    if (has_device) continue;
    if (f.driver == "hfi1") {
      t.any = t.opa = true;
    } else if (!f.mlx4_ports.empty()) {
      t.any = true;
      for (const auto& m : f.mlx4_ports) {
        t.infiniband |= mlx4_link_layer(m.value) == LinkLayer::kInfiniBand;
        t.roce |= is_eth(m.value);
      }
    } else if (rdma_driver_for(f.driver, f.device)) {
      t.any = t.infiniband = t.roce = t.iwarp = true;
    }
  }
  for (const auto& [netdev, l] : b.cfg.soft_links) {
    t.any = true;
    (l.kind == SoftKind::kRxe ? t.roce : t.iwarp) = true;
  }
  return t;
}

// Whether a module asked for by `source` is wanted on this node: rdma-core's lists only
// with a device of their technology; everything else always.
std::optional<std::string> list_not_wanted(const Technologies& t, const std::string& source) {
  static const std::string kDir = "/etc/rdma/modules/";
  if (!from_rdma_core_list(source)) return std::nullopt;
  const std::string file = source.substr(kDir.size(), source.find(':') - kDir.size());
  struct List {
    const char* file;
    bool Technologies::*present;
    const char* what;
  };
  static const List kLists[] = {
      {"rdma.conf", &Technologies::any, "RDMA device"},
      {"infiniband.conf", &Technologies::infiniband, "InfiniBand device"},
      {"roce.conf", &Technologies::roce, "RoCE device"},
      {"iwarp.conf", &Technologies::iwarp, "iWARP device"},
      {"opa.conf", &Technologies::opa, "Omni-Path (hfi1) device"},
  };
  for (const auto& l : kLists) {
    if (file == l.file) {
      if (t.*l.present) return std::nullopt;
      return std::string("no ") + l.what + " is present or expected";
    }
  }
  // Other files in that directory are no rdma-core list (no udev rule names them): an
  // administrator put them there for us, so they load as asked.
  return std::nullopt;
}

// Why the boot's network may be IPoIB on this node, or nullopt. ib_ipoib has no modalias
// (ulp/ipoib/ipoib_main.c declares no device table: it is an ib_client, ipoib_add_one),
// so no device event loads it; rdma-core loads it from infiniband.conf through its own
// udev rules, which reach an initramfs only with its dracut module (Debian ships none).
// Without it ib0 never appears and dracut's ip= waits for nothing.
std::optional<std::string> ipoib_boot_reason(const PlanBuilder& b, const Technologies& t) {
  const Config& cfg = b.cfg;
  if (!(t.infiniband || t.opa) || !cfg.boot_network) return std::nullopt;
  // An interface known to be Ethernet: present as such, or named by a MAC (ours, or
  // dracut's ifname=, which cannot name IPoIB: 40network/ifname-genrules.sh).
  auto ethernet = [&](const std::string& ifname) {
    if (auto it = cfg.names.find(ifname); it != cfg.names.end()) return !it->second.value.is_guid;
    if (cfg.dracut_ifnames.count(ifname)) return true;
    const NetDev* n = b.inv.find_netdev(ifname);
    return n && n->type == kArphrdEther;
  };
  for (const auto& i : cfg.boot_ifaces) {
    if (!ethernet(i.value)) {
      return i.source + " (the boot's network may be IPoIB: " + i.value +
             " is no Ethernet interface here)";
    }
  }
  if (!cfg.boot_ifaces.empty()) return std::nullopt;
  return *cfg.boot_network + " (the boot's network may be IPoIB: no interface is named, and " +
         "this node has an InfiniBand port)";
}

}  // namespace

std::optional<PfcMasks> wanted_pfc(const Config& cfg) {
  const bool ours = (cfg.pfc_tx && !from_modprobe_d(cfg.pfc_tx->source)) ||
                    (cfg.pfc_rx && !from_modprobe_d(cfg.pfc_rx->source));
  if (!ours) return std::nullopt;
  const unsigned tx = cfg.pfc_tx ? cfg.pfc_tx->value : 0;
  const bool tx_from_modprobe = cfg.pfc_tx && from_modprobe_d(cfg.pfc_tx->source);
  const unsigned rx = cfg.pfc_rx ? cfg.pfc_rx->value : tx_from_modprobe ? 0 : tx;
  return PfcMasks{tx, rx};
}

void plan_modules(PlanBuilder& b) {
  const Config& cfg = b.cfg;
  const Inventory& inv = b.inv;
  plan_pfc(b);
  bool any_eth = false, any_ib_port = false;
  for (const auto& [pci, s] : cfg.mlx4) {
    const PciFunction* card = nullptr;
    for (const auto& f : inv.pci)
      if (f.address == pci) card = &f;
    if (!card) continue;
    // A port the card has: a single-port ConnectX-3 has no mlx4_port2 (mlx4/main.c
    // mlx4_init_port_info runs for 1..caps.num_ports), and nothing is planned for it.
    // Before mlx4_core has made the files, how many ports there are is not known.
    for (unsigned port = 1; port <= 2; ++port) {
      const auto& t = s.type[port - 1];
      bool exists = card->mlx4_ports.empty();
      for (const auto& m : card->mlx4_ports) exists |= m.port == port;
      any_eth |= exists && t && t->value == PortType::kEth;
    }
  }
  for (const auto& f : inv.pci) {
    for (const auto& m : f.mlx4_ports) any_eth |= is_eth(m.value);
    if (auto rdma = rdma_driver_for(f.driver, f.device)) {
      auto i = b.load_module(std::string(*rdma),
                             "hardware: " + f.address.str() + " is driven by " + f.driver);
      if (i) b.set_driver_load(*i);
    }
  }
  if ((any_eth || b.pfc) && (inv.module_loaded("mlx4_core") || b.module_action("mlx4_core"))) {
    b.load_module("mlx4_en", b.pfc ? b.pfc_source : "mlx4 Ethernet ports");
  }
  for (const auto& d : inv.rdma)
    for (const auto& p : d.ports) any_ib_port |= p.link_layer == LinkLayer::kInfiniBand;
  const Technologies tech = technologies(b);
  std::map<std::string, std::vector<std::string>> skipped;  // file -> modules
  std::map<std::string, std::string> why;
  const bool defer = inv.initramfs && cfg.defer_lists.value;
  std::map<std::string, std::vector<std::string>> deferred;  // file -> modules
  for (const auto& m : cfg.modules) {
    const std::string file = m.source.substr(0, m.source.find(':'));
    if (auto no = list_not_wanted(tech, m.source)) {
      skipped[file].push_back(m.value);
      why[file] = *no;
      continue;
    }
    if (defer && from_rdma_core_list(m.source)) {
      deferred[file].push_back(m.value);
      continue;
    }
    b.load_module(m.value, m.source);
  }
  for (const auto& [file, modules] : skipped) {
    std::string list;
    for (const auto& m : modules) list += (list.empty() ? "" : " ") + m;
    b.note(file + ": not loaded (" + why[file] + ", as rdma-core's udev rules decide): " + list);
  }
  if (!cfg.ipoib.empty()) {
    const IpoibSetting& s = cfg.ipoib.begin()->second;
    b.load_module("ib_ipoib", s.mode ? s.mode->source : "IPoIB settings");
  }
  if (!cfg.pkeys.empty()) b.load_module("ib_ipoib", cfg.pkeys.begin()->second.source);
  for (const auto& [name, key] : cfg.names) {
    if (key.value.is_guid && any_ib_port) b.load_module("ib_ipoib", key.source);
  }
  if (auto boot = ipoib_boot_reason(b, tech)) b.load_module("ib_ipoib", *boot);
  if (!cfg.roce.empty()) {
    const auto& r = cfg.roce.begin()->second;
    const std::string src = r.mode ? r.mode->source : r.tos ? r.tos->source : "RoCE defaults";
    // configfs itself is mounted (and, where it is a module, loaded) by the RoCE
    // executor: it is built into most kernels.
    b.load_module("rdma_cm", src);
  }
  for (const auto& [netdev, l] : cfg.soft_links)
    b.load_module(std::string(module_of(l.kind)), l.source);
  // rd.rdma.verify: libibverbs opens a device through ib_uverbs (/dev/infiniband/uverbsN,
  // drivers/infiniband/core/uverbs_main.c); librdmacm talks to rdma_cm through rdma_ucm
  // (/dev/infiniband/rdma_cm, ucma.c). Both are in every image (image/needs.cc).
  if (cfg.verify.value.mode != VerifySetting::Mode::kOff) {
    b.load_module("ib_uverbs", cfg.verify.source);
    if (cfg.verify.value.mode == VerifySetting::Mode::kPeer)
      b.load_module("rdma_ucm", cfg.verify.source);
  }

  // What the lists ask for and nothing else here needs waits for the real root: loaded
  // modules, and those a setting or device of this node loads anyway, are not deferred.
  std::string text;
  for (const auto& [file, modules] : deferred) {
    std::string list;
    for (const auto& m : modules) {
      if (inv.module_loaded(m) || b.module_action(m)) continue;
      b.defer_module(m);
      list += (list.empty() ? "" : " ") + m;
    }
    if (!list.empty()) text += (text.empty() ? "" : "; ") + file + ": " + list;
  }
  if (!text.empty()) {
    const std::string by = cfg.defer_lists.source == "default"
                               ? std::string("[modules] defer = yes, the default")
                               : cfg.defer_lists.source;
    b.note("deferred to the real root (" + by +
           ": the initramfs loads what this node's devices and settings need; "
           "rdma-provision.service or rdma-core's rdma-load-modules@ load the rest there): " +
           text);
  }
}

Plan early_module_plan(const Plan& full) {
  Plan out;
  out.enabled = full.enabled;
  out.timeout_s = full.timeout_s;
  std::set<std::string_view> hardware = {"mlx4_core", "mlx4_en", "mlx4_ib", "mlx5_core"};
  for (const auto& p : rdma_driver_pairs()) {
    hardware.insert(p.nic);
    hardware.insert(p.rdma);
  }
  for (const auto& a : full.actions) {
    if (a.kind() != ActionKind::kLoadModule || !a.after.empty()) continue;
    const auto& l = a.get<LoadModule>();
    if (hardware.count(l.module) || l.pfc) continue;
    out.actions.push_back(a);
  }
  return out;
}

}  // namespace rp
