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

// A soft link on a bond dracut makes (bond=; its ifup enslaves the slaves after apply):
// deferred with what names its device to the bond's online point, where the module runs
// apply again (Plan::online_ifaces, state.env RP_ONLINE_APPLY); nothing fails before, even
// under rd.rdma.required=1. Once the bond is there the link is planned as on a NIC.
TEST(SoftLinksPlanner, ALinkOnABondDracutMakesWaitsForItsOnlinePoint) {
  Inventory inv;
  inv.netdevs.push_back(ethernet("eth0", 2, "52:54:00:77:00:01", true));
  inv.netdevs.push_back(ethernet("eth1", 3, "52:54:00:77:00:02", true));
  inv.modules = {"ib_core", "rdma_rxe"};
  inv.initramfs = true;
  Config cfg;
  Diagnostics d;
  parse_cmdline(
      "bond=bond0:eth0,eth1:mode=active-backup ip=bond0:dhcp rd.rdma.rxe=bond0 "
      "rd.rdma.roce=rxe0/1:v2:106 rd.rdma.wait=rxe0/1 rd.rdma.wait=netdev-bond0 "
      "rd.rdma.required=1",
      cfg, d);
  ASSERT_TRUE(d.errors.empty());
  Plan p = make_plan(cfg, inv);
  // rdma_cm is loaded now (it needs no device); nothing else.
  ASSERT_EQ(p.actions.size(), 1u) << plan_text(p);
  EXPECT_EQ(p.actions[0].kind(), ActionKind::kLoadModule);
  EXPECT_TRUE(p.diag.warnings.empty()) << plan_text(p);
  EXPECT_EQ(p.online_ifaces, std::vector<std::string>{"bond0"});
  ASSERT_EQ(p.notes.size(), 4u) << plan_text(p);
  EXPECT_EQ(p.notes[0],
            "rxe link rxe0 on bond0 (cmdline: rd.rdma.rxe=bond0): dracut makes bond0 after apply "
            "(bond=, its ifup enslaves the slaves): made when bond0 is up, by apply again at its "
            "online point, with what names rxe0, before the root is mounted");
  EXPECT_EQ(p.notes[1],
            "RoCE defaults for rxe0/1 (cmdline: rd.rdma.roce=rxe0/1:v2:106): at bond0's online "
            "point, with its soft link");
  EXPECT_EQ(p.notes[3],
            "wait for netdev-bond0 (cmdline: rd.rdma.wait=netdev-bond0): at bond0's online "
            "point, with its soft link");
  // The online point: the bond is there, the link and what names its device are planned.
  NetDev bond = ethernet("bond0", 4, "52:54:00:77:00:01", true);
  bond.kind = "bond";
  inv.netdevs.push_back(bond);
  p = make_plan(cfg, inv);
  EXPECT_TRUE(p.online_ifaces.empty());
  std::vector<std::string> kinds;
  for (const auto& a : p.actions)
    kinds.push_back(std::string(to_string(a.kind())) + " " + a.object());
  // (RoCE v2 is a new Soft-RoCE port's default, cma.c cma_add_one: no mode action.)
  EXPECT_EQ(kinds, (std::vector<std::string>{"load-module rdma_cm", "soft-link rxe0",
                                             "roce-tos rxe0/1", "wait-port rxe0/1"}))
      << plan_text(p);
  // A NIC that is not there and no bond= of dracut's: absent, as before.
  cfg.boot.bonds.clear();
  inv.netdevs.pop_back();
  p = make_plan(cfg, inv);
  EXPECT_TRUE(p.online_ifaces.empty());
  EXPECT_FALSE(p.diag.warnings.empty()) << plan_text(p);
}

}  // namespace
}  // namespace rp
