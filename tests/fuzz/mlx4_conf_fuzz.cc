// Fuzz target: /etc/rdma/mlx4.conf reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "provision/inputs/rdma_core_files.h"
#include "tests/fuzz/rdma_core_files_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rp;
  const std::string file = "/etc/rdma/mlx4.conf";
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Config cfg;
  Diagnostics diag;
  parse_mlx4_conf(text, file, cfg, diag);
  fuzz::check_diagnostics(text, file, diag);
  for (const auto& [pci, card] : cfg.mlx4) {
    if (!card.type[0] && !card.type[1]) fuzz::fail("card without a port type", pci.str());
    for (const auto& t : card.type) {
      if (t) fuzz::check_where(text, file, t->source);
    }
  }
  return 0;
}
