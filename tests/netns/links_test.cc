// The route netlink executors (apply/links.cc) and their rtnl calls against the real
// kernel, each test in a network namespace of its own with veth pairs. Addresses are
// 10.77.x.y and fd00::/16, inside the namespace only.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "provision/apply/context.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"
#include "tests/netns/netns.h"

namespace rp {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::LiveContext;

class LinksTest : public testing::NetnsTest {
 protected:
  void SetUp() override {
    NetnsTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(rtnl_add_veth("va", "vb"));
  }

  static Action action(ActionKind kind, const std::string& device, const std::string& value = "",
                       const std::string& extra = "") {
    Action a{kind, device, "", value, "test"};
    a.device = device;
    a.value = value;
    a.extra = extra;
    return a;
  }

  static LinkInfo link(const std::string& name) {
    auto l = rtnl_get_link(name);
    EXPECT_TRUE(l) << l.error().str();
    return l ? *l : LinkInfo{};
  }
};

std::string text(const Outcome& o) {
  return std::string(to_string(o.kind)) + ": " + o.detail + " " + o.error.str();
}

TEST_F(LinksTest, MtuIsSetThenAlreadySet) {
  LiveContext live(5s);
  auto a = action(ActionKind::kSetMtu, "va", "9000");
  Outcome o = exec_mtu(live.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << text(o);
  EXPECT_EQ(o.detail, "1500 -> 9000");
  EXPECT_EQ(link("va").mtu, 9000u);
  EXPECT_EQ(exec_mtu(live.ctx, a).kind, OutcomeKind::kAlready);
}

TEST_F(LinksTest, RefusedMtuNamesInterfaceValueAndErrno) {
  LiveContext live(5s);
  Outcome o = exec_mtu(live.ctx, action(ActionKind::kSetMtu, "va", "70000"));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_EQ(o.error.errnum, EINVAL);
  const std::string msg = o.error.str();
  EXPECT_NE(msg.find("va"), std::string::npos) << msg;
  EXPECT_NE(msg.find("70000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Invalid argument"), std::string::npos) << msg;
  EXPECT_EQ(o.detail, "outside the device's MTU range");
  EXPECT_EQ(link("va").mtu, 1500u);
}

TEST_F(LinksTest, LinkUpThenAlreadyUp) {
  LiveContext live(5s);
  auto a = action(ActionKind::kLinkUp, "va");
  EXPECT_EQ(exec_link_up(live.ctx, a).kind, OutcomeKind::kDone);
  EXPECT_TRUE(link("va").admin_up);
  EXPECT_EQ(exec_link_up(live.ctx, a).kind, OutcomeKind::kAlready);
  ASSERT_TRUE(rtnl_set_link_up("va", false));
  EXPECT_FALSE(link("va").admin_up);
}

TEST_F(LinksTest, MissingLinkFailsWithEnodev) {
  LiveContext live(5s);
  Outcome o = exec_link_up(live.ctx, action(ActionKind::kLinkUp, "nosuch0"));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.errnum, ENODEV);
  EXPECT_NE(o.error.str().find("nosuch0"), std::string::npos);
}

TEST_F(LinksTest, RenameOfAnUpLinkBringsItBackUp) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  const LinkInfo before = link("va");
  LiveContext live(5s);
  auto a = action(ActionKind::kRename, "va", "lan0", before.address.str());
  Outcome o = exec_rename(live.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << text(o);
  EXPECT_EQ(o.detail, "va -> lan0 (taken down and brought back up)");
  const LinkInfo after = link("lan0");
  EXPECT_EQ(after.ifindex, before.ifindex);
  EXPECT_TRUE(after.admin_up);
  // A second run finds it done.
  EXPECT_EQ(exec_rename(live.ctx, a).kind, OutcomeKind::kAlready);
}

TEST_F(LinksTest, RenameRefusesAnInterfaceWhoseAddressChanged) {
  LiveContext live(5s);
  Outcome o = exec_rename(live.ctx, action(ActionKind::kRename, "va", "lan0", "02:00:00:00:00:01"));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_NE(o.error.str().find("the plan expected 02:00:00:00:00:01"), std::string::npos);
  EXPECT_TRUE(rtnl_get_link("va"));
}

TEST_F(LinksTest, RenameOntoATakenNameFailsAndKeepsTheLinkUp) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  LiveContext live(5s);
  Outcome o =
      exec_rename(live.ctx, action(ActionKind::kRename, "va", "vb", link("va").address.str()));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_EQ(o.error.errnum, EEXIST);
  EXPECT_NE(o.error.str().find("cannot rename to 'vb'"), std::string::npos) << o.error.str();
  EXPECT_TRUE(link("va").admin_up);
}

TEST_F(LinksTest, AddressesAreAddedOnceThenAlready) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  LiveContext live(5s);
  for (const char* cidr : {"10.77.0.1/24", "fd00::1/64"}) {
    auto a = action(ActionKind::kAddAddress, "va", cidr);
    Outcome o = exec_address(live.ctx, a);
    EXPECT_EQ(o.kind, OutcomeKind::kDone) << cidr << " " << text(o);
    EXPECT_EQ(exec_address(live.ctx, a).kind, OutcomeKind::kAlready) << cidr;
  }
  Outcome bad = exec_address(live.ctx, action(ActionKind::kAddAddress, "va", "10.77.0.300/24"));
  EXPECT_EQ(bad.kind, OutcomeKind::kFailed);
}

TEST_F(LinksTest, RoutesThroughAGatewayOnTheLink) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_set_link_up("vb", true));
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("10.77.0.1/24")));
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("fd00::1/64")));
  LiveContext live(5s);
  const Action routes[] = {
      action(ActionKind::kAddRoute, "va", "default", "10.77.0.254"),
      action(ActionKind::kAddRoute, "va", "10.77.8.0/24", "10.77.0.2"),
      action(ActionKind::kAddRoute, "va", "10.77.9.0/24"),  // on-link
      action(ActionKind::kAddRoute, "va", "fd00:1::/64", "fd00::2"),
      action(ActionKind::kAddRoute, "va", "default", "fd00::fe"),
  };
  for (const auto& a : routes) {
    Outcome o = exec_route(live.ctx, a);
    EXPECT_EQ(o.kind, OutcomeKind::kDone) << a.value << " " << text(o);
    EXPECT_EQ(exec_route(live.ctx, a).kind, OutcomeKind::kAlready) << a.value;
  }
}

TEST_F(LinksTest, UnreachableGatewayFailsWithAHint) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("10.77.0.1/24")));
  LiveContext live(5s);
  Outcome o = exec_route(live.ctx, action(ActionKind::kAddRoute, "va", "default", "10.77.99.1"));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_NE(o.error.str().find("default via 10.77.99.1"), std::string::npos) << o.error.str();
  EXPECT_NE(o.detail.find("gateway must be inside a prefix"), std::string::npos) << o.detail;
}

TEST_F(LinksTest, WaitLinkSeesCarrierWhenThePeerComesUpLater) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  LiveContext live(5s);
  const auto t0 = Clock::now();
  std::thread peer([] {
    std::this_thread::sleep_for(150ms);
    (void)rtnl_set_link_up("vb", true);
  });
  Outcome o = exec_wait_link(live.ctx, action(ActionKind::kWaitLink, "va"));
  const auto took = Clock::now() - t0;
  peer.join();
  ASSERT_EQ(o.kind, OutcomeKind::kDone) << text(o);
  EXPECT_EQ(o.detail.rfind("carrier after ", 0), 0u) << o.detail;
  // Woken by the event: after the peer came up, long before the 5 s deadline.
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 2s);
  EXPECT_TRUE(link("va").carrier);
}

TEST_F(LinksTest, WaitLinkTimesOutNamingTheLinkAndItsOperstate) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  LiveContext live(150ms);
  const auto t0 = Clock::now();
  Outcome o = exec_wait_link(live.ctx, action(ActionKind::kWaitLink, "va"));
  const auto took = Clock::now() - t0;
  ASSERT_EQ(o.kind, OutcomeKind::kTimedOut) << text(o);
  EXPECT_EQ(o.error.where, "va");
  EXPECT_NE(o.error.what.find("no carrier within"), std::string::npos) << o.error.what;
  // lowerlayerdown once the kernel's linkwatch has run, unknown before: either is named.
  EXPECT_NE(o.error.what.find("(operstate "), std::string::npos) << o.error.what;
  EXPECT_EQ(o.error.what.find("administratively down"), std::string::npos) << o.error.what;
  EXPECT_LT(took, 1s);
}

TEST_F(LinksTest, WaitLinkOnALinkThatIsDownSaysSo) {
  LiveContext live(100ms);
  Outcome o = exec_wait_link(live.ctx, action(ActionKind::kWaitLink, "va"));
  ASSERT_EQ(o.kind, OutcomeKind::kTimedOut) << text(o);
  EXPECT_NE(o.error.what.find(", administratively down)"), std::string::npos) << o.error.what;
}

TEST_F(LinksTest, WaitLinkWithCarrierAlreadyIsAlready) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_set_link_up("vb", true));
  auto w = LinkWatcher::open();  // carrier shows once linkwatch has run
  ASSERT_TRUE(w.value().wait_for(LinkWatcher::has_carrier("va"), Clock::now() + 2s));
  LiveContext live(1s);
  EXPECT_EQ(exec_wait_link(live.ctx, action(ActionKind::kWaitLink, "va")).kind,
            OutcomeKind::kAlready);
}

TEST_F(LinksTest, ActionOnALinkExpectedToAppearWaitsForIt) {
  LiveContext live(5s);
  auto a = action(ActionKind::kLinkUp, "late0");
  a.waiting_for = "late0";
  std::thread creator([] {
    std::this_thread::sleep_for(100ms);
    (void)rtnl_add_veth("late0", "late1");
  });
  Outcome o = exec_link_up(live.ctx, a);
  creator.join();
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << text(o);
  EXPECT_TRUE(link("late0").admin_up);
}

TEST_F(LinksTest, ActionOnALinkThatNeverAppearsTimesOut) {
  LiveContext live(120ms);
  auto a = action(ActionKind::kSetMtu, "never0", "9000");
  a.waiting_for = "never0 (from a P_Key child)";
  Outcome o = exec_mtu(live.ctx, a);
  ASSERT_EQ(o.kind, OutcomeKind::kTimedOut) << text(o);
  EXPECT_NE(o.error.str().find("never0: did not appear within"), std::string::npos)
      << o.error.str();
}

TEST_F(LinksTest, PkeyChildNeedsAnIpoibParent) {
  LiveContext live(5s);
  auto a = action(ActionKind::kCreatePkeyChild, "va", "va.8001");
  a.port = 0x8001;
  Outcome o = exec_pkey_child(live.ctx, a);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_NE(o.error.str().find("is not an IPoIB interface"), std::string::npos) << o.error.str();
}

TEST_F(LinksTest, KernelRefusalOfAPkeyChildIsExplained) {
  // No IPoIB here: the kernel refuses (no ipoib link type, or a parent that is not IPoIB).
  PkeyChildSpec spec{"va", "va.8001", 0x8001, IpoibLinkMode::kConnected, std::nullopt};
  auto st = rtnl_add_pkey_child(spec);
  ASSERT_FALSE(st);
  const int e = st.error().errnum;
  EXPECT_TRUE(e == EOPNOTSUPP || e == ENODEV) << st.error().str();
  EXPECT_EQ(st.error().where, "va.8001");
  EXPECT_NE(st.error().what.find("P_Key 0x8001 child 'va.8001' of va"), std::string::npos)
      << st.error().what;
}

TEST_F(LinksTest, IpoibModeOnAnEthernetLinkFails) {
  if (!ns_.own_sysfs) GTEST_SKIP() << ns_.why;
  LiveContext live(5s);
  Outcome o = exec_ipoib_mode(live.ctx, action(ActionKind::kSetIpoibMode, "va", "connected"));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_NE(o.error.str().find("/sys/class/net/va/mode"), std::string::npos) << o.error.str();
}

TEST(LinksOnAFixtureRoot, NetlinkExecutorsAreSkipped) {
  RealFileOps files(Root("/nonexistent-fixture"));
  std::vector<std::string> lines;
  Log log(vector_sink(&lines));
  ApplyContext ctx{files, false, Deadline(1s), log};
  Action a{ActionKind::kLinkUp, "ib0", "down", "up", "test"};
  a.device = "ib0";
  a.value = "9000";
  a.extra = "10.77.0.1";
  for (Executor e : {exec_rename, exec_pkey_child, exec_mtu, exec_link_up, exec_address, exec_route,
                     exec_wait_link}) {
    Outcome o = e(ctx, a);
    EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
    EXPECT_EQ(o.detail, "acts on the running kernel only (--root DIR)");
  }
}

}  // namespace
}  // namespace rp
