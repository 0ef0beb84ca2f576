// The RoCE defaults planner (plan/roce.cc), on a Config and an Inventory written out here: rules
// that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(RocePlanner, RoceV2IsRefusedOnAPortWithOnlyV1Gids) {
  Plan v1_only = make_plan(roce_v2("mlx4_0"), roce_port(true, false));
  ASSERT_EQ(v1_only.diag.errors.size(), 1u) << plan_text(v1_only);
  EXPECT_EQ(v1_only.diag.errors[0].str(),
            "test:3: RoCE v2 is not supported by port 2 of mlx4_0 (its GID table has only "
            "IB/RoCE v1: a ConnectX-3 without the Pro's RoCE v2 support, or a kernel without "
            "it)");
  EXPECT_TRUE(v1_only.actions.empty());
  Plan both = make_plan(roce_v2("mlx4_0"), roce_port(true, true));
  EXPECT_TRUE(both.diag.ok()) << plan_text(both);
  ASSERT_EQ(both.actions.size(), 1u) << plan_text(both);
  EXPECT_EQ(both.actions[0].wanted(), "RoCE v2");
}

TEST(RocePlanner, ThePortSettingWinsOverTheDevicesAndTheDevicesOverStar) {
  // Written in the map's order of selector text, which is not the order of precedence:
  // "rocep129s0" (rdma-core's name of the device) sorts after "netdev-enp129s0d1".
  Inventory inv = roce_port(true, true);
  inv.rdma[0].name = "rocep129s0";
  inv.rdma[0].ports[0].cm_roce_tos = 0;
  NetDev n;
  n.name = "enp129s0d1";
  n.ifindex = 5;
  n.type = kArphrdEther;
  n.admin_up = true;
  n.rdma_device = "rocep129s0";
  n.rdma_port = 2;
  inv.netdevs.push_back(n);
  RdmaSelector by_netdev;
  by_netdev.by = RdmaSelector::By::kNetdev;
  by_netdev.name = "enp129s0d1";

  Config cfg;
  cfg.roce[{RdmaSelector::all(), 0}].tos = Sourced<unsigned>{32, src("test:20")};
  cfg.roce[{RdmaSelector::all(), 2}].tos = Sourced<unsigned>{40, src("test:21")};
  cfg.roce[{RdmaSelector::named("rocep129s0"), 0}].tos = Sourced<unsigned>{64, src("test:22")};
  cfg.roce[{by_netdev, 0}].tos = Sourced<unsigned>{106, src("test:24")};
  using Writes = std::vector<std::string>;
  // The port under an interface, over its device.
  EXPECT_EQ(tos_writes(make_plan(cfg, inv)), Writes{"rocep129s0/2 106 (test:24)"});
  cfg.roce.erase({by_netdev, 0});
  // The port named with its device, over the device.
  cfg.roce[{RdmaSelector::named("rocep129s0"), 2}].tos = Sourced<unsigned>{96, src("test:23")};
  EXPECT_EQ(tos_writes(make_plan(cfg, inv)), Writes{"rocep129s0/2 96 (test:23)"});
  cfg.roce.erase({RdmaSelector::named("rocep129s0"), 2});
  // The device, over a port of every device.
  EXPECT_EQ(tos_writes(make_plan(cfg, inv)), Writes{"rocep129s0/2 64 (test:22)"});
  cfg.roce.erase({RdmaSelector::named("rocep129s0"), 0});
  // A port of every device, over every port of every device.
  EXPECT_EQ(tos_writes(make_plan(cfg, inv)), Writes{"rocep129s0/2 40 (test:21)"});
}

TEST(RocePlanner, DefaultsThePortShowsAlreadyAreNotWrittenAgain) {
  // The rdma_cm configfs group an earlier run left shows RoCE v2 and ToS 106: a run with
  // everything in place writes nothing.
  Inventory inv = roce_port(true, true);
  inv.rdma[0].ports[0].cm_roce_mode = "RoCE v2";
  inv.rdma[0].ports[0].cm_roce_tos = 106;
  Config cfg = roce_v2("mlx4_0");
  cfg.roce[{RdmaSelector::named("mlx4_0"), 2}].tos = Sourced<unsigned>{106, src("test:3")};
  const Plan same = make_plan(cfg, inv);
  EXPECT_TRUE(same.actions.empty()) << plan_text(same);
  // Another ToS shown: the ToS is written, the mode left as it is.
  inv.rdma[0].ports[0].cm_roce_tos = 0;
  const Plan p = make_plan(cfg, inv);
  EXPECT_EQ(tos_writes(p), std::vector<std::string>{"mlx4_0/2 106 (test:3)"});
  EXPECT_EQ(p.actions.size(), 1u) << plan_text(p);
}

TEST(RocePlanner, ANamedDeviceThatADriverLoadRegistersIsPlannedNotDropped) {
  // mlx5_core drives the card; mlx5_ib is not loaded yet, so mlx5_0 does not exist.
  Inventory inv;
  PciFunction f;
  f.address = *PciAddress::parse("0000:3b:00.0");
  f.driver = "mlx5_core";
  inv.pci.push_back(f);
  inv.modules = {"mlx5_core", "rdma_cm"};
  Config cfg;
  cfg.roce[{RdmaSelector::named("mlx5_0"), 1}].tos = Sourced<unsigned>{106, src("test:10")};
  cfg.wait = {{port_wait("mlx5_0", 1), src("test:11")}};
  const Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.actions.size(), 3u) << plan_text(p);
  EXPECT_EQ(p.actions[0].object(), "mlx5_ib");
  for (size_t i : {1, 2}) {
    EXPECT_EQ(p.actions[i].waiting_for, "mlx5_0") << plan_text(p);
    EXPECT_EQ(p.actions[i].after, std::vector<size_t>{0}) << plan_text(p);
  }
  EXPECT_EQ(p.actions[1].kind(), ActionKind::kSetRoceTos);
  EXPECT_EQ(p.actions[2].kind(), ActionKind::kWaitPort);
  EXPECT_TRUE(p.notes.empty()) << plan_text(p);
}

}  // namespace
}  // namespace rp
