// Fuzz target: the native configuration reader. Invariants: never crashes, every
// message names the file and a line, and values that reach the Config are in range.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "provision/base/strings.h"
#include "provision/inputs/native_conf.h"
#include "provision/inputs/values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  rp::Config cfg;
  rp::Diagnostics diag;
  rp::parse_native_conf(text, "/etc/rdma-provision/rdma-provision.conf", cfg, diag);
  for (const auto& e : diag.errors) {
    if (!rp::starts_with(e.where, "/etc/rdma-provision/rdma-provision.conf:")) std::abort();
    if (e.what.empty() || e.what.find('\n') != std::string::npos) std::abort();
  }
  if (cfg.timeout_s.value < 1 || cfg.timeout_s.value > 3600) std::abort();
  if (cfg.pfc_tx && cfg.pfc_tx->value > 0xff) std::abort();
  for (const auto& [k, c] : cfg.pkeys)
    if ((c.pkey & 0x7fff) == 0) std::abort();
  for (const auto& [k, r] : cfg.roce)
    if (r.tos && r.tos->value > 255) std::abort();
  for (const auto& [name, key] : cfg.names) {
    rp::Diagnostics scratch;
    if (!rp::parse_new_ifname(name, rp::Source{}, scratch)) std::abort();
  }
  for (const auto& m : cfg.modules) {
    rp::Diagnostics scratch;
    if (rp::parse_module_name(m.value, rp::Source{}, scratch) != m.value)
      std::abort();  // normalised
  }
  for (const auto& b : cfg.blacklist) {
    rp::Diagnostics scratch;
    if (rp::parse_module_name(b.value, rp::Source{}, scratch) != b.value) std::abort();
  }
  return 0;
}
