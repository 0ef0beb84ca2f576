// NVMe over Fabrics over RDMA (#41): dracut's 95nvmf connects its targets with `nvme
// connect-all` once udev has settled, before any RDMA port is named, up or addressed, and
// without nvme_rdma; `nvmf --boot` connects the targets over RDMA at the network-online
// point instead (the dracut module's online hook, where verify=peer runs), one action each.
#include "provision/plan/builder.h"

namespace rp {

// A target over RDMA needs an RDMA port to reach it through: none present and none this
// plan makes (a Soft-RoCE or Soft-iWARP link) is said as absent, as any target the
// configuration names (apply's coldplug wait waits for an HCA still probing; under
// rd.rdma.required=1 a failing require action), at check and image build too, instead of
// a connect that can only fail at the online point.
void plan_nvmf_path(PlanBuilder& b) {
  const auto targets = b.cfg.boot.nvmf_rdma();
  if (targets.empty() || !b.inv.rdma.empty() || !b.planned_soft().empty()) return;
  b.absent(targets.front()->source, "NVMe over Fabrics over RDMA to " + targets.front()->traddr,
           "RDMA device", "(an HCA, or a link of rd.rdma.rxe= or rd.rdma.siw=)", {});
}

Plan make_nvmf_plan(const Config& cfg, const NvmfRequest& r) {
  Plan plan;
  plan.timeout_s = cfg.timeout_s.value;
  for (const auto* t : r.targets) {
    ConnectNvmf c{t->traddr, t->trsvcid, t->host_traddr == "none" ? "" : t->host_traddr, r.hostnqn,
                  r.hostid};
    std::string why = t->source.str();
    if (!r.identity_source.empty()) why += "; host " + r.identity_source;
    Action connect{std::move(c), "not connected", why};
    // rd.rdma.verify: the target tried through rdma_cm first, so that a connect that
    // cannot work fails with the fabric's answer (nothing listening, the target's reason)
    // instead of the one errno /dev/nvme-fabrics gives.
    const auto addr = IpAddress::parse(t->traddr);
    if (cfg.verify.value.mode != VerifySetting::Mode::kOff && addr && t->port) {
      plan.actions.push_back(Action{VerifyNvmfTarget{*addr, *t->port}, "not verified",
                                    cfg.verify.source + "; " + t->source.str()});
      PlanBuilder::need(connect, plan.actions.size() - 1);
    }
    plan.actions.push_back(std::move(connect));
  }
  return plan;
}

}  // namespace rp
