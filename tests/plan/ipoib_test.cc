// The IPoIB planner (plan/ipoib.cc): modes, MTUs, P_Key children, on a Config and an Inventory
// written out here: rules that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(IpoibPlanner, ConnectedModeFollowsTheAddressFlagNotTheDriver) {
  // mlx4 without the RC flag (an HCA or firmware without CM): refused before boot.
  Plan no_flag = make_plan(connected("ib0"), ipoib_port("mlx4_core", 0x00));
  ASSERT_EQ(no_flag.diag.errors.size(), 1u) << plan_text(no_flag);
  EXPECT_EQ(no_flag.diag.errors[0].str(),
            "test:1: ib0 cannot run connected mode: its hardware address "
            "00:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1 lacks the "
            "connected-mode flag (0x80 in the first byte), only datagram");
  // The flag set: planned, whatever the driver.
  Plan flag = make_plan(connected("ib0"), ipoib_port("mlx5_core", 0x80));
  EXPECT_TRUE(flag.diag.ok()) << plan_text(flag);
  ASSERT_EQ(flag.actions.size(), 2u) << plan_text(flag);  // the mode, then the link up
  EXPECT_EQ(flag.actions[0].kind(), ActionKind::kSetIpoibMode);
}

TEST(IpoibPlanner, AConnectedChildNeedsTheFlagOnItsParent) {
  Config cfg;
  PkeyChild c;
  c.parent = "ib0";
  c.pkey = 0x10;
  c.mode = IpoibMode::kConnected;
  c.source = src("test:2");
  cfg.pkeys[{"ib0", 0x10}] = c;
  Plan p = make_plan(cfg, ipoib_port("mlx4_core", 0x00));
  ASSERT_EQ(p.diag.errors.size(), 1u) << plan_text(p);
  EXPECT_NE(p.diag.errors[0].str().find("(P_Key child ib0.8010)"), std::string::npos);
}

TEST(IpoibPlanner, ADatagramMtuAbove4092IsInvalidOnAnyMachine) {
  Config cfg;
  cfg.ipoib["ib0"].mode = Sourced<IpoibMode>{IpoibMode::kDatagram, src("test:4")};
  cfg.ipoib["ib0"].mtu = Sourced<unsigned>{4096, src("test:5")};
  Plan p = make_plan(cfg, Inventory{});  // no machine to look at
  ASSERT_EQ(p.diag.errors.size(), 1u) << plan_text(p);
  EXPECT_EQ(p.diag.errors[0].where, "test:5");
}

TEST(IpoibPlanner, TheMtuIsCheckedAgainstTheIbMtuThisPlanSets) {
  // mlx4 port 1 runs IB MTU 4096 now; the same config lowers it to 2048, so a datagram
  // MTU of 4092 no longer fits (IPOIB_UD_MTU(2048) = 2044).
  Inventory inv = cx3_with_port1("ib");
  inv.pci[0].mlx4_ports[0].mtu = 4096;
  RdmaDevice d;
  d.name = "mlx4_0";
  d.driver = "mlx4_core";
  d.pci = inv.pci[0].address;
  RdmaPort port;
  port.num = 1;
  port.link_layer = LinkLayer::kInfiniBand;
  d.ports.push_back(port);
  inv.rdma.push_back(d);
  Inventory ib = ipoib_port("mlx4_core", 0x80);
  inv.netdevs = ib.netdevs;
  inv.netdevs[0].rdma_device = "mlx4_0";
  inv.netdevs[0].rdma_port = 1;
  Config cfg;
  cfg.mlx4[inv.pci[0].address].mtu[0] = Sourced<unsigned>{2048, src("test:6")};
  cfg.ipoib["ib0"].mtu = Sourced<unsigned>{4092, src("test:7")};
  Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.diag.errors.size(), 1u) << plan_text(p);
  EXPECT_EQ(p.diag.errors[0].str(),
            "test:7: MTU 4092 of ib0 exceeds 2044 for datagram mode (IB link MTU 2048 - 4)");
}

}  // namespace
}  // namespace rp
