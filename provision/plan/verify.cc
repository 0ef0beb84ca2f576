// rd.rdma.verify: trying the data path (apply/verify.cc runs the actions). With "ports",
// apply's plan checks the ports last, after the waits: a port is checked once it is
// ACTIVE, with its RoCE mode set. With "peer", the ports and the peer are checked once
// dracut's network has configured the node's address (the module's initqueue/online hook
// runs `rdma-provision verify --boot`, through make_verify_plan): the IPv4 GID then
// exists, so the loopback needs no wait for the IPv6 link-local GID's duplicate address
// detection, which costs a check right after link-up about 2 s (e2e scenario 16).
#include "provision/plan/builder.h"
#include "provision/plan/rdma_select.h"

namespace rp {
namespace {

// The RoCE mode the configuration gives a port, if any (the last matching setting).
std::optional<RoceMode> configured_mode(const PlanBuilder& b, const std::string& dev,
                                        unsigned port) {
  std::optional<RoceMode> mode;
  for (const auto& [k, s] : b.cfg.roce) {
    if (!s.mode || (k.second && k.second != port)) continue;
    for (const auto& [d, only] : select_rdma(b, k.first, nullptr)) {
      if (d->name == dev && (!only || only == port)) mode = s.mode->value;
    }
    // A soft device this plan creates is not in the inventory yet: its name selects it.
    if (k.first.by == RdmaSelector::By::kName && k.first.name == dev) mode = s.mode->value;
  }
  return mode;
}

const RdmaPort* find_port(const PlanBuilder& b, const std::string& dev, unsigned port) {
  const RdmaDevice* d = b.inv.find_rdma(dev);
  return d ? d->port(port) : nullptr;
}

bool ethernet(const PlanBuilder& b, const std::string& dev, unsigned port) {
  if (b.planned_soft().count(dev)) return true;
  const RdmaPort* p = find_port(b, dev, port);
  return p && p->link_layer == LinkLayer::kEthernet;
}

// An iWARP port (RdmaDevice::iwarp), or one of a Soft-iWARP device this plan creates.
bool iwarp(const PlanBuilder& b, const std::string& dev) {
  if (auto s = b.planned_soft().find(dev); s != b.planned_soft().end()) {
    return s->second.kind == SoftKind::kSiw;
  }
  const RdmaDevice* d = b.inv.find_rdma(dev);
  return d && d->iwarp();
}

// The RoCE type a port's check uses: the configured mode; else v2, as rdma_cm's default
// (cma.c cma_add_one takes RoCE v2 where the port supports it), or v1 on a port whose GID
// table has no v2 entry (a plain ConnectX-3: mlx4 lists RoCE v2 GIDs only with
// MLX4_DEV_CAP_FLAG2_ROCE_V1_V2, hw/mlx4/main.c).
RoceMode check_mode(const PlanBuilder& b, const std::string& dev, unsigned port) {
  if (auto m = configured_mode(b, dev, port)) return *m;
  const RdmaPort* p = find_port(b, dev, port);
  return p && p->roce_v1 && !p->roce_v2 ? RoceMode::kV1 : RoceMode::kV2;
}

// The interface under a RoCE port; for a soft device this plan creates, the one it is made on.
const NetDev* port_netdev(const PlanBuilder& b, const std::string& dev, unsigned port) {
  if (auto s = b.planned_soft().find(dev); s != b.planned_soft().end()) {
    return b.inv.find_netdev(b.action(s->second.action).get<CreateSoftLink>().netdev);
  }
  const RdmaPort* p = find_port(b, dev, port);
  return p && !p->netdev.empty() ? b.inv.find_netdev(p->netdev) : nullptr;
}

// before_network: the checks run at the end of apply in the initramfs, before dracut
// configures any address.
void verify_port(PlanBuilder& b, const std::string& dev, unsigned port, const std::string& reason,
                 bool before_network) {
  const std::string obj = dev + "/" + std::to_string(port);
  if (iwarp(b, dev)) {
    // An iWARP QP reaches RTS only with the TCP connection iw_cm hands the driver
    // (sw/siw/siw_qp.c siw_qp_modify: RTS from IDLE without a connection endpoint is
    // refused), so two QPs cannot be connected by ibv_modify_qp alone.
    b.note("verify " + obj + " (" + reason + "): an iWARP port has no RC loopback check " +
           "(iw_cm connects its QPs over TCP); rd.rdma.verify=peer checks it through rdma_cm");
    return;
  }
  const bool roce = ethernet(b, dev, port);
  VerifyPort v{dev, port, roce ? std::optional<RoceMode>(check_mode(b, dev, port)) : std::nullopt};
  const NetDev* nd = roce ? port_netdev(b, dev, port) : nullptr;
  v.ipv4_only = v.mode == RoceMode::kV2 && nd && nd->ipv6_off;
  if (v.ipv4_only && before_network) {
    b.warn(b.cfg.verify.source,
           "the RoCE v2 check of " + obj + " needs an IPv4 address on " + nd->name +
               ", whose IPv6 is off (ipv6.disable=1 or disable_ipv6), and apply runs before "
               "dracut configures the network: it waits for one within the check's 15 s, "
               "then fails; rd.rdma.verify=peer checks the ports once the network is up");
  }
  const RdmaDevice* d = b.inv.find_rdma(dev);
  Action a{v, d ? "not verified" : "absent", reason};
  if (!d) a.waiting_for = dev;
  // A RoCE port reads DOWN until its interface is up with carrier (plan/waits.cc): one
  // that is not ACTIVE now is brought up and waited for before it is checked. Any other
  // port nobody waits for is checked anyway, and the check says what state it is in.
  const RdmaPort* p = find_port(b, dev, port);
  // One the boot's network does not use gets a grace for its carrier, not the deadline.
  if (roce && (!p || p->state != PortState::kActive)) {
    plan_port_wait(b, dev, port, reason, !boot_ports(b).count({dev, port}));
  }
  PlanBuilder::need(a, wait_port_action(b, dev, port));
  PlanBuilder::need(a, b.device_producer(dev));
  PlanBuilder::need(a, b.module_action("ib_uverbs"));
  b.add(std::move(a));
}

void verify_ports(PlanBuilder& b, bool all_when_none, const std::string& reason,
                  bool before_network) {
  auto ports = involved_ports(b);
  if (ports.empty() && all_when_none) {
    for (const auto& d : b.inv.rdma)
      for (const auto& p : d.ports) ports.insert({d.name, p.num});
  }
  if (ports.empty()) b.note("verify (" + reason + "): no RDMA port to check");
  for (const auto& [dev, port] : ports) verify_port(b, dev, port, reason, before_network);
}

}  // namespace

std::optional<size_t> wait_port_action(const PlanBuilder& b, const std::string& device,
                                       unsigned port) {
  for (size_t i = 0; i < b.size(); ++i) {
    const Action& a = b.action(i);
    if (a.kind() != ActionKind::kWaitPort) continue;
    const auto& w = a.get<WaitPort>();
    if (w.device == device && w.port == port) return i;
  }
  return std::nullopt;
}

std::optional<VerifyPeer> configured_peer(const Config& cfg, std::string* reason) {
  const auto& v = cfg.verify;
  if (v.value.mode != VerifySetting::Mode::kPeer) return std::nullopt;
  if (v.value.peer) {
    if (reason) *reason = v.source;
    return VerifyPeer{*v.value.peer, v.value.port};
  }
  if (!cfg.boot.nfs_server) return std::nullopt;
  if (reason) *reason = v.source + " (the NFS server of " + cfg.boot.nfs_server->source + ")";
  return VerifyPeer{cfg.boot.nfs_server->value, v.value.port};
}

void plan_verify(PlanBuilder& b) {
  const auto& v = b.cfg.verify;
  if (v.value.mode == VerifySetting::Mode::kOff) return;
  if (v.value.mode == VerifySetting::Mode::kPeer && b.inv.initramfs) {
    b.note("verify (" + v.source + "): the ports and the peer are checked once the network " +
           "is up (rdma-provision verify --boot)");
    return;
  }
  verify_ports(b, false, v.source, b.inv.initramfs);
  // On the real root (rdma-provision.service) the peer too, so the fleet's metrics show
  // the path as the node runs: an NFS root's network is up from the initramfs. A
  // local-disk node's is not yet (the unit runs before network-pre.target): the check
  // is then skipped for want of a route, and rdma-provision-verify.service runs it after
  // network-online.target.
  std::string reason;
  if (auto peer = configured_peer(b.cfg, &reason)) {
    peer->only_with_route = true;
    Action a{*peer, "not verified", reason};
    for (size_t i = 0; i < b.size(); ++i) {
      if (b.action(i).kind() == ActionKind::kVerifyPort) PlanBuilder::need(a, i);
    }
    b.add(std::move(a));
  } else if (v.value.mode == VerifySetting::Mode::kPeer && !b.cfg.boot.nvmf_rdma().empty()) {
    b.note("verify (" + v.source + "): the peers are the NVMe over Fabrics targets over " +
           "RDMA, each checked before its connect (verify-nvmf, `nvmf --boot`)");
  } else if (v.value.mode == VerifySetting::Mode::kPeer) {
    const auto& unknown = b.cfg.boot.nfs_server_unknown;
    b.note("verify (" + v.source + "): no peer to check: " +
           (unknown && unknown->value.empty()
                ? unknown->source + " takes the NFS server from DHCP, which only the " +
                      "initramfs knows (its verify --boot checked it)"
                : std::string("no address given and root= names no NFS server by address")));
  }
}

Plan make_verify_plan(const Config& cfg, const Inventory& inv, const VerifyRequest& r) {
  Plan plan;
  plan.timeout_s = cfg.timeout_s.value;
  PlanBuilder b(cfg, inv, plan);
  if (r.ports) verify_ports(b, !r.boot, r.reason, false);
  if (r.peer)
    b.add(Action{*r.peer, "not verified", r.peer_reason.empty() ? r.reason : r.peer_reason});
  return plan;
}

}  // namespace rp
