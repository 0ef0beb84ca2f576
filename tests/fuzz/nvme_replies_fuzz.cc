// Fuzz target: what the kernel answers an NVMe over Fabrics host (kernel/nvme_fabrics.cc):
//   - the Discovery Log Page as a discovery controller returns it (parse_discovery_log: a
//     1024-byte header whose record count must not be believed past the page's end, then
//     1024-byte entries with padded ASCII fields);
//   - /dev/nvme-fabrics' answer to a connect (parse_nvmf_reply, nvmf_dev_show's
//     "instance=%d,cntlid=%d"), the same bytes as text.
// Every field read must stay within the page; a controller named must be a real instance.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "provision/kernel/nvme_fabrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> page(data, data + size);
  if (auto log = rp::parse_discovery_log(page)) {
    if (size < 1024 || log->size() > (size - 1024) / 1024) std::abort();
    for (const auto& e : *log) {
      if (e.trsvcid.size() > 32 || e.traddr.size() > 256 || e.subnqn.size() > 256) std::abort();
    }
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto c = rp::parse_nvmf_reply(text)) {
    if (c->instance < 0) std::abort();
  }
  return 0;
}
