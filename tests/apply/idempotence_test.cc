// Running the same executors twice: the second run finds everything in place and changes
// nothing.
#include <gtest/gtest.h>

#include <vector>

#include "provision/apply/context.h"
#include "tests/apply/test_run.h"

namespace rp {
namespace {

using testing::port_mtu_action;
using testing::port_type_action;
using testing::roce_mode_action;
using testing::roce_tos_action;
using testing::TestRun;
using testing::wait_port_action;

const std::string kVpi = "0000:81:00.0";

std::vector<Outcome> run_all(TestRun& r, const std::vector<Action>& steps) {
  std::vector<Outcome> out;
  for (const auto& action : steps) out.push_back(execute(r.ctx, action));
  return out;
}

TEST(Idempotence, EthEthCardWithRoceDefaultsChangesNothingTheSecondTime) {
  TestRun r("cx3-vpi");
  r.unmount_configfs();
  // The rdma_cm view of mlx4_0 is kept (as an earlier boot or an administrator left it):
  // with it in place, looking at the values needs no mkdir/rmdir.
  ASSERT_TRUE(r.kernel.mount("configfs", "/sys/kernel/config"));
  ASSERT_TRUE(r.kernel.make_dir("/sys/kernel/config/rdma_cm/mlx4_0"));
  const std::vector<Action> steps = {
      port_type_action(kVpi, 2, "eth"),
      port_type_action(kVpi, 1, "eth"),
      roce_mode_action("mlx4_0", 2, RoceMode::kV1),
      roce_tos_action("mlx4_0", 2, 106),
      wait_port_action("mlx4_0", 2),
  };

  const unsigned before = r.kernel.changes();
  std::vector<Outcome> first = run_all(r, steps);
  ASSERT_EQ(first.size(), steps.size());
  EXPECT_EQ(first[0].kind, OutcomeKind::kAlready);
  EXPECT_EQ(first[1].kind, OutcomeKind::kDone) << first[1].error.str();
  EXPECT_EQ(first[2].kind, OutcomeKind::kDone) << first[2].error.str();
  EXPECT_EQ(first[3].kind, OutcomeKind::kDone) << first[3].error.str();
  EXPECT_EQ(first[4].kind, OutcomeKind::kAlready);
  const unsigned after_first = r.kernel.changes();
  EXPECT_EQ(after_first - before, 3u);  // port 1, RoCE mode, RoCE ToS

  std::vector<Outcome> second = run_all(r, steps);
  for (size_t i = 0; i < second.size(); ++i) {
    EXPECT_EQ(second[i].kind, OutcomeKind::kAlready) << "step " << i << ": " << second[i].detail;
  }
  EXPECT_EQ(r.kernel.changes(), after_first);
}

TEST(Idempotence, RoceDefaultsOnAFreshBootMakeTheGroupOnceThenNothing) {
  // A fresh boot: configfs not mounted, no rdma_cm/<dev> group. The first run mounts,
  // makes the group and writes; the group is kept, so the second run makes and writes
  // nothing (before, it made the group and removed it again on every run).
  TestRun r("cx5-roce");
  r.unmount_configfs();
  const std::vector<Action> steps = {
      roce_mode_action("mlx5_0", 1, RoceMode::kV1),
      roce_tos_action("mlx5_0", 1, 106),
  };
  std::vector<Outcome> first = run_all(r, steps);
  EXPECT_EQ(first[0].kind, OutcomeKind::kDone) << first[0].error.str();
  EXPECT_EQ(first[1].kind, OutcomeKind::kDone) << first[1].error.str();
  const unsigned after_first = r.kernel.changes();
  EXPECT_EQ(after_first, 4u);  // mount, mkdir, two writes

  std::vector<Outcome> second = run_all(r, steps);
  EXPECT_EQ(second[0].kind, OutcomeKind::kAlready);
  EXPECT_EQ(second[1].kind, OutcomeKind::kAlready);
  EXPECT_EQ(r.kernel.changes(), after_first);
}

TEST(Idempotence, IbIbCardWithPortMtuChangesNothingTheSecondTime) {
  TestRun r("cx3-vpi");
  const std::vector<Action> steps = {
      port_type_action(kVpi, 1, "ib"), port_type_action(kVpi, 2, "ib"),
      port_mtu_action(kVpi, 1, 2048),  port_mtu_action(kVpi, 2, 2048),
      wait_port_action("mlx4_0", 1),
  };
  std::vector<Outcome> first = run_all(r, steps);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(first[i].kind, OutcomeKind::kDone) << "step " << i << ": " << first[i].error.str();
  }
  const unsigned after_first = r.kernel.changes();
  EXPECT_EQ(after_first, 3u);

  std::vector<Outcome> second = run_all(r, steps);
  for (size_t i = 0; i < second.size(); ++i) {
    EXPECT_EQ(second[i].kind, OutcomeKind::kAlready) << "step " << i << ": " << second[i].detail;
  }
  EXPECT_EQ(r.kernel.changes(), after_first);
}

}  // namespace
}  // namespace rp
