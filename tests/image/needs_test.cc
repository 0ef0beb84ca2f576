// image-needs over the fixture trees: the modules and files an initramfs must carry for
// the host's hardware (host-only), any hardware (generic) or named drivers, plus what the
// inputs ask for; the exact text the dracut module reads.
#include "provision/image/needs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "provision/plan/plan.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

constexpr const char kCore[] =
    "module ib_core  # RDMA core\n"
    "module ib_uverbs  # RDMA core\n"
    "module rdma_ucm  # RDMA core\n"
    "module rdma_cm  # RDMA core\n"
    "module ib_cm  # RDMA core\n"
    "module iw_cm  # RDMA core\n"
    "module configfs  # RDMA core\n";

constexpr const char kCrc32[] =
    "module crc32_generic  # rdma_rxe's crc32 (crypto API, no softdep)\n"
    "module crc32-pclmul  # rdma_rxe's crc32 (crypto API, no softdep)\n";

// A fixture tree with extra files (kernel path -> text) and the inputs read from it.
struct Tree {
  explicit Tree(const std::string& fixture, std::vector<std::pair<std::string, std::string>> files,
                std::string cmdline = "")
      : root(testing::unpack_fixture(fixture)) {
    for (const auto& [path, text] : files) {
      const std::string real = root.path(path);
      testing::run("mkdir -p \"$(dirname '" + real + "')\"");
      std::ofstream(real) << text;
    }
    opt.cmdline_text = cmdline;
  }
  std::string needs(ImageNeedsOptions o = {}) {
    Inventory inv = o.drivers == DriverChoice::kHost ? discover(root, Detail::kPlan) : Inventory{};
    Inputs in = load_inputs(root, opt);
    EXPECT_TRUE(in.diag.ok()) << (in.diag.errors.empty() ? "" : in.diag.errors[0].str());
    o.config_path = opt.config_path;
    return image_needs_text(image_needs(in, inv, o));
  }
  Root root;
  InputOptions opt;
};

ImageNeedsOptions given(std::vector<std::string> drivers) {
  ImageNeedsOptions o;
  o.drivers = DriverChoice::kGiven;
  o.given = std::move(drivers);
  return o;
}

TEST(ImageNeeds, HostOnlyMlx4CardGetsItsDriversAndIpoib) {
  Tree t("cx3-vpi", {});
  EXPECT_EQ(t.needs(), std::string(kCore) +
                           "module mlx4_core  # drives 0000:81:00.0 on this host\n"
                           "module mlx4_ib  # RDMA driver of mlx4_core (0000:81:00.0)\n"
                           "module mlx4_en  # mlx4 Ethernet ports\n"
                           "module ib_ipoib  # IPoIB on the ports of RDMA hardware\n");
}

TEST(ImageNeeds, HostOnlyMlx5UsesThePairsTable) {
  Tree t("cx5-roce", {});
  const std::string out = t.needs();
  EXPECT_NE(out.find("module mlx5_core  # drives "), std::string::npos) << out;
  EXPECT_NE(out.find("module mlx5_ib  # RDMA driver of mlx5_core ("), std::string::npos) << out;
  EXPECT_EQ(out.find("mlx4"), std::string::npos) << out;
}

TEST(ImageNeeds, HostRunningSoftRoceGetsRxeAndCrc32ButNoIpoib) {
  Tree t("rxe-virtio", {});
  EXPECT_EQ(t.needs(),
            std::string(kCore) + "module rdma_rxe  # this host runs Soft-RoCE\n" + kCrc32);
}

TEST(ImageNeeds, HostRunningSoftIwarpOnAnIntelNicGetsSiwAndIrdma) {
  Tree t("siw", {});
  EXPECT_EQ(t.needs(), std::string(kCore) +
                           "module i40e  # drives 0000:18:00.0 on this host\n"
                           "module siw  # this host runs Soft-iWARP\n"
                           "module irdma  # RDMA driver of i40e (0000:18:00.0)\n"
                           "module ib_ipoib  # IPoIB on the ports of RDMA hardware\n");
}

TEST(ImageNeeds, GenericTakesBothSidesOfEveryPairTheHardwareDirAndSoftDevices) {
  Tree t("rxe-virtio", {});
  ImageNeedsOptions o;
  o.drivers = DriverChoice::kGeneric;
  const std::string out = t.needs(o);
  for (const char* m : {"mlx4_core", "mlx4_ib",  "mlx5_core",      "mlx5_ib", "bnxt_en", "bnxt_re",
                        "cxgb4",     "iw_cxgb4", "qede",           "qedr",    "ice",     "i40e",
                        "irdma",     "hns3",     "hns_roce_hw_v2", "erdma",   "be2net",  "ocrdma",
                        "mana",      "mana_ib",  "rdma_rxe",       "siw"}) {
    EXPECT_NE(out.find(std::string("module ") + m + "  # generic image: every known RDMA driver\n"),
              std::string::npos)
        << m << "\n"
        << out;
  }
  // mlx4_core requests mlx4_en for an Ethernet port (mlx4/main.c mlx4_request_modules).
  EXPECT_NE(out.find("module mlx4_en  # Ethernet ports of mlx4_core\n"), std::string::npos);
  EXPECT_NE(out.find("module-dir drivers/infiniband/hw  # generic image"), std::string::npos);
  EXPECT_NE(out.find("module ib_ipoib  # IPoIB on the ports of RDMA hardware\n"),
            std::string::npos);
  EXPECT_NE(out.find(kCrc32), std::string::npos);
  // Each item once, though erdma and irdma appear twice in the pairs.
  EXPECT_EQ(out.find("module irdma"), out.rfind("module irdma"));
  EXPECT_EQ(out.find("module erdma"), out.rfind("module erdma"));
}

TEST(ImageNeeds, GivenDriversReplaceTheHostsAndBringTheirCompanions) {
  Tree t("cx3-vpi", {});
  EXPECT_EQ(t.needs(given({"rdma_rxe"})),
            std::string(kCore) + "module rdma_rxe  # --drivers\n" + kCrc32);
  EXPECT_EQ(t.needs(given({"mlx5_ib"})), std::string(kCore) +
                                             "module mlx5_ib  # --drivers\n"
                                             "module ib_ipoib  # IPoIB on the ports of RDMA "
                                             "hardware\n");
}

// One image for every node of a table: a row's soft device counts whichever node boots it.
TEST(ImageNeeds, ANodeTableRowsSoftDeviceBringsItsModule) {
  Tree t("cx3-vpi", {{"/etc/rdma-provision/rdma-provision.conf",
                      "[nodes]\n52:54:00:77:00:03 name=nodeb0 rxe=rxe0\n"}});
  EXPECT_EQ(t.needs(given({"mlx4_ib"})),
            std::string(kCore) +
                "module mlx4_ib  # --drivers\n"
                "module ib_ipoib  # IPoIB on the ports of RDMA hardware\n"
                "module rdma_rxe  # /etc/rdma-provision/rdma-provision.conf:2 (node table)\n" +
                kCrc32 + "file /etc/rdma-provision/rdma-provision.conf  # native configuration\n");
}

// A root on NVMe over Fabrics through RDMA: nvme_rdma, which dracut 059's 95nvmf carries
// for no transport (module-setup.sh installkernel: nvme_fc, nvme_tcp); not for tcp (dracut
// carries nvme_tcp itself), not under rd.nonvmf.
TEST(ImageNeeds, AnNvmeTargetOverRdmaBringsNvmeRdma) {
  Tree rdma("cx5-roce", {}, "root=UUID=1234 rd.nvmf.discover=rdma,10.0.0.1,,4420");
  EXPECT_NE(rdma.needs(given({"mlx5_ib"}))
                .find("module nvme_rdma  # cmdline: rd.nvmf.discover=rdma,10.0.0.1,,4420\n"),
            std::string::npos);
  Tree tcp("cx5-roce", {}, "rd.nvmf.discover=tcp,10.0.0.1");
  EXPECT_EQ(tcp.needs(given({"mlx5_ib"})).find("nvme_rdma"), std::string::npos);
  Tree off("cx5-roce", {}, "rd.nvmf.discover=rdma,10.0.0.1 rd.nonvmf");
  EXPECT_EQ(off.needs(given({"mlx5_ib"})).find("nvme_rdma"), std::string::npos);
}

TEST(ImageNeeds, WhatTheNativeConfigLoadsWithItsSources) {
  Tree t("rxe-virtio", {{"/etc/rdma-provision/rdma-provision.conf",
                         "[modules]\nload = rpcrdma\n[rxe eth0]\n[roce rxe0/1]\nmode = v2\n"
                         "[pkey storage0 0x10]\n[name fabric0]\nmatch = 52:54:00:77:00:02\n"}});
  EXPECT_EQ(t.needs(given({"siw"})),
            std::string(kCore) +
                "module siw  # --drivers\n"
                "module rpcrdma  # /etc/rdma-provision/rdma-provision.conf:2\n"
                "module ib_ipoib  # /etc/rdma-provision/rdma-provision.conf:6\n"
                "module rdma_rxe  # /etc/rdma-provision/rdma-provision.conf:3\n" +
                kCrc32 + "file /etc/rdma-provision/rdma-provision.conf  # native configuration\n");
}

TEST(ImageNeeds, GuidNamesAndNodeTableRowsNeedIpoibMacNamesDoNot) {
  Tree mac("cx5-roce", {}, "rd.rdma.name=fabric0:98:03:9b:46:8a:10");
  EXPECT_EQ(mac.needs(given({"rdma_rxe"})).find("ib_ipoib"), std::string::npos);
  Tree guid("cx5-roce", {}, "rd.rdma.name=ibdata:0c42:a103:0016:b2c4");
  EXPECT_NE(guid.needs(given({"rdma_rxe"}))
                .find("module ib_ipoib  # cmdline: rd.rdma.name=ibdata:0c42:a103:0016:b2c4\n"),
            std::string::npos);
  Tree table("cx5-roce", {{"/etc/rdma-provision/rdma-provision.conf",
                           "[nodes]\nf452:1403:007b:d001 name=ibstor0\n"}});
  EXPECT_NE(table.needs(given({"rdma_rxe"}))
                .find("module ib_ipoib  # /etc/rdma-provision/rdma-provision.conf:2 (node "
                      "table)\n"),
            std::string::npos);
}

TEST(ImageNeeds, Mlx4SettingsBringTheMlx4DriversEthernetOnlyWhenAsked) {
  Tree ib("rxe-virtio", {}, "rd.rdma.mlx4=0000:81:00.0/ib,ib");
  const std::string src = "cmdline: rd.rdma.mlx4=0000:81:00.0/ib,ib";
  EXPECT_EQ(ib.needs(given({"rdma_rxe"})), std::string(kCore) + "module rdma_rxe  # --drivers\n" +
                                               "module mlx4_core  # " + src + "\n" +
                                               "module mlx4_ib  # " + src + "\n" + kCrc32);
  Tree eth("rxe-virtio", {}, "rd.rdma.mlx4=0000:81:00.0/ib,eth");
  EXPECT_NE(eth.needs(given({"rdma_rxe"}))
                .find("module mlx4_en  # cmdline: rd.rdma.mlx4=0000:81:00.0/ib,eth\n"),
            std::string::npos);
}

// rdma-core's, modprobe's and udev's files as the binary reads them, with a modprobe.d file
// that concerns an image module, one that does not, and one that blacklists one.
const std::vector<std::pair<std::string, std::string>> kRdmaCoreFiles = {
    {"/etc/rdma/mlx4.conf", "0000:81:00.0 eth eth\n"},
    {"/etc/rdma/modules/rdma.conf", "# the default list\nib_uverbs\nrdma_ucm\nxprtrdma\n"},
    {"/etc/modprobe.d/mlx4.conf", "options mlx4_en pfctx=0x08 pfcrx=0x08\n"},
    {"/etc/modprobe.d/sound.conf", "options snd_hda_intel power_save=1\n"},
    {"/etc/modprobe.d/no-iser.conf", "blacklist xprtrdma\n"},
    {"/etc/udev/rules.d/70-persistent-ipoib.rules",
     "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
     "ATTR{address}==\"?*f4:52:14:03:00:7b:cb:a1\", NAME=\"ib_stor\"\n"},
};

TEST(ImageNeeds, RdmaCoreListsAreLeftToTheRealRootByDefault) {
  // [modules] defer = yes (the default): the initramfs does not load what only rdma-core's
  // lists ask for (plan/modules.cc), so the image leaves it out, and with it the modprobe.d
  // file that only concerns such a module.
  Tree t("rxe-virtio", kRdmaCoreFiles);
  EXPECT_EQ(t.needs(given({"rdma_rxe"})),
            std::string(kCore) +
                "module rdma_rxe  # --drivers\n"
                "module mlx4_core  # /etc/rdma/mlx4.conf:1\n"
                "module mlx4_ib  # /etc/rdma/mlx4.conf:1\n"
                "module mlx4_en  # /etc/rdma/mlx4.conf:1\n"
                "module ib_ipoib  # /etc/udev/rules.d/70-persistent-ipoib.rules:1\n" +
                kCrc32 +
                "file /etc/rdma/mlx4.conf  # read by rdma-provision\n"
                "file /etc/rdma/modules/rdma.conf  # read by rdma-provision\n"
                "file /etc/modprobe.d/mlx4.conf  # options for mlx4_en\n"
                "file /etc/udev/rules.d/70-persistent-ipoib.rules  # read by rdma-provision\n");
}

TEST(ImageNeeds, RdmaCoreFilesAndWhatTheyAskForWithoutDeferring) {
  Tree t("rxe-virtio", kRdmaCoreFiles, "rd.rdma.modules.defer=0");
  EXPECT_EQ(t.needs(given({"rdma_rxe"})),
            std::string(kCore) +
                "module rdma_rxe  # --drivers\n"
                "module mlx4_core  # /etc/rdma/mlx4.conf:1\n"
                "module mlx4_ib  # /etc/rdma/mlx4.conf:1\n"
                "module mlx4_en  # /etc/rdma/mlx4.conf:1\n"
                "module xprtrdma  # /etc/rdma/modules/rdma.conf:4\n"
                "module ib_ipoib  # /etc/udev/rules.d/70-persistent-ipoib.rules:1\n" +
                kCrc32 +
                "file /etc/rdma/mlx4.conf  # read by rdma-provision\n"
                "file /etc/rdma/modules/rdma.conf  # read by rdma-provision\n"
                "file /etc/modprobe.d/mlx4.conf  # options for mlx4_en\n"
                "file /etc/modprobe.d/no-iser.conf  # blacklists xprtrdma\n"
                "file /etc/udev/rules.d/70-persistent-ipoib.rules  # read by rdma-provision\n");
}

TEST(ImageNeeds, WithoutRdmaCoreNeitherTheFilesNorWhatTheyAskFor) {
  Tree t("rxe-virtio", kRdmaCoreFiles, "rd.rdma.modules=rpcrdma");
  ImageNeedsOptions o = given({"rdma_rxe"});
  o.rdma_core = false;
  EXPECT_EQ(t.needs(o), std::string(kCore) +
                            "module rdma_rxe  # --drivers\n"
                            "module rpcrdma  # cmdline: rd.rdma.modules=rpcrdma\n" +
                            kCrc32);
}

TEST(ImageNeeds, AConfigElsewhereGoesToTheStandardPlace) {
  Tree t("rxe-virtio", {{"/srv/node7.conf", "[modules]\nload = rpcrdma\n"}});
  t.opt.config_path = "/srv/node7.conf";
  t.opt.config_path_given = true;
  EXPECT_EQ(t.needs(given({"rdma_rxe"})),
            std::string(kCore) +
                "module rdma_rxe  # --drivers\n"
                "module rpcrdma  # /srv/node7.conf:2\n" +
                kCrc32 +
                "file /srv/node7.conf /etc/rdma-provision/rdma-provision.conf  # native "
                "configuration\n");
}

TEST(ImageNeeds, NodesDFilesGoBesideTheConfigInTheImage) {
  // nodes.d/ beside the config is read at boot: the image carries its files, beside the
  // standard config when the config comes from elsewhere, even without rdma-core's files.
  Tree t("rxe-virtio", {{"/srv/node7.conf", "[modules]\nload = rpcrdma\n"},
                        {"/srv/nodes.d/rack1.conf", "52:54:00:77:00:02 name=fab0\n"},
                        {"/etc/rdma-provision/nodes.d/other.conf", "52:54:00:77:00:03\n"}});
  t.opt.config_path = "/srv/node7.conf";
  t.opt.config_path_given = true;
  ImageNeedsOptions o = given({"rdma_rxe"});
  o.rdma_core = false;
  EXPECT_EQ(t.needs(o), std::string(kCore) +
                            "module rdma_rxe  # --drivers\n"
                            "module rpcrdma  # /srv/node7.conf:2\n" +
                            kCrc32 +
                            "file /srv/node7.conf /etc/rdma-provision/rdma-provision.conf  # "
                            "native configuration\n"
                            "file /srv/nodes.d/rack1.conf "
                            "/etc/rdma-provision/nodes.d/rack1.conf  # node table (nodes.d)\n");
  Tree standard("rxe-virtio", {{"/etc/rdma-provision/nodes.d/rack1.conf", "52:54:00:77:00:02\n"}});
  EXPECT_EQ(standard.needs(given({"rdma_rxe"})),
            std::string(kCore) + "module rdma_rxe  # --drivers\n" + kCrc32 +
                "file /etc/rdma-provision/nodes.d/rack1.conf  # node table (nodes.d)\n");
}

// One answer (resolve/module_needs.h): on every fixture, with settings of every kind, each
// module the plan loads on the host is one a host-only image of that host carries.
TEST(ImageNeeds, EveryModuleThePlanLoadsIsInTheHostOnlyImage) {
  const std::string conf =
      "[modules]\nload = rpcrdma\n[roce *]\nmode = v2\ntos = 106\n"
      "[name ibfab0]\nmatch = 0002:c903:0031:78f2\n[pkey ib0 0x10]\n[ipoib ib0]\n"
      "mode = connected\n[mlx4 0000:81:00.0]\nport1 = eth\nport2 = ib\n";
  const std::string cmdline =
      "rd.rdma.verify=peer:10.0.0.1 rd.rdma.mlx4.pfc=0x08 ip=ib0:dhcp root=nfs:10.0.0.1:/r";
  for (const char* fixture :
       {"cx3-single-builtin", "cx3-sriov-eth", "cx3-vpi", "cx5-ib", "cx5-initramfs", "cx5-renamed",
        "sriov-ari", "cx5-roce", "four-hca", "opa-bnxt", "rxe-virtio", "siw"}) {
    Tree t(fixture, {{"/etc/rdma-provision/rdma-provision.conf", conf}}, cmdline);
    const Inventory inv = discover(t.root, Detail::kPlan);
    Inputs in = load_inputs(t.root, t.opt);
    ASSERT_TRUE(in.diag.ok()) << fixture << ": " << in.diag.errors[0].str();
    ImageNeedsOptions o;
    o.config_path = t.opt.config_path;
    std::set<std::string> image;
    for (const auto& n : image_needs(in, inv, o))
      if (n.kind == ImageNeed::Kind::kModule) image.insert(n.item);
    const Plan p = make_plan(in.config, inv);
    size_t loads = 0;
    for (const auto& a : p.actions) {
      if (a.kind() != ActionKind::kLoadModule) continue;
      ++loads;
      const std::string& m = a.get<LoadModule>().module;
      EXPECT_TRUE(image.count(m)) << fixture << ": the plan loads " << m << " (" << a.reason
                                  << "), the image leaves it out";
    }
    EXPECT_GT(loads, 0u) << fixture;
  }
}

}  // namespace
}  // namespace rp
