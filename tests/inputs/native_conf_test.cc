// The native configuration file: the documented example parses cleanly, every value
// lands with its file:line, and each malformed line gets its exact message.
#include "provision/inputs/native_conf.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace rp {
namespace {

const char kFile[] = "/etc/rdma-provision/rdma-provision.conf";

struct Parsed {
  Config cfg;
  Diagnostics diag;
};

Parsed parse(const std::string& text) {
  Parsed p;
  parse_native_conf(text, kFile, p.cfg, p.diag);
  return p;
}

std::string errors(const Parsed& p) {
  std::string s;
  for (const auto& e : p.diag.errors) s += e.str() + "\n";
  return s;
}

TEST(NativeConf, DocumentedExampleIsValidAndCoversEverySection) {
  std::ifstream f("configs/rdma-provision.conf");
  ASSERT_TRUE(f) << "configs/rdma-provision.conf not in runfiles";
  std::stringstream ss;
  ss << f.rdbuf();
  Parsed p = parse(ss.str());
  EXPECT_EQ(errors(p), "");
  const Config& c = p.cfg;
  EXPECT_TRUE(c.enabled.value);
  EXPECT_EQ(c.timeout_s.value, 60u);
  EXPECT_EQ(c.wait.size(), 2u);
  EXPECT_EQ(c.modules.size(), 5u);  // 4 from [modules], mlx4_core from [module ...] load
  EXPECT_EQ(c.blacklist.size(), 1u);
  EXPECT_EQ(c.module_options.at("mlx4_core").value, "log_num_mgm_entry_size=-1");
  const auto& m = c.mlx4.at(*PciAddress::parse("0000:81:00.0"));
  EXPECT_EQ(m.type[0]->value, PortType::kIb);
  EXPECT_EQ(m.type[1]->value, PortType::kEth);
  EXPECT_EQ(m.mtu[0]->value, 4096u);
  EXPECT_EQ(c.pfc_tx->value, 8u);
  EXPECT_EQ(c.roce.at({RdmaSelector::named("mlx4_0"), 2}).mode->value, RoceMode::kV2);
  EXPECT_EQ(c.roce.at({RdmaSelector::named("mlx4_0"), 2}).tos->value, 106u);
  EXPECT_EQ(c.ipoib.at("storage0").mode->value, IpoibMode::kConnected);
  EXPECT_EQ(c.pkeys.at({"storage0", 0x10}).name, "stor-p10");
  EXPECT_EQ(c.names.at("storage0").value.str(), "0002:c903:0031:78f2");
  EXPECT_EQ(c.soft_links.at("eth0").name, "rxe0");
  EXPECT_EQ(c.addresses.at("storage0")[0].prefix.str(), "10.10.0.17/16");
  EXPECT_EQ(c.routes.at("storage0")[0].gateway.str(), "10.10.0.1");
  EXPECT_EQ(c.nodes_by_guid.size(), 2u);
  EXPECT_EQ(c.nodes_by_mac.size(), 1u);
  EXPECT_EQ(c.expect.at({RdmaSelector::all(), 0}).rate->value, 4000u);
  EXPECT_EQ(c.expect.at({RdmaSelector::named("mlx5_0"), 0}).pcie_width->value, 0u);
}

TEST(NativeConf, EveryValueCarriesItsFileAndLine) {
  Parsed p = parse("# comment\n[mlx4 0000:81:00.0]\nport2 = eth\n\n[roce *]\ntos = 96\n");
  EXPECT_EQ(errors(p), "");
  EXPECT_EQ(p.cfg.mlx4.begin()->second.type[1]->source.str(), std::string(kFile) + ":3");
  EXPECT_EQ(p.cfg.roce.at({RdmaSelector::all(), 0}).tos->source.str(), std::string(kFile) + ":6");
}

TEST(NativeConf, NodeTableRowsAreKeyedByGuidAndMac) {
  Parsed p = parse(
      "[nodes]\n"
      "0x0002c903003178f2 name=ibx address=10.0.0.1/24,fd00::1/64 pkeys=8001 mode=datagram\n"
      "52:54:00:00:00:01 name=eno-data mtu=9000\n");
  EXPECT_EQ(errors(p), "");
  const NodeEntry* e = p.cfg.node_entry(*HwKey::parse("0002:c903:0031:78f2"));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "ibx");
  EXPECT_EQ(e->addresses.size(), 2u);
  EXPECT_EQ(e->pkeys, std::vector<uint16_t>{0x8001});
  EXPECT_EQ(e->source.str(), std::string(kFile) + ":2");
  EXPECT_EQ(p.cfg.node_entry(*HwKey::parse("52:54:00:00:00:01"))->mtu, 9000u);
}

TEST(NativeConf, NodeTableRowsMayAskForASoftDevice) {
  Parsed p = parse(
      "[nodes]\n"
      "52:54:00:77:00:02 name=nodea0 rxe=rxe0\n"
      "52:54:00:77:00:03 name=nodeb0 siw=siw_b\n"
      "52:54:00:77:00:04 rxe=bad/name\n");
  const NodeEntry* a = p.cfg.node_entry(*HwKey::parse("52:54:00:77:00:02"));
  ASSERT_TRUE(a && a->soft);
  EXPECT_EQ(a->soft->kind, SoftKind::kRxe);
  EXPECT_EQ(a->soft->name, "rxe0");
  const NodeEntry* b = p.cfg.node_entry(*HwKey::parse("52:54:00:77:00:03"));
  ASSERT_TRUE(b && b->soft);
  EXPECT_EQ(b->soft->kind, SoftKind::kSiw);
  EXPECT_NE(errors(p).find(std::string(kFile) + ":4: "), std::string::npos) << errors(p);
}

struct Bad {
  const char* text;
  const char* message;
};

class NativeConfErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(NativeConfErrors, ReportsTheExactMessage) {
  Parsed p = parse(GetParam().text);
  EXPECT_EQ(errors(p), std::string(kFile) + GetParam().message + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, NativeConfErrors,
    ::testing::Values(
        Bad{"timeout = 5\n", ":1: setting 'timeout = 5' is outside of any [section]"},
        Bad{"[general\n", ":1: section header '[general' is missing its closing ']'"},
        Bad{"[]\n", ":1: empty section header '[]'"},
        Bad{"[gneral]\n", ":1: unknown section 'gneral' (did you mean 'general'?)"},
        Bad{"[interfaces]\n",
            ":1: unknown section 'interfaces' (known: general, modules, module, mlx4, pfc, roce, "
            "ipoib, pkey, name, devname, rxe, siw, address, dcb, expect, nodes)"},
        Bad{"[general]\ntimeout\n", ":2: line 'timeout' is not of the form key = value"},
        Bad{"[general]\n= 5\n", ":2: line '= 5' has no key before '='"},
        Bad{"[general]\ntimeout =\n", ":2: key 'timeout' has no value"},
        Bad{"[general]\ntimeout = 0\n", ":2: timeout '0' is out of range 1..3600"},
        Bad{"[general]\ntimeout = soon\n", ":2: timeout 'soon' is not a number"},
        Bad{"[general]\nrequired = maybe\n",
            ":2: value 'maybe' is not a boolean (1/0, yes/no, on/off, true/false)"},
        Bad{"[general]\nretries = 3\n",
            ":2: unknown key 'retries' in [general] (known: enabled, required, allow_reload, "
            "allow_rename_other, timeout, verify, wait)"},
        Bad{"[general]\nwait = mlx4_0/0\n", ":2: port '0' is not a port number 1..255"},
        Bad{"[modules]\nload = ib ipoib, rdma/ucm\n",
            ":2: module name 'rdma/ucm' may contain only letters, digits, '_' and '-'"},
        Bad{"[module]\n", ":1: section '[module]' must be written [module <name>]"},
        Bad{"[mlx4 81:00]\n", ":1: PCI address '81:00' is not of the form DDDD:BB:DD.F"},
        Bad{"[mlx4 0000:81:00.0]\nport1 = ethernet\n",
            ":2: port type 'ethernet' is not one of ib, eth, auto"},
        Bad{"[mlx4 0000:81:00.0]\nport3 = eth\n",
            ":2: unknown key 'port3' in [mlx4] (known: port1, port2, port1_mtu, port2_mtu)"},
        Bad{"[mlx4 0000:81:00.0]\nport1_mtu = 9000\n",
            ":2: IB port MTU '9000' is not one of 256, 512, 1024, 2048, 4096"},
        Bad{"[pfc]\ntx = 0x100\n", ":2: pfctx '0x100' is out of range 0..0xff"},
        Bad{"[roce mlx5_0/0]\n", ":1: port '0' is not a port number 1..255"},
        Bad{"[roce mlx5_0]\nmode = v3\n", ":2: RoCE mode 'v3' is not one of v1, v2"},
        Bad{"[roce mlx5_0]\ntos = 256\n", ":2: ToS '256' is out of range 0..255"},
        Bad{"[ipoib ib0]\nmode = cm\n", ":2: IPoIB mode 'cm' is not one of datagram, connected"},
        Bad{"[ipoib ib0]\nmtu = 70000\n", ":2: MTU '70000' is out of range 68..65520"},
        Bad{"[pkey ib0 0x8000]\n",
            ":1: P_Key '0x8000' is invalid: 0x0000 and 0x8000 have no partition number"},
        Bad{"[pkey ib0 0x10000]\n", ":1: P_Key '0x10000' is out of range (at most 0xffff)"},
        Bad{"[pkey ib0 zz]\n", ":1: P_Key 'zz' is not a hexadecimal number (e.g. 0x8001)"},
        Bad{"[name ib0]\n",
            ":1: interface name 'ib0' is of the kernel's own ib<N> form and would collide with "
            "an unrenamed device"},
        Bad{"[name a-name-longer-than-15]\n",
            ":1: interface name 'a-name-longer-than-15' is longer than 15 bytes"},
        Bad{"[name stor]\nmatch = 00:11\n",
            ":2: address '00:11' is neither a port GUID (0002:c903:0031:78f2), a MAC address "
            "(aa:bb:cc:dd:ee:ff), a PCI function (pci-0000:af:00.0) nor an RDMA port (mlx5_0/1)"},
        Bad{"[address ib0]\naddress = 10.0.0.1\n",
            ":2: address '10.0.0.1' has no prefix length (e.g. 10.0.0.5/24)"},
        Bad{"[address ib0]\naddress = 10.0.0.300/24\n",
            ":2: address '10.0.0.300' is not an IPv4 or IPv6 address"},
        Bad{"[address ib0]\naddress = fd00::1/0x40\n",
            ":2: address 'fd00::1/0x40' has an invalid prefix length (0..128)"},
        Bad{"[address ib0]\nroute = default 10.0.0.1\n",
            ":2: route 'default 10.0.0.1' is not '<default|prefix> via <gateway>'"},
        Bad{"[nodes]\nnotakey name=x\n",
            ":2: address 'notakey' is neither a port GUID (0002:c903:0031:78f2), a MAC address "
            "(aa:bb:cc:dd:ee:ff), a PCI function (pci-0000:af:00.0) nor an RDMA port (mlx5_0/1)"},
        Bad{"[nodes]\n52:54:00:00:00:01 colour=x\n",
            ":2: unknown node field 'colour' (known: name, address, pkeys, mode, mtu, rxe, siw, "
            "devname, lease, host)"},
        Bad{"[nodes]\n52:54:00:00:00:01 name\n",
            ":2: node field 'name' is not of the form key=value"},
        // Every other value path: the one parser's message, with the file:line.
        Bad{"[general]\ntiemout = 5\n",
            ":2: unknown key 'tiemout' in [general] (did you mean 'timeout'?)"},
        Bad{"[general]\nenabled = of\n",
            ":2: value 'of' is not a boolean (1/0, yes/no, on/off, true/false)"},
        Bad{"[general]\nallow_reload = 2\n",
            ":2: value '2' is not a boolean (1/0, yes/no, on/off, true/false)"},
        Bad{"[general]\nwait = mlx$5/1\n",
            ":2: RDMA device name 'mlx$5' may contain only letters, digits, '_', '-' and '.'"},
        Bad{"[general]\nwait = ib:a\n",
            ":2: interface name 'ib:a' contains '/', ':', a space or a control character"},
        Bad{"[modules]\nblacklist = ib_srpt.ko\n",
            ":2: module name 'ib_srpt.ko' may contain only letters, digits, '_' and '-'"},
        Bad{"[module mlx4/core]\n",
            ":1: module name 'mlx4/core' may contain only letters, digits, '_' and '-'"},
        Bad{"[module mlx4_core]\nload = sure\n",
            ":2: value 'sure' is not a boolean (1/0, yes/no, on/off, true/false)"},
        Bad{"[mlx4 0000:81:00.0]\nport2_mtu = 1500\n",
            ":2: IB port MTU '1500' is not one of 256, 512, 1024, 2048, 4096"},
        Bad{"[pfc]\nrx = 09\n",
            ":2: pfcrx '09' is not a number: with a leading zero the kernel reads octal"},
        Bad{"[roce mlx$5]\n",
            ":1: RDMA device name 'mlx$5' may contain only letters, digits, '_', '-' and '.'"},
        Bad{"[ipoib ib/0]\n",
            ":1: interface name 'ib/0' contains '/', ':', a space or a control character"},
        Bad{"[pkey ib:0 0x8001]\n",
            ":1: interface name 'ib:0' contains '/', ':', a space or a control character"},
        Bad{"[pkey ib0 0x8001]\nname = ib1\n",
            ":2: interface name 'ib1' is of the kernel's own ib<N> form and would collide with "
            "an unrenamed device"},
        Bad{"[pkey ib0 0x8001]\nmode = cm\n",
            ":2: IPoIB mode 'cm' is not one of datagram, connected"},
        Bad{"[rxe eth 0]\n", ":1: section '[rxe eth 0]' must be written [rxe <netdev>]"},
        Bad{"[siw eth/0]\n",
            ":1: interface name 'eth/0' contains '/', ':', a space or a control character"},
        Bad{"[siw eth0]\nname = siw/0\n",
            ":2: RDMA device name 'siw/0' may contain only letters, digits, '_', '-' and '.'"},
        Bad{"[address .]\n", ":1: interface name '.' is reserved"},
        Bad{"[address ib0]\naddress = 10.0.0.1/33\n",
            ":2: address '10.0.0.1/33' has an invalid prefix length (0..32)"},
        Bad{"[address ib0]\nroute = 10.2.0.0 via 10.0.0.1\n",
            ":2: address '10.2.0.0' has no prefix length (e.g. 10.0.0.5/24)"},
        Bad{"[address ib0]\nroute = default via gw\n",
            ":2: address 'gw' is not an IPv4 or IPv6 address"},
        Bad{"[nodes]\n52:54:00:00:00:01 nmae=x\n",
            ":2: unknown node field 'nmae' (did you mean 'name'?)"},
        Bad{"[nodes]\n52:54:00:00:00:01 name=eth3\n",
            ":2: interface name 'eth3' is of the kernel's own eth<N> form and would collide with "
            "an unrenamed device"},
        Bad{"[nodes]\n52:54:00:00:00:01 address=10.0.0.1\n",
            ":2: address '10.0.0.1' has no prefix length (e.g. 10.0.0.5/24)"},
        Bad{"[nodes]\n52:54:00:00:00:01 pkeys=8001,8000\n",
            ":2: P_Key '8000' is invalid: 0x0000 and 0x8000 have no partition number"},
        Bad{"[nodes]\n52:54:00:00:00:01 mode=cm\n",
            ":2: IPoIB mode 'cm' is not one of datagram, connected"},
        Bad{"[nodes]\n52:54:00:00:00:01 mtu=67\n", ":2: MTU '67' is out of range 68..65520"}));

// modprobe treats '-' and '_' alike; the planner compares names as written, so a name
// with '-' must reach the Config as the kernel spells it or it matches nothing.
TEST(NativeConf, ModuleNamesAreNormalisedLikeModprobe) {
  Parsed p = parse("[modules]\nload = rdma-ucm\nblacklist = ib-srpt\n");
  EXPECT_EQ(errors(p), "");
  ASSERT_EQ(p.cfg.modules.size(), 1u);
  EXPECT_EQ(p.cfg.modules[0].value, "rdma_ucm");
  ASSERT_EQ(p.cfg.blacklist.size(), 1u);
  EXPECT_EQ(p.cfg.blacklist[0].value, "ib_srpt");
  EXPECT_EQ(p.cfg.blacklist[0].source.str(), std::string(kFile) + ":3");
}

TEST(NativeConf, ABlacklistedModuleIsListedOnceWhateverItsSpelling) {
  Parsed p = parse("[modules]\nblacklist = ib-srpt, ib_srpt\nblacklist = ib_srpt\n");
  EXPECT_EQ(errors(p), "");
  ASSERT_EQ(p.cfg.blacklist.size(), 1u);
  EXPECT_EQ(p.cfg.blacklist[0].source.str(), std::string(kFile) + ":2");
}

TEST(NativeConf, DuplicateNodeRowNamesTheFirst) {
  Parsed p = parse("[nodes]\n52:54:00:00:00:01 name=a0\n52:54:00:00:00:01 name=b0\n");
  EXPECT_EQ(errors(p), std::string(kFile) + ":3: node 52:54:00:00:00:01 is already listed at " +
                           kFile + ":2\n");
}

TEST(NativeConf, TwoNamesForOneDeviceInOneFileIsAnError) {
  Parsed p = parse(
      "[name stora]\nmatch = 52:54:00:00:00:01\n[name storb]\nmatch = "
      "52:54:00:00:00:01\n");
  EXPECT_EQ(errors(p), std::string(kFile) +
                           ":4: 52:54:00:00:00:01 already has the name 'stora' at " + kFile +
                           ":2\n");
}

// The same checks as on the command line (record.h): one child per child name, one netdev
// per soft RDMA device name.
TEST(NativeConf, OneChildNameForTwoPkeyChildrenIsAnError) {
  Parsed p = parse("[pkey ib0 8001]\nname = data\n[pkey ib0 8002]\nname = data\n");
  EXPECT_EQ(errors(p), std::string(kFile) +
                           ":4: child name 'data' is already used for ib0 P_Key 0x8001 at " +
                           kFile + ":2\n");
}

TEST(NativeConf, OneSoftDeviceNameForTwoNetdevsIsAnError) {
  Parsed p = parse("[rxe eth0]\nname = soft0\n[siw eth1]\nname = soft0\n");
  EXPECT_EQ(errors(p), std::string(kFile) + ":4: RDMA device name 'soft0' is already asked for " +
                           "eth0 at " + kFile + ":2\n");
  EXPECT_EQ(p.cfg.soft_links.at("eth1").kind, SoftKind::kSiw);
}

TEST(NativeConf, AllErrorsAreCollectedNotJustTheFirst) {
  Parsed p = parse("[general]\ntimeout = 0\nrequired = perhaps\n[pfc]\nrx = 999\n");
  EXPECT_EQ(p.diag.errors.size(), 3u);
}

TEST(NativeConf, BinaryGarbageDoesNotCrash) {
  std::string junk("[mlx4 \0\xff]\n\x01\x02=\x03\n[nodes]\n\xfe\xfe\n", 24);
  Parsed p = parse(junk);
  EXPECT_FALSE(p.diag.ok());
}

}  // namespace
}  // namespace rp
