// exec_soft_link on the real kernel, in a namespace. Where this runs there is no RDMA
// (NETLINK_RDMA cannot be opened): the refusal must say so and tell what to do. Creating
// a real rxe device is left to the QEMU end-to-end tests.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>

#include "provision/apply/context.h"
#include "provision/apply/registry.h"
#include "provision/kernel/rdma_nl.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"
#include "tests/netns/netns.h"

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
