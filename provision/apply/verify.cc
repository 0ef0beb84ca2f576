// rd.rdma.verify's actions: the RDMA data path tried for real (verify/check.h). A
// check changes nothing: it is "checked" (never "done", which counts changes) or failed,
// and its detail is what an administrator would have read from ibv_rc_pingpong or rping:
// the addressing used, the bytes written and checked, the round-trip latency.
#include <cerrno>

#include "provision/apply/context.h"
#include "provision/kernel/rtnl.h"
#include "provision/verify/check.h"

namespace rp {
namespace {

// One check may take at most this much of the run's deadline: a peer that does not
// answer must leave time to report (rdma_cm's own resolve timeouts are shorter).
constexpr auto kCheckBudget = std::chrono::seconds(15);
constexpr unsigned kRounds = 8;

std::chrono::steady_clock::time_point until(const ApplyContext& ctx) {
  return ctx.deadline.sooner(kCheckBudget).end();
}

}  // namespace

Outcome exec_verify_port(ApplyContext& ctx, const Action&, const VerifyPort& p) {
  if (!ctx.live) return Outcome::skipped("needs the running kernel (--root is not /)");
  // Never a loopback over a RoCE port whose interface has no link: it could only fail
  // in the verbs layer, far from the cause.
  if (const std::string down = roce_link_down(ctx.files, p.device, p.port); !down.empty()) {
    return Outcome::failed(
        make_error(p.device + "/" + std::to_string(p.port), "not checked: " + down));
  }
  LoopbackCheck c{p.device, p.port,
                  p.mode && *p.mode == RoceMode::kV1 ? GidType::kRoceV1 : GidType::kRoceV2,
                  !p.ipv4_only, kRounds};
  auto r = verbs_loopback(c, until(ctx));
  if (!r) return Outcome::failed(r.error());
  return Outcome::checked(r->addressing + ", RDMA WRITE of " + std::to_string(r->written) +
                          " bytes checked, " + r->rtt.str());
}

Outcome exec_verify_peer(ApplyContext& ctx, const Action&, const VerifyPeer& p) {
  if (!ctx.live) return Outcome::skipped("needs the running kernel (--root is not /)");
  if (p.only_with_route) {
    // The kernel's answer to `ip route get` (RTM_GETROUTE) when no route leads there is
    // ENETUNREACH (net/ipv4/route.c inet_rtm_getroute, through fib_lookup; net/ipv6/route.c
    // inet6_rtm_getroute, the null entry's dst.error): before the network is configured
    // there is no path to check. Any other answer goes on to the check, which says it.
    auto oif = rtnl_route_interface(p.address);
    if (!oif && oif.error().errnum == ENETUNREACH) {
      return Outcome::skipped(
          "no route to " + p.address.str() + " yet (the network is not configured): " +
          "rdma-provision-verify.service checks the peer after network-online.target");
    }
  }
  auto r = cm_check_peer(PeerCheck{p.address, p.port, kRounds}, until(ctx));
  if (!r) return Outcome::failed(r.error());
  return Outcome::checked("via " + r->device + "/" + std::to_string(r->port) + " " + r->local +
                          ", RDMA WRITE of " + std::to_string(r->written) +
                          " bytes checked by the peer, " + r->rtt.str() +
                          (r->tries > 1 ? ", after " + std::to_string(r->tries) + " tries" : ""));
}

Outcome exec_verify_nvmf(ApplyContext& ctx, const Action&, const VerifyNvmfTarget& p) {
  if (!ctx.live) return Outcome::skipped("needs the running kernel (--root is not /)");
  auto r = cm_check_nvme_target(NvmeTargetCheck{p.address, p.port}, until(ctx));
  if (!r) return Outcome::failed(r.error());
  return Outcome::checked("via " + r->device + "/" + std::to_string(r->port) + " " + r->local +
                          ": the target accepted an admin queue" +
                          (r->queue_depth ? " of " + std::to_string(r->queue_depth) : "") +
                          (r->tries > 1 ? ", after " + std::to_string(r->tries) + " tries" : ""));
}

}  // namespace rp
