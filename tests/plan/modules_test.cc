// The modules planner (plan/modules.cc) and the early modules (preload), on a Config and an
// Inventory written out here: rules that no fixture shows, each checked on the smallest machine
// that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

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
