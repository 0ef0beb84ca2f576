// Fuzz target: /etc/udev/rules.d/70-persistent-ipoib.rules reader.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "provision/inputs/rdma_core_files.h"
#include "tests/fuzz/rdma_core_files_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rp;
  const std::string file = "/etc/udev/rules.d/70-persistent-ipoib.rules";
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Config cfg;
  Diagnostics diag;
  parse_ipoib_rules(text, file, cfg, diag);
  fuzz::check_diagnostics(text, file, diag);
  std::set<HwKey> keys;
  for (const auto& [name, key] : cfg.names) {
    // The kernel's own ib<N>/eth<N> is kept from this file with a warning (udev applies
    // it: inputs/ipoib_rules.cc); anything else must be a name we could give.
    Diagnostics scratch;
    const bool kernel_form = parse_ifname(name, rp::Source{}, scratch) && is_kernel_own_name(name);
    if (!fuzz::new_ifname_ok(name) && !kernel_form) fuzz::fail("invalid name kept", name);
    if (kernel_form && diag.warnings.empty()) fuzz::fail("kernel name kept silently", name);
    fuzz::check_where(text, file, key.source);
    if (key.value.is_mac() && key.value.value >> 48) fuzz::fail("MAC wider than 48 bits", name);
    if (!keys.insert(key.value).second) fuzz::fail("one device under two names", name);
  }
  return 0;
}
