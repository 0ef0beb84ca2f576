// DCB over DCB netlink (kernel/dcbnl.h): each executor reads the interface's state, writes
// only what differs (a second run writes nothing), and reads it back. A driver's
// refusal comes back as the kernel's status byte; a driver without DCB as EOPNOTSUPP.
#include <cerrno>

#include "provision/apply/context.h"
#include "provision/kernel/dcbnl.h"
#include "provision/plan/dcb_state.h"

namespace rp {
namespace {

constexpr uint8_t kTsaEts = 2;    // IEEE_8021QAZ_TSA_ETS
constexpr uint8_t kSelDscp = 5;   // IEEE_8021QAZ_APP_SEL_DSCP
constexpr uint8_t kSelPcp = 255;  // DCB_APP_SEL_PCP (kernels 6.2 and later)

const DcbOps& ops_of(const ApplyContext& ctx) { return ctx.dcb ? *ctx.dcb : kernel_dcb(); }

// DCB acts on the running kernel (or the stand-in a test gives).
std::optional<Outcome> cannot_act(const ApplyContext& ctx) {
  if (ctx.dcb) return std::nullopt;
  return live_only(ctx);
}

// The ETS struct the interface should show: what it shows, every class ETS with the wanted
// shares, the wanted priorities moved.
DcbEtsRequest wanted_ets(const DcbState& cur, const SetDcbEts& p) {
  DcbEtsRequest r;
  r.willing = cur.ets_willing;
  r.ets_cap = cur.ets_cap;
  r.cbs = cur.ets_cbs;
  r.tc_bw = cur.tc_bw;
  r.tc_tsa = cur.tc_tsa;
  r.prio_tc = cur.prio_tc;
  if (p.tc_bw) {
    r.tc_bw = *p.tc_bw;
    r.tc_tsa.fill(kTsaEts);
  }
  for (const auto& [prio, tc] : p.prio_tc) r.prio_tc[prio] = tc;
  return r;
}

// A refused or unread write: the kernel's words; a write that did not hold: what it shows.
Outcome not_kept(const std::string& ifname, const std::string& what, const std::string& shows) {
  return Outcome::failed(make_error(
      ifname, "DCB " + what + ": accepted, but the interface shows " + shows + " after it"));
}

}  // namespace

Outcome exec_dcb_ets(ApplyContext& ctx, const Action&, const SetDcbEts& p) {
  if (auto skip = cannot_act(ctx)) return *skip;
  const DcbOps& ops = ops_of(ctx);
  auto cur = ops.get(p.ifname);
  if (!cur) return Outcome::failed(cur.error());
  if (dcb_ets_holds(*cur, p)) return Outcome::already(dcb_ets_text(*cur));
  if (auto s = ops.set_ets(p.ifname, wanted_ets(*cur, p)); !s) return Outcome::failed(s.error());
  auto back = ops.get(p.ifname);
  if (!back) return Outcome::failed(back.error());
  if (!dcb_ets_holds(*back, p)) return not_kept(p.ifname, "ETS", dcb_ets_text(*back));
  return Outcome::done(dcb_ets_text(*back));
}

Outcome exec_dcb_pfc(ApplyContext& ctx, const Action&, const SetDcbPfc& p) {
  if (auto skip = cannot_act(ctx)) return *skip;
  const DcbOps& ops = ops_of(ctx);
  auto cur = ops.get(p.ifname);
  if (!cur) return Outcome::failed(cur.error());
  if (cur->pfc_en == p.pfc_en) return Outcome::already("PFC on " + cur->pfc_text());
  // The whole struct as the interface shows it, pfc_en changed (`dcb pfc set` alike):
  // mlx5 takes the cable length from `delay` (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc).
  DcbPfcRequest r{p.pfc_en, cur->pfc_cap, cur->pfc_mbc, cur->pfc_delay};
  if (auto s = ops.set_pfc(p.ifname, r); !s) return Outcome::failed(s.error());
  auto back = ops.get(p.ifname);
  if (!back) return Outcome::failed(back.error());
  if (back->pfc_en != p.pfc_en) return not_kept(p.ifname, "PFC", "PFC on " + back->pfc_text());
  return Outcome::done("PFC on " + back->pfc_text());
}

Outcome exec_dcb_apps(ApplyContext& ctx, const Action&, const SetDcbApps& p) {
  if (auto skip = cannot_act(ctx)) return *skip;
  const DcbOps& ops = ops_of(ctx);
  auto cur = ops.get(p.ifname);
  if (!cur) return Outcome::failed(cur.error());
  // The DSCP entries to add, and those of the same DSCPs with another priority to delete
  // after, where the driver has not replaced them (`dcb app replace` alike: the kernel keeps one
  // entry per selector, protocol and priority, dcb_ieee_setapp). Trust pcp: every DSCP entry goes
  // (mlx5 switches back to PCP trust when its last one does, en_dcbnl.c mlx5e_dcbnl_ieee_delapp).
  std::vector<DcbAppEntry> add, del;
  for (const auto& [dscp, prio] : p.dscp_prio) {
    auto it = cur->dscp_prio.find(dscp);
    if (it != cur->dscp_prio.end() && it->second == prio) continue;
    add.push_back({kSelDscp, prio, dscp});
    if (it != cur->dscp_prio.end()) del.push_back({kSelDscp, it->second, dscp});
  }
  if (p.trust == DcbTrust::kPcp) {
    for (const auto& [dscp, prio] : cur->dscp_prio) del.push_back({kSelDscp, prio, dscp});
  }
  // The trust table where the driver has one (it shows one, kernels 6.2 and later).
  std::optional<std::vector<uint8_t>> trust;
  if (p.trust && cur->trust) {
    std::vector<uint8_t> want = p.trust == DcbTrust::kDscp ? std::vector<uint8_t>{kSelDscp, kSelPcp}
                                                           : std::vector<uint8_t>{kSelPcp};
    if (*cur->trust != want) trust = want;
  }
  if (add.empty() && del.empty() && !trust) return Outcome::already(dcb_apps_text(*cur));
  if (!add.empty()) {
    if (auto s = ops.add_apps(p.ifname, add); !s) return Outcome::failed(s.error());
  }
  if (!add.empty() && !del.empty()) {
    // mlx5 replaces a DSCP's entry itself when another priority is added for it (en_dcbnl.c
    // mlx5e_dcbnl_ieee_setapp deletes the old one through dcb_ieee_delapp) and answers
    // ENOENT to a delete of what it no longer has (mlx5e_dcbnl_ieee_delapp): only what
    // the table still shows is deleted. A driver that keeps both keeps the old one listed
    // (dcbnl.c dcb_app_add puts the newest first, so the reader's map keeps the oldest).
    auto now = ops.get(p.ifname);
    if (!now) return Outcome::failed(now.error());
    std::vector<DcbAppEntry> still;
    for (const auto& e : del) {
      auto it = now->dscp_prio.find(static_cast<uint8_t>(e.protocol));
      if (it != now->dscp_prio.end() && it->second == e.priority) still.push_back(e);
    }
    del = std::move(still);
  }
  if (!del.empty()) {
    if (auto s = ops.del_apps(p.ifname, del); !s) return Outcome::failed(s.error());
  }
  if (trust) {
    if (auto s = ops.set_trust(p.ifname, *trust); !s) return Outcome::failed(s.error());
  }
  auto back = ops.get(p.ifname);
  if (!back) return Outcome::failed(back.error());
  if (!dcb_apps_hold(*back, p)) return not_kept(p.ifname, "APP table", dcb_apps_text(*back));
  return Outcome::done(dcb_apps_text(*back));
}

}  // namespace rp
