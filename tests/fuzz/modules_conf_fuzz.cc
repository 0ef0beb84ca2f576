// Fuzz target: /etc/rdma/modules/*.conf reader.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/values.h"
#include "tests/fuzz/rdma_core_files_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rp;
  const std::string file = "/etc/rdma/modules/rdma.conf";
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Config cfg;
  Diagnostics diag;
  parse_modules_conf(text, file, cfg, diag);
  fuzz::check_diagnostics(text, file, diag);
  std::set<std::string> seen;
  for (const auto& m : cfg.modules) {
    fuzz::check_where(text, file, m.source);
    if (!fuzz::module_ok(m.value)) fuzz::fail("invalid or unnormalised module kept", m.value);
    if (!seen.insert(m.value).second) fuzz::fail("module kept twice", m.value);
  }
  return 0;
}
