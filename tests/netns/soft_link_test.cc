// exec_soft_link on the real kernel, in a namespace. Where this runs there is no RDMA
// (NETLINK_RDMA cannot be opened): the refusal must say so and tell what to do. Creating
// a real rxe device is left to the QEMU end-to-end tests. What the executor decides from
// sysfs alone, before any request, is tested on a fixture tree.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>

#include "provision/apply/context.h"
#include "provision/apply/registry.h"
#include "provision/kernel/rdma_nl.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"
#include "tests/netns/netns.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

using namespace std::chrono_literals;
using SoftLinkTest = testing::NetnsTest;

TEST_F(SoftLinkTest, WithoutRdmaNetlinkTheFailureSaysWhy) {
  if (rdma_netlink_available()) {
    GTEST_SKIP() << "RDMA netlink is available here; a real rxe device is left to the QEMU tests";
  }
  ASSERT_TRUE(rtnl_add_veth("se0", "se1"));
  testing::LiveContext live(2s);
  const Action a(CreateSoftLink{"se0", "rxe0", SoftKind::kRxe}, "absent", "test");
  Outcome o = execute(live.ctx, a);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.errnum, EPROTONOSUPPORT);
  EXPECT_EQ(o.error.where, "rxe0");
  EXPECT_NE(o.error.str().find("cannot create rxe device 'rxe0' on se0"), std::string::npos)
      << o.error.str();
  EXPECT_NE(o.error.str().find("ib_core"), std::string::npos) << o.error.str();
  EXPECT_NE(o.detail.find("load rdma_rxe"), std::string::npos) << o.detail;
}

TEST_F(SoftLinkTest, ALinkOnAnInterfaceThatNeverAppearsTimesOutBeforeAnyRequest) {
  // The plan expects se9 to appear earlier in the run (a rename, a P_Key child): the link
  // waits for it (link events) and asks nothing of RDMA netlink before it exists.
  testing::LiveContext live(300ms);
  Action a(CreateSoftLink{"se9", "rptest9", SoftKind::kRxe}, "absent", "test");
  a.waiting_for = "se9 (renamed earlier in the run)";
  Outcome o = execute(live.ctx, a);
  ASSERT_EQ(o.kind, OutcomeKind::kTimedOut) << o.error.str() << "; " << o.detail;
  EXPECT_EQ(o.error.str(), "se9: did not appear (waiting for se9 (renamed earlier in the run)) (" +
                               errno_text(ETIMEDOUT) + ")");
}

TEST(SoftLinkOnTheKernelsSysfs, ADeviceOfThatNameOnAnotherInterfaceIsReported) {
  // Before any request the executor looks at the device of that name in sysfs, here a
  // fixture's: rxe0 on eth0, whose `parent` file says so (rxe_verbs.c parent_show). A link
  // asked for on another interface is refused with the reason, not taken as done.
  const std::string root = testing::unpack_fixture("rxe-virtio");
  RealFileOps files{Root(root)};
  std::vector<std::string> lines;
  Log log(vector_sink(&lines));
  ApplyContext ctx{files, true, Deadline(2s), log};
  Outcome same = execute(ctx, Action(CreateSoftLink{"eth0", "rxe0", SoftKind::kRxe}, "", "t"));
  EXPECT_EQ(same.kind, OutcomeKind::kAlready) << same.error.str();
  EXPECT_EQ(same.detail, "rxe device rxe0 on eth0");
  Outcome other =
      execute(ctx, Action(CreateSoftLink{"fabric9", "rxe0", SoftKind::kRxe}, "absent", "t"));
  ASSERT_EQ(other.kind, OutcomeKind::kFailed);
  EXPECT_EQ(other.error.str(),
            "/sys/class/infiniband/rxe0: an RDMA device named rxe0 exists on eth0, not on fabric9");
  EXPECT_EQ(other.detail, "give the rxe link another name");
}

TEST(SoftLinkOnAFixtureRoot, IsSkipped) {
  RealFileOps files(Root("/nonexistent-fixture"));
  std::vector<std::string> lines;
  Log log(vector_sink(&lines));
  ApplyContext ctx{files, false, Deadline(1s), log};
  const Action a(CreateSoftLink{"eth0", "rxe0", SoftKind::kRxe}, "absent", "test");
  Outcome o = execute(ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
  EXPECT_EQ(o.detail, "acts on the running kernel only (--root DIR)");
}

}  // namespace
}  // namespace rp
