#include "tests/support/fake_dcb.h"

#include <cerrno>

namespace rp::testing {
namespace {

constexpr uint8_t kTsaStrict = 0, kTsaEts = 2, kTsaVendor = 255;
constexpr uint8_t kSelDscp = 5;

std::string pair(unsigned a, unsigned b) { return std::to_string(a) + ":" + std::to_string(b); }

}  // namespace

void FakeDcb::add_mlx5(const std::string& ifname) {
  Port p;
  DcbState& s = p.state;
  s.pfc_en = 0;
  s.pfc_cap = 8;     // max_tc + 1 (mlx5e_dcbnl_ieee_getpfc)
  s.pfc_delay = 7;   // MLX5E_DEFAULT_CABLE_LEN, where the buffer is supported
  s.has_ets = true;  // mlx5e_ets_init: every class VENDOR at 100, priorities 0 and 1 swapped
  s.ets_cap = 8;
  for (uint8_t i = 0; i < 8; ++i) {
    s.tc_tsa[i] = kTsaVendor;
    s.tc_bw[i] = 100;
    s.prio_tc[i] = i;
  }
  s.prio_tc[0] = 1;
  s.prio_tc[1] = 0;
  s.dcbx = 0x0d;  // DCB_CAP_DCBX_HOST | VER_CEE | VER_IEEE: host mode
  ports_[ifname] = p;
}

void FakeDcb::add_without_dcb(const std::string& ifname) {
  Port p;
  p.dcb = false;
  ports_[ifname] = p;
}

Result<FakeDcb::Port*> FakeDcb::port(const std::string& ifname) const {
  auto it = ports_.find(ifname);
  if (it == ports_.end()) return make_error(ifname, "DCB: no such interface", ENODEV);
  if (!it->second.dcb) {
    return make_error(ifname, "DCB: its driver has no DCB support (no dcbnl_ops)", EOPNOTSUPP);
  }
  return &it->second;
}

Result<DcbState> FakeDcb::get(const std::string& ifname) const {
  ++gets_;
  auto p = port(ifname);
  if (!p) return p.error();
  // dcbnl_ieee_fill: the APP table is the kernel's dcb_app_list, not the driver's; no
  // trust table for a driver without dcbnl_getapptrust (mlx5).
  return (*p)->state;
}

Status FakeDcb::set_pfc(const std::string& ifname, const DcbPfcRequest& r) const {
  auto p = port(ifname);
  if (!p) return p.error();
  DcbState& s = (*p)->state;
  // mlx5e_dcbnl_ieee_setpfc: a new pfc_en is written for both directions and the link is
  // toggled (mlx5_toggle_port_link); no check of the bits; delay is the cable length when
  // below MLX5E_MAX_CABLE_LENGTH (1000).
  if (s.pfc_en != r.pfc_en) {
    s.pfc_en = r.pfc_en;
    writes_.push_back(ifname + " pfc 0x" + std::to_string(r.pfc_en));
    writes_.push_back(ifname + " link toggled");
  }
  if (r.delay && r.delay < 1000) s.pfc_delay = r.delay;
  return ok_status();
}

Status FakeDcb::set_ets(const std::string& ifname, const DcbEtsRequest& r) const {
  auto p = port(ifname);
  if (!p) return p.error();
  // mlx5e_dbcnl_validate_ets: a priority's class below MLX5E_MAX_PRIORITY (8); the ETS
  // classes' shares summing to 100 when there is one. Refusals are the status byte.
  unsigned sum = 0;
  bool any_ets = false;
  for (uint8_t i = 0; i < 8; ++i) {
    if (r.prio_tc[i] >= 8) return make_error(ifname, "DCB ETS: the driver refused it", EINVAL);
    if (r.tc_tsa[i] == kTsaEts) {
      any_ets = true;
      sum += r.tc_bw[i];
    }
  }
  if (any_ets && sum != 100) return make_error(ifname, "DCB ETS: the driver refused it", EINVAL);
  DcbState& s = (*p)->state;
  s.tc_bw = r.tc_bw;
  s.tc_tsa = r.tc_tsa;
  s.prio_tc = r.prio_tc;
  // mlx5e_dcbnl_ieee_getets rebuilds TSA from the groups: strict stays strict, a share
  // below 100 reads ETS (what a 100 share of an ETS class reads is not modelled).
  for (uint8_t i = 0; i < 8; ++i)
    if (r.tc_tsa[i] == kTsaStrict) s.tc_bw[i] = 100;
  writes_.push_back(ifname + " ets");
  return ok_status();
}

Status FakeDcb::add_apps(const std::string& ifname, const std::vector<DcbAppEntry>& e) const {
  auto p = port(ifname);
  if (!p) return p.error();
  Port& port = **p;
  for (const auto& a : e) {
    // mlx5e_dcbnl_ieee_setapp: DSCP entries only, protocol below 64; the first switches
    // the port to DSCP trust (mlx5e_set_trust_state, QPTS 2); the old entry of that DSCP
    // goes (dcb_ieee_delapp), the new one is added (dcb_ieee_setapp).
    if (a.selector != kSelDscp || a.protocol >= 64)
      return make_error(ifname, "DCB APP entries (add): the driver refused it", EINVAL);
    if (port.state.dscp_prio.empty()) port.qpts = 2;
    port.dscp2prio[a.protocol] = a.priority;
    port.state.dscp_prio[static_cast<uint8_t>(a.protocol)] = a.priority;
    writes_.push_back(ifname + " app+ " + pair(a.protocol, a.priority));
  }
  return ok_status();
}

Status FakeDcb::del_apps(const std::string& ifname, const std::vector<DcbAppEntry>& e) const {
  auto p = port(ifname);
  if (!p) return p.error();
  Port& port = **p;
  for (const auto& a : e) {
    // mlx5e_dcbnl_ieee_delapp: ENOENT unless the DSCP has that priority now; the DSCP is
    // reset to priority 0; the last entry switches the port back to PCP trust.
    auto it = port.state.dscp_prio.find(static_cast<uint8_t>(a.protocol));
    if (a.selector != kSelDscp || a.protocol >= 64)
      return make_error(ifname, "DCB APP entries (delete): the driver refused it", EINVAL);
    if (it == port.state.dscp_prio.end() || it->second != a.priority)
      return make_error(ifname, "DCB APP entries (delete): the driver refused it", ENOENT);
    port.state.dscp_prio.erase(it);
    port.dscp2prio[a.protocol] = 0;
    if (port.state.dscp_prio.empty()) port.qpts = 1;
    writes_.push_back(ifname + " app- " + pair(a.protocol, a.priority));
  }
  return ok_status();
}

Status FakeDcb::set_trust(const std::string& ifname, const std::vector<uint8_t>&) const {
  auto p = port(ifname);
  if (!p) return p.error();
  // dcbnl_ieee_set: a trust table for a driver without dcbnl_setapptrust is EOPNOTSUPP
  // from 6.2; 6.1 skips the attribute and answers 0.
  if (trust_table_kernel_)
    return make_error(ifname, "DCB trust table: the driver refused it", EOPNOTSUPP);
  return ok_status();
}

uint8_t FakeDcb::trust_register(const std::string& ifname) const {
  auto it = ports_.find(ifname);
  return it == ports_.end() ? 0 : it->second.qpts;
}

}  // namespace rp::testing
