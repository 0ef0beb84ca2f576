// The network planner (plan/network.cc): links, addresses, routes, on a Config and an Inventory
// written out here: rules that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(NetworkPlanner, AddressesFollowTheLinkUpAndRoutesTheAddresses) {
  // Each step needs the one before it: an address on a link that did not come up, or a
  // route through a gateway whose subnet was never added (ENETUNREACH), is skipped with
  // the reason instead of failing on its own.
  Inventory inv;
  inv.netdevs.push_back(ethernet("eth1", 3, "52:54:00:77:00:05", false));
  Config cfg;
  cfg.addresses["eth1"] = {{*IpPrefix::parse("10.77.0.5/24"), src("test:30")},
                           {*IpPrefix::parse("fd00::5/64"), src("test:31")}};
  cfg.routes["eth1"] = {{std::nullopt, *IpAddress::parse("10.77.0.1"), src("test:32")}};
  const Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.actions.size(), 4u) << plan_text(p);
  EXPECT_EQ(p.actions[0].kind(), ActionKind::kLinkUp);
  EXPECT_EQ(p.actions[1].kind(), ActionKind::kAddAddress);
  EXPECT_EQ(p.actions[1].after, std::vector<size_t>{0});
  EXPECT_EQ(p.actions[2].kind(), ActionKind::kAddAddress);
  EXPECT_EQ(p.actions[2].after, std::vector<size_t>{0});
  EXPECT_EQ(p.actions[3].kind(), ActionKind::kAddRoute);
  EXPECT_EQ(p.actions[3].after, std::vector<size_t>{2});
}

}  // namespace
}  // namespace rp
