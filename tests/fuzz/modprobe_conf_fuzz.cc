// Fuzz target: /etc/modprobe.d/*.conf reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/values.h"
#include "tests/fuzz/rdma_core_files_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rp;
  const std::string file = "/etc/modprobe.d/mlx4.conf";
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf(text, file, cfg, diag);
  fuzz::check_diagnostics(text, file, diag);
  for (const auto& [module, options] : cfg.module_options) {
    if (!fuzz::module_ok(module)) fuzz::fail("invalid module kept", module);
    if (options.value.empty()) fuzz::fail("empty options kept", module);
    fuzz::check_where(text, file, options.source);
  }
  for (const auto& b : cfg.blacklist) {
    if (!fuzz::module_ok(b.value)) fuzz::fail("invalid blacklist kept", b.value);
    fuzz::check_where(text, file, b.source);
  }
  for (const auto* pfc : {&cfg.pfc_tx, &cfg.pfc_rx}) {
    if (!*pfc) continue;
    if ((*pfc)->value > 0xff) fuzz::fail("PFC mask above 0xff", std::to_string((*pfc)->value));
    fuzz::check_where(text, file, (*pfc)->source);
    if (!cfg.module_options.count("mlx4_en")) fuzz::fail("PFC without mlx4_en options", "");
  }
  return 0;
}
