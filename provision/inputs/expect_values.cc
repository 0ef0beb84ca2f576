// The expected link's values (rd.rdma.expect, [expect <device>[/<port>]]): the one parser
// of each (values.h). The forms are the kernel's, as ibstat and `rdma link` show them:
// the rate and width of core/sysfs.c rate_show ("400 Gb/sec (4X NDR)": rate 400, width
// 4x), phys_state_show's words, the PCIe link of pci-sysfs.c (current_link_speed "16.0
// GT/s PCIe", current_link_width "16").
#include <algorithm>

#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/inputs/value_error.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

// "<n>" or "<n>.<d>" with at most one decimal, in tenths; nullopt for anything else.
std::optional<unsigned> tenths(std::string_view s) {
  const size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (whole.empty() || whole[0] == '+' || (dot != std::string_view::npos && frac.size() != 1))
    return std::nullopt;
  auto w = parse_uint(whole);
  auto f = frac.empty() ? std::optional<uint64_t>(0) : parse_uint(frac);
  if (!w || !f || *w > 100000) return std::nullopt;
  return static_cast<unsigned>(*w * 10 + *f);
}

std::string_view drop_suffix(std::string_view s, std::initializer_list<std::string_view> any) {
  for (auto suffix : any) {
    if (s.size() > suffix.size() && to_lower(s.substr(s.size() - suffix.size())) == suffix)
      return trim(s.substr(0, s.size() - suffix.size()));
  }
  return s;
}

// rate_show: the signalling rate times the lanes, in whole Gb/s but SDR's 2.5 per lane
// ("%d%s Gb/sec", rate / 10, rate % 10 ? ".5" : "").
std::optional<unsigned> parse_rate(std::string_view s, const Source& where, Diagnostics& d) {
  auto v = tenths(drop_suffix(s, {"gb/sec", "gb/s", "g"}));
  if (v && *v > 0 && (*v % 10 == 0 || *v % 10 == 5)) return v;
  return bad<unsigned>(where, d,
                       "rate " + shown(s) +
                           " is not a rate in Gb/s as rate_show prints it "
                           "(400, 200, 100, 56, 2.5)");
}

// The lanes ib_width_enum_to_int gives (IB_WIDTH_1X .. IB_WIDTH_12X).
std::optional<unsigned> parse_width(std::string_view s, const Source& where, Diagnostics& d) {
  auto v = parse_uint(drop_suffix(s, {"x"}));
  if (v && (*v == 1 || *v == 2 || *v == 4 || *v == 8 || *v == 12) && s[0] != '+')
    return static_cast<unsigned>(*v);
  return bad<unsigned>(where, d, "width " + shown(s) + " is not one of 1x, 2x, 4x, 8x, 12x");
}

std::optional<LinkLayer> parse_layer(std::string_view s, const Source& where, Diagnostics& d) {
  const std::string v = to_lower(s);
  if (v == "infiniband" || v == "ib") return LinkLayer::kInfiniBand;
  if (v == "ethernet" || v == "eth") return LinkLayer::kEthernet;
  return bad<LinkLayer>(where, d, "link layer " + shown(s) + " is not one of InfiniBand, Ethernet");
}

// The words of core/sysfs.c phys_state_to_str, compared without case or spaces.
std::optional<std::string> parse_phys_state(std::string_view s, const Source& where,
                                            Diagnostics& d) {
  for (std::string_view w : kPhysStateWords) {
    std::string a = to_lower(w), b = to_lower(s);
    a.erase(std::remove(a.begin(), a.end(), ' '), a.end());
    b.erase(std::remove(b.begin(), b.end(), ' '), b.end());
    if (a == b) return std::string(w);
  }
  std::string words;
  for (std::string_view w : kPhysStateWords) words += (words.empty() ? "" : ", ") + std::string(w);
  return bad<std::string>(where, d, "physical state " + shown(s) + " is not one of " + words);
}

std::optional<std::string> parse_fw(std::string_view s, const Source& where, Diagnostics& d) {
  if (!s.empty() && std::none_of(s.begin(), s.end(), [](char c) { return c <= ' ' || c == 127; }))
    return std::string(s);
  return bad<std::string>(where, d, "firmware version " + shown(s) + " is empty or has spaces");
}

// pci_speed_string's PCIe rates (drivers/pci/probe.c): 2.5 to 64.0 GT/s, or a generation;
// "max": what max_link_speed shows.
std::optional<unsigned> parse_pcie_speed(std::string_view s, const Source& where, Diagnostics& d) {
  static constexpr unsigned kGen[] = {25, 50, 80, 160, 320, 640};
  const std::string v = to_lower(s);
  if (v == "max") return 0u;
  if (starts_with(v, "gen") && v.size() == 4 && v[3] >= '1' && v[3] <= '6') return kGen[v[3] - '1'];
  auto t = tenths(drop_suffix(s, {"gt/s pcie", "gt/s"}));
  if (t && std::find(std::begin(kGen), std::end(kGen), *t) != std::end(kGen)) return t;
  return bad<unsigned>(where, d,
                       "PCIe speed " + shown(s) +
                           " is not one of 2.5, 5, 8, 16, 32, 64 (GT/s), "
                           "gen1..gen6 or max");
}

// pcie_link_width's lanes (include/linux/pci.h enum pcie_link_width); "max": max_link_width.
std::optional<unsigned> parse_pcie_width(std::string_view s, const Source& where, Diagnostics& d) {
  static constexpr unsigned kLanes[] = {1, 2, 4, 8, 12, 16, 32};
  const std::string v = to_lower(s);
  if (v == "max") return 0u;
  auto n = parse_uint(starts_with(v, "x") ? std::string_view(v).substr(1) : std::string_view(v));
  if (n && !v.empty() && v[0] != '+' &&
      std::find(std::begin(kLanes), std::end(kLanes), *n) != std::end(kLanes))
    return static_cast<unsigned>(*n);
  return bad<unsigned>(where, d,
                       "PCIe width " + shown(s) +
                           " is not one of x1, x2, x4, x8, x12, x16, x32 "
                           "or max");
}

template <typename T>
void put(std::optional<T> v, const Source& where, std::optional<Sourced<T>>& out) {
  if (v) out = Sourced<T>{*v, where};
}

}  // namespace

void set_expect_key(ExpectSetting& s, std::string_view key, std::string_view value,
                    const Source& where, Diagnostics& d) {
  if (key == "rate") return put(parse_rate(value, where, d), where, s.rate);
  if (key == "width") return put(parse_width(value, where, d), where, s.width);
  if (key == "link_layer") return put(parse_layer(value, where, d), where, s.link_layer);
  if (key == "phys_state") return put(parse_phys_state(value, where, d), where, s.phys_state);
  if (key == "sm") return put(parse_bool(value, where, d), where, s.sm);
  if (key == "fw") return put(parse_fw(value, where, d), where, s.fw);
  if (key == "pcie_speed") return put(parse_pcie_speed(value, where, d), where, s.pcie_speed);
  if (key == "pcie_width") return put(parse_pcie_width(value, where, d), where, s.pcie_width);
  const std::vector<std::string_view> known(std::begin(kExpectKeys), std::end(kExpectKeys));
  d.error(where, "unknown expect key " + shown(key) + " " + did_you_mean(key, known));
}

}  // namespace rp
