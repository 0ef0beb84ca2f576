// NVMe over Fabrics over RDMA (#41): dracut's 95nvmf connects its targets with `nvme
// connect-all` once udev has settled, before any RDMA port is named, up or addressed, and
// without nvme_rdma; `nvmf --boot` connects the targets over RDMA at the network-online
// point instead (the dracut module's online hook, where verify=peer runs), one action each.
#include "provision/plan/builder.h"

namespace rp {

namespace {

// The interface the configuration puts on the target's subnet (ip='s static form, our own
// addresses and the node table's), with what puts it there; {} when nothing does (DHCP,
// a route through a gateway: known only at the online point).
std::pair<std::string, std::string> iface_towards(const PlanBuilder& b, const IpAddress& t) {
  for (const auto& s : b.cfg.boot.static_addresses)
    if (prefix_contains(s.prefix, t)) return {s.iface, s.source.str()};
  for (const auto& [ifname, list] : b.cfg.addresses)
    for (const auto& a : list)
      if (prefix_contains(a.prefix, t)) return {ifname, a.source.str()};
  return {};
}

// Whether an RDMA port will be under `ifname` (by the name it will have): an RDMA device's
// interface, an IPoIB one, one a VLAN sits on (rdma_cm resolves a RoCE GID through the
// VLAN's real device: roce_gid_mgmt.c), or one this plan makes a soft link on. An
// interface not here is said elsewhere (ip=): not again.
bool rdma_under(const PlanBuilder& b, const std::string& ifname) {
  for (const auto& [name, soft] : b.planned_soft()) {
    if (b.final_name(b.action(soft.action).get<CreateSoftLink>().netdev) == ifname) return true;
  }
  const Iface* f = b.iface(ifname);
  if (!f || !f->netdev) return true;
  const NetDev* n = f->netdev;
  if (n->type == kArphrdInfiniband || !n->rdma_device.empty()) return true;
  for (const auto& parent : b.inv.netdevs)
    if (n->iflink != n->ifindex && parent.ifindex == n->iflink) return !parent.rdma_device.empty();
  return false;
}

}  // namespace

// A target over RDMA needs an RDMA port to reach it through: none present and none this
// plan makes (a Soft-RoCE or Soft-iWARP link), or none under the interface the
// configuration puts on the target's subnet, is said as absent, as any target the
// configuration names (apply's coldplug wait waits for an HCA still probing; under
// rd.rdma.required=1 a failing require action), at check and image build too, instead of
// a connect that can only fail at the online point.
void plan_nvmf_path(PlanBuilder& b) {
  const auto targets = b.cfg.boot.nvmf_rdma();
  if (targets.empty()) return;
  if (b.inv.rdma.empty() && b.planned_soft().empty()) {
    return b.absent(targets.front()->source,
                    "NVMe over Fabrics over RDMA to " + targets.front()->traddr, "RDMA device",
                    "(an HCA, or a link of rd.rdma.rxe= or rd.rdma.siw=)", {});
  }
  std::vector<PlanBuilder::Candidate> present;
  for (const auto& n : b.inv.netdevs) {
    if (n.rdma_device.empty()) continue;
    const std::string name = b.final_name(n.name);
    present.push_back(
        {name, name + " (" + n.rdma_device + "/" + std::to_string(n.rdma_port) + ")"});
  }
  for (const auto* t : targets) {
    const auto addr = IpAddress::parse(t->traddr);
    if (!addr) continue;
    const auto [ifname, why] = iface_towards(b, *addr);
    if (ifname.empty() || rdma_under(b, ifname)) continue;
    b.absent(t->source,
             "NVMe over Fabrics over RDMA to " + t->traddr + " goes through " + ifname + " (" +
                 why + " puts its subnet there; no rd.rdma.rxe= or rd.rdma.siw= link on it)",
             "RDMA port under interface", ifname, present);
  }
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
