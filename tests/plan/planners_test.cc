// Capability planners on a Config and an Inventory written out here: rules that no
// fixture shows, each checked on the smallest machine that has it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "provision/inputs/cmdline.h"
#include "provision/inventory/shown.h"
#include "provision/plan/plan.h"
#include "provision/plan/rdma_select.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

// A ConnectX-3 driven by mlx4_core, mlx4_core loaded, mlx4_en not; port 1's type file
// reads `port1` (show_port_type in drivers/net/ethernet/mellanox/mlx4/main.c prints
// "auto (eth)" / "auto (ib)" for a sensed auto port).
Inventory cx3_with_port1(const std::string& port1) {
  Inventory inv;
  PciFunction f;
  f.address = *PciAddress::parse("0000:81:00.0");
  f.driver = "mlx4_core";
  f.mlx4_ports = {{1, parse_mlx4_port_type(port1), true, std::nullopt},
                  {2, parse_mlx4_port_type("ib"), true, 4096u}};
  inv.pci.push_back(f);
  inv.modules = {"ib_core", "mlx4_core", "mlx4_ib"};  // sorted, as discover() keeps them
  return inv;
}

bool loads(const Plan& p, const std::string& module) {
  for (const auto& a : p.actions) {
    if (const auto* l = std::get_if<LoadModule>(&a.params); l && l->module == module) return true;
  }
  return false;
}

TEST(ModulesPlanner, AnAutoPortSensedAsEthernetNeedsMlx4En) {
  const Plan p = make_plan(Config{}, cx3_with_port1("auto (eth)"));
  EXPECT_TRUE(loads(p, "mlx4_en")) << plan_text(p);
}

TEST(ModulesPlanner, AnAutoPortSensedAsInfinibandDoesNot) {
  const Plan p = make_plan(Config{}, cx3_with_port1("auto (ib)"));
  EXPECT_FALSE(loads(p, "mlx4_en")) << plan_text(p);
}

TEST(ModulesPlanner, AConfiguredMlx4CardThatIsAbsentLoadsNothing) {
  // One cluster-wide config, a node without the card: neither mlx4_core nor mlx4_en.
  Config cfg;
  for (int i = 0; i < 2; ++i) {
    cfg.mlx4[*PciAddress::parse("0000:81:00.0")].type[i] =
        Sourced<PortType>{PortType::kEth, src("/etc/rdma/mlx4.conf:1")};
  }
  const Plan p = make_plan(cfg, Inventory{});
  EXPECT_TRUE(p.actions.empty()) << plan_text(p);
  ASSERT_EQ(p.notes.size(), 1u) << plan_text(p);
  EXPECT_EQ(p.notes[0], "mlx4 0000:81:00.0 (/etc/rdma/mlx4.conf:1): not present");
  // The same card present but not yet driven (mlx4_core not loaded): mlx4_core loads,
  // then the port types are written once its files appear.
  Inventory bare;
  bare.pci_present.push_back(*PciAddress::parse("0000:81:00.0"));
  const Plan later = make_plan(cfg, bare);
  EXPECT_TRUE(loads(later, "mlx4_core")) << plan_text(later);
  size_t types = 0;
  for (const auto& a : later.actions) {
    if (a.kind() != ActionKind::kSetPortType) continue;
    ++types;
    EXPECT_EQ(a.waiting_for, "mlx4_core to create mlx4_port files");
  }
  EXPECT_EQ(types, 2u) << plan_text(later);
}

TEST(ModulesPlanner, AModuleForbiddenByAnInstallLineIsNotPlanned) {
  Config cfg;
  cfg.modules = {{"ib_srpt", src("cmdline: rd.rdma.modules=ib_srpt")}};
  cfg.forbidden["ib_srpt"] = Sourced<std::string>{"/bin/true", src("/etc/modprobe.d/cis.conf:4")};
  const Plan p = make_plan(cfg, Inventory{});
  EXPECT_TRUE(p.actions.empty()) << plan_text(p);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_EQ(p.notes[0],
            "module ib_srpt (cmdline: rd.rdma.modules=ib_srpt) is forbidden at "
            "/etc/modprobe.d/cis.conf:4 ('install ib_srpt /bin/true'); not loaded");
}

TEST(ModulesPlanner, PfctxAloneInModprobeDLeavesPfcrxAtZero) {
  // mlx4_en loaded with what modprobe.d gave it: pfctx=0x08, pfcrx the default 0.
  Inventory inv = cx3_with_port1("eth");
  inv.modules = {"ib_core", "mlx4_core", "mlx4_en", "mlx4_ib"};
  inv.module_params = {{"mlx4_en.pfctx", "8"}, {"mlx4_en.pfcrx", "0"}};
  Config cfg;
  cfg.pfc_tx = Sourced<unsigned>{0x08, src("/etc/modprobe.d/mlx4.conf:2")};
  const Plan p = make_plan(cfg, inv);
  EXPECT_TRUE(p.diag.warnings.empty()) << plan_text(p);  // nothing to reload
  // Our own short form means rx = tx: the loaded module differs, which is said.
  cfg.pfc_tx->source = src("/etc/rdma-provision/rdma-provision.conf:7");
  const Plan ours = make_plan(cfg, inv);
  ASSERT_EQ(ours.diag.warnings.size(), 1u) << plan_text(ours);
  EXPECT_NE(ours.diag.warnings[0].what.find("pfctx=0x08 pfcrx=0x08"), std::string::npos);
}

TEST(ModulesPlanner, I40eMeansIrdmaOnlyOnTheX722) {
  auto plan_for = [](const std::string& device) {
    Inventory inv;
    PciFunction f;
    f.address = *PciAddress::parse("0000:18:00.0");
    f.driver = "i40e";
    f.device = device;
    inv.pci.push_back(f);
    return make_plan(Config{}, inv);
  };
  EXPECT_FALSE(loads(plan_for("0x1572"), "irdma"));  // X710: no RDMA
  EXPECT_TRUE(loads(plan_for("0x37d2"), "irdma"));   // X722 10GbE SFP+
}

TEST(ModulesPlanner, TheRdmaDriverOfEachNicDriverIsLoaded) {
  Inventory inv;
  for (const char* driver : {"be2net", "mana", "mlx5_core"}) {
    PciFunction f;
    f.address =
        *PciAddress::parse(std::string("0000:0") + std::to_string(inv.pci.size()) + ":00.0");
    f.driver = driver;
    inv.pci.push_back(f);
  }
  const Plan p = make_plan(Config{}, inv);
  EXPECT_TRUE(loads(p, "ocrdma")) << plan_text(p);
  EXPECT_TRUE(loads(p, "mana_ib")) << plan_text(p);
  EXPECT_TRUE(loads(p, "mlx5_ib")) << plan_text(p);
}

TEST(Mlx4Planner, BothPortsOfACardAreWrittenAsAPair) {
  Inventory inv = cx3_with_port1("ib");  // ib,ib
  Config cfg;
  for (int i = 0; i < 2; ++i) {
    cfg.mlx4[inv.pci[0].address].type[i] = Sourced<PortType>{PortType::kEth, src("test:9")};
  }
  const Plan p = make_plan(cfg, inv);
  std::vector<SetPortType> writes;
  for (const auto& a : p.actions)
    if (a.kind() == ActionKind::kSetPortType) writes.push_back(a.get<SetPortType>());
  ASSERT_EQ(writes.size(), 2u) << plan_text(p);
  // eth,eth: port 2 first (mlx4_check_port_params), then port 1, which applies the pair.
  EXPECT_EQ(writes[0].port, 2u);
  EXPECT_EQ(writes[0].other, PortType::kEth);
  EXPECT_FALSE(writes[0].other_first);
  EXPECT_EQ(writes[1].port, 1u);
  EXPECT_TRUE(writes[1].other_first);
}

TEST(Mlx4Planner, Mlx4ConfLinesAreReadAgainstTheCardAsMlx4SetupDoes) {
  // A dual-port card and a line with one type: mlx4-setup.sh skips it.
  Inventory dual = cx3_with_port1("ib");
  Config one;
  one.mlx4[dual.pci[0].address].type[0] =
      Sourced<PortType>{PortType::kEth, src("/etc/rdma/mlx4.conf:4")};
  const Plan skipped = make_plan(one, dual);
  for (const auto& a : skipped.actions) EXPECT_NE(a.kind(), ActionKind::kSetPortType);
  ASSERT_EQ(skipped.diag.warnings.size(), 1u) << plan_text(skipped);
  EXPECT_EQ(skipped.diag.warnings[0].where, "/etc/rdma/mlx4.conf:4");
  // The same from our own command line means port 1 alone.
  one.mlx4.begin()->second.type[0]->source = src("cmdline: rd.rdma.mlx4=0000:81:00.0/eth");
  const Plan ours = make_plan(one, dual);
  EXPECT_TRUE(ours.diag.warnings.empty()) << plan_text(ours);
  // A single-port card (no mlx4_port2) gets port 1 only.
  Inventory single = cx3_with_port1("ib");
  single.pci[0].mlx4_ports.pop_back();
  Config both;
  for (int i = 0; i < 2; ++i) {
    both.mlx4[single.pci[0].address].type[i] =
        Sourced<PortType>{PortType::kEth, src("/etc/rdma/mlx4.conf:5")};
  }
  const Plan p1 = make_plan(both, single);
  std::vector<unsigned> ports;
  for (const auto& a : p1.actions)
    if (a.kind() == ActionKind::kSetPortType) ports.push_back(a.get<SetPortType>().port);
  EXPECT_EQ(ports, std::vector<unsigned>{1}) << plan_text(p1);
  EXPECT_FALSE(p1.actions.empty() || p1.notes.empty()) << plan_text(p1);
}

TEST(Mlx4Planner, AnAutoPortThatReadsAsSensedIsAlreadyAuto) {
  // show_port_type prints "auto (eth)" for a port set to auto and sensed as Ethernet.
  Config cfg;
  cfg.mlx4[*PciAddress::parse("0000:81:00.0")].type[0] =
      Sourced<PortType>{PortType::kAuto, src("cmdline: rd.rdma.mlx4=0000:81:00.0/auto")};
  for (const char* shown : {"auto (eth)", "auto (ib)"}) {
    const Plan p = make_plan(cfg, cx3_with_port1(shown));
    for (const auto& a : p.actions) EXPECT_NE(a.kind(), ActionKind::kSetPortType) << shown;
  }
  // A port that reads eth is set to auto.
  const Plan eth = make_plan(cfg, cx3_with_port1("eth"));
  std::vector<std::string> writes;
  for (const auto& a : eth.actions)
    if (a.kind() == ActionKind::kSetPortType) writes.push_back(a.object() + " " + a.wanted());
  EXPECT_EQ(writes, std::vector<std::string>{"0000:81:00.0 port 1 auto"}) << plan_text(eth);
}

// An IPoIB parent ib0 on `driver`, with the hardware address flags byte `flags`
// (ipoib_cm.c sets IPOIB_FLAGS_RC in dev_addr[0] when the HCA can do connected mode).
Inventory ipoib_port(const std::string& driver, uint8_t flags) {
  Inventory inv;
  NetDev n;
  n.name = "ib0";
  n.ifindex = 3;
  n.iflink = 3;
  n.type = kArphrdInfiniband;
  n.address = *HwAddress::parse("00:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1");
  n.address.bytes[0] = flags;
  n.driver = driver;
  n.ipoib_mode = IpoibMode::kDatagram;
  n.mtu = 2044;
  inv.netdevs.push_back(n);
  inv.modules = {"ib_ipoib"};
  return inv;
}

Config connected(const std::string& ifname) {
  Config cfg;
  cfg.ipoib[ifname].mode = Sourced<IpoibMode>{IpoibMode::kConnected, src("test:1")};
  return cfg;
}

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

// An Ethernet mlx4 port whose GID table lists only the given RoCE types.
Inventory roce_port(bool v1, bool v2) {
  Inventory inv;
  RdmaDevice d;
  d.name = "mlx4_0";
  d.driver = "mlx4_core";
  RdmaPort p;
  p.num = 2;
  p.state = PortState::kActive;
  p.link_layer = LinkLayer::kEthernet;
  p.roce_v1 = v1;
  p.roce_v2 = v2;
  p.cm_roce_mode = "IB/RoCE v1";
  d.ports.push_back(p);
  inv.rdma.push_back(d);
  inv.modules = {"mlx4_ib", "rdma_cm"};  // sorted, as discover() keeps them
  return inv;
}

WaitItem port_wait(const std::string& device, unsigned port) {
  return WaitItem{WaitItem::Kind::kPort, RdmaSelector::named(device), port, ""};
}

Config roce_v2(const std::string& target) {
  Config cfg;
  cfg.roce[{RdmaSelector::named(target), 2}].mode = Sourced<RoceMode>{RoceMode::kV2, src("test:3")};
  return cfg;
}

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

// The ToS each RoCE port is given, "<device>/<port> <tos> (<reason>)".
std::vector<std::string> tos_writes(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions) {
    if (a.kind() != ActionKind::kSetRoceTos) continue;
    out.push_back(a.object() + " " + a.wanted() + " (" + a.reason + ")");
  }
  return out;
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

// An Ethernet interface of the inventory.
NetDev ethernet(const std::string& name, int ifindex, const std::string& mac, bool up) {
  NetDev n;
  n.name = name;
  n.ifindex = ifindex;
  n.iflink = ifindex;
  n.type = kArphrdEther;
  n.address = *HwAddress::parse(mac);
  n.admin_up = up;
  n.carrier = up;
  return n;
}

TEST(NetworkPlanner, AddressesFollowTheLinkUpAndRoutesTheAddresses) {
  // Each step needs the one before it: an address on a link that did not come up, or a
  // route through a gateway whose subnet was never added (ENETUNREACH), is skipped with
  // the reason instead of failing on its own.
  Inventory inv;
  inv.netdevs.push_back(ethernet("eth1", 3, "52:54:00:77:00:05", false));
  Config cfg;
  cfg.addresses["eth1"] = {{*IpPrefix::parse("10.77.0.5/24"), src("test:30")},
                           {*IpPrefix::parse("fd00::5/64"), src("test:31")}};
  cfg.routes["eth1"] = {{std::nullopt, *IpAddress::parse("10.77.0.1"), src("test:32")}};
  const Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.actions.size(), 4u) << plan_text(p);
  EXPECT_EQ(p.actions[0].kind(), ActionKind::kLinkUp);
  EXPECT_EQ(p.actions[1].kind(), ActionKind::kAddAddress);
  EXPECT_EQ(p.actions[1].after, std::vector<size_t>{0});
  EXPECT_EQ(p.actions[2].kind(), ActionKind::kAddAddress);
  EXPECT_EQ(p.actions[2].after, std::vector<size_t>{0});
  EXPECT_EQ(p.actions[3].kind(), ActionKind::kAddRoute);
  EXPECT_EQ(p.actions[3].after, std::vector<size_t>{2});
}

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

TEST(WaitsPlanner, AllLeavesOutAnInfinibandPortThatIsDisabled) {
  // A configured card's mlx4_0: port 1 ACTIVE, port 2 shut off (phys_state Disabled: by
  // the subnet manager or ibportstate). rd.rdma.wait=all would wait for it until the
  // deadline: it is left out with a note, and waited for only when named.
  Inventory inv = cx3_with_port1("ib");
  RdmaDevice d;
  d.name = "mlx4_0";
  d.driver = "mlx4_core";
  d.pci = inv.pci[0].address;
  RdmaPort up;
  up.num = 1;
  up.state = PortState::kActive;
  up.link_layer = LinkLayer::kInfiniBand;
  up.phys_state = "5: LinkUp";
  RdmaPort off = up;
  off.num = 2;
  off.state = PortState::kDown;
  off.phys_state = "3: Disabled";
  d.ports = {up, off};
  inv.rdma.push_back(d);
  Config cfg;
  for (int i = 0; i < 2; ++i) {
    cfg.mlx4[d.pci.value()].type[i] = Sourced<PortType>{PortType::kIb, src("test:50")};  // as it is
  }
  cfg.wait = {{WaitItem{WaitItem::Kind::kAll, {}, 0, ""}, src("cmdline: rd.rdma.wait=all")}};
  const Plan all = make_plan(cfg, inv);
  EXPECT_TRUE(all.actions.empty()) << plan_text(all);
  EXPECT_NE(std::find(all.notes.begin(), all.notes.end(),
                      "wait for mlx4_0/2 (cmdline: rd.rdma.wait=all): the port is Disabled; "
                      "name it to wait for it anyway"),
            all.notes.end())
      << plan_text(all);
  cfg.wait.push_back({port_wait("mlx4_0", 2), src("cmdline: rd.rdma.wait=mlx4_0/2")});
  const Plan named = make_plan(cfg, inv);
  ASSERT_EQ(named.actions.size(), 1u) << plan_text(named);
  EXPECT_EQ(named.actions[0].kind(), ActionKind::kWaitPort);
  EXPECT_EQ(named.actions[0].object(), "mlx4_0/2");
}

TEST(NamesPlanner, OnlyAPortGuidOfThisNodeWaitsForItsIpoibInterface) {
  // One configuration for the cluster names every node's IPoIB ports; ib_ipoib is not
  // loaded yet. This node's port gets its interface renamed once ib_ipoib makes it;
  // another node's GUID gets a note, not a rename that waits until the deadline.
  Inventory inv;
  RdmaDevice d;
  d.name = "mlx5_0";
  d.driver = "mlx5_core";
  RdmaPort p;
  p.num = 1;
  p.state = PortState::kActive;
  p.link_layer = LinkLayer::kInfiniBand;
  p.guid = PortGuid::parse("0c42:a103:0016:b2c4");
  d.ports.push_back(p);
  inv.rdma.push_back(d);
  inv.modules = {"ib_core", "mlx5_core", "mlx5_ib"};
  Config cfg;
  cfg.names["fabric0"] = {*HwKey::parse("0c42:a103:0016:b2c4"), src("test:60")};
  cfg.names["fabric1"] = {*HwKey::parse("0c42:a103:0016:b2c5"), src("test:61")};
  const Plan plan = make_plan(cfg, inv);
  std::vector<std::string> renames;
  for (const auto& a : plan.actions)
    if (a.kind() == ActionKind::kRename) renames.push_back(a.get<Rename>().to);
  EXPECT_EQ(renames, std::vector<std::string>{"fabric0"}) << plan_text(plan);
  EXPECT_TRUE(loads(plan, "ib_ipoib")) << plan_text(plan);
  // A GUID that matches nothing is a warning naming the GUIDs there are, and the typo.
  ASSERT_EQ(plan.diag.warnings.size(), 1u) << plan_text(plan);
  EXPECT_EQ(plan.diag.warnings[0].str(),
            "test:61: name fabric1: no interface with port GUID 0c42:a103:0016:b2c5 is present; "
            "present: mlx5_0/1 0c42:a103:0016:b2c4 (did you mean '0c42:a103:0016:b2c4'?)")
      << plan_text(plan);
}

TEST(WaitsPlanner, NoneCancelsTheWaitsBeforeIt) {
  Inventory inv = roce_port(true, true);
  inv.rdma[0].ports[0].state = PortState::kInit;
  Config cfg;
  cfg.wait = {{port_wait("mlx4_0", 2), src("/etc/rdma-provision/rdma-provision.conf:3")},
              {WaitItem{WaitItem::Kind::kNone, {}, 0, ""}, src("cmdline: rd.rdma.wait=none")}};
  EXPECT_TRUE(make_plan(cfg, inv).actions.empty()) << plan_text(make_plan(cfg, inv));
  cfg.wait.push_back({port_wait("mlx4_0", 2), src("cmdline: rd.rdma.wait=mlx4_0/2")});
  const Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.actions.size(), 1u) << plan_text(p);
  EXPECT_EQ(p.actions[0].reason, "cmdline: rd.rdma.wait=mlx4_0/2");
}

TEST(Validate, DracutsIfnameAndOurNamesMustAgree) {
  const HwKey mac = *HwKey::parse("52:54:00:77:00:02"), other = *HwKey::parse("52:54:00:77:00:09");
  auto errors = [&](const std::string& dname, const HwKey& dkey) {
    Config cfg;
    cfg.names["fabric0"] = {mac, src("cmdline: rd.rdma.name=fabric0:52:54:00:77:00:02")};
    cfg.dracut_ifnames[dname] = {dkey, src("cmdline: ifname=" + dname + ":" + dkey.str())};
    Diagnostics d;
    validate(cfg, d);
    std::vector<std::string> out;
    for (const auto& e : d.errors) out.push_back(e.str());
    return out;
  };
  EXPECT_TRUE(errors("fabric0", mac).empty());  // the same: no clash
  EXPECT_EQ(errors("net0", mac),
            std::vector<std::string>{
                "cmdline: rd.rdma.name=fabric0:52:54:00:77:00:02: clashes with dracut's "
                "ifname=net0:52:54:00:77:00:02: 52:54:00:77:00:02 is named 'net0' there and "
                "'fabric0' here"});
  EXPECT_EQ(errors("fabric0", other).size(), 1u);
  EXPECT_TRUE(errors("net0", other).empty());  // different interfaces, different names
}

TEST(Validate, ADefaultChildNameLongerThan15BytesIsInvalid) {
  Config cfg;
  PkeyChild c;
  c.parent = "storage-fab0";  // 12 bytes: "storage-fab0.8001" is 17
  c.pkey = 0x1;
  c.source = src("test:8");
  cfg.pkeys[{c.parent, c.pkey}] = c;
  Diagnostics d;
  validate(cfg, d);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].str(),
            "test:8: the default name of the P_Key child, 'storage-fab0.8001', is 17 bytes, "
            "longer than 15: give the child a name");
  cfg.pkeys.begin()->second.name = "stor.8001";
  Diagnostics named;
  validate(cfg, named);
  EXPECT_TRUE(named.ok());
}

Config rdma_core_lists() {
  Config cfg;
  cfg.modules = {{"ib_uverbs", src("/etc/rdma/modules/rdma.conf:3")},
                 {"ib_ipoib", src("/etc/rdma/modules/infiniband.conf:2")},
                 {"rdma_ucm", src("/etc/rdma/modules/roce.conf:1")},
                 {"iw_cm", src("/etc/rdma/modules/iwarp.conf:1")},
                 {"opa_vnic", src("/etc/rdma/modules/opa.conf:1")}};
  return cfg;
}

TEST(ModulesPlanner, RdmaCoreListsLoadOnlyWithADeviceOfTheirTechnology) {
  // A RoCE node (kernel-boot/rdma-hw-modules.rules would tag it ID_RDMA_ROCE).
  const Plan roce = make_plan(rdma_core_lists(), roce_port(true, true));
  EXPECT_TRUE(loads(roce, "ib_uverbs")) << plan_text(roce);
  EXPECT_TRUE(loads(roce, "rdma_ucm")) << plan_text(roce);
  EXPECT_FALSE(loads(roce, "ib_ipoib")) << plan_text(roce);
  EXPECT_FALSE(loads(roce, "iw_cm")) << plan_text(roce);
  EXPECT_FALSE(loads(roce, "opa_vnic")) << plan_text(roce);
  bool noted = false;
  for (const auto& n : roce.notes) {
    noted |= n ==
             "/etc/rdma/modules/opa.conf: not loaded (no Omni-Path (hfi1) device is present "
             "or expected, as rdma-core's udev rules decide): opa_vnic";
  }
  EXPECT_TRUE(noted) << plan_text(roce);
  // A node without RDMA loads none of them.
  const Plan none = make_plan(rdma_core_lists(), Inventory{});
  EXPECT_TRUE(none.actions.empty()) << plan_text(none);
  // A ConnectX-5 whose device is not registered yet may be either: both lists load.
  Inventory cx5;
  PciFunction f;
  f.address = *PciAddress::parse("0000:3b:00.0");
  f.driver = "mlx5_core";
  cx5.pci.push_back(f);
  const Plan early = make_plan(rdma_core_lists(), cx5);
  EXPECT_TRUE(loads(early, "ib_ipoib")) << plan_text(early);
  EXPECT_TRUE(loads(early, "rdma_ucm")) << plan_text(early);
  EXPECT_FALSE(loads(early, "opa_vnic")) << plan_text(early);
}

TEST(ModulesPlanner, InTheInitramfsRdmaCoreListsWaitForTheRealRoot) {
  // /etc/initrd-release is there: the lists are deferred, what a setting needs is not.
  Inventory inv = roce_port(true, true);
  inv.initramfs = true;
  inv.modules = {"mlx4_ib"};  // rdma_cm not loaded yet
  Config cfg = rdma_core_lists();
  RoceSetting r;
  r.mode = Sourced<RoceMode>{RoceMode::kV2, src("cmdline: rd.rdma.roce=mlx4_0/2:v2")};
  cfg.roce[{RdmaSelector::named("mlx4_0"), 2}] = r;
  const Plan p = make_plan(cfg, inv);
  EXPECT_FALSE(loads(p, "ib_uverbs")) << plan_text(p);
  EXPECT_FALSE(loads(p, "rdma_ucm")) << plan_text(p);
  EXPECT_TRUE(loads(p, "rdma_cm")) << plan_text(p);  // the RoCE defaults need it now
  EXPECT_EQ(p.deferred_modules, (std::vector<std::string>{"ib_uverbs", "rdma_ucm"}));
  bool noted = false;
  for (const auto& n : p.notes) {
    noted |= n ==
             "deferred to the real root ([modules] defer = yes, the default: the initramfs "
             "loads what this node's devices and settings need; rdma-provision.service or "
             "rdma-core's rdma-load-modules@ load the rest there): "
             "/etc/rdma/modules/rdma.conf: ib_uverbs; /etc/rdma/modules/roce.conf: rdma_ucm";
  }
  EXPECT_TRUE(noted) << plan_text(p);

  // A module a list names and a setting needs is loaded, and not reported as deferred.
  Config ipoib = rdma_core_lists();
  ipoib.modules.push_back({"rdma_cm", src("/etc/rdma/modules/rdma.conf:9")});
  ipoib.roce = cfg.roce;
  const Plan both = make_plan(ipoib, inv);
  EXPECT_TRUE(loads(both, "rdma_cm")) << plan_text(both);
  EXPECT_EQ(both.deferred_modules, (std::vector<std::string>{"ib_uverbs", "rdma_ucm"}));

  // defer = no, or the real root: the lists load as rdma-core's rules decide.
  cfg.defer_lists = {false, src("/etc/rdma-provision/rdma-provision.conf:3")};
  const Plan now = make_plan(cfg, inv);
  EXPECT_TRUE(loads(now, "ib_uverbs")) << plan_text(now);
  EXPECT_TRUE(now.deferred_modules.empty());
  inv.initramfs = false;
  cfg.defer_lists = {true, src("default")};
  EXPECT_TRUE(loads(make_plan(cfg, inv), "rdma_ucm"));
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

TEST(Actions, TextsComeFromTheParameters) {
  const Action a(SetPortType{*PciAddress::parse("81:00.0"), 2, PortType::kEth}, "ib", "test");
  EXPECT_EQ(to_string(a.kind()), "port-type");
  EXPECT_EQ(a.object(), "0000:81:00.0 port 2");
  EXPECT_EQ(a.wanted(), "eth");
  const Action r(AddRoute{"ib0", std::nullopt, IpAddress::parse("10.0.0.1")}, "", "test");
  EXPECT_EQ(r.wanted(), "default via 10.0.0.1");
  const Action m(LoadModule{"mlx4_en", "", PfcMasks{8, 8}}, "not loaded", "test");
  EXPECT_EQ(m.wanted(), "loaded with pfctx=0x08 pfcrx=0x08");
  EXPECT_EQ(m.get<LoadModule>().all_options(), "pfctx=0x08 pfcrx=0x08");
}

}  // namespace
}  // namespace rp

namespace rp {
namespace {

// A Soft-RoCE node: rxe0 on eth0, up, port 1 ACTIVE (rxe_net.c rxe_port_up on NETDEV_UP).
Inventory rxe_node() {
  Inventory inv;
  NetDev n;
  n.name = "eth0";
  n.type = kArphrdEther;
  n.admin_up = n.carrier = true;
  n.operstate = "up";
  n.rdma_device = "rxe0";
  n.rdma_port = 1;
  inv.netdevs.push_back(n);
  RdmaDevice d;
  d.name = "rxe0";
  d.parent_netdev = "eth0";
  RdmaPort p;
  p.num = 1;
  p.state = PortState::kActive;
  p.link_layer = LinkLayer::kEthernet;
  p.netdev = "eth0";
  p.roce_v2 = true;
  d.ports.push_back(p);
  inv.rdma.push_back(d);
  inv.modules = {"ib_core", "rdma_rxe"};
  return inv;
}

Config verify_config(VerifySetting::Mode mode) {
  Config cfg;
  cfg.roce[{RdmaSelector{RdmaSelector::By::kName, "rxe0"}, 1}].mode =
      Sourced<RoceMode>{RoceMode::kV2, src("cmdline: rd.rdma.roce=rxe0/1:v2")};
  VerifySetting v;
  v.mode = mode;
  cfg.verify = {v, src("cmdline: rd.rdma.verify")};
  return cfg;
}

std::vector<std::string> kinds(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions)
    out.push_back(std::string(to_string(a.kind())) + " " + a.object());
  return out;
}

TEST(VerifyPlanner, PortsAreCheckedLastWithTheirRoceModeAndIbUverbs) {
  const Plan p = make_plan(verify_config(VerifySetting::Mode::kPorts), rxe_node());
  ASSERT_FALSE(p.actions.empty()) << plan_text(p);
  const Action& last = p.actions.back();
  ASSERT_EQ(last.kind(), ActionKind::kVerifyPort) << plan_text(p);
  EXPECT_EQ(last.object(), "rxe0/1");
  EXPECT_EQ(last.wanted(), "RC loopback (RoCE v2)");
  EXPECT_TRUE(loads(p, "ib_uverbs")) << plan_text(p);
  EXPECT_FALSE(loads(p, "rdma_ucm")) << plan_text(p);
  // It needs the ib_uverbs load (libibverbs opens /dev/infiniband/uverbsN).
  bool after_uverbs = false;
  for (size_t d : last.after) {
    const auto* l = std::get_if<LoadModule>(&p.actions[d].params);
    after_uverbs |= l && l->module == "ib_uverbs";
  }
  EXPECT_TRUE(after_uverbs) << plan_text(p);
}

TEST(VerifyPlanner, PeerLeavesTheChecksToTheNetworkOnlinePoint) {
  Config cfg = verify_config(VerifySetting::Mode::kPeer);
  Inventory initramfs = rxe_node();
  initramfs.initramfs = true;
  const Plan p = make_plan(cfg, initramfs);
  for (const auto& k : kinds(p)) EXPECT_EQ(k.find("verify"), std::string::npos) << k;
  EXPECT_TRUE(loads(p, "rdma_ucm")) << plan_text(p);
  // verify --boot: the configured ports, then the peer.
  VerifyRequest r;
  r.boot = true;
  r.peer = VerifyPeer{*IpAddress::parse("10.77.0.1"), 7472};
  r.reason = "cmdline: rd.rdma.verify";
  const Plan v = make_verify_plan(cfg, rxe_node(), r);
  EXPECT_EQ(kinds(v),
            (std::vector<std::string>{"verify-port rxe0/1", "verify-peer 10.77.0.1:7472"}));
}

TEST(VerifyPlanner, OnTheRealRootApplyChecksThePortsThenTheNfsServer) {
  Config cfg = verify_config(VerifySetting::Mode::kPeer);
  cfg.nfs_server =
      Sourced<IpAddress>{*IpAddress::parse("10.77.0.1"), src("cmdline: root=nfs4:...")};
  const Plan p = make_plan(cfg, rxe_node());  // not an initramfs: rdma-provision.service
  const auto k = kinds(p);
  ASSERT_GE(k.size(), 2u) << plan_text(p);
  EXPECT_EQ(k[k.size() - 2], "verify-port rxe0/1");
  EXPECT_EQ(k.back(), "verify-peer 10.77.0.1:7472");
  EXPECT_EQ(p.actions.back().reason,
            "cmdline: rd.rdma.verify (the NFS server of cmdline: root=nfs4:...)");
  EXPECT_EQ(p.actions.back().after, std::vector<size_t>{k.size() - 2});
  // Without an address and without an NFS root: a note, no peer check.
  cfg.nfs_server.reset();
  const Plan none = make_plan(cfg, rxe_node());
  EXPECT_EQ(kinds(none).back(), "verify-port rxe0/1");
  EXPECT_EQ(none.notes.back(),
            "verify (cmdline: rd.rdma.verify): no peer to check: no address given and root= "
            "names no NFS server by address");
  // The real root's check of the peer skips it while no route leads there (item 5).
  EXPECT_TRUE(p.actions.back().get<VerifyPeer>().only_with_route);
  // root=dhcp: the server was DHCP's, known in the initramfs only.
  cfg.nfs_server_unknown = Sourced<std::string>{"", src("cmdline: root=dhcp")};
  EXPECT_EQ(make_plan(cfg, rxe_node()).notes.back(),
            "verify (cmdline: rd.rdma.verify): no peer to check: cmdline: root=dhcp takes the NFS "
            "server from DHCP, which only the initramfs knows (its verify --boot checked it)");
}

TEST(VerifyPlanner, TheVerifyCommandChecksEveryPortWhenTheConfigurationNamesNone) {
  VerifyRequest r;
  r.reason = "verify";
  EXPECT_EQ(kinds(make_verify_plan(Config{}, rxe_node(), r)),
            std::vector<std::string>{"verify-port rxe0/1"});
  // verify --boot never checks a port nobody configured.
  r.boot = true;
  const Plan none = make_verify_plan(Config{}, rxe_node(), r);
  EXPECT_TRUE(none.actions.empty());
  EXPECT_EQ(none.notes, std::vector<std::string>{"verify (verify): no RDMA port to check"});
}

}  // namespace
}  // namespace rp

namespace rp {
namespace {

TEST(EarlyModules, WhatNeedsNoDeviceAndNeverAHardwareDriver) {
  // A ConnectX-4 beside the Soft-RoCE settings: mlx5_ib is for the card (loaded when its
  // function is driven), rdma_rxe/rdma_cm/ib_uverbs need no device.
  Inventory inv = rxe_node();
  PciFunction f;
  f.address = *PciAddress::parse("0000:af:00.0");
  f.driver = "mlx5_core";
  inv.pci.push_back(f);
  inv.modules = {"ib_core", "mlx5_core"};
  Config cfg = verify_config(VerifySetting::Mode::kPorts);
  cfg.soft_links["eth0"] = SoftLink{SoftKind::kRxe, "rxe1", src("cmdline: rd.rdma.rxe=eth0:rxe1")};
  const Plan full = make_plan(cfg, inv);
  ASSERT_TRUE(loads(full, "mlx5_ib")) << plan_text(full);
  auto early_modules = [&](const Inventory& at) {
    std::set<std::string> mods;
    for (const auto& a : early_module_plan(full, at).actions) {
      EXPECT_EQ(a.kind(), ActionKind::kLoadModule);
      EXPECT_TRUE(a.after.empty());
      mods.insert(a.get<LoadModule>().module);
    }
    return mods;
  };
  // A kernel with no module behind "crypto-crc32" (built in, or another implementation):
  // nothing more.
  EXPECT_EQ(early_modules(inv), (std::set<std::string>{"ib_uverbs", "rdma_cm", "rdma_rxe"}));
  // rdma_rxe's crc32, which the kernel would request when the link is made (rxe_icrc.c):
  // what 6.1's and 6.12's modules.alias list for it, in their order.
  inv.crc32_modules = {"crc32_pclmul", "crc32_generic"};
  EXPECT_EQ(early_modules(inv),
            (std::set<std::string>{"ib_uverbs", "rdma_cm", "rdma_rxe", "crc32_generic"}))
      << plan_text(full);
  // The faster one only where the CPU has PCLMULQDQ (crc32-pclmul_glue.c: ENODEV else).
  inv.cpu_pclmulqdq = true;
  EXPECT_EQ(early_modules(inv), (std::set<std::string>{"ib_uverbs", "rdma_cm", "rdma_rxe",
                                                       "crc32_generic", "crc32_pclmul"}));
  // A kernel whose tree names another module for it (a name of our own: what counts is the
  // alias, and the CPU flag says nothing about another module).
  inv.crc32_modules = {"other_crc32"};
  EXPECT_EQ(early_modules(inv),
            (std::set<std::string>{"ib_uverbs", "rdma_cm", "rdma_rxe", "other_crc32"}));
  inv.crc32_modules = {"crc32_pclmul", "crc32_generic"};
  // Loaded already (or built in): not again.
  inv.modules.push_back("crc32_generic");
  inv.modules.push_back("crc32_pclmul");
  std::sort(inv.modules.begin(), inv.modules.end());  // as discover() keeps them
  EXPECT_EQ(early_modules(inv), (std::set<std::string>{"ib_uverbs", "rdma_cm", "rdma_rxe"}));
}

TEST(EarlyModules, NoCrc32WithoutSoftRoce) {
  Inventory inv = rxe_node();
  inv.crc32_modules = {"crc32_pclmul", "crc32_generic"};
  inv.cpu_pclmulqdq = true;
  Config cfg = verify_config(VerifySetting::Mode::kPorts);
  for (const auto& a : early_module_plan(make_plan(cfg, inv), inv).actions) {
    EXPECT_NE(a.get<LoadModule>().module.substr(0, 5), "crc32") << plan_text(make_plan(cfg, inv));
  }
}

// A plain ConnectX-3's RoCE port has no RoCE v2 GIDs (mlx4 lists them only with
// MLX4_DEV_CAP_FLAG2_ROCE_V1_V2): its check uses v1, and the plan says so.
TEST(VerifyPlanner, AV1OnlyPortIsCheckedWithRoceV1) {
  Inventory inv = rxe_node();
  inv.rdma[0].name = "mlx4_0";
  inv.rdma[0].parent_netdev.clear();
  inv.rdma[0].ports[0].roce_v2 = false;
  inv.rdma[0].ports[0].roce_v1 = true;
  inv.netdevs[0].rdma_device = "mlx4_0";
  Config cfg = verify_config(VerifySetting::Mode::kPorts);
  cfg.wait.push_back({WaitItem{WaitItem::Kind::kPort, RdmaSelector::named("mlx4_0"), 1, ""},
                      src("cmdline: rd.rdma.wait=mlx4_0/1")});
  const Plan p = make_plan(cfg, inv);
  ASSERT_FALSE(p.actions.empty());
  EXPECT_EQ(p.actions.back().wanted(), "RC loopback (RoCE v1)") << plan_text(p);
  // Soft-RoCE (v2 only), unconfigured: v2, shown.
  const Plan rxe = make_plan(verify_config(VerifySetting::Mode::kPorts), rxe_node());
  EXPECT_EQ(rxe.actions.back().wanted(), "RC loopback (RoCE v2)") << plan_text(rxe);
}

// An iWARP port has no RC loopback: iw_cm connects its QPs (siw_qp.c refuses RTS without
// the socket it hands over). A note, no check that could only fail.
TEST(VerifyPlanner, AnIwarpPortIsNotLoopbackChecked) {
  Inventory inv = rxe_node();
  inv.rdma[0].name = "siw0";
  inv.rdma[0].parent_netdev.clear();
  inv.rdma[0].soft_iwarp = true;
  inv.rdma[0].node_type = "4: RNIC";
  inv.rdma[0].ports[0].roce_v2 = false;
  inv.netdevs[0].rdma_device = "siw0";
  Config cfg = verify_config(VerifySetting::Mode::kPorts);
  cfg.wait.push_back({WaitItem{WaitItem::Kind::kPort, RdmaSelector::named("siw0"), 1, ""},
                      src("cmdline: rd.rdma.wait=siw0/1")});
  const Plan p = make_plan(cfg, inv);
  for (const auto& k : kinds(p)) EXPECT_EQ(k.find("verify-port"), std::string::npos) << k;
  EXPECT_NE(plan_text(p).find("note: verify siw0/1 (cmdline: rd.rdma.verify): an iWARP port has "
                              "no RC loopback check"),
            std::string::npos)
      << plan_text(p);
}

// A RoCE port whose interface is down now (the initramfs moment on hardware) is brought up
// and waited for before its check; the check never runs on a port nobody brought up.
TEST(VerifyPlanner, ARocePortOnADownInterfaceIsBroughtUpAndWaitedForFirst) {
  Inventory inv = rxe_node();
  inv.netdevs[0].admin_up = inv.netdevs[0].carrier = false;
  inv.rdma[0].ports[0].state = PortState::kDown;
  const Plan p = make_plan(verify_config(VerifySetting::Mode::kPorts), inv);
  EXPECT_EQ(kinds(p), (std::vector<std::string>{"load-module rdma_cm", "load-module ib_uverbs",
                                                "roce-mode rxe0/1", "link-up eth0",
                                                "wait-port rxe0/1", "verify-port rxe0/1"}))
      << plan_text(p);
  EXPECT_EQ(p.actions[5].after, (std::vector<size_t>{4, 1}));
  EXPECT_EQ(p.actions[4].after, (std::vector<size_t>{3}));
}

// An interface with IPv6 off (ipv6.disable=1, disable_ipv6): a RoCE v2 check can use only
// an IPv4-mapped GID (the kernel resolves RoCE v2 through the IP stack), which comes with
// dracut's address; in the initramfs verify=ports runs before that, and check says so.
// Once the network is up (verify --boot) it is no warning; RoCE v1 needs no IP at all.
TEST(VerifyPlanner, ARoceV2CheckWithoutIpv6NeedsAnIpv4AddressAndSaysSoBeforeTheNetwork) {
  Inventory inv = rxe_node();
  inv.netdevs[0].ipv6_off = true;
  inv.initramfs = true;
  const Plan p = make_plan(verify_config(VerifySetting::Mode::kPorts), inv);
  ASSERT_EQ(p.actions.back().kind(), ActionKind::kVerifyPort) << plan_text(p);
  EXPECT_TRUE(p.actions.back().get<VerifyPort>().ipv4_only);
  EXPECT_EQ(p.actions.back().wanted(), "RC loopback (RoCE v2 over IPv4)");
  ASSERT_EQ(p.diag.warnings.size(), 1u) << plan_text(p);
  EXPECT_NE(p.diag.warnings[0].str().find(
                "the RoCE v2 check of rxe0/1 needs an IPv4 address on eth0, whose IPv6 is off"),
            std::string::npos)
      << p.diag.warnings[0].str();
  VerifyRequest r;
  r.ports = r.boot = true;
  r.reason = "rd.rdma.verify=ports";
  const Plan online = make_verify_plan(verify_config(VerifySetting::Mode::kPorts), inv, r);
  EXPECT_TRUE(online.diag.warnings.empty()) << plan_text(online);
  EXPECT_TRUE(online.actions.back().get<VerifyPort>().ipv4_only);
  inv.netdevs[0].ipv6_off = false;
  const Plan with_ipv6 = make_plan(verify_config(VerifySetting::Mode::kPorts), inv);
  EXPECT_FALSE(with_ipv6.actions.back().get<VerifyPort>().ipv4_only);
  EXPECT_TRUE(with_ipv6.diag.warnings.empty()) << plan_text(with_ipv6);
}

// dracut's ip= names an interface that is not Ethernet here, on a node with an InfiniBand
// port: ib_ipoib (no modalias) loads, whatever [modules] defer says; an Ethernet one: not.
TEST(ModulesPlanner, AnIpoibBootNetworkLoadsIbIpoib) {
  Inventory inv = cx3_with_port1("ib");
  RdmaDevice d;
  d.name = "mlx4_0";
  d.pci = inv.pci[0].address;
  d.driver = "mlx4_core";
  RdmaPort port;
  port.num = 1;
  port.link_layer = LinkLayer::kInfiniBand;
  d.ports.push_back(port);
  inv.rdma.push_back(d);
  inv.initramfs = true;
  NetDev eno1;
  eno1.name = "eno1";
  eno1.type = kArphrdEther;
  inv.netdevs.push_back(eno1);
  for (const char* form :
       {"ip=ib0:dhcp", "ip=10.0.0.5::10.0.0.1:255.255.0.0:node:ib0:none", "bootdev=ib0",
        "rd.neednet=1", "ip=dhcp", "root=nfs:10.0.0.1:/srv/root"}) {
    Config cfg;
    cfg.modules = {{"ib_ipoib", src("/etc/rdma/modules/infiniband.conf:1")}};
    Diagnostics diag;
    parse_cmdline(form, cfg, diag);
    ASSERT_TRUE(diag.ok()) << form;
    const Plan p = make_plan(cfg, inv);
    EXPECT_TRUE(loads(p, "ib_ipoib")) << form << "\n" << plan_text(p);
  }
  for (const char* form : {"ip=eno1:dhcp", "ip=10.0.0.5::10.0.0.1:255.255.0.0:node:eno1:none",
                           "rd.neednet=0", "ip=off", ""}) {
    Config cfg;
    Diagnostics diag;
    parse_cmdline(form, cfg, diag);
    const Plan p = make_plan(cfg, inv);
    EXPECT_FALSE(loads(p, "ib_ipoib")) << form << "\n" << plan_text(p);
  }
  // A node without InfiniBand: nothing to load for ip=.
  Config cfg;
  Diagnostics diag;
  parse_cmdline("ip=ib0:dhcp", cfg, diag);
  EXPECT_FALSE(loads(make_plan(cfg, rxe_node()), "ib_ipoib"));
}

}  // namespace
}  // namespace rp
