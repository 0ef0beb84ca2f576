// Which interfaces DCB is read for: the configured ones for a plan, every RoCE port's
// netdev for status (not an iWARP port's, not an InfiniBand port's).
#include "provision/resolve/concerns.h"

#include <gtest/gtest.h>

namespace rp {
namespace {

TEST(Concerns, DcbForTheConfiguredInterfacesAndStatusForEveryRocePort) {
  Config cfg;
  cfg.dcb["ens1f0np0"];
  cfg.dcb["ens1f1np1"];
  EXPECT_EQ(dcb_interfaces(cfg, Inventory{}), (std::vector<std::string>{"ens1f0np0", "ens1f1np1"}));

  Inventory inv;
  RdmaDevice roce;
  roce.name = "mlx5_0";
  roce.node_type = "1: CA";  // node_type_show (sysfs.c)
  roce.driver = "mlx5_core";
  RdmaPort p;
  p.num = 1;
  p.link_layer = LinkLayer::kEthernet;
  p.netdev = "ens1f0np0";
  roce.ports.push_back(p);
  RdmaDevice ib = roce;
  ib.name = "mlx5_1";
  ib.ports[0].link_layer = LinkLayer::kInfiniBand;
  ib.ports[0].netdev = "ib0";
  RdmaDevice iw = roce;
  iw.name = "siw0";
  iw.soft_iwarp = true;
  iw.ports[0].netdev = "eth1";
  inv.rdma = {roce, ib, iw};
  EXPECT_EQ(roce_interfaces(inv), std::vector<std::string>{"ens1f0np0"});
}

// [dcb fab0] where rd.rdma.name=fab0:<MAC> renames ens1f0np0: the plan finds fab0's
// interface as ens1f0np0 (PlanBuilder::iface), so its DCB is read under that name; before,
// it was not read at all, and the plan showed "unknown", planned every part and said
// nothing of a driver without DCB or of RoCE traffic on a lossy priority.
TEST(Concerns, DcbIsReadUnderTheNameAnInterfaceHasNow) {
  Inventory inv;
  NetDev n;
  n.name = "ens1f0np0";
  n.type = kArphrdEther;
  n.address = *HwAddress::parse("98:03:9b:46:8a:10");
  inv.netdevs.push_back(n);
  Config cfg;
  cfg.dcb["fab0"];
  cfg.dcb["fab1"];
  cfg.names["fab0"] = {*HwKey::parse("98:03:9b:46:8a:10"), {}};
  cfg.names["fab1"] = {*HwKey::parse("98:03:9b:46:8a:11"), {}};  // absent: fab1 alone
  EXPECT_EQ(dcb_interfaces(cfg, inv), (std::vector<std::string>{"fab0", "ens1f0np0", "fab1"}));
}

}  // namespace
}  // namespace rp
