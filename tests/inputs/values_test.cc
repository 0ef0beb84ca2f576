// One parser per value: the same bad value gets the same message from every reader (the
// kernel command line, the native config, rdma-core's files), and the same good value
// reaches the Config in the same form.
#include "provision/inputs/values.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/inputs/cmdline.h"
#include "provision/inputs/native_conf.h"
#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/text.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

using Reader = void (*)(std::string_view, const std::string&, Config&, Diagnostics&);

// The command line as a reader of a file, so every reader is called alike.
void cmdline(std::string_view text, const std::string&, Config& cfg, Diagnostics& diag) {
  parse_cmdline(text, cfg, diag);
}

// A value written for one reader.
struct Written {
  Reader reader;
  const char* text;
};

// The messages (without their sources) and the Config of reading `w`.
struct Outcome {
  Config cfg;
  std::vector<std::string> errors, warnings;
};

Outcome read(const Written& w) {
  Outcome o;
  Diagnostics diag;
  w.reader(w.text, "/etc/x.conf", o.cfg, diag);
  for (const auto& e : diag.errors) o.errors.push_back(e.what);
  for (const auto& e : diag.warnings) o.warnings.push_back(e.what);
  return o;
}

const char kModule[] = "module name 'rdma/ucm' may contain only letters, digits, '_' and '-'";
const char kPortType[] = "port type 'ethernet' is not one of ib, eth, auto";
const char kPci[] = "PCI address '81:00' is not of the form DDDD:BB:DD.F";
const char kIfname[] =
    "interface name 'ib0' is of the kernel's own ib<N> form and would collide with an unrenamed "
    "device";
const char kPfc[] = "pfctx '0x100' is out of range 0..0xff";
const char kHwKey[] =
    "address '52:54:00' is neither a port GUID (0002:c903:0031:78f2), a MAC address "
    "(aa:bb:cc:dd:ee:ff), a PCI function (pci-0000:af:00.0) nor an RDMA port (mlx5_0/1)";
const char kPkey[] = "P_Key '8000' is invalid: 0x0000 and 0x8000 have no partition number";

// Each bad value, written for every reader that takes it, with what each must say.
const struct {
  const char* message;
  Written written;
} kSameMessage[] = {
    {kModule, {cmdline, "rd.rdma.modules=rdma/ucm"}},
    {kModule, {parse_native_conf, "[modules]\nload = rdma/ucm\n"}},
    {kModule, {parse_native_conf, "[module rdma/ucm]\n"}},
    {kModule, {parse_modprobe_conf, "blacklist rdma/ucm\n"}},
    {kModule, {parse_modprobe_conf, "options rdma/ucm x=1\n"}},
    {kPortType, {cmdline, "rd.rdma.mlx4=0000:81:00.0/ethernet"}},
    {kPortType, {parse_native_conf, "[mlx4 0000:81:00.0]\nport1 = ethernet\n"}},
    {kPortType, {parse_mlx4_conf, "0000:81:00.0 ethernet\n"}},
    {kPci, {cmdline, "rd.rdma.mlx4=81:00/eth"}},
    {kPci, {parse_native_conf, "[mlx4 81:00]\n"}},
    {kPci, {parse_mlx4_conf, "81:00 eth\n"}},
    {kIfname, {cmdline, "rd.rdma.name=ib0:0002:c903:0031:78f2"}},
    {kIfname, {parse_native_conf, "[name ib0]\n"}},
    {kIfname, {parse_native_conf, "[nodes]\n52:54:00:00:00:01 name=ib0\n"}},
    // (70-persistent-ipoib.rules may name a port ib0: a warning there, see
    // IpoibRules.ARuleNamingAPortIb0IsKeptWithAWarning.)
    {kPfc, {cmdline, "rd.rdma.mlx4.pfc=0x100"}},
    {kPfc, {parse_native_conf, "[pfc]\ntx = 0x100\n"}},
    {kPfc, {parse_modprobe_conf, "options mlx4_en pfctx=0x100\n"}},
    {kHwKey, {cmdline, "rd.rdma.name=ib-a:52:54:00"}},
    {kHwKey, {parse_native_conf, "[name ib-a]\nmatch = 52:54:00\n"}},
    {kHwKey, {parse_native_conf, "[nodes]\n52:54:00 name=ib-a\n"}},
    {kPkey, {cmdline, "rd.rdma.pkey=ib0:8000"}},
    {kPkey, {cmdline, "ib.pkey=ib0.8000"}},
    {kPkey, {parse_native_conf, "[pkey ib0 8000]\n"}},
    {kPkey, {parse_native_conf, "[nodes]\n52:54:00:00:00:01 pkeys=8000\n"}},
};

TEST(OneParserPerValue, ABadValueGetsTheSameMessageFromEveryReader) {
  for (const auto& c : kSameMessage) {
    EXPECT_EQ(read(c.written).errors, std::vector<std::string>{c.message}) << c.written.text;
  }
  // rdma-core's module lists: the same words as a warning, since systemd-modules-load goes
  // on after a line that names no module (modules-load.c apply_file).
  const Outcome list = read({parse_modules_conf, "rdma/ucm\n"});
  EXPECT_TRUE(list.errors.empty());
  ASSERT_EQ(list.warnings.size(), 1u);
  EXPECT_EQ(list.warnings[0].rfind(kModule, 0), 0u) << list.warnings[0];
}

TEST(OneParserPerValue, DcbSettingsFromTheCommandLineAndTheFile) {
  // One parser per DCB value (inputs/dcb_values.cc) for rd.rdma.dcb= and [dcb X]; lists
  // joined with '+' on the command line, spaces in the file.
  const Outcome c = read({cmdline,
                          "rd.rdma.dcb=ens1f0np0:trust=dscp,pfc=3+4,tc_bw=0:50+3:50,"
                          "prio_tc=3:3,dscp_prio=26:3+46:5"});
  const Outcome f = read({parse_native_conf,
                          "[dcb ens1f0np0]\ntrust = dscp\npfc = 3 4\ntc_bw = 0:50 3:50\n"
                          "prio_tc = 3:3\ndscp_prio = 26:3 46:5\n"});
  for (const Outcome* o : {&c, &f}) {
    EXPECT_EQ(o->errors, std::vector<std::string>{});
    ASSERT_EQ(o->cfg.dcb.count("ens1f0np0"), 1u);
    const DcbSetting& s = o->cfg.dcb.at("ens1f0np0");
    EXPECT_EQ(s.trust->value, DcbTrust::kDscp);
    EXPECT_EQ(s.pfc->value, 0x18);
    EXPECT_EQ(s.tc_bw->value, (std::array<uint8_t, 8>{50, 0, 0, 50, 0, 0, 0, 0}));
    EXPECT_EQ(s.prio_tc->value, (std::map<uint8_t, uint8_t>{{3, 3}}));
    EXPECT_EQ(s.dscp_prio->value, (std::map<uint8_t, uint8_t>{{26, 3}, {46, 5}}));
  }
  EXPECT_EQ(read({cmdline, "rd.rdma.dcb=ens1f0np0:pfc=none"}).cfg.dcb.at("ens1f0np0").pfc->value,
            0);
  const struct {
    const char* value;
    const char* message;
  } kBad[] = {
      {"trust=vlan", "trust 'vlan' is not pcp or dscp"},
      {"pfc=8", "PFC priority '8' is not 0..7 (the 802.1p priorities)"},
      {"pfc=", "PFC priorities are empty (e.g. 3, or none)"},
      {"tc_bw=0:50+3:40",
       "tc-bw '0:50+3:40' sums to 90%: the ETS classes' bandwidths must sum to 100 (mlx5 "
       "refuses any other sum, en_dcbnl.c mlx5e_dbcnl_validate_ets)"},
      {"tc_bw=8:100", "tc-bw: '8:100' is not <0..7>:<0..100> (e.g. 0:50+3:50)"},
      {"dscp_prio=64:3", "dscp-prio: '64:3' is not <0..63>:<0..7> (e.g. 26:3)"},
      {"dscp_prio=26:3+26:4", "dscp-prio: 26 is given twice"},
      {"prio_tc=3", "prio-tc: '3' is not <0..7>:<0..7> (e.g. 3:3)"},
      {"speed=100", "unknown DCB setting 'speed' (known: trust, pfc, tc_bw, prio_tc, dscp_prio)"},
  };
  for (const auto& b : kBad) {
    const std::string text = std::string("rd.rdma.dcb=ens1f0np0:") + b.value;
    EXPECT_EQ(read({cmdline, text.c_str()}).errors, std::vector<std::string>{b.message}) << text;
  }
}

TEST(OneParserPerValue, ExpectedLinksFromTheCommandLineAndTheFile) {
  // One parser per value (inputs/expect_values.cc) for rd.rdma.expect= and [expect X], in
  // the forms the kernel prints: rate_show's "400 Gb/sec (4X NDR)", phys_state_show's
  // words, pci_speed_string's "16.0 GT/s PCIe".
  const Outcome c = read({cmdline,
                          "rd.rdma.expect=*:rate=400,width=4x,link_layer=InfiniBand,"
                          "phys_state=linkup,sm=yes rd.rdma.expect=pci-0000:3b:00.0:fw=28.39.1002,"
                          "pcie_speed=16,pcie_width=max"});
  const Outcome f = read({parse_native_conf,
                          "[expect *]\nrate = 400\nwidth = 4X\nlink_layer = infiniband\n"
                          "phys_state = LinkUp\nsm = yes\n[expect pci-0000:3b:00.0]\n"
                          "fw = 28.39.1002\npcie_speed = 16.0 GT/s\npcie_width = max\n"});
  for (const Outcome* o : {&c, &f}) {
    EXPECT_EQ(o->errors, std::vector<std::string>{});
    ASSERT_EQ(o->cfg.expect.size(), 2u);
    const ExpectSetting& all = o->cfg.expect.at({RdmaSelector::all(), 0});
    EXPECT_EQ(all.rate->value, 4000u);
    EXPECT_EQ(all.width->value, 4u);
    EXPECT_EQ(all.link_layer->value, LinkLayer::kInfiniBand);
    EXPECT_EQ(all.phys_state->value, "LinkUp");
    EXPECT_TRUE(all.sm->value);
    const ExpectSetting& hca = o->cfg.expect.begin()->second.fw ? o->cfg.expect.begin()->second
                                                                : o->cfg.expect.rbegin()->second;
    EXPECT_EQ(hca.fw->value, "28.39.1002");
    EXPECT_EQ(hca.pcie_speed->value, 160u);
    EXPECT_EQ(hca.pcie_width->value, 0u);  // max
  }
  // SDR's half rates, a generation, a port of one device.
  const Outcome odd = read({cmdline, "rd.rdma.expect=mlx4_0/2:rate=2.5,pcie_speed=gen3"});
  EXPECT_EQ(odd.errors, std::vector<std::string>{});
  const auto& o = odd.cfg.expect.at({RdmaSelector::named("mlx4_0"), 2});
  EXPECT_EQ(o.rate->value, 25u);
  EXPECT_EQ(o.pcie_speed->value, 80u);
  const struct {
    const char* value;
    const char* message;
  } kBad[] = {
      {"rate=fast",
       "rate 'fast' is not a rate in Gb/s as rate_show prints it (400, 200, 100, "
       "56, 2.5)"},
      {"rate=2.7",
       "rate '2.7' is not a rate in Gb/s as rate_show prints it (400, 200, 100, "
       "56, 2.5)"},
      {"width=3x", "width '3x' is not one of 1x, 2x, 4x, 8x, 12x"},
      {"link_layer=opa", "link layer 'opa' is not one of InfiniBand, Ethernet"},
      {"phys_state=Up",
       "physical state 'Up' is not one of Sleep, Polling, Disabled, "
       "PortConfigurationTraining, LinkUp, LinkErrorRecovery, Phy Test"},
      {"sm=maybe", "value 'maybe' is not a boolean (1/0, yes/no, on/off, true/false)"},
      {"pcie_speed=12",
       "PCIe speed '12' is not one of 2.5, 5, 8, 16, 32, 64 (GT/s), "
       "gen1..gen6 or max"},
      {"pcie_width=x3", "PCIe width 'x3' is not one of x1, x2, x4, x8, x12, x16, x32 or max"},
      {"speed=400",
       "unknown expect key 'speed' (known: rate, width, link_layer, phys_state, sm, "
       "fw, pcie_speed, pcie_width)"},
  };
  for (const auto& b : kBad) {
    const std::string text = std::string("rd.rdma.expect=mlx5_0/1:") + b.value;
    EXPECT_EQ(read({cmdline, text.c_str()}).errors, std::vector<std::string>{b.message}) << text;
  }
}

TEST(OneParserPerValue, FixedRdmaDeviceNamesFromTheCommandLineAndTheFile) {
  const Outcome c = read({cmdline,
                          "rd.rdma.devname=hca0:pci-0000:af:00.0 "
                          "rd.rdma.devname=hca1:guid-9803:9b03:0046:8a11"});
  const Outcome f = read({parse_native_conf,
                          "[devname hca0]\nmatch = pci-0000:af:00.0\n[devname hca1]\n"
                          "match = guid-9803:9b03:0046:8a11\n"});
  for (const Outcome* o : {&c, &f}) {
    EXPECT_EQ(o->errors, std::vector<std::string>{});
    ASSERT_EQ(o->cfg.rdma_names.size(), 2u);
    EXPECT_EQ(o->cfg.rdma_names.at("hca0").value.str(), "pci-0000:af:00.0");
    EXPECT_EQ(o->cfg.rdma_names.at("hca1").value.str(), "guid-9803:9b03:0046:8a11");
  }
  // The name as the RDMA device names are read everywhere (parse_rdma_name), a device
  // selector without "*" (one name names one device).
  EXPECT_EQ(read({cmdline, "rd.rdma.devname=hca/0:mlx5_0"}).errors.size(), 1u);
  EXPECT_EQ(read({cmdline, "rd.rdma.devname=hca0:*"}).errors.size(), 1u);
  EXPECT_EQ(read({cmdline, "rd.rdma.devname=hca0"}).errors.size(), 1u);
}

TEST(OneParserPerValue, NamesByPciFunctionOrRdmaPortFromTheCommandLineAndTheFile) {
  // One parser (parse_hw_key) for rd.rdma.name= and [name X] match =.
  const struct {
    const char* value;
    HwKey::By by;
    const char* shown;
  } kGood[] = {
      {"pci-0000:af:00.0", HwKey::By::kPci, "pci-0000:af:00.0"},
      {"pci-af:00.0", HwKey::By::kPci, "pci-0000:af:00.0"},  // domain left out, as lspci -s
      {"pci-0000:81:00.0/2", HwKey::By::kPci, "pci-0000:81:00.0/2"},
      {"mlx5_0/1", HwKey::By::kRdmaPort, "mlx5_0/1"},
      {"rocep175s0f0/1", HwKey::By::kRdmaPort, "rocep175s0f0/1"},
      {"0002:c903:0031:78f2", HwKey::By::kGuid, "0002:c903:0031:78f2"},
      {"52:54:00:77:00:02", HwKey::By::kMac, "52:54:00:77:00:02"},
  };
  for (const auto& g : kGood) {
    const std::string c = std::string("rd.rdma.name=fab0:") + g.value;
    const std::string f = std::string("[name fab0]\nmatch = ") + g.value + "\n";
    for (const Written& w : {Written{cmdline, c.c_str()}, Written{parse_native_conf, f.c_str()}}) {
      Outcome o = read(w);
      EXPECT_EQ(o.errors, std::vector<std::string>{}) << w.text;
      ASSERT_EQ(o.cfg.names.count("fab0"), 1u) << w.text;
      EXPECT_EQ(o.cfg.names.at("fab0").value.by, g.by) << w.text;
      EXPECT_EQ(o.cfg.names.at("fab0").value.str(), g.shown) << w.text;
    }
  }
  const struct {
    const char* value;
    const char* message;
  } kBad[] = {
      {"pci-0000:af:00",
       "PCI function 'pci-0000:af:00' is not of the form "
       "pci-DDDD:BB:DD.F[/<port>] (pci-0000:af:00.0)"},
      {"pci-0000:af:00.0/0", "port '0' is not a port number 1..255"},
      {"pci-0000:af:00.0/", "port '' is not a port number 1..255"},
      {"mlx5_0/x", "port 'x' is not a port number 1..255"},
      {"/1", "an RDMA device name cannot be empty"},
      {"mlx5@0/1", "RDMA device name 'mlx5@0' may contain only letters, digits, '_', '-' and '.'"},
  };
  for (const auto& b : kBad) {
    const std::string c = std::string("rd.rdma.name=fab0:") + b.value;
    const std::string f = std::string("[name fab0]\nmatch = ") + b.value + "\n";
    for (const Written& w : {Written{cmdline, c.c_str()}, Written{parse_native_conf, f.c_str()}}) {
      EXPECT_EQ(read(w).errors, std::vector<std::string>{b.message}) << w.text;
    }
  }
  // dracut's ifname= takes a MAC only (40network/ifname-genrules.sh: ATTR{address}).
  EXPECT_EQ(read({cmdline, "ifname=fab0:pci-0000:af:00.0"}).errors,
            std::vector<std::string>{
                "dracut stops the boot on this (\"Invalid arguments for ifname=\", net-lib.sh "
                "parse_ifname_opts takes <name> and a 6- or 20-byte address); it is of the form "
                "<name>:<mac>"});
}

TEST(OneParserPerValue, ALeadingZeroPfcMaskIsOctalInEveryReader) {
  for (const Written& w :
       {Written{cmdline, "rd.rdma.mlx4.pfc=010"}, Written{parse_native_conf, "[pfc]\ntx = 010\n"},
        Written{parse_modprobe_conf, "options mlx4_en pfctx=010\n"}}) {
    Outcome o = read(w);
    EXPECT_EQ(o.errors, std::vector<std::string>{}) << w.text;
    EXPECT_EQ(o.warnings, std::vector<std::string>{"pfctx '010' has a leading zero: the kernel "
                                                   "reads it as octal, 0x08"})
        << w.text;
    ASSERT_TRUE(o.cfg.pfc_tx) << w.text;
    EXPECT_EQ(o.cfg.pfc_tx->value, 8u) << w.text;
  }
}

TEST(OneParserPerValue, ModuleNamesReachTheConfigAsTheKernelSpellsThem) {
  for (const Written& w : {Written{cmdline, "rd.rdma.modules=rdma-ucm"},
                           Written{parse_native_conf, "[modules]\nload = rdma-ucm\n"},
                           Written{parse_native_conf, "[module rdma-ucm]\nload = yes\n"},
                           Written{parse_modules_conf, "rdma-ucm\n"}}) {
    Outcome o = read(w);
    ASSERT_EQ(o.cfg.modules.size(), 1u) << w.text;
    EXPECT_EQ(o.cfg.modules[0].value, "rdma_ucm") << w.text;
  }
  for (const Written& w : {Written{parse_native_conf, "[modules]\nblacklist = ib-srpt\n"},
                           Written{parse_modprobe_conf, "blacklist ib-srpt\n"}}) {
    Outcome o = read(w);
    ASSERT_EQ(o.cfg.blacklist.size(), 1u) << w.text;
    EXPECT_EQ(o.cfg.blacklist[0].value, "ib_srpt") << w.text;
  }
  EXPECT_EQ(read({parse_native_conf, "[module mlx4-core]\noptions = a=1\n"})
                .cfg.module_options.count("mlx4_core"),
            1u);
}

TEST(Values, LongValuesAreCutShortInMessages) {
  Diagnostics d;
  EXPECT_FALSE(parse_port_type(std::string(1000, 'x'), src("here"), d));
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].what,
            "port type '" + std::string(64, 'x') + "'... (1000 bytes) is not one of ib, eth, auto");
}

TEST(Values, DidYouMeanOnlyForOneCloseWord) {
  EXPECT_EQ(did_you_mean("tiemout", {"timeout", "wait"}), "(did you mean 'timeout'?)");
  // port3 is as close to port1 as to port2: no guess, the list.
  EXPECT_EQ(did_you_mean("port3", {"port1", "port2", "port1_mtu"}),
            "(known: port1, port2, port1_mtu)");
  EXPECT_EQ(did_you_mean("x", {"address", "route"}), "(known: address, route)");
  // Never the very word given back as the suggestion.
  EXPECT_EQ(closest_word("mlx5_0", {"mlx5_0", "mlx5_1"}), "mlx5_1");
  EXPECT_EQ(closest_word("fab0", {"fab0"}), "");
}

TEST(Values, TheKernelsOwnNamesAreIbOrEthWithANumber) {
  // The names the kernel gives by itself ("ib%d": ipoib_main.c ipoib_add_one; "eth%d":
  // net/ethernet/eth.c alloc_etherdev_mqs), which the next unrenamed device takes; the
  // prefix alone, or with more than digits, is free.
  for (const char* own : {"ib0", "ib12", "eth0", "eth7"}) {
    EXPECT_TRUE(is_kernel_own_name(own)) << own;
  }
  for (const char* free : {"ib", "eth", "ibx0", "ib0a", "eth0.8001", "fabric0"}) {
    EXPECT_FALSE(is_kernel_own_name(free)) << free;
  }
  Diagnostics d;
  EXPECT_EQ(parse_new_ifname("ib", src("here"), d), std::optional<std::string>("ib"));
  EXPECT_FALSE(parse_new_ifname("ib3", src("here"), d));
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].what,
            "interface name 'ib3' is of the kernel's own ib<N> form and would collide with an "
            "unrenamed device");
}

// Names udev would not give (systemd src/basic/socket-util.c ifname_valid_full, applied by
// udev-event.c rename_netif): refused at check in our own inputs, naming the rule.
TEST(Values, ANameUdevRefusesIsRefusedWithTheRule) {
  for (const char* bad : {"all", "default", "1234", "0", "fab\xc3\xa9"}) {
    Diagnostics d;
    EXPECT_FALSE(parse_new_ifname(bad, src("here"), d)) << bad;
    ASSERT_EQ(d.errors.size(), 1u) << bad;
    EXPECT_NE(d.errors[0].what.find(
                  std::string(bad[0] == 'f' ? "ifname_valid_char" : "ifname_valid_full")),
              std::string::npos)
        << d.errors[0].what;
  }
  EXPECT_EQ(udev_refuses_ifname("all"),
            "would stand for every interface in /proc/sys/net/ipv4/conf/all, so udev and "
            "systemd refuse it (ifname_valid_full)");
  for (const char* bad : {"", ".", "..", "name_of_sixteen0", "a b", "ib:a", "a/b", "ib%d"})
    EXPECT_NE(udev_refuses_ifname(bad), "") << bad;
  for (const char* good : {"alll", "all0", "0a", "defaults", "fab0", "ib-a.8001", "te!st!if"}) {
    EXPECT_EQ(udev_refuses_ifname(good), "") << good;
  }
}

TEST(Values, WaitListKeepsOnlyGoodTargets) {
  Config cfg;
  Diagnostics d;
  parse_wait_list("all, mlx5_0/1, ib-a, mlx5_0/0", src("here"), cfg, d);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].what, "port '0' is not a port number 1..255");
  std::vector<std::string> kept;
  for (const auto& w : cfg.wait) kept.push_back(w.value.str());
  EXPECT_EQ(kept, (std::vector<std::string>{"all", "mlx5_0/1", "ib-a"}));
}

// rd.rdma.verify and [general] verify: the same parser, the same Config.
TEST(OneParserPerValue, VerifyFromTheCommandLineAndTheFile) {
  for (const Written& w :
       {Written{cmdline, "rd.rdma.verify=peer:[fd00::1]:9000"},
        Written{parse_native_conf, "[general]\nverify = peer:[fd00::1]:9000\n"}}) {
    Outcome o = read(w);
    EXPECT_TRUE(o.errors.empty()) << w.text;
    EXPECT_EQ(o.cfg.verify.value.str(), "peer:[fd00::1]:9000") << w.text;
  }
  const char kBad[] = "verify 'loopback' is not one of 0, ports, peer, peer:ADDR[:PORT]";
  EXPECT_EQ(read({cmdline, "rd.rdma.verify=loopback"}).errors, std::vector<std::string>{kBad});
  EXPECT_EQ(read({parse_native_conf, "[general]\nverify = loopback\n"}).errors,
            std::vector<std::string>{kBad});
}

TEST(Values, VerifyForms) {
  auto verify = [](const char* text) {
    Config cfg;
    Diagnostics d;
    parse_cmdline(text, cfg, d);
    return d.ok() ? cfg.verify.value.str() : "error: " + d.errors[0].what;
  };
  EXPECT_EQ(verify("rd.rdma.verify"), "ports");  // the key alone, as getargbool reads it
  EXPECT_EQ(verify("rd.rdma.verify=0"), "0");
  EXPECT_EQ(verify("rd.rdma.verify=ports"), "ports");
  EXPECT_EQ(verify("rd.rdma.verify=peer"), "peer");
  EXPECT_EQ(verify("rd.rdma.verify=peer:10.77.0.1"), "peer:10.77.0.1:7472");
  EXPECT_EQ(verify("rd.rdma.verify=peer:10.77.0.1:20"), "peer:10.77.0.1:20");
  EXPECT_EQ(verify("rd.rdma.verify=peer:fd00::1"), "peer:[fd00::1]:7472");
  // A name is not an address (rdma_resolve_addr takes a sockaddr), a port 0 is no port,
  // an IPv6 address with a port needs its brackets.
  EXPECT_EQ(verify("rd.rdma.verify=peer:nfs-server"),
            "error: peer 'nfs-server' is not ADDR, ADDR:PORT or [IPv6]:PORT (an IP address: "
            "rdma_cm resolves addresses, not names)");
  EXPECT_NE(verify("rd.rdma.verify=peer:10.0.0.1:0").find("error"), std::string::npos);
  EXPECT_NE(verify("rd.rdma.verify=peer:[fd00::1]:").find("error"), std::string::npos);
  EXPECT_NE(verify("rd.rdma.verify=peer:[fd00::1").find("error"), std::string::npos);
}

// dracut's nfs-lib.sh nfsroot_to_var: the server is what precedes ":/"; rfc2224_nfs_to_var
// for nfs://; anaconda's bracketed IPv6 server.
TEST(Values, NfsRootServer) {
  auto server = [](const char* root) {
    auto a = nfs_root_server(root);
    return a ? a->str() : std::string("none");
  };
  EXPECT_EQ(server("nfs4:10.77.0.1:/export/root:rdma,port=20049,vers=4.2"), "10.77.0.1");
  EXPECT_EQ(server("nfs:10.0.0.5:/srv/root"), "10.0.0.5");
  EXPECT_EQ(server("nfs://10.0.0.6:2049/srv/root"), "10.0.0.6");
  EXPECT_EQ(server("nfs4:[fd00::5]:/srv/root"), "fd00::5");
  EXPECT_EQ(server("nfs://[fd00::6]/srv/root"), "fd00::6");
  EXPECT_EQ(server("nfs:/srv/root"), "none");             // the server from DHCP
  EXPECT_EQ(server("nfs4:filer.lan:/srv/root"), "none");  // a name: not ours to resolve
  EXPECT_EQ(server("/dev/sda1"), "none");
  EXPECT_EQ(server("dhcp"), "none");
  // root= on the command line names the server; netroot= does not (dracut-ng
  // 74nfs/parse-nfsroot.sh ignores the command line's netroot=); any other root is no
  // error.
  Config cfg;
  Diagnostics d;
  parse_cmdline("root=/dev/sda1 netroot=nfs4:10.1.2.3:/r", cfg, d);
  EXPECT_TRUE(d.ok() && d.warnings.empty());
  EXPECT_FALSE(cfg.boot.nfs_server);
  parse_cmdline("root=nfs4:10.1.2.4:/r", cfg, d);
  ASSERT_TRUE(cfg.boot.nfs_server);
  EXPECT_EQ(cfg.boot.nfs_server->value.str(), "10.1.2.4");
  EXPECT_EQ(cfg.boot.nfs_server->source.str(), "cmdline: root=nfs4:10.1.2.4:/r");
}

}  // namespace
}  // namespace rp
