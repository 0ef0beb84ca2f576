// check-link (apply/check_link.cc) on generated sysfs trees: the port's rate_show and
// state, the HCA's fw_ver and its PCI function's link (pci-sysfs.c), read when the action
// runs; as expected is "checked", a difference "failed" naming found and expected.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/apply/test_run.h"

namespace rp {
namespace {

using testing::TestRun;

Action check(const std::string& dev, unsigned port, const ExpectedLink& want) {
  return Action(CheckLink{dev, port, want}, "not checked", "test");
}

// cx5-ib: mlx5_0/1 ACTIVE at "100 Gb/sec (4X EDR)", sm_lid 0x1, firmware 16.35.2000, its
// PCI function at 8.0 GT/s x16 of 8.0 GT/s x16.
TEST(CheckLink, APortAndAnHcaAsExpectedAreChecked) {
  TestRun r("cx5-ib");
  ExpectedLink port;
  port.rate = 1000;
  port.width = 4;
  port.link_layer = LinkLayer::kInfiniBand;
  port.phys_state = "LinkUp";
  port.sm = true;
  Outcome o = execute(r.ctx, check("mlx5_0", 1, port));
  EXPECT_EQ(o.kind, OutcomeKind::kChecked) << o.error.str();
  EXPECT_EQ(o.detail, "100 Gb/sec (4X EDR), InfiniBand, LinkUp, SM LID 0x1: as expected");
  ExpectedLink hca;
  hca.fw = "16.35.2000";
  hca.pcie_speed = 0;
  hca.pcie_width = 16;
  o = execute(r.ctx, check("mlx5_0", 0, hca));
  EXPECT_EQ(o.kind, OutcomeKind::kChecked) << o.error.str();
}

// An NDR fabric where this port trained at EDR, and a card whose slot trained at x8: each
// a failed check saying what it found and what was expected.
TEST(CheckLink, ADegradedLinkFailsNamingFoundAndExpected) {
  TestRun r("cx5-ib");
  ExpectedLink port;
  port.rate = 4000;
  Outcome o = execute(r.ctx, check("mlx5_0", 1, port));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), "mlx5_0/1: degraded: rate 100 Gb/sec (4X EDR), expected 400 Gb/sec");
  std::ofstream(r.dir + "/sys/bus/pci/devices/0000:3b:00.0/current_link_width") << "8\n";
  ExpectedLink hca;
  hca.pcie_width = 0;
  hca.fw = "16.35.2000";
  o = execute(r.ctx, check("mlx5_0", 0, hca));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), "mlx5_0: degraded: PCIe width x8, expected x16 (max_link_width)");
  // A port that is not there.
  o = execute(r.ctx, check("mlx5_0", 2, port));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_NE(o.error.str().find("no such port"), std::string::npos) << o.error.str();
}

}  // namespace
}  // namespace rp
