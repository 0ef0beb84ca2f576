// Modules: what module_needs() says this machine needs (resolve/module_needs.h), minus what
// is loaded, blacklisted or deferred to the real root, and mlx4_en's PFC masks. libkmod
// adds the dependencies at apply time.
#include <map>
#include <set>
#include <string_view>

#include "provision/base/drivers.h"
#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

// Options from modprobe.d are applied by libkmod itself at load: passing them again would
// give them twice.
bool from_modprobe_d(const std::optional<Sourced<unsigned>>& v) {
  return v && v->source.origin == Source::Origin::kModprobeD;
}

// The masks asked for. rx follows tx in our own short forms; `options mlx4_en pfctx=0x08`
// alone in modprobe.d leaves pfcrx at the module's default, 0 (mlx4/en_main.c
// MLX4_EN_PARM_INT(pfcrx, 0)).
PfcMasks asked_pfc(const Config& cfg) {
  const unsigned tx = cfg.pfc_tx ? cfg.pfc_tx->value : 0;
  return PfcMasks{tx, cfg.pfc_rx ? cfg.pfc_rx->value : from_modprobe_d(cfg.pfc_tx) ? 0 : tx};
}

// The PFC masks for mlx4_en; a reload when it is loaded with other ones and the config
// allows it, else a warning (its parameters are read-only once loaded: en_main.c).
void plan_pfc(PlanBuilder& b) {
  const Config& cfg = b.cfg;
  if (!cfg.pfc_tx && !cfg.pfc_rx) return;
  b.pfc = asked_pfc(cfg);
  const unsigned tx = b.pfc->tx, rx = b.pfc->rx;
  b.pfc_source = cfg.pfc_tx ? cfg.pfc_tx->source.str() : cfg.pfc_rx->source;
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

std::optional<PfcMasks> wanted_pfc(const Config& cfg) {
  const bool ours =
      (cfg.pfc_tx && !from_modprobe_d(cfg.pfc_tx)) || (cfg.pfc_rx && !from_modprobe_d(cfg.pfc_rx));
  if (!ours) return std::nullopt;
  return asked_pfc(cfg);
}

void plan_modules(PlanBuilder& b) {
  const Config& cfg = b.cfg;
  const Inventory& inv = b.inv;
  plan_pfc(b);
  const ModuleNeeds& needs = b.module_needs();
  const bool defer = inv.initramfs && cfg.defer_lists.value;
  std::map<std::string, std::vector<std::string>> deferred;  // file -> modules
  for (const auto& n : needs.needs) {
    switch (n.kind) {
      case ModuleNeed::Kind::kOnRequest:  // the kernel requests it; the image carries it
        break;
      case ModuleNeed::Kind::kList:
        if (defer) {
          deferred[n.source->file].push_back(n.module);
          break;
        }
        b.load_module(n.module, n.why);
        break;
      case ModuleNeed::Kind::kHardware:
        if (auto i = b.load_module(n.module, n.why)) b.set_driver_load(*i);
        break;
      case ModuleNeed::Kind::kMlx4Core:
      case ModuleNeed::Kind::kSetting:
        b.load_module(n.module, n.why);
        break;
    }
  }
  for (const auto& s : needs.not_wanted) {
    std::string list;
    for (const auto& m : s.modules) list += (list.empty() ? "" : " ") + m;
    b.note(s.file + ": not loaded (" + s.why + ", as rdma-core's udev rules decide): " + list);
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
    const std::string by = cfg.defer_lists.source.is_default()
                               ? std::string("[modules] defer = yes, the default")
                               : cfg.defer_lists.source.str();
    b.note("deferred to the real root (" + by +
           ": the initramfs loads what this node's devices and settings need; "
           "rdma-provision.service or rdma-core's rdma-load-modules@ load the rest there): " +
           text);
  }
}

Plan early_module_plan(const Plan& full, const Inventory& inv) {
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
    if (l.module != "rdma_rxe") continue;
    // The crypto API picks the highest-priority crc32 registered when rxe asks (pclmul
    // before generic, crypto/api.c crypto_alg_lookup), and requests a module only when
    // none is: every module this kernel has for it, crc32_pclmul only where the CPU
    // takes it. A kernel with none (another implementation, built in) gets no action.
    for (const auto& m : inv.crc32_modules) {
      if (m == "crc32_pclmul" && !inv.cpu_pclmulqdq) continue;
      if (inv.module_loaded(m)) continue;
      out.actions.emplace_back(LoadModule{m, "", std::nullopt}, "not loaded",
                               "rdma_rxe's crc32 (the kernel asks the crypto API for it when "
                               "a link is made, rxe_icrc.c)");
    }
  }
  return out;
}

}  // namespace rp
