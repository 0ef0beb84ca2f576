// Names for a uniform fleet (#30): an interface named by its PCI function and port, or by
// the RDMA port under it, planned on the fixture trees like a name by GUID or MAC, and
// the udev rules that give the name at "add".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "provision/plan/rdma_select.h"
#include "provision/report/handoff.h"
#include "provision/resolve/node_table.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

struct Planned {
  Plan plan;
  std::vector<std::string> renames;  // "from -> to", in order
  std::vector<std::string> errors, warnings;
};

Planned plan_on(const std::string& fixture, const std::string& cmdline,
                const std::string& conf = "") {
  Root root(testing::unpack_fixture(fixture));
  if (!conf.empty()) {
    testing::run("mkdir -p " + root.path("/etc/rdma-provision"));
    testing::run("printf '%s' '" + conf + "' > " +
                 root.path("/etc/rdma-provision/rdma-provision.conf"));
  }
  Inventory inv = discover(root, Detail::kPlan);
  InputOptions opt;
  opt.cmdline_text = cmdline;
  Inputs in = load_inputs(root, opt);
  in.config = resolve_node_table(inv, in.config);
  Planned p;
  for (const auto& e : in.diag.errors) p.errors.push_back(e.str());
  p.plan = make_plan(in.config, inv);
  for (const auto& a : p.plan.actions) {
    if (a.kind() != ActionKind::kRename) continue;
    const Rename& r = a.get<Rename>();
    p.renames.push_back((r.from.empty() ? "(ib_ipoib's)" : r.from) + " -> " + r.to);
  }
  for (const auto& e : p.plan.diag.errors) p.errors.push_back(e.str());
  for (const auto& e : p.plan.diag.warnings) p.warnings.push_back(e.str());
  return p;
}

using Strings = std::vector<std::string>;

TEST(NamesByFunction, ThePortsOfOneMlx4FunctionAreToldApartByDevPort) {
  // cx3-vpi: port 1 IPoIB (ib0, dev_port 0), port 2 Ethernet (enp129s0d1, dev_port 1), both
  // on 0000:81:00.0 (mlx4_en_init_netdev, ipoib_add_port: dev_port = port - 1).
  Planned p = plan_on("cx3-vpi",
                      "rd.rdma.name=fab0:pci-0000:81:00.0/1 rd.rdma.name=fab1:pci-0000:81:00.0/2");
  EXPECT_EQ(p.errors, Strings{});
  EXPECT_EQ(p.renames, (Strings{"ib0 -> fab0", "enp129s0d1 -> fab1"})) << plan_text(p.plan);
}

TEST(NamesByFunction, WithoutAPortTheFunctionsFirstPortIsMeant) {
  Planned p = plan_on("cx5-roce", "rd.rdma.name=fab0:pci-0000:af:00.0");
  EXPECT_EQ(p.renames, Strings{"ens1f0np0 -> fab0"}) << plan_text(p.plan);
  Planned vpi = plan_on("cx3-vpi", "rd.rdma.name=fab0:pci-81:00.0");
  EXPECT_EQ(vpi.renames, Strings{"ib0 -> fab0"}) << plan_text(vpi.plan);
}

TEST(NamesByFunction, ByRdmaPortTheIpoibInterfaceOrTheRoceNetdev) {
  Planned p =
      plan_on("cx3-vpi", "", "[name fab0]\nmatch = mlx4_0/1\n[name roce0]\nmatch = mlx4_0/2\n");
  EXPECT_EQ(p.errors, Strings{});
  EXPECT_EQ(p.renames, (Strings{"ib0 -> fab0", "enp129s0d1 -> roce0"})) << plan_text(p.plan);
}

TEST(NamesByFunction, AnAbsentFunctionIsAWarningListingThoseThere) {
  Planned p = plan_on("cx3-vpi", "rd.rdma.name=fab0:pci-0000:af:00.0 rd.rdma.name=fab1:mlx5_0/1");
  EXPECT_EQ(p.renames, Strings{});
  EXPECT_EQ(p.warnings,
            (Strings{"cmdline: rd.rdma.name=fab0:pci-0000:af:00.0: name fab0: no interface at "
                     "pci-0000:af:00.0 is present; present: pci-0000:00:19.0/1 eno1, "
                     "pci-0000:81:00.0/1 ib0, pci-0000:81:00.0/2 enp129s0d1",
                     "cmdline: rd.rdma.name=fab1:mlx5_0/1: name fab1: no interface of RDMA port "
                     "mlx5_0/1 is present; present: mlx4_0/1, mlx4_0/2 (did you mean "
                     "'mlx4_0/1'?)"}))
      << plan_text(p.plan);
}

TEST(NamesByFunction, ADeviceRenamedByRdmaCoreIsSaidAndPciIsTheWayOut) {
  // cx5-renamed: rdma_rename has made mlx5_0 rocep175s0f0 (kernel-boot/rdma_rename.c).
  Planned p = plan_on("cx5-renamed", "rd.rdma.name=fab0:mlx5_0/1");
  EXPECT_EQ(p.renames, Strings{});
  EXPECT_EQ(p.warnings,
            Strings{"cmdline: rd.rdma.name=fab0:mlx5_0/1: name fab0: no RDMA device mlx5_0 is "
                    "present; rdma-core's persistent naming (60-rdma-persistent-naming.rules) has "
                    "renamed the RDMA devices here: rocep175s0f0 (pci-0000:af:00.0), rocep175s0f1 "
                    "(pci-0000:af:00.1); name the interface by pci-<address>/<port>"})
      << plan_text(p.plan);
  Planned by_pci = plan_on("cx5-renamed", "rd.rdma.name=fab0:pci-0000:af:00.0");
  EXPECT_EQ(by_pci.renames, Strings{"ens1f0np0 -> fab0"}) << plan_text(by_pci.plan);
}

TEST(NamesByFunction, OneInterfaceNamedByMacAndByFunctionIsAnError) {
  Planned p =
      plan_on("cx5-roce", "rd.rdma.name=fab0:98:03:9b:46:8a:10 rd.rdma.name=fab1:pci-0000:af:00.0");
  EXPECT_EQ(p.errors,
            Strings{"cmdline: rd.rdma.name=fab1:pci-0000:af:00.0: pci-0000:af:00.0 is interface "
                    "ens1f0np0, which cmdline: rd.rdma.name=fab0:98:03:9b:46:8a:10 names 'fab0': "
                    "one interface, two names"})
      << plan_text(p.plan);
}

TEST(NamesByFunction, AnExplicitNameByFunctionWinsOverTheNodeTablesRow) {
  Planned p = plan_on("cx5-roce", "rd.rdma.name=fab1:pci-0000:af:00.0",
                      "[nodes]\n98:03:9b:46:8a:10 name=row0 address=10.0.0.5/24\n");
  EXPECT_EQ(p.errors, Strings{});
  EXPECT_EQ(p.renames, Strings{"ens1f0np0 -> fab1"}) << plan_text(p.plan);
}

TEST(NamesByFunction, AnIpoibPortByFunctionOrDeviceWaitsForIbIpoibsInterface) {
  // ib_ipoib not loaded yet: the port's interface is renamed once ib_ipoib makes it, as a
  // name by its port GUID is.
  Inventory inv;
  RdmaDevice d;
  d.name = "mlx5_0";
  d.driver = "mlx5_core";
  d.pci = PciAddress::parse("0000:3b:00.0");
  RdmaPort port;
  port.num = 1;
  port.state = PortState::kActive;
  port.link_layer = LinkLayer::kInfiniBand;
  port.guid = PortGuid::parse("0c42:a103:0016:b2c4");
  d.ports.push_back(port);
  inv.rdma.push_back(d);
  inv.modules = {"ib_core", "mlx5_core", "mlx5_ib"};
  for (const char* key : {"pci-0000:3b:00.0", "mlx5_0/1"}) {
    Inputs in;
    InputOptions opt;
    opt.cmdline_text = std::string("rd.rdma.name=fab0:") + key;
    in = load_inputs(Root(testing::temp_dir("ipoib")), opt);
    const Plan plan = make_plan(in.config, inv);
    std::vector<std::string> waiting;
    for (const auto& a : plan.actions)
      if (a.kind() == ActionKind::kRename) waiting.push_back(a.waiting_for);
    EXPECT_EQ(waiting, Strings{"IPoIB netdev of port GUID 0c42:a103:0016:b2c4"}) << key << "\n"
                                                                                 << plan_text(plan);
  }
}

TEST(NamesByFunction, AFunctionWithTwoInterfacesOnOnePortIsAnError) {
  // An mlx5 PF in switchdev mode: its VF representors sit under it, dev_port 0 as well.
  Inventory inv;
  int ifindex = 2;
  for (const char* name : {"ens1f0np0", "ens1f0r0"}) {
    NetDev n;
    n.name = name;
    n.ifindex = n.iflink = ifindex++;
    n.type = kArphrdEther;
    n.driver = "mlx5_core";
    n.pci = PciAddress::parse("0000:af:00.0");
    inv.netdevs.push_back(n);
  }
  Inputs in;
  InputOptions opt;
  opt.cmdline_text = "rd.rdma.name=fab0:pci-0000:af:00.0";
  in = load_inputs(Root(testing::temp_dir("switchdev")), opt);
  const Plan plan = make_plan(in.config, inv);
  ASSERT_EQ(plan.diag.errors.size(), 1u) << plan_text(plan);
  EXPECT_EQ(plan.diag.errors[0].str(),
            "cmdline: rd.rdma.name=fab0:pci-0000:af:00.0: pci-0000:af:00.0 names ens1f0np0 and "
            "ens1f0r0 (the same function and dev_port): name it by its MAC");
}

TEST(NamesByFunction, UdevRulesMatchTheFunctionAndPortAndLeaveRdmaPortsToApply) {
  Inputs in;
  InputOptions opt;
  opt.cmdline_text =
      "rd.rdma.name=fab0:pci-0000:af:00.0 rd.rdma.name=fab1:pci-0000:81:00.0/2 "
      "rd.rdma.name=fab2:mlx5_0/1";
  in = load_inputs(Root(testing::temp_dir("udev")), opt);
  ASSERT_TRUE(in.diag.ok());
  const std::string rules = udev_rules(in.config);
  EXPECT_NE(rules.find("# cmdline: rd.rdma.name=fab0:pci-0000:af:00.0\n"
                       "ACTION==\"add\", SUBSYSTEM==\"net\", SUBSYSTEMS==\"pci\", "
                       "KERNELS==\"0000:af:00.0\", TEST!=\"parent\", ATTR{dev_port}==\"0\", "
                       "NAME:=\"fab0\"\n"),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("KERNELS==\"0000:81:00.0\", TEST!=\"parent\", ATTR{dev_port}==\"1\", "
                       "NAME:=\"fab1\"\n"),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("# fab2 (mlx5_0/1): named by apply's rename, not here: no udev key "
                       "matches a net device by its RDMA port\n"),
            std::string::npos)
      << rules;
  EXPECT_EQ(rules.find("fab2\""), std::string::npos) << rules;
}

// rdma-core's persistent names (kernel-boot/rdma_rename.c by_onboard, by_pci, by_guid) of
// devices not renamed here mean them, as the inventory read them from sysfs; the hint for
// an absent kernel name lists the devices whose names are rdma_rename's.
TEST(RdmaSelect, RdmaCoresNamesOfOnboardVfAndAriFunctions) {
  const std::string root = testing::unpack_fixture("sriov-ari");
  Inventory inv = discover(Root(root), Detail::kPlan);
  Config cfg;
  auto meant = [&](const std::string& name, std::string* how = nullptr) {
    Plan plan;
    PlanBuilder b(cfg, inv, plan);
    auto got = select_rdma(b, RdmaSelector::named(name), how);
    return got.size() == 1 ? got[0].device->name : std::to_string(got.size()) + " devices";
  };
  std::string how;
  EXPECT_EQ(meant("roceo3", &how), "mlx5_0");
  EXPECT_EQ(how,
            "roceo3 is rdma-core's persistent name (kernel-boot/rdma_rename.c NAME_ONBOARD) of "
            "mlx5_0 at 0000:af:00.0, which has not been renamed here: mlx5_0 is meant");
  EXPECT_EQ(meant("rocep175s0f0"), "mlx5_0");  // NAME_PCI, where the label is not used
  EXPECT_EQ(meant("rocep175s0f1"), "mlx5_1");
  EXPECT_EQ(meant("rocep175s0f0v0"), "mlx5_2");
  EXPECT_EQ(meant("rocep175s0f0v6"), "mlx5_3");  // virtfn6 at af:01.0: function 8 under ARI
  EXPECT_EQ(meant("rdmap175s0f0v6"), "mlx5_3");  // "rdma" when the kernel gives no protocol
  EXPECT_EQ(meant("rocep59s1f10"), "bnxt_re1");  // 3b:01.2 under ARI: 2 + 8 x 1
  EXPECT_EQ(meant("rocep59s1f2"), "0 devices");  // the traditional numbering is not it
  EXPECT_EQ(meant("ibp175s0f0"), "0 devices");   // a RoCE device is not "ib"
  EXPECT_EQ(meant("roceo4"), "0 devices");
  EXPECT_EQ(meant("rocexb8cef60300a41c20"), "mlx5_0");     // NAME_GUID
  EXPECT_EQ(meant("rocex0000000000000000"), "0 devices");  // the VFs' GUID 0 names nothing
  // After rdma-core renamed them, the kernel's names are absent and the hint says whose.
  for (auto& d : inv.rdma) {
    if (d.name == "mlx5_0") d.name = "roceo3";
    if (d.name == "mlx5_3") d.name = "rocep175s0f0v6";
    if (d.name == "bnxt_re1") d.name = "rocep59s1f10";
  }
  EXPECT_EQ(renamed_devices_hint(inv),
            "rocep59s1f10 (pci-0000:3b:01.2), roceo3 (pci-0000:af:00.0), "
            "rocep175s0f0v6 (pci-0000:af:01.0)");
}

}  // namespace
}  // namespace rp
