// The MTU executor's verdict from the link before the change and the link the kernel
// reports after it. There is no IPoIB where tests run, so the "after" links are the ones
// ipoib_change_mtu (drivers/infiniband/ulp/ipoib/ipoib_main.c) leaves: in datagram mode
// admin_mtu = the request and dev->mtu = min(mcast_mtu, admin_mtu), mcast_mtu being the
// broadcast group's MTU minus the 4-byte IPoIB header (2044 on OpenSM's default 2048
// partition); in connected mode dev->mtu = the request (or EINVAL above 65520).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/apply/links.h"

namespace rp {
namespace {

LinkInfo ipoib(unsigned mtu, std::optional<IpoibMode> mode = IpoibMode::kDatagram) {
  LinkInfo l;
  l.name = "ib0";
  l.ifindex = 4;
  l.type = kArphrdInfiniband;
  l.mtu = mtu;
  l.ipoib_mode = mode;
  return l;
}

struct Logged {
  std::vector<std::string> lines;
  Log log{vector_sink(&lines)};
};

TEST(MtuOutcome, DatagramIpoibClampedToTheBroadcastGroupIsDoneWithAWarning) {
  Logged r;
  const LinkInfo before = ipoib(2044), after = ipoib(2044);
  Outcome o = mtu_outcome(before, 4092, &after, r.log);
  ASSERT_EQ(o.kind, OutcomeKind::kDone) << o.detail;
  EXPECT_EQ(o.detail,
            "2044 -> 4092; warning: the kernel runs 2044, clamped to the IPoIB broadcast group's "
            "MTU (the partition MTU of the subnet manager); 4092 is kept as the admin MTU");
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_NE(r.lines[0].find("ib0: MTU 4092 set, but the kernel runs 2044"), std::string::npos)
      << r.lines[0];
}

TEST(MtuOutcome, AKernelThatDoesNotReportTheModeIsTakenAsDatagram) {
  // IFLA_IPOIB_MODE comes from ipoib_fill_info; without it, the kernel's default mode.
  Logged r;
  const LinkInfo before = ipoib(2044, std::nullopt), after = ipoib(2044, std::nullopt);
  EXPECT_EQ(mtu_outcome(before, 4092, &after, r.log).kind, OutcomeKind::kDone);
}

TEST(MtuOutcome, ConnectedModeRunningLessThanAskedFails) {
  // Connected mode sets dev->mtu as asked: less is not the multicast clamp.
  Logged r;
  const LinkInfo before = ipoib(2044, IpoibMode::kConnected);
  const LinkInfo after = ipoib(2044, IpoibMode::kConnected);
  Outcome o = mtu_outcome(before, 65520, &after, r.log);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed) << o.detail;
  EXPECT_EQ(o.error.str(), "ib0: MTU is 2044 after setting 65520");
  EXPECT_TRUE(r.lines.empty());
}

TEST(MtuOutcome, EthernetRunningLessThanAskedFails) {
  Logged r;
  LinkInfo before = ipoib(1500), after = ipoib(1500);
  before.type = after.type = kArphrdEther;
  before.name = after.name = "eth0";
  Outcome o = mtu_outcome(before, 9000, &after, r.log);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), "eth0: MTU is 1500 after setting 9000");
}

TEST(MtuOutcome, TheMtuAsAskedIsDone) {
  Logged r;
  const LinkInfo before = ipoib(2044), after = ipoib(4092);
  Outcome o = mtu_outcome(before, 4092, &after, r.log);
  EXPECT_EQ(o.kind, OutcomeKind::kDone);
  EXPECT_EQ(o.detail, "2044 -> 4092");
  EXPECT_TRUE(r.lines.empty());
  // When the link cannot be read again, the kernel's acknowledgement stands.
  EXPECT_EQ(mtu_outcome(before, 4092, nullptr, r.log).detail, "2044 -> 4092");
}

}  // namespace
}  // namespace rp
