// Discovery against generated fixture trees: the real sysfs reader, a fake kernel.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "provision/inventory/inventory.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

Inventory discover_fixture(const std::string& name, Detail detail = Detail::kFull) {
  Root root(testing::unpack_fixture(name));
  return discover(root, detail);
}

// An mlx4 port file's type as the kernel showed it ("" when unreadable).
std::string shown(const Mlx4PortFile& m) { return m.type ? m.type->str() : ""; }

TEST(Discover, ConnectX3VpiHasAnIbAndAnEthernetPort) {
  Inventory inv = discover_fixture("cx3-vpi");
  EXPECT_EQ(inv.netdev_source, "sysfs");
  ASSERT_EQ(inv.rdma.size(), 1u);
  const RdmaDevice& d = inv.rdma[0];
  EXPECT_EQ(d.name, "mlx4_0");
  EXPECT_EQ(d.driver, "mlx4_core");
  ASSERT_TRUE(d.pci);
  EXPECT_EQ(d.pci->str(), "0000:81:00.0");
  EXPECT_EQ(d.node_guid->str(), "f452:1403:007b:cba0");
  EXPECT_EQ(d.fw_ver, "2.42.5000");
  ASSERT_EQ(d.ports.size(), 2u);
  EXPECT_EQ(d.ports[0].state, PortState::kActive);
  EXPECT_EQ(d.ports[0].link_layer, LinkLayer::kInfiniBand);
  EXPECT_EQ(d.ports[0].guid->str(), "f452:1403:007b:cba1");
  EXPECT_EQ(d.ports[0].lid, 5u);
  EXPECT_EQ(d.ports[0].netdev, "ib0");
  EXPECT_EQ(d.ports[1].link_layer, LinkLayer::kEthernet);
  EXPECT_EQ(d.ports[1].netdev, "enp129s0d1");
}

TEST(Discover, Mlx4PortFilesAndTheirWritability) {
  Inventory vpi = discover_fixture("cx3-vpi");
  ASSERT_EQ(vpi.pci.size(), 1u);
  ASSERT_EQ(vpi.pci[0].mlx4_ports.size(), 2u);
  EXPECT_EQ(shown(vpi.pci[0].mlx4_ports[0]), "ib");
  EXPECT_TRUE(vpi.pci[0].mlx4_ports[0].writable);
  EXPECT_EQ(vpi.pci[0].mlx4_ports[0].mtu, 4096u);
  EXPECT_EQ(shown(vpi.pci[0].mlx4_ports[1]), "eth");

  Inventory sriov = discover_fixture("cx3-sriov-eth");
  bool found = false;
  for (const auto& f : sriov.pci) {
    if (f.address.str() != "0000:03:00.0") continue;
    found = true;
    ASSERT_EQ(f.mlx4_ports.size(), 2u);
    EXPECT_FALSE(f.mlx4_ports[0].writable);
    EXPECT_FALSE(f.mlx4_ports[1].writable);
  }
  EXPECT_TRUE(found);
}

TEST(Discover, IpoibNetdevsCarryModePkeyAndPort) {
  Inventory inv = discover_fixture("cx5-ib");
  const NetDev* ib0 = inv.find_netdev("ib0");
  const NetDev* child = inv.find_netdev("ib0.8010");
  ASSERT_TRUE(ib0 && child);
  EXPECT_EQ(ib0->type, kArphrdInfiniband);
  EXPECT_EQ(ib0->ipoib_mode, IpoibMode::kDatagram);
  EXPECT_EQ(ib0->pkey, 0xffffu);
  EXPECT_EQ(ib0->rdma_device, "mlx5_0");
  EXPECT_EQ(ib0->rdma_port, 1u);
  EXPECT_EQ(ib0->address.ipoib_guid()->str(), "0c42:a103:0016:b2c4");
  EXPECT_EQ(child->parent, "ib0");
  EXPECT_EQ(child->pkey, 0x8010u);
  EXPECT_TRUE(inv.configfs_mounted);
  EXPECT_TRUE(inv.rdma_cm_configfs);
  // The port's netdev is the parent, not the P_Key child.
  EXPECT_EQ(inv.find_rdma("mlx5_0")->ports[0].netdev, "ib0");
}

TEST(Discover, TheIbMtuFileOfAnEthernetMlx4PortIsNotRead) {
  // Its file holds 4096, but reading it makes the kernel warn on every run.
  Inventory inv = discover_fixture("cx3-vpi", Detail::kPlan);
  ASSERT_EQ(inv.pci.size(), 1u);
  const auto& ports = inv.pci[0].mlx4_ports;
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(shown(ports[0]), "ib");
  EXPECT_EQ(ports[0].mtu, 4096u);
  EXPECT_EQ(shown(ports[1]), "eth");
  EXPECT_EQ(ports[1].mtu, std::nullopt);
}

TEST(Discover, AChildMadeOverNetlinkIsKnownByIflinkAndBroadcast) {
  // hpc0 has no pkey or parent file (ipoib_vlan.c: RTNL children get none).
  Inventory inv = discover_fixture("cx5-ib", Detail::kPlan);
  const NetDev* ib0 = inv.find_netdev("ib0");
  const NetDev* hpc0 = inv.find_netdev("hpc0");
  ASSERT_TRUE(ib0 && hpc0);
  EXPECT_EQ(hpc0->parent, "ib0");
  EXPECT_EQ(hpc0->iflink, ib0->ifindex);
  EXPECT_EQ(hpc0->pkey, 0x8040u);
  EXPECT_EQ(hpc0->ipoib_mode, std::nullopt);
  EXPECT_EQ(hpc0->rdma_device, "mlx5_0");
  EXPECT_EQ(hpc0->rdma_port, 1u);
  EXPECT_TRUE(ib0->parent.empty());
  EXPECT_EQ(ib0->iflink, ib0->ifindex);
}

TEST(Discover, AnIpoibNetdevOnAFunctionWithTwoRdmaDevicesIsNotGuessedToBeEithers) {
  // cx3-vpi with a second RDMA device registered on 0000:81:00.0 (a copy of mlx4_0's
  // directory, linked from /sys/class/infiniband as the kernel links every device). ib0's
  // device link and dev_port say "port 1 of an RDMA device of this function", not which.
  namespace fs = std::filesystem;
  const std::string root = testing::unpack_fixture("cx3-vpi");
  const std::string cls = root + "/sys/class/infiniband/";
  const fs::path mlx4_0 = fs::canonical(cls + "mlx4_0");
  fs::copy(mlx4_0, mlx4_0.parent_path() / "mlx4_1",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::create_directory_symlink(fs::read_symlink(cls + "mlx4_0").parent_path() / "mlx4_1",
                               cls + "mlx4_1");
  Inventory inv = discover(Root(root));
  ASSERT_EQ(inv.rdma.size(), 2u);
  ASSERT_TRUE(inv.rdma[1].pci);
  EXPECT_EQ(inv.rdma[1].pci->str(), "0000:81:00.0");
  const NetDev* ib0 = inv.find_netdev("ib0");
  ASSERT_TRUE(ib0);
  EXPECT_EQ(ib0->rdma_device, "");
  EXPECT_EQ(ib0->rdma_port, 0u);
  for (const auto& d : inv.rdma) {
    EXPECT_EQ(d.ports[0].link_layer, LinkLayer::kInfiniBand);
    EXPECT_EQ(d.ports[0].netdev, "") << d.name;
  }
  // With mlx4_0 alone on the function, ib0 is its port 1's.
  Inventory one = discover_fixture("cx3-vpi");
  EXPECT_EQ(one.find_netdev("ib0")->rdma_device, "mlx4_0");
  EXPECT_EQ(one.find_netdev("ib0")->rdma_port, 1u);
}

TEST(Discover, SoftRoceDeviceIsTiedToItsNetdev) {
  Inventory inv = discover_fixture("rxe-virtio");
  const RdmaDevice* rxe = inv.find_rdma("rxe0");
  ASSERT_TRUE(rxe);
  EXPECT_FALSE(rxe->pci.has_value());
  EXPECT_EQ(rxe->parent_netdev, "eth0");
  EXPECT_EQ(rxe->ports[0].netdev, "eth0");
  const NetDev* eth0 = inv.find_netdev("eth0");
  ASSERT_TRUE(eth0);
  EXPECT_EQ(eth0->rdma_device, "rxe0");
  EXPECT_EQ(eth0->driver, "virtio_net");
  EXPECT_TRUE(inv.module_loaded("rdma_rxe"));
  EXPECT_FALSE(inv.module_loaded("mlx4_core"));
}

TEST(Discover, FourHcasEightPorts) {
  Inventory inv = discover_fixture("four-hca");
  ASSERT_EQ(inv.rdma.size(), 4u);
  size_t ports = 0, active = 0;
  for (const auto& d : inv.rdma) {
    for (const auto& p : d.ports) {
      ++ports;
      active += p.state == PortState::kActive;
      EXPECT_FALSE(p.netdev.empty()) << d.name << "/" << p.num;
    }
  }
  EXPECT_EQ(ports, 8u);
  EXPECT_EQ(active, 4u);
  EXPECT_EQ(inv.pci.size(), 4u);
}

TEST(Discover, EmptyRootHasNothingAndDoesNotFail) {
  Root root(testing::temp_dir("empty"));
  Inventory inv = discover(root);
  EXPECT_TRUE(inv.rdma.empty());
  EXPECT_TRUE(inv.netdevs.empty());
  EXPECT_TRUE(inv.modules.empty());
}

// Detail::kPlan leaves out only what `status` shows: everything check/plan/apply use is
// the same as in the full inventory, on every fixture.
TEST(Discover, PlanDetailKeepsEverythingThePlanUses) {
  for (const char* name :
       {"cx3-vpi", "cx3-sriov-eth", "cx5-ib", "cx5-roce", "rxe-virtio", "siw", "four-hca"}) {
    SCOPED_TRACE(name);
    Root root(testing::unpack_fixture(name));
    const Inventory full = discover(root, Detail::kFull);
    const Inventory lean = discover(root, Detail::kPlan);
    ASSERT_EQ(lean.rdma.size(), full.rdma.size());
    for (size_t i = 0; i < full.rdma.size(); ++i) {
      const RdmaDevice &f = full.rdma[i], &l = lean.rdma[i];
      EXPECT_EQ(l.name, f.name);
      EXPECT_EQ(l.driver, f.driver);
      EXPECT_EQ(l.parent_netdev, f.parent_netdev);
      EXPECT_EQ(l.node_guid.has_value(), f.node_guid.has_value());
      EXPECT_EQ(l.pci.has_value(), f.pci.has_value());
      ASSERT_EQ(l.ports.size(), f.ports.size());
      for (size_t p = 0; p < f.ports.size(); ++p) {
        const RdmaPort &fp = f.ports[p], &lp = l.ports[p];
        EXPECT_EQ(lp.state, fp.state);
        EXPECT_EQ(lp.link_layer, fp.link_layer);
        EXPECT_EQ(lp.guid.has_value(), fp.guid.has_value());
        EXPECT_EQ(lp.netdev, fp.netdev);
        EXPECT_EQ(lp.roce_v1, fp.roce_v1);
        EXPECT_EQ(lp.roce_v2, fp.roce_v2);
        EXPECT_EQ(lp.cm_roce_mode, fp.cm_roce_mode);
        EXPECT_EQ(lp.cm_roce_tos, fp.cm_roce_tos);
      }
      EXPECT_TRUE(l.fw_ver.empty());  // status only
    }
    ASSERT_EQ(lean.pci.size(), full.pci.size());
    for (size_t i = 0; i < full.pci.size(); ++i) {
      EXPECT_EQ(lean.pci[i].driver, full.pci[i].driver);
      ASSERT_EQ(lean.pci[i].mlx4_ports.size(), full.pci[i].mlx4_ports.size());
      for (size_t p = 0; p < full.pci[i].mlx4_ports.size(); ++p) {
        EXPECT_EQ(lean.pci[i].mlx4_ports[p].type, full.pci[i].mlx4_ports[p].type);
        EXPECT_EQ(lean.pci[i].mlx4_ports[p].writable, full.pci[i].mlx4_ports[p].writable);
        EXPECT_EQ(lean.pci[i].mlx4_ports[p].mtu, full.pci[i].mlx4_ports[p].mtu);
      }
    }
    ASSERT_EQ(lean.netdevs.size(), full.netdevs.size());
    for (size_t i = 0; i < full.netdevs.size(); ++i) {
      const NetDev &f = full.netdevs[i], &l = lean.netdevs[i];
      EXPECT_EQ(l.name, f.name);
      EXPECT_EQ(l.ifindex, f.ifindex);
      EXPECT_EQ(l.type, f.type);
      EXPECT_EQ(l.mtu, f.mtu);
      EXPECT_EQ(l.admin_up, f.admin_up);
      EXPECT_EQ(l.carrier, f.carrier);
      EXPECT_EQ(l.driver, f.driver);
      EXPECT_EQ(l.ipoib_mode, f.ipoib_mode);
      EXPECT_EQ(l.pkey, f.pkey);
      EXPECT_EQ(l.parent, f.parent);
      EXPECT_EQ(l.rdma_device, f.rdma_device);
      EXPECT_EQ(l.rdma_port, f.rdma_port);
    }
    EXPECT_EQ(lean.modules, full.modules);
    EXPECT_EQ(lean.module_params, full.module_params);
    EXPECT_EQ(lean.configfs_mounted, full.configfs_mounted);
  }
}

// What real nodes' sysfs holds that the other fixtures never did (#25 item 5).
TEST(Discover, RealSysfsOddities) {
  Inventory inv = discover_fixture("opa-bnxt");
  // bonding's bonding_masters is a regular file, gone0 a dangling link: no interfaces.
  std::vector<std::string> names;
  for (const auto& n : inv.netdevs) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bond0", "ens2f0np0", "lo"}));
  EXPECT_EQ(inv.notes,
            std::vector<std::string>{"/sys/class/net/gone0: a dangling link, not an interface"});
  // The capture has no lid: unknown, not LID 0; no node_guid, no hca_type.
  ASSERT_EQ(inv.rdma.size(), 1u);
  EXPECT_FALSE(inv.rdma[0].ports[0].lid);
  EXPECT_FALSE(inv.rdma[0].ports[0].sm_lid);
  EXPECT_FALSE(inv.rdma[0].node_guid);
  EXPECT_EQ(inv.rdma[0].hca_type, "");
  // A present LID 0 is 0 (the SM has not assigned one).
  Inventory cx5 = discover_fixture("cx5-roce");
  EXPECT_EQ(cx5.rdma[0].ports[0].lid, 0u);
}

// Built-in drivers without /proc/modules: what the machine shows counts as present.
TEST(Discover, ModulesTheMachineShowsPresent) {
  Inventory inv = discover_fixture("cx3-single-builtin");
  EXPECT_EQ(inv.modules, (std::vector<std::string>{"configfs", "crc32"}));  // modules.builtin
  EXPECT_EQ(inv.shown_present, (std::map<std::string, std::string>{
                                   {"ib_core", "/sys/module/ib_core"},
                                   {"ib_ipoib", "IPoIB interface ib0"},
                                   {"mlx4_core", "/sys/module/mlx4_core"},
                                   {"mlx4_ib", "RDMA device mlx4_0"},
                               }));
  for (const char* m : {"mlx4_core", "mlx4_ib", "ib_ipoib", "ib_core"})
    EXPECT_TRUE(inv.module_loaded(m)) << m;
  EXPECT_FALSE(inv.module_loaded("mlx4_en"));
  // A single-port card: one mlx4 port file, one RDMA port.
  ASSERT_EQ(inv.pci.size(), 1u);
  EXPECT_EQ(inv.pci[0].mlx4_ports.size(), 1u);
  EXPECT_EQ(inv.rdma[0].ports.size(), 1u);
  // No gid_attrs (before 4.4): the IB port is unaffected.
  EXPECT_EQ(inv.rdma[0].ports[0].netdev, "ib0");
}

// Before 4.20 IPoIB put the port in dev_id and left dev_port 0 (ipoib_add_port); without
// the fallback port 2's interface would be taken for port 1's.
TEST(Discover, IpoibPortFromDevIdWhereDevPortIsZeroOrAbsent) {
  const std::string dir = testing::unpack_fixture("cx3-single-builtin");
  std::ofstream(dir + "/sys/class/net/ib0/dev_id") << "0x1\n";
  Inventory inv = discover(Root(dir));
  const NetDev* ib0 = inv.find_netdev("ib0");
  ASSERT_TRUE(ib0);
  EXPECT_EQ(ib0->rdma_port, 2u);
  // With dev_port set (4.20 and later), dev_id is not read.
  std::ofstream(dir + "/sys/class/net/ib0/dev_port") << "0\n";
  std::ofstream(dir + "/sys/class/net/ib0/dev_id") << "0x0\n";
  EXPECT_EQ(discover(Root(dir)).find_netdev("ib0")->rdma_port, 1u);
}

TEST(Discover, IwarpIsKnownByNodeType) {
  Inventory siw = discover_fixture("siw");
  ASSERT_FALSE(siw.rdma.empty());
  EXPECT_TRUE(siw.rdma[0].iwarp());
  Inventory cx5 = discover_fixture("cx5-roce", Detail::kPlan);
  EXPECT_FALSE(cx5.rdma[0].iwarp());
  EXPECT_EQ(cx5.rdma[0].node_type, "1: CA");
}

// An older kernel without gid_attrs (no RoCE GID types to read, before 4.x's
// gid_attrs/types): node_type alone decides, and "1: CA" (core/sysfs.c node_type_show,
// RDMA_NODE_IB_CA) is no RNIC however its Ethernet port looks.
TEST(Discover, NodeTypeDecidesIwarpWhereGidTypesAreAbsent) {
  const std::string dir = testing::unpack_fixture("cx5-roce");
  std::filesystem::remove_all(dir + "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs");
  Inventory inv = discover(Root(dir), Detail::kPlan);
  const RdmaDevice* d = inv.find_rdma("mlx5_0");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->ports.size(), 1u);
  EXPECT_FALSE(d->ports[0].roce_v1 || d->ports[0].roce_v2);
  EXPECT_FALSE(d->iwarp());
  std::ofstream(dir + "/sys/class/infiniband/mlx5_0/node_type") << "4: RNIC\n";
  EXPECT_TRUE(discover(Root(dir), Detail::kPlan).find_rdma("mlx5_0")->iwarp());
}

// Where the node type is unknown, what is not known is not iWARP: the driver decides where
// the table knows it, a RoCE LAG device is RoCE, and only an unknown driver's Ethernet port
// without RoCE GID types is taken for iWARP.
TEST(Discover, AnUnknownNodeTypeIsNotIwarpUnlessTheDriverSaysSo) {
  RdmaDevice d;
  d.ports.push_back(RdmaPort{});
  d.ports[0].link_layer = LinkLayer::kEthernet;  // no RoCE GID types read
  d.name = "mlx5_0";
  d.driver = "mlx5_core";
  EXPECT_FALSE(d.iwarp());
  d.node_type = "1: CA";
  d.driver = "cxgb4";  // iWARP only, but the node type says a CA
  EXPECT_FALSE(d.iwarp());
  d.node_type = "";
  EXPECT_TRUE(d.iwarp());
  d.name = "mlx5_bond_0";
  d.driver = "";
  EXPECT_FALSE(d.iwarp());
  d.name = "foo0";  // a driver nobody here knows: its GID table decides
  EXPECT_TRUE(d.iwarp());
  d.ports[0].roce_v2 = true;
  EXPECT_FALSE(d.iwarp());
}

// The plan's quick look still reads phys_state of a port that is not ACTIVE: wait=all
// leaves a Disabled InfiniBand port out (plan/waits.cc disabled) only if it knows.
TEST(Discover, ThePlansLookReadsPhysStateOfAPortThatIsNotActive) {
  const std::string dir = testing::unpack_fixture("four-hca");
  const std::string port = dir + "/sys/class/infiniband/mlx4_0/ports/2";
  std::ofstream(port + "/state") << "1: DOWN\n";
  std::ofstream(port + "/phys_state") << "3: Disabled\n";
  Inventory inv = discover(Root(dir), Detail::kPlan);
  const RdmaPort* p = inv.find_rdma("mlx4_0")->port(2);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->phys_state, "3: Disabled");
  // An ACTIVE port's is left to `status` (Detail::kFull).
  EXPECT_EQ(inv.find_rdma("mlx4_0")->port(1)->phys_state, "");
  EXPECT_NE(discover(Root(dir)).find_rdma("mlx4_0")->port(1)->phys_state, "");
}

// Soft-iWARP on the Ethernet port of a VPI card sits on the card's PCI function (its
// device link, siw_main.c siw_device_create): ib0 stays the HCA's.
TEST(Discover, ASoftDeviceOnTheCardsFunctionDoesNotHideTheHcasDevice) {
  const std::string dir = testing::unpack_fixture("cx3-vpi");
  const std::string pci = dir + "/sys/devices/pci0000:81/0000:80:03.0/0000:81:00.0";
  ASSERT_TRUE(std::filesystem::is_directory(pci));
  std::filesystem::create_directories(pci + "/infiniband/siw0/ports/1");
  std::ofstream(pci + "/infiniband/siw0/node_desc") << "Software iWARP stack\n";
  std::ofstream(pci + "/infiniband/siw0/node_type") << "4: RNIC\n";
  std::filesystem::create_directory_symlink("../../../0000:81:00.0",
                                            pci + "/infiniband/siw0/device");
  std::filesystem::create_directory_symlink(pci + "/infiniband/siw0",
                                            dir + "/sys/class/infiniband/siw0");
  Inventory inv = discover(Root(dir));
  ASSERT_TRUE(inv.find_rdma("siw0"));
  const NetDev* ib0 = inv.find_netdev("ib0");
  ASSERT_TRUE(ib0);
  EXPECT_EQ(ib0->rdma_device, "mlx4_0");
  EXPECT_EQ(ib0->rdma_port, 1u);
}

// What rdma-core's rdma_rename would name each device, read as it reads it
// (kernel-boot/rdma_rename.c): the on-board label first, then the PCI location, a VF by its
// PF and virtfn number, ARI's 8-bit function; rxe and siw are not on PCI.
TEST(Discover, TheNamesRdmaRenameWouldGive) {
  auto names = [](const std::string& fixture) {
    std::map<std::string, std::vector<std::string>> got;
    for (const auto& d : discover_fixture(fixture).rdma) got[d.name] = d.persistent_names;
    return got;
  };
  using Names = std::map<std::string, std::vector<std::string>>;
  EXPECT_EQ(names("sriov-ari"), (Names{{"bnxt_re0", {"p59s0f0"}},
                                       {"bnxt_re1", {"p59s1f10"}},
                                       {"mlx5_0", {"o3", "p175s0f0"}},
                                       {"mlx5_1", {"p175s0f1"}},
                                       {"mlx5_2", {"p175s0f0v0"}},
                                       {"mlx5_3", {"p175s0f0v6"}}}));
  // A lone function: no "f0" (its header's multi-function bit is clear).
  EXPECT_EQ(names("cx5-ib"), (Names{{"mlx5_0", {"p59s0"}}}));
  EXPECT_EQ(names("rxe-virtio"), (Names{{"rxe0", {}}}));
  // A header that cannot be read: function 0 both ways, since either may be meant.
  const std::string root = testing::unpack_fixture("cx5-ib");
  testing::run("rm " + root + "/sys/devices/pci0000:3b/0000:3b:00.0/config");
  EXPECT_EQ(discover(Root(root)).rdma[0].persistent_names,
            (std::vector<std::string>{"p59s0", "p59s0f0"}));
}

// IPv6 off: the kernel has none (ipv6.disable=1: no /proc/sys/net/ipv6), or the interface's
// disable_ipv6 is 1.
TEST(Discover, AnInterfaceWhoseIpv6IsOff) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  EXPECT_FALSE(discover(Root(root)).find_netdev("eth0")->ipv6_off);
  testing::run("echo 1 > " + root + "/proc/sys/net/ipv6/conf/eth0/disable_ipv6");
  EXPECT_TRUE(discover(Root(root)).find_netdev("eth0")->ipv6_off);
  testing::run("echo 0 > " + root + "/proc/sys/net/ipv6/conf/eth0/disable_ipv6");
  testing::run("rm -r " + root + "/proc/sys/net/ipv6");
  EXPECT_TRUE(discover(Root(root)).find_netdev("eth0")->ipv6_off);
}

// /proc/cpuinfo as x86 shows it (arch/x86/kernel/cpu/proc.c show_cpuinfo: "flags\t\t: ...").
// The modules behind the crypto API's "crc32", as depmod lists them in modules.alias
// (lines of Debian 6.12.95's tree, in its order; MODULE_ALIAS_CRYPTO gives each module
// both "crc32" and "crypto-crc32"): only the kernel's request name counts, of the running
// kernel's tree.
TEST(Discover, Crc32ModulesFromTheRunningKernelsAliases) {
  const std::string root = testing::temp_dir("crc32-aliases");
  ASSERT_EQ(std::system(("mkdir -p " + root + "/proc/sys/kernel " + root +
                         "/lib/modules/6.12.95+deb12-amd64 " + root +
                         "/lib/modules/6.1.0-56-amd64 && echo 6.12.95+deb12-amd64 > " + root +
                         "/proc/sys/kernel/osrelease && printf '"
                         "alias crypto-crc32c crc32c_intel\n"
                         "alias crypto-crc32 crc32_pclmul\n"
                         "alias crc32 crc32_pclmul\n"
                         "alias crypto-crc32 crc32_generic\n"
                         "alias crc32 crc32_generic\n"
                         "alias crypto-crc32-pclmul crc32_pclmul\n' > " +
                         root + "/lib/modules/6.12.95+deb12-amd64/modules.alias && " +
                         "echo 'alias crypto-crc32 other_crc32' > " + root +
                         "/lib/modules/6.1.0-56-amd64/modules.alias")
                            .c_str()),
            0);
  Inventory inv;
  discover_crc32(Root(root), inv);
  EXPECT_EQ(inv.crc32_modules, (std::vector<std::string>{"crc32_pclmul", "crc32_generic"}));
  // No tree for the running kernel (or no release): none.
  Inventory none;
  discover_crc32(Root(testing::temp_dir("no-aliases")), none);
  EXPECT_TRUE(none.crc32_modules.empty());
}

TEST(Discover, CpuFlagsFromTheFirstFlagsLine) {
  const std::string root = testing::temp_dir("cpuinfo");
  ASSERT_EQ(std::system(("mkdir -p " + root +
                         "/proc && printf 'processor\t: 0\nflags\t\t: fpu "
                         "sse2 pclmulqdq aes\n\nprocessor\t: 1\nflags\t\t: fpu\n' > " +
                         root + "/proc/cpuinfo")
                            .c_str()),
            0);
  Inventory inv;
  discover_crc32(Root(root), inv);
  EXPECT_TRUE(inv.cpu_pclmulqdq);
  Inventory none;
  discover_crc32(Root(testing::temp_dir("no-cpuinfo")), none);
  EXPECT_FALSE(none.cpu_pclmulqdq);
  // QEMU's default CPU (qemu64): flags, but not this one.
  const std::string qemu = testing::temp_dir("cpuinfo-qemu64");
  ASSERT_EQ(std::system(("mkdir -p " + qemu + "/proc && printf 'processor\\t: 0\\nflags\\t\\t: " +
                         "fpu de pse tsc msr pae sse sse2 ssse3 cx16 sse4_1 sse4_2\\n' > " + qemu +
                         "/proc/cpuinfo")
                            .c_str()),
            0);
  Inventory q;
  discover_crc32(Root(qemu), q);
  EXPECT_FALSE(q.cpu_pclmulqdq);
}

// A VLAN interface is told from its parent by its uevent's DEVTYPE (net-sysfs.c
// netdev_uevent, vlan_dev.c vlan_setup), as rtnetlink tells it by IFLA_INFO_KIND.
TEST(Discover, AVlanInterfaceIsKnownByItsUeventDevtype) {
  const std::string dir = testing::unpack_fixture("cx5-roce");
  const std::string vlan = dir + "/sys/devices/virtual/net/ens1f0np0.100";
  std::filesystem::create_directories(vlan);
  for (const auto& [file, text] : std::map<std::string, std::string>{
           {"type", "1\n"},
           {"ifindex", "40\n"},
           {"address", "98:03:9b:46:8a:10\n"},
           {"mtu", "1500\n"},
           {"flags", "0x1003\n"},
           {"uevent", "DEVTYPE=vlan\nINTERFACE=ens1f0np0.100\nIFINDEX=40\n"}})
    std::ofstream(vlan + "/" + file) << text;
  std::filesystem::create_directory_symlink("../../devices/virtual/net/ens1f0np0.100",
                                            dir + "/sys/class/net/ens1f0np0.100");
  const Inventory inv = discover(Root(dir), Detail::kPlan);
  std::map<std::string, std::string> kinds;
  for (const auto& n : inv.netdevs) kinds[n.name] = n.kind;
  EXPECT_EQ(kinds.at("ens1f0np0.100"), "vlan");
  EXPECT_EQ(kinds.at("ens1f0np0"), "");
}

}  // namespace
}  // namespace rp
