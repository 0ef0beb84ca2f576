// NVMe over Fabrics over RDMA (#41): dracut's 95nvmf connects its targets with `nvme
// connect-all` once udev has settled, before any RDMA port is named, up or addressed, and
// without nvme_rdma; `nvmf --boot` connects the targets over RDMA at the network-online
// point instead (the dracut module's online hook, where verify=peer runs), one action each.
#include "provision/plan/builder.h"

namespace rp {

Plan make_nvmf_plan(const Config& cfg, const NvmfRequest& r) {
  Plan plan;
  plan.timeout_s = cfg.timeout_s.value;
  for (const auto* t : r.targets) {
    ConnectNvmf c{t->traddr, t->trsvcid, t->host_traddr == "none" ? "" : t->host_traddr, r.hostnqn,
                  r.hostid};
    std::string why = t->source.str();
    if (!r.identity_source.empty()) why += "; host " + r.identity_source;
    plan.actions.push_back(Action{std::move(c), "not connected", why});
  }
  return plan;
}

}  // namespace rp
