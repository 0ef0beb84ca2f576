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
  EXPECT_EQ(dcb_interfaces(cfg), (std::vector<std::string>{"ens1f0np0", "ens1f1np1"}));

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

}  // namespace
}  // namespace rp
