// Renames by MAC end to end on the real kernel: discover() the namespace, make_plan() with
// wanted names, run the plan's actions through the executors in order. The plan decides
// the order and the temporary names (swaps, unrelated holders); this checks the kernel
// ends up as planned and that a second plan is empty.
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "provision/apply/context.h"
#include "provision/apply/registry.h"
#include "provision/config/config.h"
#include "provision/inventory/inventory.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"
#include "provision/plan/plan.h"
#include "tests/netns/netns.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

using namespace std::chrono_literals;
using testing::LiveContext;
using RenamePlanTest = testing::NetnsTest;

MacAddress mac_of(const std::string& ifname) {
  auto l = rtnl_get_link(ifname);
  EXPECT_TRUE(l) << l.error().str();
  return l ? l->address.mac().value_or(MacAddress{}) : MacAddress{};
}

Config names(const std::map<std::string, MacAddress>& wanted) {
  Config cfg;
  int line = 1;
  for (const auto& [name, mac] : wanted) {
    cfg.names[name] =
        Sourced<HwKey>{HwKey::of_mac(mac), src("names.conf:" + std::to_string(line++))};
  }
  return cfg;
}

Plan plan_for(const Config& cfg) { return make_plan(cfg, discover(Root("/"))); }

// Runs every action in order; all must end done or already.
void apply_all(const Plan& plan) {
  LiveContext live(10s);
  for (const auto& a : plan.actions) {
    if (a.kind() != ActionKind::kRename && a.kind() != ActionKind::kLinkUp) {
      FAIL() << "unexpected action " << to_string(a.kind()) << " " << a.object();
    }
    const Outcome o = execute(live.ctx, a);
    EXPECT_TRUE(o.kind == OutcomeKind::kDone || o.kind == OutcomeKind::kAlready)
        << to_string(a.kind()) << " " << a.object() << " -> " << a.wanted() << ": "
        << to_string(o.kind) << " " << o.error.str();
  }
}

size_t renames(const Plan& p) {
  size_t n = 0;
  for (const auto& a : p.actions) n += a.kind() == ActionKind::kRename;
  return n;
}

TEST_F(RenamePlanTest, RenamesByMac) {
  ASSERT_TRUE(rtnl_add_veth("rpa", "rpb"));
  const MacAddress a = mac_of("rpa");
  const Plan plan = plan_for(names({{"lan0", a}}));
  ASSERT_EQ(renames(plan), 1u) << plan_text(plan);
  apply_all(plan);
  EXPECT_EQ(mac_of("lan0"), a);
  EXPECT_FALSE(rtnl_get_link("rpa"));
  EXPECT_TRUE(rtnl_get_link("lan0")->admin_up);  // the plan brings named links up
  EXPECT_EQ(renames(plan_for(names({{"lan0", a}}))), 0u);
}

TEST_F(RenamePlanTest, SwapsTheNamesOfTwoInterfaces) {
  ASSERT_TRUE(rtnl_add_veth("x0", "x1"));
  ASSERT_TRUE(rtnl_set_link_up("x0", true));  // one up, one down: both must come out right
  const MacAddress m0 = mac_of("x0"), m1 = mac_of("x1");
  const Config cfg = names({{"x0", m1}, {"x1", m0}});
  const Plan plan = plan_for(cfg);
  ASSERT_EQ(renames(plan), 3u) << plan_text(plan);  // one of them through a temporary name
  bool temporary = false;
  for (const auto& a : plan.actions) temporary |= a.wanted().rfind("rename", 0) == 0;
  EXPECT_TRUE(temporary) << plan_text(plan);
  apply_all(plan);
  EXPECT_EQ(mac_of("x0"), m1);
  EXPECT_EQ(mac_of("x1"), m0);
  EXPECT_TRUE(rtnl_get_link("x1")->admin_up);  // was x0, up before: still up
  EXPECT_EQ(renames(plan_for(cfg)), 0u);
}

TEST_F(RenamePlanTest, AnUnrelatedNonRdmaInterfaceInTheWayIsAnError) {
  // lan0 (a veth: no RDMA side) could be the management NIC: never moved unasked.
  ASSERT_TRUE(rtnl_add_veth("lan0", "other"));
  ASSERT_TRUE(rtnl_add_veth("eth-a", "eth-b"));
  const Plan plan = plan_for(names({{"lan0", mac_of("eth-a")}}));
  EXPECT_EQ(renames(plan), 0u) << plan_text(plan);
  ASSERT_EQ(plan.diag.errors.size(), 1u) << plan_text(plan);
  EXPECT_NE(plan.diag.errors[0].str().find("interface lan0 ("), std::string::npos);
  EXPECT_NE(plan.diag.errors[0].str().find("so neither is eth-a"), std::string::npos);
}

TEST_F(RenamePlanTest, MovesAnUnrelatedInterfaceOutOfTheWayWhenAllowed) {
  ASSERT_TRUE(rtnl_add_veth("lan0", "other"));  // holds the wanted name, matches nothing
  ASSERT_TRUE(rtnl_add_veth("eth-a", "eth-b"));
  const MacAddress holder = mac_of("lan0"), wanted = mac_of("eth-a");
  const int holder_index = rtnl_get_link("lan0")->ifindex;
  Config cfg = names({{"lan0", wanted}});
  cfg.allow_rename_other = {true, src("test")};
  const Plan plan = plan_for(cfg);
  ASSERT_EQ(renames(plan), 2u) << plan_text(plan);
  EXPECT_FALSE(plan.diag.warnings.empty()) << "the displaced interface is reported";
  apply_all(plan);
  EXPECT_EQ(mac_of("lan0"), wanted);
  auto moved = rtnl_get_link("rename" + std::to_string(holder_index));
  ASSERT_TRUE(moved) << moved.error().str();
  EXPECT_EQ(moved->address.mac(), holder);
  EXPECT_FALSE(rtnl_get_link("eth-a"));
  EXPECT_EQ(renames(plan_for(cfg)), 0u);
}

TEST_F(RenamePlanTest, ThreeWayRotation) {
  ASSERT_TRUE(rtnl_add_veth("r0", "r1"));
  ASSERT_TRUE(rtnl_add_veth("r2", "r3"));
  const MacAddress m0 = mac_of("r0"), m1 = mac_of("r1"), m2 = mac_of("r2");
  const Config cfg = names({{"r1", m0}, {"r2", m1}, {"r0", m2}});
  const Plan plan = plan_for(cfg);
  apply_all(plan);
  EXPECT_EQ(mac_of("r1"), m0);
  EXPECT_EQ(mac_of("r2"), m1);
  EXPECT_EQ(mac_of("r0"), m2);
  EXPECT_EQ(renames(plan_for(cfg)), 0u);
}

}  // namespace
}  // namespace rp
