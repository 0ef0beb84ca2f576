// RDMA-CM default RoCE mode and ToS through the rdma_cm configfs, the fake kernel beneath.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "provision/apply/context.h"
#include "tests/apply/test_run.h"

namespace rp {
namespace {

using testing::errno_text;
using testing::roce_mode_action;
using testing::roce_tos_action;
using testing::TestRun;

const std::string kCm = "/sys/kernel/config/rdma_cm";

// `mode` as configfs shows it ("RoCE v2", "IB/RoCE v1").
Outcome set_mode(TestRun& r, const std::string& dev, unsigned port, const std::string& mode) {
  const RoceMode m = mode == "IB/RoCE v1" ? RoceMode::kV1 : RoceMode::kV2;
  return execute(r.ctx, roce_mode_action(dev, port, m));
}

Outcome set_tos(TestRun& r, const std::string& dev, unsigned port, unsigned tos) {
  return execute(r.ctx, roce_tos_action(dev, port, tos));
}

TEST(RoceDefaults, ModeAndTosAreSetThroughConfigfsAndTheDirectoryIsKept) {
  TestRun r("cx5-roce");  // configfs not mounted yet; rdma_cm is loaded
  r.unmount_configfs();
  ASSERT_FALSE(r.kernel.root().exists("/sys/kernel/config"));

  Outcome mode = set_mode(r, "mlx5_0", 1, "IB/RoCE v1");
  EXPECT_EQ(mode.kind, OutcomeKind::kDone) << mode.error.str();
  Outcome tos = set_tos(r, "mlx5_0", 1, 106);
  EXPECT_EQ(tos.kind, OutcomeKind::kDone) << tos.error.str();

  const std::vector<std::string> expected = {
      "mount configfs /sys/kernel/config",
      "mkdir " + kCm + "/mlx5_0",
      "write " + kCm + "/mlx5_0/ports/1/default_roce_mode IB/RoCE v1\n",
      "write " + kCm + "/mlx5_0/ports/1/default_roce_tos 106\n",
  };
  EXPECT_EQ(r.kernel.journal(), expected);
  // Kept (it holds no reference on the device: cma_configfs.c make_cma_dev): the next run
  // reads the values without making the group again.
  EXPECT_TRUE(r.kernel.root().is_dir(kCm + "/mlx5_0"));

  Outcome mode2 = set_mode(r, "mlx5_0", 1, "IB/RoCE v1");
  EXPECT_EQ(mode2.kind, OutcomeKind::kAlready);
  EXPECT_EQ(mode2.detail, "reads 'IB/RoCE v1'");
  Outcome tos2 = set_tos(r, "mlx5_0", 1, 0x6a);
  EXPECT_EQ(tos2.kind, OutcomeKind::kAlready);
  EXPECT_EQ(tos2.detail, "reads '106'");
  EXPECT_EQ(r.kernel.journal(), expected);  // nothing made, nothing written
}

TEST(RoceDefaults, ValuesStayInTheKernelWhenSomeoneElseRemovesTheDirectory) {
  TestRun r("cx5-roce");
  r.unmount_configfs();
  ASSERT_EQ(set_mode(r, "mlx5_0", 1, "IB/RoCE v1").kind, OutcomeKind::kDone);
  // The guides' scripts rmdir after writing; the values live in the cma_device
  // (cma.c cma_set_default_gid_type), not in the configfs group.
  ASSERT_TRUE(r.kernel.remove_dir(kCm + "/mlx5_0"));
  const unsigned after_rmdir = r.kernel.changes();
  const size_t writes = r.kernel.writes().size();
  // The kernel shows the values only inside rdma_cm/<dev>: looking means mkdir once more.
  EXPECT_EQ(set_mode(r, "mlx5_0", 1, "IB/RoCE v1").kind, OutcomeKind::kAlready);
  EXPECT_EQ(r.kernel.writes().size(), writes);
  EXPECT_EQ(r.kernel.changes(), after_rmdir + 1);
  EXPECT_TRUE(r.kernel.root().is_dir(kCm + "/mlx5_0"));
}

TEST(RoceDefaults, ExistingDirectoryIsUsedAndLeftInPlace) {
  TestRun r("cx5-ib");  // configfs mounted, rdma_cm present
  ASSERT_TRUE(r.kernel.make_dir(kCm + "/mlx5_0"));
  Outcome o = set_tos(r, "mlx5_0", 1, 32);
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_TRUE(r.kernel.root().exists(kCm + "/mlx5_0"));
  EXPECT_EQ(r.raw(kCm + "/mlx5_0/ports/1/default_roce_tos"), "32\n");
  EXPECT_EQ(r.kernel.journal().back(), "write " + kCm + "/mlx5_0/ports/1/default_roce_tos 32\n");
}

TEST(RoceDefaults, RoceV1OnSoftRoceIsRefusedWithTheReason) {
  TestRun r("rxe-virtio");
  r.unmount_configfs();
  Outcome o = set_mode(r, "rxe0", 1, "IB/RoCE v1");
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kCm + "/rxe0/ports/1/default_roce_mode: writing 'IB/RoCE v1' failed " +
                               errno_text(EINVAL));
  EXPECT_EQ(o.detail,
            "port 1 of rxe0 does not support IB/RoCE v1 (Soft-RoCE supports only RoCE v2)");
  EXPECT_TRUE(r.kernel.root().exists(kCm + "/rxe0"));  // kept, as after a success

  Outcome v2 = set_mode(r, "rxe0", 1, "RoCE v2");
  EXPECT_EQ(v2.kind, OutcomeKind::kAlready);  // the kernel's default on a v2-capable port
}

TEST(RoceDefaults, TosOutOfRangeIsRefused) {
  TestRun r("cx5-roce");
  r.unmount_configfs();
  Outcome o = set_tos(r, "mlx5_0", 1, 300);
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            kCm + "/mlx5_0/ports/1/default_roce_tos: writing '300' failed " + errno_text(ERANGE));
  EXPECT_EQ(o.detail, "the ToS is a number from 0 to 255");
  EXPECT_EQ(r.raw(kCm + "/mlx5_0/ports/1/default_roce_tos"), "0\n");  // the kernel kept its value
}

TEST(RoceDefaults, MissingRdmaCmModuleIsReportedAfterMountingConfigfs) {
  TestRun r("cx3-sriov-eth");  // rdma_cm not loaded
  Outcome o = set_mode(r, "mlx4_0", 1, "RoCE v2");
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kCm + ": does not exist");
  EXPECT_EQ(o.detail, "the rdma_cm module is not loaded (it must be, before RoCE defaults)");
  EXPECT_TRUE(r.kernel.root().is_dir("/sys/kernel/config"));
}

TEST(RoceDefaults, DeviceThePlanWaitsForIsWaitedForAfterEnodev) {
  TestRun r("cx5-roce");
  r.unmount_configfs();
  r.kernel.hide_rdma_device("mlx5_0", 12);
  Action a = roce_mode_action("mlx5_0", 1, RoceMode::kV1);
  a.waiting_for = "mlx5_0 after the card re-registers";
  Outcome o = execute(r.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_FALSE(r.ctx.deadline.expired());
}

TEST(RoceDefaults, UnknownDeviceIsReportedAsEnodev) {
  TestRun r("cx5-roce");
  r.unmount_configfs();
  Outcome o = set_mode(r, "mlx5_7", 1, "RoCE v2");
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kCm + "/mlx5_7: cannot create directory " + errno_text(ENODEV));
  EXPECT_EQ(o.detail,
            "mlx5_7 is not a current RDMA device name (renamed, or its driver is not loaded)");
}

TEST(RoceDefaults, DeviceThatNeverAppearsTimesOut) {
  TestRun r("cx5-roce", std::chrono::milliseconds(200));
  r.unmount_configfs();
  r.kernel.hide_rdma_device("mlx5_0", testing::FakeKernel::kNever);
  Action a = roce_tos_action("mlx5_0", 1, 106);
  a.waiting_for = "mlx5_0";
  Outcome o = execute(r.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(), kCm + "/mlx5_0: RDMA device mlx5_0 did not appear");
  EXPECT_EQ(o.detail, "waited for mlx5_0");
  EXPECT_LT(r.elapsed_ms(), 1000);
}

TEST(RoceDefaults, AValueTheKernelDidNotKeepIsAFailureNotDone) {
  // The write is accepted, then the card re-registers (another writer switched a port
  // type): the new cma_device has the kernel's defaults, and only reading back tells.
  TestRun r("cx3-vpi");
  const std::string bdf = "0000:81:00.0";
  const std::string tos = kCm + "/mlx4_0/ports/2/default_roce_tos";
  r.kernel.mlx4_reregistration(bdf, 0);
  r.kernel.mlx4_reregister_after_write(bdf, tos);
  Outcome o = set_tos(r, "mlx4_0", 2, 106);
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), tos + ": reads back '0' after writing '106'");
  ASSERT_EQ(r.kernel.writes_to(tos), 1u);
  EXPECT_EQ(r.kernel.writes().back().errnum, 0);  // the kernel took the write itself
  EXPECT_EQ(r.kernel.reregistrations(bdf), 1u);
}

TEST(RoceDefaults, MissingPortIsReported) {
  TestRun r("cx5-roce");
  r.unmount_configfs();
  Outcome o = set_mode(r, "mlx5_0", 2, "RoCE v2");
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kCm + "/mlx5_0/ports/2: does not exist");
  EXPECT_EQ(o.detail, "port 2 of mlx5_0 does not exist");
  EXPECT_TRUE(r.kernel.root().exists(kCm + "/mlx5_0/ports/1"));  // the device's group, kept
}

}  // namespace
}  // namespace rp
