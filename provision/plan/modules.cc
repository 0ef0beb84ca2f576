// Modules: mlx4_en with the PFC masks, the RDMA driver of each NIC driver present, the
// modules the inputs ask for, and those the configured capabilities need (ib_ipoib,
// rdma_cm, rdma_rxe, siw). libkmod adds the dependencies at apply time.
#include "provision/base/strings.h"
#include "provision/plan/builder.h"
#include "provision/plan/drivers.h"

namespace rp {
namespace {

bool is_eth(const std::string& sysfs_port_type) {
  // "auto (eth)": configured auto, sensed as Ethernet (show_port_type in mlx4/main.c);
  // mlx4_en drives it as much as an "eth" port.
  return sysfs_port_type == "eth" || sysfs_port_type == "auto (eth)";
}

// The PFC masks for mlx4_en; a reload when it is loaded with other ones and the config
// allows it, else a warning (its parameters are read-only once loaded: en_main.c).
void plan_pfc(PlanBuilder& b) {
  const Config& cfg = b.cfg;
  if (!cfg.pfc_tx && !cfg.pfc_rx) return;
  const unsigned tx = cfg.pfc_tx ? cfg.pfc_tx->value : 0;
  const unsigned rx = cfg.pfc_rx ? cfg.pfc_rx->value : tx;  // our short form: rx follows tx
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

}  // namespace

void plan_modules(PlanBuilder& b) {
  const Config& cfg = b.cfg;
  const Inventory& inv = b.inv;
  plan_pfc(b);
  bool any_eth = false, any_ib_port = false;
  for (const auto& [pci, s] : cfg.mlx4)
    for (const auto& t : s.type) any_eth |= t && t->value == PortType::kEth;
  for (const auto& f : inv.pci) {
    for (const auto& m : f.mlx4_ports) any_eth |= is_eth(m.value);
    if (auto rdma = rdma_driver_for(f.driver)) {
      b.load_module(std::string(*rdma),
                    "hardware: " + f.address.str() + " is driven by " + f.driver);
    }
  }
  if ((any_eth || b.pfc) && (inv.module_loaded("mlx4_core") || b.module_action("mlx4_core"))) {
    b.load_module("mlx4_en", b.pfc ? b.pfc_source : "mlx4 Ethernet ports");
  }
  for (const auto& d : inv.rdma)
    for (const auto& p : d.ports) any_ib_port |= p.link_layer == LinkLayer::kInfiniBand;
  for (const auto& m : cfg.modules) b.load_module(m.value, m.source);
  if (!cfg.ipoib.empty()) {
    const IpoibSetting& s = cfg.ipoib.begin()->second;
    b.load_module("ib_ipoib", s.mode ? s.mode->source : "IPoIB settings");
  }
  if (!cfg.pkeys.empty()) b.load_module("ib_ipoib", cfg.pkeys.begin()->second.source);
  for (const auto& [name, key] : cfg.names) {
    if (key.value.is_guid && any_ib_port) b.load_module("ib_ipoib", key.source);
  }
  if (!cfg.roce.empty()) {
    const auto& r = cfg.roce.begin()->second;
    const std::string src = r.mode ? r.mode->source : r.tos ? r.tos->source : "RoCE defaults";
    // configfs itself is mounted (and, where it is a module, loaded) by the RoCE
    // executor: it is built into most kernels.
    b.load_module("rdma_cm", src);
  }
  for (const auto& [netdev, l] : cfg.soft_links)
    b.load_module(std::string(module_of(l.kind)), l.source);
}

}  // namespace rp
