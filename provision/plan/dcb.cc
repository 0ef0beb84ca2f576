// Lossless RoCE on an interface ([dcb <ifname>], rd.rdma.dcb): ETS, PFC and the DSCP
// priorities (trust) written over DCB netlink (apply/dcb.cc). Planned after the names and
// IPoIB settings and before links come up and RoCE ports are waited for and checked:
// mlx5 bounces the link when PFC changes (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc ->
// mlx5_toggle_port_link), and the waits must see the link as it will stay.
#include <cerrno>

#include "provision/plan/builder.h"
#include "provision/plan/dcb_state.h"

namespace rp {
namespace {

bool empty(const DcbSetting& s) {
  return !s.trust && !s.pfc && !s.tc_bw && !s.prio_tc && !s.dscp_prio;
}

// The ToS the RDMA CM gives a RoCE port's connections: this plan's, else what its
// configfs shows, else the kernel's default 0 (cma.c: cma_dev->default_roce_tos starts 0).
unsigned roce_tos(const PlanBuilder& b, const RdmaDevice& d, const RdmaPort& p) {
  for (size_t i = 0; i < b.size(); ++i) {
    const Action& a = b.action(i);
    if (a.kind() != ActionKind::kSetRoceTos) continue;
    const auto& t = a.get<SetRoceTos>();
    if (t.device == d.name && t.port == p.num) return t.tos;
  }
  return p.cm_roce_tos.value_or(0);
}

// RoCE v2 traffic of the ports on `n` against the lossless priorities, with the wanted
// settings over what the interface shows (DcbState::roce_priority): a warning when PFC
// leaves it lossy, or when the priority cannot be known.
void check_roce_priority(PlanBuilder& b, const NetDev& n, const DcbSetting& s,
                         const DcbState* cur) {
  DcbState eff = cur ? *cur : DcbState{};
  if (s.pfc) eff.pfc_en = s.pfc->value;
  if (!eff.pfc_en) return;
  if (s.trust && s.trust->value == DcbTrust::kPcp) eff.dscp_prio.clear();
  if (s.dscp_prio)
    for (const auto& [dscp, prio] : s.dscp_prio->value) eff.dscp_prio[dscp] = prio;
  if (s.trust)
    eff.trust = std::vector<uint8_t>{s.trust->value == DcbTrust::kDscp ? uint8_t{5} : uint8_t{255}};
  for (const auto& d : b.inv.rdma) {
    if (d.iwarp()) continue;
    for (const auto& p : d.ports) {
      if (p.link_layer != LinkLayer::kEthernet || p.netdev != n.name) continue;
      const unsigned tos = roce_tos(b, d, p);
      const std::string port = d.name + "/" + std::to_string(p.num);
      const bool dscp = eff.effective_trust() == DcbTrust::kDscp;
      const std::string how =
          dscp ? "ToS " + std::to_string(tos) + " is DSCP " + std::to_string(tos >> 2)
               : "trust pcp: the RDMA CM's service level, 0 on an untagged interface";
      const auto prio = eff.roce_priority(tos);
      if (!prio) {
        b.warn(s.source(), "RoCE traffic of " + port + " (" + how +
                               ") goes at the priority the device's own DSCP table gives it, "
                               "which it does not show: give it one (dscp_prio=" +
                               std::to_string(tos >> 2) + ":<priority>)");
      } else if (!(*eff.pfc_en & (1u << *prio))) {
        b.warn(s.source(), "RoCE traffic of " + port + " (" + how + ") goes at priority " +
                               std::to_string(*prio) + ", which is not lossless here (PFC on " +
                               eff.pfc_text() + ")");
      }
    }
  }
}

}  // namespace

void plan_dcb(PlanBuilder& b) {
  for (const auto& entry : b.cfg.dcb) {
    // Named references, not structured bindings: the lambda below captures them.
    const std::string& ifname = entry.first;
    const DcbSetting& s = entry.second;
    if (empty(s)) continue;
    const Iface* f = b.iface(ifname);
    if (!f) {
      b.absent_iface(s.source(), "DCB settings", "interface", ifname);
      continue;
    }
    const NetDev* n = f->netdev;
    const DcbState* cur = n && n->dcb ? &*n->dcb : nullptr;
    std::optional<size_t> last = f->producer;
    auto add = [&](ActionParams p, std::string current, const Source& src) {
      Action a{std::move(p), std::move(current), src};
      if (!n) a.waiting_for = ifname;
      if (n && n->dcb_errno == EOPNOTSUPP) {
        // dcb_doit: a driver without dcbnl_ops (virtio_net, e1000, an mlx5 VF).
        a.never = ifname + " has no DCB support: its driver" +
                  (n->driver.empty() ? "" : " " + n->driver) +
                  " registers no DCB operations (the kernel answers EOPNOTSUPP)";
      }
      PlanBuilder::need(a, last);
      last = b.add(std::move(a));
    };
    if (s.tc_bw || s.prio_tc) {
      SetDcbEts e{ifname, std::nullopt, {}};
      if (s.tc_bw) e.tc_bw = s.tc_bw->value;
      if (s.prio_tc) e.prio_tc = s.prio_tc->value;
      if (!cur || !dcb_ets_holds(*cur, e)) {
        add(e, cur ? dcb_ets_text(*cur) : "unknown", s.tc_bw ? s.tc_bw->source : s.prio_tc->source);
      }
    }
    if (s.pfc && (!cur || cur->pfc_en != s.pfc->value)) {
      add(SetDcbPfc{ifname, s.pfc->value}, cur ? "PFC on " + cur->pfc_text() : "unknown",
          s.pfc->source);
    }
    if (s.trust || s.dscp_prio) {
      SetDcbApps a{ifname, std::nullopt, {}};
      if (s.trust) a.trust = s.trust->value;
      if (s.dscp_prio) a.dscp_prio = s.dscp_prio->value;
      // Where the driver has no trust table (mlx5, and any on kernels before 6.2), DSCP
      // trust is its DSCP entries: the first one switches it (en_dcbnl.c
      // mlx5e_dcbnl_ieee_setapp -> mlx5e_set_trust_state).
      const bool table = cur && cur->trust;
      if (a.trust == DcbTrust::kDscp && a.dscp_prio.empty() && !table &&
          !(cur && !cur->dscp_prio.empty())) {
        b.diag().error(s.trust->source,
                       "trust dscp on " + ifname +
                           " with no DSCP priority: a device without a trust table (mlx5, any "
                           "before Linux 6.2) trusts DSCP once it has a DSCP entry (en_dcbnl.c "
                           "mlx5e_dcbnl_ieee_setapp): give dscp_prio=26:3 (ToS 106's DSCP)");
      } else if (!cur || !dcb_apps_hold(*cur, a)) {
        add(a, cur ? dcb_apps_text(*cur) : "unknown",
            s.trust ? s.trust->source : s.dscp_prio->source);
      }
    }
    if (n) check_roce_priority(b, *n, s, cur);
  }
}

}  // namespace rp
