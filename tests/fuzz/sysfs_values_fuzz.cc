// Fuzz target: the parsers of values read from sysfs and given by administrators
// (GUIDs, hardware and PCI addresses, port states). Round trips must be exact.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "provision/base/types.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string s(reinterpret_cast<const char*>(data), size);
  if (auto g = rp::PortGuid::parse(s)) {
    if (rp::PortGuid::parse(g->str())->value != g->value) std::abort();
    if (rp::PortGuid::parse(g->colon_bytes())->value != g->value) std::abort();
  }
  if (auto a = rp::HwAddress::parse(s)) {
    auto again = rp::HwAddress::parse(a->str());
    if (!again || again->str() != a->str() || a->len > 20) std::abort();
    if (a->ipoib_guid() && a->len != 20) std::abort();
  }
  if (auto m = rp::MacAddress::parse(s)) {
    if (!(rp::MacAddress::parse(m->str()) == m)) std::abort();
  }
  if (auto p = rp::PciAddress::parse(s)) {
    if (!(rp::PciAddress::parse(p->str()) == p)) std::abort();
  }
  rp::PortState st = rp::parse_port_state(s);
  if (static_cast<int>(st) < 0 || static_cast<int>(st) > 5) std::abort();
  rp::parse_link_layer(s);
  return 0;
}
