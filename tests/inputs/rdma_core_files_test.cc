#include "provision/inputs/rdma_core_files.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rp {
namespace {

const std::string kMlx4 = "/etc/rdma/mlx4.conf";
const std::string kRdma = "/etc/rdma/modules/rdma.conf";
const std::string kInfiniband = "/etc/rdma/modules/infiniband.conf";
const std::string kOpa = "/etc/rdma/modules/opa.conf";
const std::string kModprobe = "/etc/modprobe.d/mlx4.conf";
const std::string kRules = "/etc/udev/rules.d/70-persistent-ipoib.rules";

using Parser = void (*)(std::string_view, const std::string&, Config&, Diagnostics&);

std::vector<std::string> strs(const std::vector<Error>& v) {
  std::vector<std::string> out;
  for (const auto& e : v) out.push_back(e.str());
  return out;
}

PciAddress pci(const char* s) { return *PciAddress::parse(s); }

// ---------------------------------------------------------------------------------------
// /etc/rdma/mlx4.conf

// Shaped like rdma-core's shipped template (redhat/rdma.mlx4.conf): a comment header with
// a commented example, then the administrator's cards.
const char kMlx4Conf[] =
    "# mlx4 port types, applied when mlx4_core is loaded.\n"
    "# Cards not listed here keep whatever type they have.\n"
    "#\n"
    "# port1 is always needed; port2 only on dual-port cards.\n"
    "#\n"
    "# Format:\n"
    "# <pci_device_of_card> <port1_type> [port2_type]\n"
    "#\n"
    "# Example:\n"
    "# 0000:0b:00.0 eth eth\n"
    "#\n"
    "0000:0b:00.0 eth eth\n"
    "\n"
    "0000:81:00.0 ib\n"
    "0000:82:00.0\tauto   ib   \n";

TEST(IpoibRules, ARuleNamingAPortIb0IsKeptWithAWarning) {
  // Not recommended, but udev applies it: a warning, not invalid input (only our own
  // inputs are refused such names).
  Config cfg;
  Diagnostics diag;
  parse_ipoib_rules(
      "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
      "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"ib0\"\n",
      kRules, cfg, diag);
  EXPECT_TRUE(diag.errors.empty()) << strs(diag.errors)[0];
  ASSERT_EQ(diag.warnings.size(), 1u);
  EXPECT_EQ(diag.warnings[0].str(),
            std::string(kRules) +
                ":1: interface name 'ib0' is of the kernel's own form and may collide with an "
                "unrenamed device (not recommended; kept as udev would apply it)");
  ASSERT_EQ(cfg.names.count("ib0"), 1u);
  EXPECT_EQ(cfg.names.at("ib0").value.str(), "0002:c903:0031:78f2");
}

TEST(Mlx4Conf, ShippedTemplatePlusCardsSetsPortTypesWithTheirLines) {
  Config cfg;
  Diagnostics diag;
  parse_mlx4_conf(kMlx4Conf, kMlx4, cfg, diag);
  EXPECT_TRUE(diag.errors.empty()) << strs(diag.errors)[0];
  EXPECT_TRUE(diag.warnings.empty());
  ASSERT_EQ(cfg.mlx4.size(), 3u);

  const Mlx4Setting& a = cfg.mlx4.at(pci("0000:0b:00.0"));
  EXPECT_EQ(a.type[0]->value, PortType::kEth);
  EXPECT_EQ(a.type[1]->value, PortType::kEth);
  EXPECT_EQ(a.type[0]->source.str(), "/etc/rdma/mlx4.conf:12");
  EXPECT_EQ(a.type[1]->source.str(), "/etc/rdma/mlx4.conf:12");

  const Mlx4Setting& b = cfg.mlx4.at(pci("0000:81:00.0"));
  EXPECT_EQ(b.type[0]->value, PortType::kIb);
  EXPECT_FALSE(b.type[1].has_value()) << "a single-port line leaves port 2 alone";
  EXPECT_EQ(b.type[0]->source.str(), "/etc/rdma/mlx4.conf:14");

  const Mlx4Setting& c = cfg.mlx4.at(pci("0000:82:00.0"));
  EXPECT_EQ(c.type[0]->value, PortType::kAuto);
  EXPECT_EQ(c.type[1]->value, PortType::kIb);
}

TEST(Mlx4Conf, TrailingCommentAndCrlfAreAcceptedAShortPciAddressIsSkippedAsRdmaCoreSkipsIt) {
  Config cfg;
  Diagnostics diag;
  parse_mlx4_conf("0000:0b:00.0 ib eth   # lab card\r\n", kMlx4, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  const Mlx4Setting& a = cfg.mlx4.at(pci("0000:0b:00.0"));
  EXPECT_EQ(a.type[0]->value, PortType::kIb);
  EXPECT_EQ(a.type[1]->value, PortType::kEth);
  // mlx4-setup.sh looks for /sys/bus/pci/drivers/mlx4_core/0b:00.0, which never exists.
  Config shorter;
  Diagnostics said;
  parse_mlx4_conf("0b:00.0 ib eth\n", kMlx4, shorter, said);
  EXPECT_TRUE(said.errors.empty());
  EXPECT_TRUE(shorter.mlx4.empty());
  ASSERT_EQ(said.warnings.size(), 1u);
  EXPECT_EQ(said.warnings[0].str(),
            "/etc/rdma/mlx4.conf:1: rdma-core's mlx4-setup.sh looks for "
            "/sys/bus/pci/drivers/mlx4_core/0b:00.0, which the kernel never names so: it skips "
            "this line, and so does rdma-provision; write 0000:0b:00.0");
}

TEST(Mlx4Conf, EthOnPortOneWithoutEthOnPortTwoIsRefusedAsRdmaCoreRefusesIt) {
  // mlx4-setup.sh set_dual_port: port 1 eth only with port 2 eth; the line sets nothing.
  for (const char* line : {"0000:0b:00.0 eth ib\n", "0000:0b:00.0 eth auto\n"}) {
    Config cfg;
    Diagnostics diag;
    parse_mlx4_conf(line, kMlx4, cfg, diag);
    EXPECT_TRUE(diag.errors.empty());
    ASSERT_EQ(diag.warnings.size(), 1u) << line;
    EXPECT_EQ(diag.warnings[0].str(),
              "/etc/rdma/mlx4.conf:1: port 1 eth needs port 2 eth: rdma-core's mlx4-setup.sh "
              "refuses this line and sets neither port; so does rdma-provision");
    EXPECT_TRUE(cfg.mlx4.empty()) << line;
  }
}

TEST(Mlx4Conf, BadLinesSetNothingAndEveryBadLineIsReported) {
  Config cfg;
  Diagnostics diag;
  parse_mlx4_conf("0000:0b:00.0 eth ethernet\n0000:0c:00.0 ib\n0000:0d:00 ib\nfoo\n", kMlx4, cfg,
                  diag);
  EXPECT_EQ(strs(diag.errors),
            (std::vector<std::string>{
                "/etc/rdma/mlx4.conf:1: port type 'ethernet' is not one of ib, eth, auto",
                "/etc/rdma/mlx4.conf:3: PCI address '0000:0d:00' is not of the form DDDD:BB:DD.F",
            }));
  // A line without a port type mlx4-setup.sh skips ([ -z "$port1" ] && continue).
  EXPECT_EQ(strs(diag.warnings),
            (std::vector<std::string>{"/etc/rdma/mlx4.conf:4: no port type after 'foo' (expected "
                                      "<pci address> <port1 type> [<port2 type>]): rdma-core's "
                                      "mlx4-setup.sh skips this line, and so does "
                                      "rdma-provision"}));
  ASSERT_EQ(cfg.mlx4.size(), 1u);
  EXPECT_TRUE(cfg.mlx4.count(pci("0000:0c:00.0")));
}

// ---------------------------------------------------------------------------------------
// /etc/rdma/modules/*.conf

// The same modules, commented-out entries and layout as rdma-core's shipped
// kernel-boot/modules/{rdma,infiniband,opa}.conf.
const char kRdmaConf[] =
    "# Loaded when any RDMA device is present\n"
    "# iSER initiator\n"
    "ib_iser\n"
    "\n"
    "# iSER target\n"
    "# ib_isert\n"
    "\n"
    "# verbs from user space (libibverbs)\n"
    "ib_uverbs\n"
    "\n"
    "# connection manager from user space (librdmacm)\n"
    "rdma_ucm\n"
    "\n"
    "# RDS\n"
    "# rds_rdma\n"
    "\n"
    "# NFS over RDMA, client\n"
    "xprtrdma\n"
    "\n"
    "# NFS over RDMA, server\n"
    "svcrdma\n";

const char kInfinibandConf[] =
    "# Loaded when an InfiniBand device is present\n"
    "# IP over InfiniBand\n"
    "ib_ipoib\n"
    "\n"
    "# MAD access for the fabric tools\n"
    "ib_umad\n"
    "\n"
    "# SRP target\n"
    "# ib_srpt\n";

const char kOpaConf[] =
    "# Loaded when an Omni-Path\n"
    "# device is present\n"
    "# IP over InfiniBand\n"
    "ib_ipoib\n"
    "\n"
    "# MAD access for the fabric tools\n"
    "ib_umad\n"
    "\n"
    "# virtual Ethernet NIC over OPA\n"
    "opa_vnic\n";

TEST(ModulesConf, ShippedFilesGiveModulesInOrderOnceEachWithTheFirstSource) {
  Config cfg;
  Diagnostics diag;
  parse_modules_conf(kRdmaConf, kRdma, cfg, diag);
  parse_modules_conf(kInfinibandConf, kInfiniband, cfg, diag);
  parse_modules_conf(kOpaConf, kOpa, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_TRUE(diag.warnings.empty());
  std::vector<std::string> names, sources;
  for (const auto& m : cfg.modules) {
    names.push_back(m.value);
    sources.push_back(m.source);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"ib_iser", "ib_uverbs", "rdma_ucm", "xprtrdma",
                                             "svcrdma", "ib_ipoib", "ib_umad", "opa_vnic"}));
  EXPECT_EQ(sources, (std::vector<std::string>{
                         "/etc/rdma/modules/rdma.conf:3", "/etc/rdma/modules/rdma.conf:9",
                         "/etc/rdma/modules/rdma.conf:12", "/etc/rdma/modules/rdma.conf:18",
                         "/etc/rdma/modules/rdma.conf:21", "/etc/rdma/modules/infiniband.conf:3",
                         "/etc/rdma/modules/infiniband.conf:6", "/etc/rdma/modules/opa.conf:10"}));
}

// systemd's modules-load.c apply_file: each line stripped, comments only where a line
// starts ('#' or ';'), the rest one module name; a name that finds no module is logged and
// the file goes on.
TEST(ModulesConf, CommentsStartALineAndANameThatFindsNoModuleIsSkippedWithAWarning) {
  Config cfg;
  Diagnostics diag;
  parse_modules_conf(
      "  ib_isert   # target too\n; systemd comment\n\t\n  # indented\nib-srpt\r\nib_srpt\n"
      "ib_ipoib ib_umad\nrdma_cm.ko\n/lib/modules/ib_uverbs\nrdma_ucm\n",
      kRdma, cfg, diag);
  EXPECT_TRUE(diag.errors.empty()) << strs(diag.errors)[0];
  // ib_isert's line names "ib_isert   # target too" to systemd-modules-load: no module.
  ASSERT_EQ(cfg.modules.size(), 2u);
  EXPECT_EQ(cfg.modules[0].value, "ib_srpt");
  EXPECT_EQ(cfg.modules[0].source.str(), "/etc/rdma/modules/rdma.conf:5");
  EXPECT_EQ(cfg.modules[1].value, "rdma_ucm");
  EXPECT_EQ(strs(diag.warnings),
            (std::vector<std::string>{
                "/etc/rdma/modules/rdma.conf:1: module name 'ib_isert   # target too' contains a "
                "space or a '#' (comments start a line only; one module per line): "
                "systemd-modules-load finds no such module and goes on with the next line "
                "(modules-load.c apply_file); skipped",
                "/etc/rdma/modules/rdma.conf:7: module name 'ib_ipoib ib_umad' contains a space "
                "or a '#' (comments start a line only; one module per line): "
                "systemd-modules-load finds no such module and goes on with the next line "
                "(modules-load.c apply_file); skipped",
                "/etc/rdma/modules/rdma.conf:8: module name 'rdma_cm.ko' may contain only "
                "letters, digits, '_' and '-': systemd-modules-load finds no such module and "
                "goes on with the next line (modules-load.c apply_file); skipped",
                "/etc/rdma/modules/rdma.conf:9: module name '/lib/modules/ib_uverbs' may contain "
                "only letters, digits, '_' and '-': systemd-modules-load finds no such module "
                "and goes on with the next line (modules-load.c apply_file); skipped",
            }));
}

// ---------------------------------------------------------------------------------------
// /etc/modprobe.d/*.conf

// Shaped like rdma-core's providers/mlx4/mlx4.conf with its PFC example enabled, which is
// what Red Hat's guide tells mlx4 users with PFC to do in /etc/modprobe.d/mlx4.conf.
const char kModprobeMlx4[] =
    "# Module options for the mlx4 driver family.\n"
    "# Changes here survive package upgrades.\n"
    "#\n"
    "# debugging, no SR-IOV\n"
    "#options mlx4_core debug_level=1 log_num_mgm_entry_size=-1 probe_vf=0 num_vfs=0\n"
    "#\n"
    "# PFC for both directions,\n"
    "# no-drop on priorities 0 and 1\n"
    "options mlx4_en pfctx=3 pfcrx=3\n";

TEST(ModprobeConf, PfcExampleFromRdmaCoreFillsPfcAndModuleOptions) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf(kModprobeMlx4, kModprobe, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_TRUE(diag.warnings.empty());
  ASSERT_TRUE(cfg.pfc_tx && cfg.pfc_rx);
  EXPECT_EQ(cfg.pfc_tx->value, 3u);
  EXPECT_EQ(cfg.pfc_rx->value, 3u);
  EXPECT_EQ(cfg.pfc_tx->source.str(), "/etc/modprobe.d/mlx4.conf:9");
  EXPECT_EQ(cfg.module_options.at("mlx4_en").value, "pfctx=3 pfcrx=3");
  EXPECT_EQ(cfg.module_options.at("mlx4_en").source.str(), "/etc/modprobe.d/mlx4.conf:9");
  EXPECT_EQ(cfg.module_options.size(), 1u) << "commented-out options are not options";
}

TEST(ModprobeConf, OptionsForOneModuleAreJoinedInOrderAndDashesBecomeUnderscores) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf(
      "options mlx4_core port_type_array=1,2\n"
      "options mlx4-core   log_num_mgm_entry_size=-1 \n"
      "options mlx4_en pfctx=0x08 pfcrx=0x08\n",
      kModprobe, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_TRUE(diag.warnings.empty());
  const auto& core = cfg.module_options.at("mlx4_core");
  EXPECT_EQ(core.value, "port_type_array=1,2 log_num_mgm_entry_size=-1");
  EXPECT_EQ(core.source.str(), "/etc/modprobe.d/mlx4.conf:1, /etc/modprobe.d/mlx4.conf:2");
  EXPECT_EQ(cfg.pfc_tx->value, 8u);
  EXPECT_EQ(cfg.pfc_rx->value, 8u);
  EXPECT_TRUE(cfg.mlx4.empty()) << "port_type_array is one array for all cards: the plan decides";
}

TEST(ModprobeConf, OptionsAcrossFilesAppendLikeModprobe) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf("options ib_ipoib recv_queue_size=512\n", "/etc/modprobe.d/a.conf", cfg,
                      diag);
  parse_modprobe_conf("options ib_ipoib send_queue_size=256\n", "/etc/modprobe.d/b.conf", cfg,
                      diag);
  EXPECT_EQ(cfg.module_options.at("ib_ipoib").value, "recv_queue_size=512 send_queue_size=256");
  EXPECT_EQ(cfg.module_options.at("ib_ipoib").source.str(),
            "/etc/modprobe.d/a.conf:1, /etc/modprobe.d/b.conf:1");
}

TEST(ModprobeConf, BackslashContinuesALineAndTheFirstLineIsTheSource) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf(
      "# PFC\noptions mlx4_en \\\n    pfctx=0x08 \\\n    pfcrx=0x0c\n"
      "blacklist mlx4_en\n",
      kModprobe, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_EQ(cfg.module_options.at("mlx4_en").value, "pfctx=0x08     pfcrx=0x0c");
  EXPECT_EQ(cfg.pfc_rx->value, 0x0cu);
  EXPECT_EQ(cfg.pfc_rx->source.str(), "/etc/modprobe.d/mlx4.conf:2");
  ASSERT_EQ(cfg.blacklist.size(), 1u);
  EXPECT_EQ(cfg.blacklist[0].source.str(), "/etc/modprobe.d/mlx4.conf:5");
}

TEST(ModprobeConf, BlacklistIsNormalisedAndKeptOnce) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf("blacklist rpcrdma\nblacklist ib-srpt\nblacklist ib_srpt\n", kModprobe, cfg,
                      diag);
  EXPECT_TRUE(diag.errors.empty());
  ASSERT_EQ(cfg.blacklist.size(), 2u);
  EXPECT_EQ(cfg.blacklist[0].value, "rpcrdma");
  EXPECT_EQ(cfg.blacklist[1].value, "ib_srpt");
  EXPECT_EQ(cfg.blacklist[1].source.str(), "/etc/modprobe.d/mlx4.conf:2");
}

TEST(ModprobeConf, InstallTrueOrFalseForbidsAModuleOtherCommandsDoNot) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf(
      "install ib_srpt /bin/true\ninstall rds /usr/bin/false\n"
      "install mlx4_core /sbin/modprobe --ignore-install mlx4_core && /usr/libexec/x\n",
      kModprobe, cfg, diag);
  EXPECT_TRUE(diag.ok());
  ASSERT_EQ(cfg.forbidden.size(), 2u);
  EXPECT_EQ(cfg.forbidden.at("ib_srpt").value, "/bin/true");
  EXPECT_EQ(cfg.forbidden.at("ib_srpt").source.str(), kModprobe + ":1");
  EXPECT_EQ(cfg.forbidden.at("rds").value, "/usr/bin/false");
  EXPECT_EQ(cfg.forbidden.count("mlx4_core"), 0u);
}

TEST(ModprobeConf, ModprobeOwnDirectivesAreIgnoredSilently) {
  // Red Hat's rdma.mlx4.sys.modprobe and the usual neighbours in /etc/modprobe.d.
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf(
      "install mlx4_core /sbin/modprobe --ignore-install mlx4_core $CMDLINE_OPTS && "
      "(/usr/libexec/mlx4-setup.sh < /etc/rdma/mlx4.conf; /sbin/modprobe mlx4_en)\n"
      "remove mlx4_core /sbin/modprobe -r --ignore-remove mlx4_core\n"
      "softdep mlx4_core post: mlx4_en mlx4_ib\n"
      "alias net-pf-27 ib_sdp\n",
      kModprobe, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_TRUE(diag.warnings.empty());
  EXPECT_TRUE(cfg.module_options.empty());
  EXPECT_TRUE(cfg.blacklist.empty());
}

TEST(ModprobeConf, UnknownDirectivesAndBadLinesModprobeIgnoresAreWarningsOnly) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf(
      "option mlx4_en pfctx=8\n"
      "include /etc/modprobe.d/other\n"
      "options mlx4_en\n"
      "options\n"
      "blacklist\n"
      "blacklist mlx4_ib # not on this node\n"
      "options mlx4_en pfctx=0x08 # priority 3\n",
      kModprobe, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_EQ(strs(diag.warnings),
            (std::vector<std::string>{
                "/etc/modprobe.d/mlx4.conf:1: unknown directive 'option'; modprobe ignores this "
                "line",
                "/etc/modprobe.d/mlx4.conf:2: 'include' is no longer supported by modprobe; line "
                "ignored",
                "/etc/modprobe.d/mlx4.conf:3: 'options' for 'mlx4_en' has no parameters; modprobe "
                "ignores this line",
                "/etc/modprobe.d/mlx4.conf:4: 'options' without a module name; modprobe ignores "
                "this line",
                "/etc/modprobe.d/mlx4.conf:5: 'blacklist' without a module name; modprobe ignores "
                "this line",
                "/etc/modprobe.d/mlx4.conf:6: text after the module name is ignored: '# not on "
                "this node'",
                "/etc/modprobe.d/mlx4.conf:7: '#' starts a comment only at the start of a line; "
                "modprobe passes '# priority 3' to 'mlx4_en' as parameters: the kernel ignores "
                "those it does not know and applies the others",
            }));
  EXPECT_EQ(cfg.module_options.at("mlx4_en").value, "pfctx=0x08 # priority 3");
  EXPECT_EQ(cfg.pfc_tx->value, 8u);
  EXPECT_EQ(cfg.blacklist.size(), 1u);
}

TEST(ModprobeConf, PfcWithALeadingZeroIsOctalAsTheKernelReadsIt) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf("options mlx4_en pfctx=010 pfcrx=07\n", kModprobe, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_EQ(strs(diag.warnings),
            (std::vector<std::string>{"/etc/modprobe.d/mlx4.conf:1: pfctx '010' has a leading "
                                      "zero: the kernel reads it as octal, 0x08"}));
  EXPECT_EQ(cfg.pfc_tx->value, 8u);
  EXPECT_EQ(cfg.pfc_rx->value, 7u);
}

TEST(ModprobeConf, QuotedParameterValuesAreReadLikeTheKernel) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf("options mlx4_en pfctx=\"0x08\" \"pfcrx=4\"\n", kModprobe, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_EQ(cfg.pfc_tx->value, 8u);
  EXPECT_EQ(cfg.pfc_rx->value, 4u);
}

TEST(ModprobeConf, LaterPfcValueWinsAsInTheKernel) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf("options mlx4_en pfctx=1\noptions mlx4_en pfctx=2\n", kModprobe, cfg, diag);
  EXPECT_EQ(cfg.pfc_tx->value, 2u);
  EXPECT_EQ(cfg.pfc_tx->source.str(), "/etc/modprobe.d/mlx4.conf:2");
  EXPECT_FALSE(cfg.pfc_rx.has_value());
}

TEST(ModprobeConf, PfcOfOtherModulesIsNotMlx4Pfc) {
  Config cfg;
  Diagnostics diag;
  parse_modprobe_conf("options mlx5_core pfctx=0x08\n", kModprobe, cfg, diag);
  EXPECT_FALSE(cfg.pfc_tx.has_value());
  EXPECT_EQ(cfg.module_options.at("mlx5_core").value, "pfctx=0x08");
}

// ---------------------------------------------------------------------------------------
// /etc/udev/rules.d/70-persistent-ipoib.rules

// "<rules file>:<line>: "
std::string U(int line) { return std::string(kRules) + ":" + std::to_string(line) + ": "; }

const char kIpoibRules[] =
    "# Persistent IPoIB names. Type 32 is IPoIB; match only the last 8 bytes of the\n"
    "# address (the port GUID) after ?*, in lower case.\n"
    "# Names are at most 15 bytes.\n"
    "#\n"
    "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
    "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"mlx4_ib0\"\n"
    "\n"
    "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
    "ATTR{address}==\"?*f4:52:14:03:00:7b:cb:a1\", NAME=\"mlx4_ib1\"\n"
    "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"1\", "
    "ATTR{address}==\"52:54:00:12:34:56\", NAME=\"roce_a\"\n";

TEST(IpoibRules, RdmaCoreSampleRulesNameGuidsAndMacs) {
  Config cfg;
  Diagnostics diag;
  parse_ipoib_rules(kIpoibRules, kRules, cfg, diag);
  EXPECT_TRUE(diag.errors.empty()) << strs(diag.errors)[0];
  EXPECT_TRUE(diag.warnings.empty());
  ASSERT_EQ(cfg.names.size(), 3u);

  const auto& ib0 = cfg.names.at("mlx4_ib0");
  EXPECT_TRUE(ib0.value == HwKey::of_guid(PortGuid{0x0002c903003178f2ULL}));
  EXPECT_EQ(ib0.source.str(), "/etc/udev/rules.d/70-persistent-ipoib.rules:5");

  const auto& ib1 = cfg.names.at("mlx4_ib1");
  EXPECT_EQ(ib1.value.str(), "f452:1403:007b:cba1");
  EXPECT_EQ(ib1.source.str(), "/etc/udev/rules.d/70-persistent-ipoib.rules:7");

  const auto& roce = cfg.names.at("roce_a");
  EXPECT_FALSE(roce.value.is_guid());
  EXPECT_EQ(roce.value.str(), "52:54:00:12:34:56");
}

TEST(IpoibRules, FullTwentyByteAddressIsCutToTheGuidWithAWarning) {
  // The address as `ip link show ib0` prints it (Red Hat's guide), pasted whole.
  Config cfg;
  Diagnostics diag;
  parse_ipoib_rules(
      "SUBSYSTEM==\"net\", ACTION==\"add\", ATTR{type}==\"32\", "
      "ATTR{address}==\"80:00:02:00:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1\", "
      "NAME=\"ib_fabric0\"\n",
      kRules, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_EQ(strs(diag.warnings),
            (std::vector<std::string>{
                "/etc/udev/rules.d/70-persistent-ipoib.rules:1: ATTR{address} match "
                "'80:00:02:00:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1' is a full 20-byte "
                "IPoIB address: its first 12 bytes (QPN, subnet prefix) change, which breaks the "
                "match; only the port GUID f452:1403:007b:cba1 is used (write "
                "ATTR{address}==\"?*f4:52:14:03:00:7b:cb:a1\")"}));
  EXPECT_EQ(cfg.names.at("ib_fabric0").value.str(), "f452:1403:007b:cba1");
}

TEST(IpoibRules, WithoutTypeTheAddressLengthDecidesAndContinuationLinesJoin) {
  Config cfg;
  Diagnostics diag;
  parse_ipoib_rules(
      "ACTION==\"add\", SUBSYSTEM==\"net\", \\\n"
      "  ATTR{address}==\"?*00:02:c9:03:00:31:78:f3\", NAME:=\"mlx4_ib3\"\n"
      "ACTION==\"add\", ATTR{address}==\"52:54:00:12:34:57\", NAME=\"roce_b\"\n",
      kRules, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_TRUE(diag.warnings.empty()) << strs(diag.warnings)[0];
  EXPECT_TRUE(cfg.names.at("mlx4_ib3").value.is_guid());
  // udev's messages name the last physical line of a continued rule (udev_rules_parse_file).
  EXPECT_EQ(cfg.names.at("mlx4_ib3").source.str(), "/etc/udev/rules.d/70-persistent-ipoib.rules:2");
  EXPECT_FALSE(cfg.names.at("roce_b").value.is_guid());
  EXPECT_EQ(cfg.names.at("roce_b").source.str(), "/etc/udev/rules.d/70-persistent-ipoib.rules:3");
}

TEST(IpoibRules, RulesThatNameNothingByAddressAreIgnoredWithAWarning) {
  Config cfg;
  Diagnostics diag;
  parse_ipoib_rules(
      "ACTION==\"add\", SUBSYSTEM==\"net\", ATTR{type}==\"32\", RUN+=\"/bin/true\"\n"
      "SUBSYSTEM==\"net\", KERNEL==\"ib0\", NAME=\"ipoib_a\"\n"
      "SUBSYSTEM==\"net\", ATTR{type}==\"772\", ATTR{address}==\"00:00:00:00:00:00\", "
      "NAME=\"lo_x\"\n"
      "SUBSYSTEM==\"block\", ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"disk_x\"\n",
      kRules, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_EQ(strs(diag.warnings),
            (std::vector<std::string>{
                U(1) + "rule has no NAME= assignment; ignored",
                U(2) + "rule for NAME 'ipoib_a' has no ATTR{address}== match; ignored (names "
                       "are read here by address only)",
                U(3) + "ATTR{type}==\"772\" never matches (on the Ethernet interface's add "
                       "event it is '1'): udev renames nothing with this rule, and neither "
                       "does rdma-provision",
                U(4) + "SUBSYSTEM==\"block\" never matches (on the IPoIB interface's add event "
                       "it is 'net'): udev renames nothing with this rule, and neither does "
                       "rdma-provision",
            }));
  EXPECT_TRUE(cfg.names.empty());
}

// What udev never matches renames nothing here either; what it cannot check here is said.
TEST(IpoibRules, MatchesUdevNeverMakesRenameNothing) {
  Config cfg;
  Diagnostics diag;
  parse_ipoib_rules(
      "ATTR{type}==\"32\", ATTR{address}==\"?*00:02:C9:03:00:31:78:F2\", NAME=\"mlx4_ib0\"\n"
      "ATTR{type}==\"32\", ATTR{address}==\"00:02:c9:03:00:31:78:f3\", NAME=\"mlx4_ib1\"\n"
      "ATTR{address}==\"?*00:02:c9:03:00:31:78:f4\", ATTR{dev_port}==\"1\", NAME=\"mlx4_ib2\"\n"
      "ATTR{address}==\"?*00:02:c9:03:00:31:78:f4\", NAME=\"mlx4_ib2\"\n",
      kRules, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  EXPECT_EQ(strs(diag.warnings),
            (std::vector<std::string>{
                U(1) + "ATTR{address} match '?*00:02:C9:03:00:31:78:F2' has upper-case "
                       "letters: udev compares case-sensitively with the lower-case sysfs "
                       "address and never matches it (write it in lower case, or i\"...\"); "
                       "this alternative renames nothing here",
                U(2) + "ATTR{address} match '00:02:c9:03:00:31:78:f3' has 8 bytes and no "
                       "leading '?*': an IPoIB address has 20, a MAC 6, so udev never matches "
                       "it (write '?*' and the 8 bytes of the port GUID); this alternative "
                       "renames nothing here",
                U(3) + "not checked here (the address decides): ATTR{dev_port}==\"1\"",
            }));
  ASSERT_EQ(cfg.names.size(), 1u);
  EXPECT_EQ(cfg.names.at("mlx4_ib2").source.str(), U(4).substr(0, U(4).size() - 2));
}

// systemd's rule tests (test/udev-test.pl, now test/udev-test.py; src/udev/test-udev-rules.c
// TEST(udev_rule_parse_value)) turned into rows for a network interface's add event: the
// IPoIB port 0002:c903:0031:78f2 (kernel name ib<N>) unless the rule names a MAC. Each
// row: the rules, then the names given ("name=key" in file order, "" for none).
struct Row {
  const char* desc;  // the udev test it follows
  std::string rules;
  std::string names;
};

std::string given(const Config& cfg) {
  std::string out;
  for (const auto& [name, key] : cfg.names)
    out += (out.empty() ? "" : " ") + name + "=" + key.value.str();
  return out;
}

TEST(IpoibRules, ConformanceWithSystemdsRuleTests) {
  const std::string a = "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", ";
  const std::string g = "=0002:c903:0031:78f2";
  const std::vector<Row> rows = {
      // Lines: udev-test "backslashed multi lines", "stupid backslashed multi lines",
      // "continuations" (comments inside a continuation are skipped, the rule goes on),
      // "continuations with empty line" (an empty line ends it).
      {"backslashed multi lines", "ACTION==\"add\", \\\n" + a + "\\\nNAME=\"fab0\"\n", "fab0" + g},
      {"comment inside a continuation",
       "ACTION==\"add\", \\\n# a comment\n  # indented\n" + a + "\\\n  NAME=\"fab0\"\n",
       "fab0" + g},
      {"comment ending in a backslash starts nothing", "#\\\n" + a + "NAME=\"fab0\"\n", "fab0" + g},
      {"empty line ends a continuation", a + "\\\n\nNAME=\"fab0\"\n", ""},
      {"continuation at end of file is dropped", a + "NAME=\"fab0\" \\\n", ""},
      {"indented rule", "   \t" + a + "NAME=\"fab0\"\n", "fab0" + g},
      // Pairs: "symlink only rule with %c{N+}" (no comma needed), "GOTO label does not
      // exist" (a trailing comma), "invalid key operation" (the line is dropped, the file
      // read on).
      {"no comma between pairs", "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\" NAME=\"fab0\"\n",
       "fab0" + g},
      {"trailing comma", a + "NAME=\"fab0\",\n", "fab0" + g},
      {"invalid key operation drops only its line",
       "ACTION=\"add\", " + a + "NAME=\"no\"\n" + a + "NAME=\"yes\"\n", "yes" + g},
      {"'#' after the pairs is no comment: the line is dropped", a + "NAME=\"fab0\" # x\n", ""},
      {"unknown key drops the line", "FOO==\"1\", " + a + "NAME=\"fab0\"\n", ""},
      // Values: TEST(udev_rule_parse_value): i"" folds case, e"" takes C escapes,
      // \" is the one escape otherwise.
      {"i\"\" folds case", "ATTR{address}==i\"?*00:02:C9:03:00:31:78:F2\", NAME=\"fab0\"\n",
       "fab0" + g},
      {"e\"\" escapes", "ATTR{address}==e\"?*00:02:c9:03:00:31:78:\\x66\\x32\", NAME=\"fab0\"\n",
       "fab0" + g},
      {"i prefix on an assignment drops the line", a + "NAME=i\"fab0\"\n", ""},
      {"doubled prefix drops the line", a + "NAME=ee\"fab0\"\n", ""},
      // Matching: "test multi matches" 1-3 ('|' alternatives), "catch device by ?" and
      // "by character class" (globs), ACTION other than add.
      {"alternatives in ACTION", "ACTION==\"change|add\", " + a + "NAME=\"fab0\"\n", "fab0" + g},
      {"ACTION remove never renames", "ACTION==\"remove\", " + a + "NAME=\"fab0\"\n", ""},
      {"ACTION != add never renames", "ACTION!=\"add\", " + a + "NAME=\"fab0\"\n", ""},
      {"KERNEL glob of the kernel's IPoIB names", "KERNEL==\"ib[0-9]*\", " + a + "NAME=\"fab0\"\n",
       "fab0" + g},
      {"KERNEL eth* never is an IPoIB port", "KERNEL==\"eth*\", " + a + "NAME=\"fab0\"\n", ""},
      {"SUBSYSTEM alternatives", "SUBSYSTEM==\"block|net\", " + a + "NAME=\"fab0\"\n", "fab0" + g},
      {"ATTR{type} 1 never is an IPoIB port", "ATTR{type}==\"1\", " + a + "NAME=\"fab0\"\n", ""},
      {"ATTR{type} glob", "ATTR{type}==\"3?\", " + a + "NAME=\"fab0\"\n", "fab0" + g},
      {"address alternatives: the one that names a port",
       "ATTR{address}==\"none|?*00:02:c9:03:00:31:78:f2\", NAME=\"fab0\"\n", "fab0" + g},
      {"a MAC after ?* never matches an Ethernet port",
       "ATTR{address}==\"?*52:54:00:12:34:56\", NAME=\"roce0\"\n", ""},
      {"a MAC", "ATTR{address}==\"52:54:00:12:34:56\", NAME=\"roce0\"\n",
       "roce0=52:54:00:12:34:56"},
      // NAME: "final assignment" (':=' freezes), the last '=' wins, NAME+= is '=', NAME=""
      // and NAME="%k" are dropped, characters udev replaces become '_'.
      {"last NAME wins", a + "NAME=\"one\"\n" + a + "NAME=\"two\"\n", "two" + g},
      {"NAME:= is final", a + "NAME:=\"one\"\n" + a + "NAME=\"two\"\n", "one" + g},
      {"NAME+= is NAME=", a + "NAME+=\"fab0\"\n", "fab0" + g},
      {"NAME==\"\" before any name", a + "NAME==\"\", NAME=\"fab0\"\n", "fab0" + g},
      {"NAME== the earlier name", a + "NAME=\"one\"\n" + a + "NAME==\"one\", NAME=\"two\"\n",
       "two" + g},
      {"NAME== another name", a + "NAME=\"one\"\n" + a + "NAME==\"x\", NAME=\"two\"\n", "one" + g},
      {"NAME=\"\" dropped", a + "NAME=\"\"\n", ""},
      {"NAME with ':' becomes '_'", a + "NAME=\"ib:a\"\n", "ib_a" + g},
      {"NAME too long is ignored", a + "NAME=\"infiniband_storage0\"\n", ""},
      {"NAME digits only is ignored", a + "NAME=\"123\"\n", ""},
      {"NAME with a substitution is not evaluated", a + "NAME=\"ib_%n\"\n", ""},
  };
  for (const Row& r : rows) {
    Config cfg;
    Diagnostics diag;
    parse_ipoib_rules(r.rules, kRules, cfg, diag);
    EXPECT_TRUE(diag.errors.empty()) << r.desc << ": " << strs(diag.errors)[0];
    EXPECT_EQ(given(cfg), r.names) << r.desc;
    // Whatever udev skips or never matches is said.
    if (r.names.empty()) EXPECT_FALSE(diag.warnings.empty()) << r.desc;
  }
}

// Lines udev refuses are skipped with a warning naming udev's function; the file goes on.
TEST(IpoibRules, LinesUdevSkipsAreWarningsNamingItsFunction) {
  const std::string r1 = "ATTR{type}==\"32\", ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", ";
  const std::vector<std::pair<std::string, std::string>> rows = {
      {r1 + "NAME=\"mlx4_ib0\n",
       U(1) + "cannot read 'NAME=\"mlx4_ib0': the value has no closing '\"': udev ignores this "
              "rule (udev-rules.c parse_line), and so does rdma-provision"},
      {r1 + "NAME=mlx4_ib0\n",
       U(1) + "cannot read 'NAME=mlx4_ib0': the value is not in double quotes: udev ignores "
              "this rule (udev-rules.c parse_line), and so does rdma-provision"},
      {"ATTR{address==\"?*00:02\", NAME=\"a\"\n",
       U(1) + "cannot read 'ATTR{address==\"?*00:02\", NAME=\"a\"': '{' has no closing '}': "
              "udev ignores this rule (udev-rules.c parse_line), and so does rdma-provision"},
      {"ACTION=\"add\", " + r1 + "NAME=\"a\"\n",
       U(1) + "invalid operator for ACTION (=: only == and !=): udev ignores this rule "
              "(udev-rules.c parse_token), and so does rdma-provision"},
      {r1 + "NAME-=\"a\"\n",
       U(1) + "invalid operator for NAME (-=): udev ignores this rule (udev-rules.c "
              "parse_token), and so does rdma-provision"},
      {"ATTR{address}==\"?*00:02:c9:03:00:31:78:zz\", NAME=\"mlx4_ib0\"\n",
       U(1) + "ATTR{address} match '?*00:02:c9:03:00:31:78:zz' is not an address sysfs shows "
              "(hex bytes separated by ':'), so udev never matches it; this alternative "
              "renames nothing here"},
      {"ATTR{address}==\"?*00:02:c9:03:00:31:78:f[23]\", NAME=\"mlx4_ib0\"\n",
       U(1) + "ATTR{address} match '?*00:02:c9:03:00:31:78:f[23]' is a pattern that does not "
              "name one port GUID ('?*' and 8 bytes) or one address; udev applies it to "
              "whatever matches, this reader does not resolve it; this alternative renames "
              "nothing here"},
      {r1 + "NAME=\"mlx4_ib0\"\n" + r1.substr(0, r1.size() - 4) + "3\", NAME=\"mlx4_ib0\"\n",
       U(2) + "name 'mlx4_ib0' is already given to 0002:c903:0031:78f2 at " + kRules +
           ":1: where both are present, the one udev handles second keeps its kernel name "
           "(rename_netif: File exists); only the first is named here"},
  };
  for (const auto& [text, warning] : rows) {
    Config cfg;
    Diagnostics diag;
    parse_ipoib_rules(text + r1 + "NAME=\"after\"\n", kRules, cfg, diag);
    EXPECT_TRUE(diag.errors.empty()) << text;
    EXPECT_EQ(strs(diag.warnings).at(0), warning) << text;
    EXPECT_EQ(cfg.names.count("after"), 1u) << text << ": the rest of the file still applies";
  }
}

TEST(IpoibRules, ALaterRulesFileRenamesWhatAnEarlierSourceNamed) {
  Config cfg;
  Diagnostics diag;
  const std::string rule = "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"";
  parse_ipoib_rules(rule + "old_name\"\n", "/etc/udev/rules.d/60-old.rules", cfg, diag);
  parse_ipoib_rules(rule + "new_name\"\n", kRules, cfg, diag);
  EXPECT_TRUE(diag.errors.empty());
  ASSERT_EQ(cfg.names.size(), 1u);
  EXPECT_EQ(cfg.names.begin()->first, "new_name");
}

// ---------------------------------------------------------------------------------------
// Malformed inputs: each with its exact, complete list of messages.

struct Bad {
  const char* name;
  Parser parse;
  const std::string& file;
  std::string text;
  std::vector<std::string> errors;
};

const std::string kRuleHead =
    "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", ";

std::vector<Bad> bad_inputs() {
  const std::string M = kMlx4 + ":", R = kRdma + ":", P = kModprobe + ":", U = kRules + ":";
  const std::string usage = " (expected <pci address> <port1 type> [<port2 type>])";
  const std::string r1 = kRuleHead + "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", ";
  const std::string r2 = kRuleHead + "ATTR{address}==\"?*00:02:c9:03:00:31:78:f3\", ";
  // One case per entry reads better than one field per line.
  // clang-format off
  return {
      // mlx4.conf
      {"Mlx4TypeSpelledOut", parse_mlx4_conf, kMlx4, "0000:0b:00.0 ib\n0000:0c:00.0 ethernet eth\n",
       {M + "2: port type 'ethernet' is not one of ib, eth, auto"}},
      {"Mlx4TypeInUpperCase", parse_mlx4_conf, kMlx4, "0000:0b:00.0 ETH\n",
       {M + "1: port type 'ETH' is not one of ib, eth, auto"}},
      {"Mlx4PciWithoutFunction", parse_mlx4_conf, kMlx4, "0000:0b:00 eth\n",
       {M + "1: PCI address '0000:0b:00' is not of the form DDDD:BB:DD.F"}},
      {"Mlx4SysfsPathInsteadOfAddress", parse_mlx4_conf, kMlx4,
       "/sys/bus/pci/devices/0000:0b:00.0 eth\n",
       {M + "1: PCI address '/sys/bus/pci/devices/0000:0b:00.0' is not of the form "
            "DDDD:BB:DD.F"}},
      {"Mlx4ThreePortTypes", parse_mlx4_conf, kMlx4, "0000:0b:00.0 eth eth auto\n",
       {M + "1: too many fields: 'auto' after the port 2 type" + usage}},
      {"Mlx4SameCardTwice", parse_mlx4_conf, kMlx4,
       "# cards\n0000:0b:00.0 eth eth\n\n0b:00.0 ib ib\n",
       {M + "4: PCI address '0b:00.0' is already set at /etc/rdma/mlx4.conf:2"}},
      {"Mlx4NulInsideAType", parse_mlx4_conf, kMlx4, std::string("0000:0b:00.0 e\0h\n", 17),
       {M + "1: port type 'e\\x00h' is not one of ib, eth, auto"}},
      {"Mlx4EqualsSyntax", parse_mlx4_conf, kMlx4, "0000:0b:00.0 port1=eth\n",
       {M + "1: port type 'port1=eth' is not one of ib, eth, auto"}},
      // modprobe.d
      {"PfcTxAboveEightBits", parse_modprobe_conf, kModprobe, "options mlx4_en pfctx=0x100\n",
       {P + "1: pfctx '0x100' is out of range 0..0xff"}},
      {"PfcRxNotANumber", parse_modprobe_conf, kModprobe, "options mlx4_en pfctx=8 pfcrx=high\n",
       {P + "1: pfcrx 'high' is not a number (a priority bitmask, e.g. 0x08)"}},
      {"PfcWithoutValue", parse_modprobe_conf, kModprobe, "options mlx4_en pfctx\n",
       {P + "1: pfctx has no value (write pfctx=0x08 for priority 3)"}},
      {"PfcEmptyValue", parse_modprobe_conf, kModprobe, "options mlx4_en pfctx=\n",
       {P + "1: pfctx '' is not a number (a priority bitmask, e.g. 0x08)"}},
      {"PfcBadOctal", parse_modprobe_conf, kModprobe, "options mlx4_en pfcrx=09\n",
       {P + "1: pfcrx '09' is not a number: with a leading zero the kernel reads octal"}},
      {"PfcOctalOutOfRange", parse_modprobe_conf, kModprobe, "options mlx4_en pfctx=0400\n",
       {P + "1: pfctx '0400' is out of range 0..0xff"}},
      {"PfcOutOfRangeOnAContinuedLine", parse_modprobe_conf, kModprobe,
       "\noptions mlx4_en \\\n  pfctx=0x08 \\\n  pfcrx=256\n",
       {P + "2: pfcrx '256' is out of range 0..0xff"}},
      {"PfcNegative", parse_modprobe_conf, kModprobe, "options mlx4_en pfctx=-1\n",
       {P + "1: pfctx '-1' is not a number (a priority bitmask, e.g. 0x08)"}},
      {"OptionsModuleWithDot", parse_modprobe_conf, kModprobe, "options mlx4.en pfctx=8\n",
       {P + "1: module name 'mlx4.en' may contain only letters, digits, '_' and '-'"}},
      {"BlacklistFileName", parse_modprobe_conf, kModprobe, "blacklist mlx4_core.ko\n",
       {P + "1: module name 'mlx4_core.ko' may contain only letters, digits, '_' and '-'"}},
      {"PfcErrorsOnSeveralLinesAllReported", parse_modprobe_conf, kModprobe,
       "options mlx4_en pfctx=0x1ff\noptions mlx4_en pfcrx=x\n",
       {P + "1: pfctx '0x1ff' is out of range 0..0xff",
        P + "2: pfcrx 'x' is not a number (a priority bitmask, e.g. 0x08)"}},
  };
  // clang-format on
}

TEST(MalformedInputs, EachGivesExactlyItsMessages) {
  const auto cases = bad_inputs();
  EXPECT_GE(cases.size(), 18u);
  for (const Bad& c : cases) {
    Config cfg;
    Diagnostics diag;
    c.parse(c.text, c.file, cfg, diag);
    EXPECT_EQ(strs(diag.errors), c.errors) << c.name;
  }
}

TEST(MalformedInputs, NothingFromABadLineReachesTheConfig) {
  for (const Bad& c : bad_inputs()) {
    Config cfg;
    Diagnostics diag;
    c.parse(c.text, c.file, cfg, diag);
    for (const auto& m : cfg.modules) EXPECT_NE(m.source.str(), diag.errors[0].where) << c.name;
    for (const auto& [name, key] : cfg.names) {
      EXPECT_NE(key.source.str(), diag.errors[0].where) << c.name;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Hostile bytes

TEST(HostileInput, HugeLinesGiveShortMessages) {
  const std::string huge(1 << 20, 'x');
  for (Parser p : {parse_mlx4_conf, parse_modules_conf, parse_modprobe_conf, parse_ipoib_rules}) {
    Config cfg;
    Diagnostics diag;
    p("options mlx4_en pfctx=" + huge + "\n" + huge + "\nNAME=\"" + huge + "\n", kMlx4, cfg, diag);
    for (const auto& e : strs(diag.errors)) EXPECT_LT(e.size(), 400u) << e.substr(0, 100);
    for (const auto& e : strs(diag.warnings)) EXPECT_LT(e.size(), 400u) << e.substr(0, 100);
  }
}

TEST(HostileInput, NulsControlBytesAndLoneBackslashesDoNotCrash) {
  const std::string junk("\0\\\n\\\r\n\"\xff{=\"\\", 13);
  for (Parser p : {parse_mlx4_conf, parse_modules_conf, parse_modprobe_conf, parse_ipoib_rules}) {
    Config cfg;
    Diagnostics diag;
    p(junk, kRules, cfg, diag);
    p("", kRules, cfg, diag);
    p("\\", kRules, cfg, diag);
    for (const auto& e : diag.errors) EXPECT_EQ(e.where.rfind(kRules + ":", 0), 0u);
  }
}

}  // namespace
}  // namespace rp
