// The DCB settings' values (rd.rdma.dcb, [dcb <ifname>]): the one parser of each
// (values.h). Names and forms follow iproute2's `dcb` (prio-pfc, tc-bw, prio-tc,
// dscp-prio), the ranges the kernel's structs and mlx5's checks (en_dcbnl.c).
#include <map>

#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/inputs/value_error.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

// The words of a list: spaces (native config) or '+' (the command line).
std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ' ' || s[i] == '\t' || s[i] == '+') {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::optional<unsigned> small(std::string_view s, unsigned max) {
  auto v = parse_uint(s);
  if (!v || *v > max || s.empty() || s[0] == '+') return std::nullopt;
  return static_cast<unsigned>(*v);
}

// "a:b" pairs, a in 0..amax, b in 0..bmax; `what` names the list in messages.
std::optional<std::map<uint8_t, uint8_t>> pairs(std::string_view s, unsigned amax, unsigned bmax,
                                                const char* form, const char* what,
                                                const Source& where, Diagnostics& d) {
  std::map<uint8_t, uint8_t> out;
  const auto list = words(s);
  if (list.empty()) {
    return bad<std::map<uint8_t, uint8_t>>(where, d,
                                           std::string(what) + " is empty (e.g. " + form + ")");
  }
  for (auto w : list) {
    const size_t colon = w.find(':');
    auto a = colon == std::string_view::npos ? std::nullopt : small(w.substr(0, colon), amax);
    auto b = colon == std::string_view::npos ? std::nullopt : small(w.substr(colon + 1), bmax);
    if (!a || !b) {
      return bad<std::map<uint8_t, uint8_t>>(where, d,
                                             std::string(what) + ": " + shown(w) + " is not <0.." +
                                                 std::to_string(amax) + ">:<0.." +
                                                 std::to_string(bmax) + "> (e.g. " + form + ")");
    }
    if (!out.emplace(static_cast<uint8_t>(*a), static_cast<uint8_t>(*b)).second) {
      return bad<std::map<uint8_t, uint8_t>>(
          where, d, std::string(what) + ": " + std::to_string(*a) + " is given twice");
    }
  }
  return out;
}

}  // namespace

std::optional<DcbTrust> parse_dcb_trust(std::string_view s, const Source& where, Diagnostics& d) {
  if (s == "pcp") return DcbTrust::kPcp;
  if (s == "dscp") return DcbTrust::kDscp;
  return bad<DcbTrust>(where, d, "trust " + shown(s) + " is not pcp or dscp");
}

std::optional<uint8_t> parse_dcb_priorities(std::string_view s, const Source& where,
                                            Diagnostics& d) {
  if (s == "none") return 0;
  const auto list = words(s);
  if (list.empty()) {
    return bad<uint8_t>(where, d, "PFC priorities are empty (e.g. 3, or none)");
  }
  unsigned mask = 0;
  for (auto w : list) {
    auto p = small(w, 7);
    if (!p) {
      return bad<uint8_t>(where, d,
                          "PFC priority " + shown(w) + " is not 0..7 (the 802.1p priorities)");
    }
    mask |= 1u << *p;
  }
  return static_cast<uint8_t>(mask);
}

std::optional<std::array<uint8_t, 8>> parse_dcb_tc_bw(std::string_view s, const Source& where,
                                                      Diagnostics& d) {
  auto p = pairs(s, 7, 100, "0:50+3:50", "tc-bw", where, d);
  if (!p) return std::nullopt;
  std::array<uint8_t, 8> bw{};
  unsigned sum = 0;
  for (const auto& [tc, pct] : *p) {
    bw[tc] = pct;
    sum += pct;
  }
  if (sum != 100) {
    return bad<std::array<uint8_t, 8>>(
        where, d,
        "tc-bw " + shown(s) + " sums to " + std::to_string(sum) +
            "%: the ETS classes' bandwidths must sum to 100 (mlx5 refuses any other sum, "
            "en_dcbnl.c mlx5e_dbcnl_validate_ets)");
  }
  return bw;
}

std::optional<std::map<uint8_t, uint8_t>> parse_dcb_prio_tc(std::string_view s, const Source& where,
                                                            Diagnostics& d) {
  return pairs(s, 7, 7, "3:3", "prio-tc", where, d);
}

void set_dcb_key(DcbSetting& s, std::string_view key, std::string_view v, const Source& where,
                 Diagnostics& d) {
  auto put = [&](auto parsed, auto& out) {
    using T = typename decltype(parsed)::value_type;
    if (parsed) out = Sourced<T>{*parsed, where};
  };
  if (key == "trust") return put(parse_dcb_trust(v, where, d), s.trust);
  if (key == "pfc") return put(parse_dcb_priorities(v, where, d), s.pfc);
  if (key == "tc_bw") return put(parse_dcb_tc_bw(v, where, d), s.tc_bw);
  if (key == "prio_tc") return put(parse_dcb_prio_tc(v, where, d), s.prio_tc);
  if (key == "dscp_prio") return put(parse_dcb_dscp_prio(v, where, d), s.dscp_prio);
  d.error(where,
          "unknown DCB setting " + shown(key) + " (known: trust, pfc, tc_bw, prio_tc, dscp_prio)");
}

std::optional<std::map<uint8_t, uint8_t>> parse_dcb_dscp_prio(std::string_view s,
                                                              const Source& where, Diagnostics& d) {
  return pairs(s, 63, 7, "26:3", "dscp-prio", where, d);
}

}  // namespace rp
