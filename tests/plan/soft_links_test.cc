// The Soft-RoCE and Soft-iWARP planner (plan/soft_links.cc), on a Config and an Inventory written
// out here: rules that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(SoftLinksPlanner, AChosenNameIsOneNoDeviceHasYet) {
  // rxe0 sits on eth0; a Soft-RoCE link on eth1 without a name is rxe1 (rxe0 again would
  // be refused by the kernel: EEXIST).
  Inventory inv;
  RdmaDevice rxe;
  rxe.name = "rxe0";
  rxe.parent_netdev = "eth0";
  RdmaPort port;
  port.num = 1;
  port.state = PortState::kActive;
  port.link_layer = LinkLayer::kEthernet;
  port.roce_v2 = true;
  port.netdev = "eth0";
  rxe.ports.push_back(port);
  inv.rdma.push_back(rxe);
  inv.netdevs.push_back(ethernet("eth0", 2, "52:54:00:77:00:01", true));
  inv.netdevs.push_back(ethernet("eth1", 3, "52:54:00:77:00:02", true));
  inv.netdevs[0].rdma_device = "rxe0";
  inv.netdevs[0].rdma_port = 1;
  inv.modules = {"ib_core", "rdma_rxe"};
  Config cfg;
  cfg.soft_links["eth1"] = SoftLink{SoftKind::kRxe, "", src("test:40")};
  const Plan p = make_plan(cfg, inv);
  std::vector<std::string> links;
  for (const auto& a : p.actions) {
    if (a.kind() != ActionKind::kCreateSoftLink) continue;
    links.push_back(a.get<CreateSoftLink>().name + " on " + a.get<CreateSoftLink>().netdev);
  }
  EXPECT_EQ(links, std::vector<std::string>{"rxe1 on eth1"}) << plan_text(p);
}

// siw on an IPoIB interface: siw_newlink answers -EINVAL there (siw_main.c
// siw_dev_qualified); an error when the plan is made, not a failure found at apply. On
// an Ethernet interface it is planned.
TEST(SoftLinksPlanner, SiwOnAnIpoibInterfaceIsRefusedAsTheKernelRefusesIt) {
  Inventory inv;
  NetDev ib;
  ib.name = "ib0";
  ib.ifindex = 4;
  ib.type = kArphrdInfiniband;
  inv.netdevs.push_back(ib);
  inv.netdevs.push_back(ethernet("eth1", 3, "52:54:00:77:00:02", true));
  inv.modules = {"ib_core", "siw"};
  Config cfg;
  cfg.soft_links["ib0"] = SoftLink{SoftKind::kSiw, "", src("cmdline: rd.rdma.siw=ib0")};
  cfg.soft_links["eth1"] = SoftLink{SoftKind::kSiw, "", src("cmdline: rd.rdma.siw=eth1")};
  const Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.diag.errors.size(), 1u) << plan_text(p);
  EXPECT_EQ(p.diag.errors[0].str(),
            "cmdline: rd.rdma.siw=ib0: siw link on ib0: the kernel refuses it (siw_main.c "
            "siw_dev_qualified: Ethernet, IEEE 802, loopback and ARPHRD_NONE links only; ib0 is "
            "link type 32, IPoIB: its port is RDMA already)");
  std::vector<std::string> links;
  for (const auto& a : p.actions)
    if (a.kind() == ActionKind::kCreateSoftLink) links.push_back(a.get<CreateSoftLink>().netdev);
  EXPECT_EQ(links, std::vector<std::string>{"eth1"});
}

// rxe on a VLAN interface: rxe_newlink answers EPERM ("rxe creation allowed on top of a
// real device only"); refused when the plan is made.
TEST(SoftLinksPlanner, RxeOnAVlanIsRefusedAsTheKernelRefusesIt) {
  Inventory inv;
  inv.netdevs.push_back(ethernet("eth1", 3, "52:54:00:77:00:02", true));
  inv.netdevs.push_back(ethernet("eth1.100", 4, "52:54:00:77:00:02", true));
  inv.netdevs.back().kind = "vlan";
  inv.modules = {"ib_core", "rdma_rxe"};
  Config cfg;
  cfg.soft_links["eth1.100"] = SoftLink{SoftKind::kRxe, "", src("cmdline: rd.rdma.rxe=eth1.100")};
  const Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.diag.errors.size(), 1u) << plan_text(p);
  EXPECT_NE(p.diag.errors[0].str().find("cmdline: rd.rdma.rxe=eth1.100: rxe link on eth1.100: "
                                        "the kernel refuses it (rxe.c rxe_newlink"),
            std::string::npos)
      << p.diag.errors[0].str();
  cfg.soft_links.clear();
  cfg.soft_links["eth1"] = SoftLink{SoftKind::kRxe, "", src("cmdline: rd.rdma.rxe=eth1")};
  EXPECT_TRUE(make_plan(cfg, inv).diag.errors.empty());
}

}  // namespace
}  // namespace rp
