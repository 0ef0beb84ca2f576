// The route netlink executors (apply/links.cc) and their rtnl calls against the real
// kernel, each test in a network namespace of its own with veth pairs. Addresses are
// 10.77.x.y and fd00::/16, inside the namespace only.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "provision/apply/context.h"
#include "provision/apply/registry.h"
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

  static LinkInfo link(const std::string& name) {
    auto l = rtnl_get_link(name);
    EXPECT_TRUE(l) << l.error().str();
    return l ? *l : LinkInfo{};
  }
};

// Typed actions as the plan makes them.
Action act(ActionParams p) { return Action(std::move(p), "", "test"); }
Action mtu(const std::string& ifname, unsigned bytes) { return act(SetMtu{ifname, bytes}); }
Action up(const std::string& ifname) { return act(LinkUp{ifname}); }
Action rename(const std::string& from, const std::string& to, const std::string& address) {
  return act(Rename{from, to, HwAddress::parse(address), std::nullopt});
}
Action address(const std::string& ifname, const std::string& cidr) {
  return act(AddAddress{ifname, *IpPrefix::parse(cidr)});
}
Action route(const std::string& ifname, const std::string& dest, const std::string& gw = "") {
  return act(AddRoute{ifname, dest == "default" ? std::nullopt : IpPrefix::parse(dest),
                      gw.empty() ? std::nullopt : IpAddress::parse(gw)});
}
Action wait_link(const std::string& ifname) { return act(WaitLink{ifname}); }

std::string text(const Outcome& o) {
  return std::string(to_string(o.kind)) + ": " + o.detail + " " + o.error.str();
}

TEST_F(LinksTest, MtuIsSetThenAlreadySet) {
  LiveContext live(5s);
  auto a = mtu("va", 9000);
  Outcome o = execute(live.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << text(o);
  EXPECT_EQ(o.detail, "1500 -> 9000");
  EXPECT_EQ(link("va").mtu, 9000u);
  EXPECT_EQ(execute(live.ctx, a).kind, OutcomeKind::kAlready);
}

TEST_F(LinksTest, RefusedMtuNamesInterfaceValueAndErrno) {
  LiveContext live(5s);
  Outcome o = execute(live.ctx, mtu("va", 70000));
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
  auto a = up("va");
  EXPECT_EQ(execute(live.ctx, a).kind, OutcomeKind::kDone);
  EXPECT_TRUE(link("va").admin_up);
  EXPECT_EQ(execute(live.ctx, a).kind, OutcomeKind::kAlready);
  ASSERT_TRUE(rtnl_set_link_up("va", false));
  EXPECT_FALSE(link("va").admin_up);
}

TEST_F(LinksTest, MissingLinkFailsWithEnodev) {
  LiveContext live(5s);
  Outcome o = execute(live.ctx, up("nosuch0"));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.errnum, ENODEV);
  EXPECT_NE(o.error.str().find("nosuch0"), std::string::npos);
}

TEST_F(LinksTest, RenameOfAnUpLinkBringsItBackUp) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  const LinkInfo before = link("va");
  LiveContext live(5s);
  auto a = rename("va", "lan0", before.address.str());
  Outcome o = execute(live.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << text(o);
  EXPECT_EQ(o.detail, "va -> lan0 (taken down and brought back up)");
  const LinkInfo after = link("lan0");
  EXPECT_EQ(after.ifindex, before.ifindex);
  EXPECT_TRUE(after.admin_up);
  // A second run finds it done.
  EXPECT_EQ(execute(live.ctx, a).kind, OutcomeKind::kAlready);
}

TEST_F(LinksTest, RenameRefusesAnInterfaceWhoseAddressChanged) {
  LiveContext live(5s);
  Outcome o = execute(live.ctx, rename("va", "lan0", "02:00:00:00:00:01"));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_NE(o.error.str().find("the plan expected 02:00:00:00:00:01"), std::string::npos);
  EXPECT_TRUE(rtnl_get_link("va"));
}

TEST_F(LinksTest, RenameOntoATakenNameFailsAndKeepsTheLinkUp) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  LiveContext live(5s);
  Outcome o = execute(live.ctx, rename("va", "vb", link("va").address.str()));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_EQ(o.error.errnum, EEXIST);
  EXPECT_NE(o.error.str().find("cannot rename to 'vb'"), std::string::npos) << o.error.str();
  EXPECT_TRUE(link("va").admin_up);
}

TEST_F(LinksTest, AddressesAreAddedOnceThenAlready) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  LiveContext live(5s);
  for (const char* cidr : {"10.77.0.1/24", "fd00::1/64"}) {
    auto a = address("va", cidr);
    Outcome o = execute(live.ctx, a);
    EXPECT_EQ(o.kind, OutcomeKind::kDone) << cidr << " " << text(o);
    EXPECT_EQ(execute(live.ctx, a).kind, OutcomeKind::kAlready) << cidr;
  }
}

TEST_F(LinksTest, RoutesThroughAGatewayOnTheLink) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_set_link_up("vb", true));
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("10.77.0.1/24")));
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("fd00::1/64")));
  LiveContext live(5s);
  const Action routes[] = {
      route("va", "default", "10.77.0.254"), route("va", "10.77.8.0/24", "10.77.0.2"),
      route("va", "10.77.9.0/24"),  // on-link
      route("va", "fd00:1::/64", "fd00::2"), route("va", "default", "fd00::fe"),
  };
  for (const auto& a : routes) {
    Outcome o = execute(live.ctx, a);
    EXPECT_EQ(o.kind, OutcomeKind::kDone) << a.wanted() << " " << text(o);
    EXPECT_EQ(execute(live.ctx, a).kind, OutcomeKind::kAlready) << a.wanted();
  }
}

TEST_F(LinksTest, UnreachableGatewayFailsWithAHint) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("10.77.0.1/24")));
  LiveContext live(5s);
  Outcome o = execute(live.ctx, route("va", "default", "10.77.99.1"));
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
  Outcome o = execute(live.ctx, wait_link("va"));
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
  Outcome o = execute(live.ctx, wait_link("va"));
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
  Outcome o = execute(live.ctx, wait_link("va"));
  ASSERT_EQ(o.kind, OutcomeKind::kTimedOut) << text(o);
  EXPECT_NE(o.error.what.find(", administratively down)"), std::string::npos) << o.error.what;
}

TEST_F(LinksTest, WaitLinkWithCarrierAlreadyIsAlready) {
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_set_link_up("vb", true));
  auto w = LinkWatcher::open();  // carrier shows once linkwatch has run
  ASSERT_TRUE(w.value().wait_for(LinkWatcher::has_carrier("va"), Clock::now() + 2s));
  LiveContext live(1s);
  EXPECT_EQ(execute(live.ctx, wait_link("va")).kind, OutcomeKind::kAlready);
}

TEST_F(LinksTest, ActionOnALinkExpectedToAppearWaitsForIt) {
  LiveContext live(5s);
  auto a = up("late0");
  a.waiting_for = "late0";
  std::thread creator([] {
    std::this_thread::sleep_for(100ms);
    (void)rtnl_add_veth("late0", "late1");
  });
  Outcome o = execute(live.ctx, a);
  creator.join();
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << text(o);
  EXPECT_TRUE(link("late0").admin_up);
}

TEST_F(LinksTest, ActionOnALinkThatNeverAppearsTimesOut) {
  LiveContext live(120ms);
  auto a = mtu("never0", 9000);
  a.waiting_for = "never0 (from a P_Key child)";
  Outcome o = execute(live.ctx, a);
  ASSERT_EQ(o.kind, OutcomeKind::kTimedOut) << text(o);
  EXPECT_NE(o.error.str().find("never0: did not appear within"), std::string::npos)
      << o.error.str();
}

TEST_F(LinksTest, PkeyChildNeedsAnIpoibParent) {
  LiveContext live(5s);
  auto a = act(CreatePkeyChild{"va", "va.8001", 0x8001, std::nullopt});
  Outcome o = execute(live.ctx, a);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_NE(o.error.str().find("is not an IPoIB interface"), std::string::npos) << o.error.str();
}

TEST_F(LinksTest, KernelRefusalOfAPkeyChildIsExplained) {
  // No IPoIB here: the kernel refuses (no ipoib link type, or a parent that is not IPoIB).
  PkeyChildSpec spec{"va", "va.8001", 0x8001, IpoibMode::kConnected, std::nullopt};
  auto st = rtnl_add_pkey_child(spec);
  ASSERT_FALSE(st);
  const int e = st.error().errnum;
  EXPECT_TRUE(e == EOPNOTSUPP || e == ENODEV) << st.error().str();
  EXPECT_EQ(st.error().where, "va.8001");
  EXPECT_NE(st.error().what.find("P_Key 0x8001 child 'va.8001' of va"), std::string::npos)
      << st.error().what;
}

TEST_F(LinksTest, AnUpLinkWithAddressesIsNotTakenDownForARename) {
  // va carries 10.77.0.1/24 (think: the NFS root): renaming would take it down.
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("10.77.0.1/24")));
  LiveContext live(5s);
  Outcome o = execute(live.ctx, rename("va", "lan0", link("va").address.str()));
  ASSERT_EQ(o.kind, OutcomeKind::kSkipped) << text(o);
  EXPECT_EQ(o.detail,
            "va is up with 10.77.0.1/24: renaming it to lan0 would take it down and cut what it "
            "carries (a network root, a session); not done (make the change in the initramfs, "
            "before the interface has addresses)");
  EXPECT_TRUE(link("va").admin_up);
  EXPECT_FALSE(rtnl_get_link("lan0"));
  // Down, or without addresses, it is renamed as before.
  ASSERT_TRUE(rtnl_set_link_up("vb", true));
  EXPECT_EQ(execute(live.ctx, rename("vb", "lan1", link("vb").address.str())).kind,
            OutcomeKind::kDone);
}

// verify --boot --online IFACE asks which interface the route to the peer goes through:
// none before the interface that leads there has its address (ENETUNREACH, which the old
// check took as final), then that interface, whichever came online first.
TEST_F(LinksTest, TheRouteToAPeerNamesItsInterfaceOnceItExists) {
  ASSERT_TRUE(rtnl_add_veth("wa", "wb"));
  const IpAddress peer = *IpAddress::parse("10.77.9.1");
  auto none = rtnl_route_interface(peer);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().errnum, ENETUNREACH) << none.error().str();
  // "va" is up first with an address elsewhere: still no route to the peer.
  ASSERT_TRUE(rtnl_add_address("va", *IpPrefix::parse("10.77.8.2/24")));
  ASSERT_TRUE(rtnl_set_link_up("va", true));
  ASSERT_TRUE(rtnl_set_link_up("vb", true));
  EXPECT_FALSE(rtnl_route_interface(peer));
  ASSERT_TRUE(rtnl_add_address("wa", *IpPrefix::parse("10.77.9.2/24")));
  ASSERT_TRUE(rtnl_set_link_up("wa", true));
  ASSERT_TRUE(rtnl_set_link_up("wb", true));
  auto via = rtnl_route_interface(peer);
  ASSERT_TRUE(via) << via.error().str();
  EXPECT_EQ(*via, link("wa").ifindex);
  auto other = rtnl_route_interface(*IpAddress::parse("10.77.8.7"));
  ASSERT_TRUE(other) << other.error().str();
  EXPECT_EQ(*other, link("va").ifindex);
}

TEST_F(LinksTest, IpoibModeOnAnEthernetLinkFails) {
  LiveContext live(5s);
  Outcome o = execute(live.ctx, act(SetIpoibMode{"va", IpoibMode::kConnected}));
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << text(o);
  EXPECT_EQ(o.error.str(), "va: is not an IPoIB interface (type ether); no IPoIB mode");
}

TEST_F(LinksTest, KernelRefusalOfAnIpoibModeNamesTheLinkType) {
  // The request itself (what the executor sends after its own check): rtnetlink refuses
  // ipoib link data for a link whose ops are not ipoib's (__rtnl_newlink: EOPNOTSUPP).
  auto st = rtnl_set_ipoib_mode("va", IpoibMode::kConnected);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().errnum, EOPNOTSUPP) << st.error().str();
  EXPECT_NE(st.error().what.find(
                "cannot set IPoIB mode connected: va is not an IPoIB interface (link type 1, "
                "kind veth)"),
            std::string::npos)
      << st.error().what;
}

TEST(LinksOnAFixtureRoot, NetlinkExecutorsAreSkipped) {
  RealFileOps files(Root("/nonexistent-fixture"));
  std::vector<std::string> lines;
  Log log(vector_sink(&lines));
  ApplyContext ctx{files, false, Deadline(1s), log};
  const Action actions[] = {rename("ib0", "fabric0", "02:00:00:00:00:01"),
                            act(CreatePkeyChild{"ib0", "ib0.8001", 0x8001, std::nullopt}),
                            mtu("ib0", 9000),
                            up("ib0"),
                            address("ib0", "10.77.0.1/24"),
                            route("ib0", "default", "10.77.0.254"),
                            wait_link("ib0")};
  for (const Action& a : actions) {
    SCOPED_TRACE(a.object());
    Outcome o = execute(ctx, a);
    EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
    EXPECT_EQ(o.detail, "acts on the running kernel only (--root DIR)");
  }
}

}  // namespace
}  // namespace rp
