// The peer check of apply on the real root (rdma-provision.service runs before the
// network): without a route to the peer it is skipped with a note, not failed; once a route
// exists it is attempted. In a network namespace of its own with a veth pair (10.77.x.y,
// inside only); this machine has no RDMA, so the attempt fails at rdma_cm, quickly.
#include <gtest/gtest.h>

#include <chrono>

#include "provision/apply/apply.h"
#include "provision/apply/registry.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"
#include "tests/netns/netns.h"

namespace rp {
namespace {

using namespace std::chrono_literals;
using testing::LiveContext;

class VerifyRouteTest : public testing::NetnsTest {};

Action peer_check(bool only_with_route) {
  VerifyPeer p{*IpAddress::parse("10.77.9.1"), 7472};
  p.only_with_route = only_with_route;
  return Action(p, "not verified", "rd.rdma.verify=peer:10.77.9.1");
}

TEST_F(VerifyRouteTest, RealRootsPeerCheckWithoutARouteIsSkippedWithANote) {
  LiveContext live(3s);
  const Action a = peer_check(true);
  Outcome o = executor_for(a.kind()).run(live.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kSkipped) << o.error.str();
  EXPECT_EQ(o.detail,
            "no route to 10.77.9.1 yet (the network is not configured): "
            "rdma-provision-verify.service checks the peer after network-online.target");
  // Skipped is not failed: apply's exit code stays 0 on a local-disk node's every boot.
  Plan plan;
  plan.actions.push_back(a);
  ApplyReport r = apply_plan(plan, live.ctx);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.skipped, 1u);
}

TEST_F(VerifyRouteTest, WithARouteOrAtTheOnlinePointThePeerIsChecked) {
  ASSERT_TRUE(rtnl_add_veth("wa", "wb"));
  {
    // verify --boot's check (make_verify_plan): run whatever the route, so its failure is
    // said at the hand-off.
    LiveContext live(3s);
    const Action a = peer_check(false);
    EXPECT_EQ(executor_for(a.kind()).run(live.ctx, a).kind, OutcomeKind::kFailed);
  }
  ASSERT_TRUE(rtnl_add_address("wa", *IpPrefix::parse("10.77.9.2/24")));
  ASSERT_TRUE(rtnl_set_link_up("wa", true));
  ASSERT_TRUE(rtnl_set_link_up("wb", true));
  LiveContext live(3s);
  const Action a = peer_check(true);
  Outcome o = executor_for(a.kind()).run(live.ctx, a);
  // Attempted: no RDMA device on this machine, so rdma_cm fails, but it was tried.
  EXPECT_EQ(o.kind, OutcomeKind::kFailed) << o.detail;
}

}  // namespace
}  // namespace rp
