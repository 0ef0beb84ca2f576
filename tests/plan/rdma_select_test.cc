// Which present RDMA devices a selector means (plan/rdma_select.cc), on a Config and an Inventory
// written out here: rules that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(RdmaSelect, ByPciLeavesOutSoftDevicesOnThatFunction) {
  Inventory inv;
  RdmaDevice hw;
  hw.name = "irdma0";
  hw.pci = PciAddress::parse("0000:18:00.0");
  RdmaDevice soft = hw;
  soft.name = "siw0";
  soft.parent_netdev = "ens785f0";  // siw's device link names the NIC's function too
  inv.rdma = {hw, soft};
  Config cfg;
  Plan plan;
  PlanBuilder b(cfg, inv, plan);
  RdmaSelector sel;
  sel.by = RdmaSelector::By::kPci;
  sel.pci = *PciAddress::parse("0000:18:00.0");
  auto got = select_rdma(b, sel, nullptr);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].device->name, "irdma0");
  sel.by = RdmaSelector::By::kNodeGuid;
  EXPECT_TRUE(select_rdma(b, sel, nullptr).empty());
}

TEST(RdmaSelect, APersistentNameThatFitsTwoDevicesMeansNeither) {
  // Two hardware devices with one node GUID (a duplicated GUID: cloned firmware images
  // have shipped so): rdma-core's GUID name fits both, and picking one could give the
  // other card's port the settings. Neither is meant; with one of them alone, it is.
  RdmaDevice d;
  d.name = "mlx5_0";
  d.driver = "mlx5_core";
  d.node_guid = PortGuid::parse("9803:9b03:0046:8a10");
  RdmaPort p;
  p.num = 1;
  p.link_layer = LinkLayer::kEthernet;
  p.roce_v2 = true;
  d.ports.push_back(p);
  Inventory inv;
  inv.rdma = {d, d};
  inv.rdma[1].name = "mlx5_1";
  Config cfg;
  const RdmaSelector sel = RdmaSelector::named("rocex98039b0300468a10");
  {
    Plan plan;
    PlanBuilder b(cfg, inv, plan);
    std::string how;
    EXPECT_TRUE(select_rdma(b, sel, &how).empty());
    EXPECT_EQ(how, "");
  }
  inv.rdma.pop_back();
  Plan plan;
  PlanBuilder b(cfg, inv, plan);
  std::string how;
  auto got = select_rdma(b, sel, &how);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].device->name, "mlx5_0");
  EXPECT_NE(how.find("rdma-core's persistent name"), std::string::npos) << how;
}

}  // namespace
}  // namespace rp
