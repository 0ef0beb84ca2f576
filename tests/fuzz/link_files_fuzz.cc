// Fuzz target: systemd .link files (inputs/link_files.cc), one file per input.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "provision/inputs/rdma_core_files.h"
#include "tests/fuzz/rdma_core_files_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rp;
  const std::string file = "/etc/systemd/network/70-custom-ifnames.link";
  std::string text(reinterpret_cast<const char*>(data), size);
  Config cfg;
  Diagnostics diag;
  parse_link_files({{file, text}}, cfg, diag);
  if (!diag.errors.empty()) fuzz::fail("udev's file refused", diag.errors[0].str());
  // Every message names the file, with a line of it where it names one.
  for (const Error& w : diag.warnings) {
    if (w.where != file) fuzz::check_where(text, file, w.where);
    if (w.what.empty() || w.what.size() > 1000) fuzz::fail("message empty or too long", w.what);
  }
  std::set<HwKey> keys;
  for (const auto& [name, key] : cfg.names) {
    Diagnostics scratch;
    const bool kernel_form = parse_ifname(name, rp::Source{}, scratch) && is_kernel_own_name(name);
    if (!fuzz::new_ifname_ok(name) && !kernel_form) fuzz::fail("invalid name kept", name);
    fuzz::check_where(text, file, key.source);
    if (!key.value.is_address()) fuzz::fail("a name by something other than an address", name);
    if (!keys.insert(key.value).second) fuzz::fail("one device under two names", name);
  }
  return 0;
}
