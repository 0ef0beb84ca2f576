#include "provision/plan/dcb_state.h"

namespace rp {
namespace {

constexpr uint8_t kTsaEts = 2;  // IEEE_8021QAZ_TSA_ETS (linux/dcbnl.h)

std::string pairs_text(const std::map<uint8_t, uint8_t>& m) {
  std::string out;
  for (const auto& [a, b] : m)
    out += (out.empty() ? "" : ",") + std::to_string(a) + ":" + std::to_string(b);
  return out.empty() ? "none" : out;
}

}  // namespace

bool dcb_ets_holds(const DcbState& s, const SetDcbEts& want) {
  if (!s.has_ets) return false;
  if (want.tc_bw) {
    if (s.tc_bw != *want.tc_bw) return false;
    for (uint8_t tsa : s.tc_tsa)
      if (tsa != kTsaEts) return false;
  }
  for (const auto& [prio, tc] : want.prio_tc)
    if (s.prio_tc[prio] != tc) return false;
  return true;
}

bool dcb_apps_hold(const DcbState& s, const SetDcbApps& want) {
  if (want.trust && s.effective_trust() != *want.trust) return false;
  if (want.trust == DcbTrust::kPcp && !s.dscp_prio.empty()) return false;
  for (const auto& [dscp, prio] : want.dscp_prio) {
    auto it = s.dscp_prio.find(dscp);
    if (it == s.dscp_prio.end() || it->second != prio) return false;
  }
  return true;
}

std::string dcb_ets_text(const DcbState& s) {
  if (!s.has_ets) return "unknown";
  std::map<uint8_t, uint8_t> bw, moved;
  bool all_ets = true;
  for (uint8_t i = 0; i < 8; ++i) {
    if (s.tc_bw[i]) bw[i] = s.tc_bw[i];
    all_ets &= s.tc_tsa[i] == kTsaEts;
    if (s.prio_tc[i] != i) moved[i] = s.prio_tc[i];
  }
  return std::string(all_ets ? "ETS" : "not all ETS") + " tc_bw " + pairs_text(bw) + ", prio_tc " +
         (moved.empty() ? "identity" : pairs_text(moved));
}

std::string dcb_apps_text(const DcbState& s) {
  return "trust " + std::string(to_string(s.effective_trust())) + ", dscp_prio " +
         pairs_text(s.dscp_prio);
}

}  // namespace rp
