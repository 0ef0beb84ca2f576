// rdma-rename (apply/rdma_rename.cc) on generated sysfs trees: a device that has its fixed
// name already is left alone (a second run, the real root's after the initramfs's); one
// to be renamed is renamed over RDMA netlink on the running kernel only.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/apply/test_run.h"

namespace rp {
namespace {

using testing::TestRun;

Action rename(const std::string& from, const std::string& to) {
  return Action(RenameRdmaDevice{from, to}, from, "test");
}

// cx5-roce: mlx5_0 and mlx5_1 (/sys/class/infiniband/<name>, ib_device_rename's class
// device name).
TEST(RdmaRename, ADeviceThatHasItsNameIsLeftAlone) {
  TestRun r("cx5-roce");
  // The plan asked for mlx5_7 -> mlx5_1 (made on the initramfs's look); mlx5_7 is gone and
  // mlx5_1 is there: renamed already.
  Outcome o = execute(r.ctx, rename("mlx5_7", "mlx5_1"));
  EXPECT_EQ(o.kind, OutcomeKind::kAlready) << o.error.str();
}

TEST(RdmaRename, ARenameActsOnTheRunningKernelOnly) {
  TestRun r("cx5-roce");
  Outcome o = execute(r.ctx, rename("mlx5_0", "hca0"));
  EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
  EXPECT_NE(o.detail.find("running kernel only"), std::string::npos) << o.detail;
  EXPECT_TRUE(std::filesystem::exists(r.dir + "/sys/class/infiniband/mlx5_0"));
  // Both names there (another device holds the wanted one): not taken for done.
  o = execute(r.ctx, rename("mlx5_0", "mlx5_1"));
  EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
}

}  // namespace
}  // namespace rp
