// The kernel command-line reader as a table: command line in, Config summary (or exact
// error messages) out.
#include "provision/inputs/cmdline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/base/strings.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

struct Parsed {
  Config cfg;
  Diagnostics diag;
};

Parsed parse(const std::string& text) {
  Parsed p;
  parse_cmdline(text, p.cfg, p.diag);
  return p;
}

std::vector<std::string> strs(const std::vector<Error>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.str());
  return out;
}

// Everything the command line can set, one line per value, defaults left out. With
// `sources`, each value is followed by [its source].
std::string summary(const Config& c, bool sources = false) {
  std::string out;
  auto src = [&](const Source& s) { return sources ? " [" + s.str() + "]" : std::string(); };
  auto line = [&](const std::string& s) { out += s + "\n"; };
  if (!c.enabled.source.is_default())
    line("enabled=" + std::to_string(c.enabled.value) + src(c.enabled.source));
  if (!c.required.source.is_default())
    line("required=" + std::to_string(c.required.value) + src(c.required.source));
  if (!c.timeout_s.source.is_default())
    line("timeout=" + std::to_string(c.timeout_s.value) + src(c.timeout_s.source));
  for (const auto& m : c.modules) line("module " + m.value + src(m.source));
  for (const auto& [pci, card] : c.mlx4) {
    for (int i = 0; i < 2; ++i) {
      if (card.type[i]) {
        line("mlx4 " + pci.str() + " port" + std::to_string(i + 1) + "=" +
             std::string(to_string(card.type[i]->value)) + src(card.type[i]->source));
      }
    }
  }
  if (c.pfc_tx) line("pfc tx=0x" + hex(c.pfc_tx->value, 2) + src(c.pfc_tx->source));
  if (c.pfc_rx) line("pfc rx=0x" + hex(c.pfc_rx->value, 2) + src(c.pfc_rx->source));
  for (const auto& [name, key] : c.names)
    line("name " + name + "=" + (key.value.is_guid() ? "guid " : "mac ") + key.value.str() +
         src(key.source));
  for (const auto& [ifname, s] : c.ipoib) {
    if (s.mode)
      line("ipoib " + ifname + " mode=" + std::string(to_string(s.mode->value)) +
           src(s.mode->source));
    if (s.mtu)
      line("ipoib " + ifname + " mtu=" + std::to_string(s.mtu->value) + src(s.mtu->source));
  }
  for (const auto& [id, child] : c.pkeys) {
    line("pkey " + child.parent + " 0x" + hex(child.pkey, 4) +
         (child.name.empty() ? "" : " name=" + child.name) + src(child.source));
  }
  for (const auto& [id, r] : c.roce) {
    std::string target = id.first.str() + (id.second ? "/" + std::to_string(id.second) : "");
    if (r.mode)
      line("roce " + target + " mode=" + std::string(to_string(r.mode->value)) +
           src(r.mode->source));
    if (r.tos) line("roce " + target + " tos=" + std::to_string(r.tos->value) + src(r.tos->source));
  }
  for (const auto& [netdev, l] : c.soft_links) {
    line(std::string(to_string(l.kind)) + " " + netdev + (l.name.empty() ? "" : " name=" + l.name) +
         src(l.source));
  }
  for (const auto& w : c.wait) line("wait " + w.value.str() + src(w.source));
  return out;
}

// ---- Splitting -----------------------------------------------------------------------

TEST(SplitCmdline, SplitsOnWhitespaceAndKeepsQuotedSpacesTogether) {
  auto p = split_cmdline(" root=/dev/sda1\tquiet  rd.rdma.modules=\"ib_ipoib rdma_ucm\"\n");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].key, "root");
  EXPECT_EQ(p[0].value, "/dev/sda1");
  EXPECT_EQ(p[1].key, "quiet");
  EXPECT_FALSE(p[1].has_value);
  EXPECT_EQ(p[2].raw, "rd.rdma.modules=\"ib_ipoib rdma_ucm\"");
  EXPECT_EQ(p[2].key, "rd.rdma.modules");
  EXPECT_EQ(p[2].value, "ib_ipoib rdma_ucm");
  EXPECT_FALSE(p[2].unterminated_quote);
}

TEST(SplitCmdline, WholeParameterInQuotesAndEmptyValue) {
  auto p = split_cmdline("\"rd.rdma.name=ib-a:0002:c903:0031:78f2\" rd.rdma=");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].key, "rd.rdma.name");
  EXPECT_EQ(p[0].value, "ib-a:0002:c903:0031:78f2");
  EXPECT_TRUE(p[1].has_value);
  EXPECT_EQ(p[1].value, "");
}

TEST(SplitCmdline, UnterminatedQuoteRunsToTheEndLikeTheKernel) {
  auto p = split_cmdline("a=\"x y z=1");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].value, "x y z=1");
  EXPECT_TRUE(p[0].unterminated_quote);
}

// ---- Valid command lines -------------------------------------------------------------

struct Valid {
  const char* cmdline;
  const char* want;  // summary()
};

const Valid kValid[] = {
    {"", ""},
    {"quiet splash", ""},
    {"root=nfs4:10.0.0.1:/export/root ip=ib-a:dhcp ifname=eth0:aa:bb:cc:dd:ee:ff "
     "rd.net.timeout.carrier=30 rd.neednet=1 rd.dm=0 rd.lvm=0 BOOT_IMAGE=/vmlinuz",
     ""},
    // rd.rdma
    {"rd.rdma", "enabled=1\n"},
    {"rd.rdma=0", "enabled=0\n"},
    {"rd.rdma=off", "enabled=0\n"},
    {"rd.rdma=no", "enabled=0\n"},
    {"rd.rdma=False", "enabled=0\n"},
    {"rd.rdma=yes", "enabled=1\n"},
    {"rd.rdma=true rd.rdma=0", "enabled=0\n"},
    {"rd.rdma.required=1", "required=1\n"},
    {"rd.rdma.required=on rd.rdma.required=off", "required=0\n"},
    // dracut's getargbool (dracut-lib.sh): the key alone or an empty value is true
    {"rd.rdma.required", "required=1\n"},
    // dracut's ifname= is read (for clashes) but sets none of ours
    {"ifname=net0:52:54:00:77:00:02", ""},
    {"rd.rdma.required=", "required=1\n"},
    {"rd.rdma=0 rd.rdma=", "enabled=1\n"},
    {"rd.rdma.timeout=90", "timeout=90\n"},
    {"rd.rdma.timeout=1 rd.rdma.timeout=3600", "timeout=3600\n"},
    // modules: in order of first request, '-' as '_', no duplicates
    {"rd.rdma.modules=ib_ipoib", "module ib_ipoib\n"},
    {"rd.rdma.modules=ib_ipoib,rdma-ucm rd.rdma.modules=xprtrdma,ib_ipoib",
     "module ib_ipoib\nmodule rdma_ucm\nmodule xprtrdma\n"},
    {"rd.rdma.modules=\"ib_umad rdma_rxe\"", "module ib_umad\nmodule rdma_rxe\n"},
    // mlx4
    {"rd.rdma.mlx4=0000:81:00.0/eth,eth",
     "mlx4 0000:81:00.0 port1=eth\nmlx4 0000:81:00.0 port2=eth\n"},
    {"rd.rdma.mlx4=81:00.0/auto", "mlx4 0000:81:00.0 port1=auto\n"},
    {"rd.rdma.mlx4=0000:81:00.0/eth,eth rd.rdma.mlx4=0000:81:00.0/ib",
     "mlx4 0000:81:00.0 port1=ib\nmlx4 0000:81:00.0 port2=eth\n"},
    {"rd.rdma.mlx4=0000:05:00.0/ib,eth rd.rdma.mlx4=0001:0B:00.0/eth",
     "mlx4 0000:05:00.0 port1=ib\nmlx4 0000:05:00.0 port2=eth\nmlx4 0001:0b:00.0 port1=eth\n"},
    // PFC: rx defaults to tx
    {"rd.rdma.mlx4.pfc=0x08", "pfc tx=0x08\npfc rx=0x08\n"},
    {"rd.rdma.mlx4.pfc=8/0x18", "pfc tx=0x08\npfc rx=0x18\n"},
    {"rd.rdma.mlx4.pfc=0 rd.rdma.mlx4.pfc=255", "pfc tx=0xff\npfc rx=0xff\n"},
    // names: three GUID spellings and a MAC
    {"rd.rdma.name=ib-a:00:02:c9:03:00:31:78:f2", "name ib-a=guid 0002:c903:0031:78f2\n"},
    {"rd.rdma.name=ib-a:0002:C903:0031:78F2", "name ib-a=guid 0002:c903:0031:78f2\n"},
    {"rd.rdma.name=ib-a:0x0002c903003178f2", "name ib-a=guid 0002:c903:0031:78f2\n"},
    {"rd.rdma.name=roce-a:98:03:9B:12:34:56", "name roce-a=mac 98:03:9b:12:34:56\n"},
    {"rd.rdma.name=ib-a:0002:c903:0031:78f2 rd.rdma.name=ib-a:0002:c903:0031:78f2",
     "name ib-a=guid 0002:c903:0031:78f2\n"},
    {"rd.rdma.name=ib-a:0002:c903:0031:78f1 rd.rdma.name=ib-b:0002:c903:0031:78f2",
     "name ib-a=guid 0002:c903:0031:78f1\nname ib-b=guid 0002:c903:0031:78f2\n"},
    // IPoIB: the later token wins for the fields it gives
    {"rd.rdma.ipoib=ib-a:connected:65520", "ipoib ib-a mode=connected\nipoib ib-a mtu=65520\n"},
    {"rd.rdma.ipoib=ib0:datagram", "ipoib ib0 mode=datagram\n"},
    {"rd.rdma.ipoib=ib-a:connected:65520 rd.rdma.ipoib=ib-a:datagram",
     "ipoib ib-a mode=datagram\nipoib ib-a mtu=65520\n"},
    {"rd.rdma.ipoib=ib-a:datagram:68", "ipoib ib-a mode=datagram\nipoib ib-a mtu=68\n"},
    // P_Keys: always hex; the name given is kept
    {"rd.rdma.pkey=ib0:8001", "pkey ib0 0x8001\n"},
    {"rd.rdma.pkey=ib0:0x8001", "pkey ib0 0x8001\n"},
    {"rd.rdma.pkey=ib0:10", "pkey ib0 0x0010\n"},
    {"rd.rdma.pkey=ib-a:0x0002:ib-a.storage", "pkey ib-a 0x0002 name=ib-a.storage\n"},
    {"rd.rdma.pkey=ib0:7fff", "pkey ib0 0x7fff\n"},
    {"rd.rdma.pkey=ib0:ffff", "pkey ib0 0xffff\n"},
    {"rd.rdma.pkey=ib0:8001:data rd.rdma.pkey=ib0:8001", "pkey ib0 0x8001 name=data\n"},
    {"rd.rdma.pkey=ib0:8001:data rd.rdma.pkey=ib0:8001:data2", "pkey ib0 0x8001 name=data2\n"},
    {"ib.pkey=ib0.8001", "pkey ib0 0x8001 name=ib0.8001\n"},
    {"ib.pkey=ib1.000a", "pkey ib1 0x000a name=ib1.000a\n"},
    {"ib.pkey=ib0.8001 rd.rdma.pkey=ib0:0x8001", "pkey ib0 0x8001 name=ib0.8001\n"},
    // RoCE
    {"rd.rdma.roce=mlx5_0/1:v2:106", "roce mlx5_0/1 mode=v2\nroce mlx5_0/1 tos=106\n"},
    {"rd.rdma.roce=*:v1", "roce * mode=v1\n"},
    {"rd.rdma.roce=mlx5_1:v2:0x20", "roce mlx5_1 mode=v2\nroce mlx5_1 tos=32\n"},
    // Devices by what survives rdma-core's renames: a PCI address and a GUID have colons
    // of their own, so the mode and the ToS are read from the right.
    {"rd.rdma.roce=pci-0000:AF:00.0/1:v2:106",
     "roce pci-0000:af:00.0/1 mode=v2\nroce pci-0000:af:00.0/1 tos=106\n"},
    {"rd.rdma.roce=pci-0000:af:00.1:v1", "roce pci-0000:af:00.1 mode=v1\n"},
    {"rd.rdma.roce=guid-9803:9b03:0046:8a10:v2", "roce guid-9803:9b03:0046:8a10 mode=v2\n"},
    {"rd.rdma.roce=guid-98039b0300468a10/1:v2:26",
     "roce guid-9803:9b03:0046:8a10/1 mode=v2\nroce guid-9803:9b03:0046:8a10/1 tos=26\n"},
    {"rd.rdma.roce=netdev-ens1f0np0:v2", "roce netdev-ens1f0np0 mode=v2\n"},
    {"rd.rdma.wait=pci-0000:af:00.0/1,guid-9803:9b03:0046:8a10/1,netdev-ens1f0np0",
     "wait pci-0000:af:00.0/1\nwait guid-9803:9b03:0046:8a10/1\nwait netdev-ens1f0np0\n"},
    {"rd.rdma.roce=mlx5_0/1:v2:106 rd.rdma.roce=mlx5_0/1:v1",
     "roce mlx5_0/1 mode=v1\nroce mlx5_0/1 tos=106\n"},
    // Soft-RoCE / Soft-iWARP
    {"rd.rdma.rxe=eth1", "rxe eth1\n"},
    {"rd.rdma.siw=eth2:siw_eth2", "siw eth2 name=siw_eth2\n"},
    {"rd.rdma.rxe=enp1s0:rxe_a rd.rdma.siw=enp1s0", "siw enp1s0 name=rxe_a\n"},
    // wait: the targets add up
    {"rd.rdma.wait=all", "wait all\n"},
    {"rd.rdma.wait=mlx5_0/1,ib-a rd.rdma.wait=ib0", "wait mlx5_0/1\nwait ib-a\nwait ib0\n"},
    {"rd.rdma.wait=none", "wait none\n"},
};

TEST(ParseCmdline, ValidCommandLines) {
  for (const auto& v : kValid) {
    auto p = parse(v.cmdline);
    EXPECT_TRUE(p.diag.errors.empty()) << v.cmdline << "\n" << p.diag.errors[0].str();
    EXPECT_TRUE(p.diag.warnings.empty()) << v.cmdline << "\n" << p.diag.warnings[0].str();
    EXPECT_EQ(summary(p.cfg), v.want) << v.cmdline;
  }
}

TEST(ParseCmdline, RealisticNfsRootOverRdmaBootLine) {
  const std::string line =
      "BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=nfs4:10.10.0.1:/srv/nodes/n017:proto=rdma,"
      "port=20049,ro ip=ib-a:dhcp rd.neednet=1 rd.net.timeout.carrier=30 console=ttyS0,115200n8 "
      "rd.rdma=1 rd.rdma.required=1 rd.rdma.timeout=120 "
      "rd.rdma.modules=mlx4_ib,ib_ipoib,rpcrdma "
      "rd.rdma.mlx4=0000:81:00.0/ib,eth rd.rdma.mlx4.pfc=0x08 "
      "rd.rdma.name=ib-a:f452:1403:007b:cba1 rd.rdma.name=roce-a:f4:52:14:7b:cb:a2 "
      "rd.rdma.ipoib=ib-a:connected:65520 rd.rdma.pkey=ib-a:0x8002 "
      "rd.rdma.roce=mlx4_0/2:v2:106 rd.rdma.wait=ib-a quiet\n";
  auto p = parse(line);
  EXPECT_EQ(strs(p.diag.errors), std::vector<std::string>{});
  EXPECT_EQ(strs(p.diag.warnings), std::vector<std::string>{});
  EXPECT_EQ(summary(p.cfg, /*sources=*/true),
            "enabled=1 [cmdline: rd.rdma=1]\n"
            "required=1 [cmdline: rd.rdma.required=1]\n"
            "timeout=120 [cmdline: rd.rdma.timeout=120]\n"
            "module mlx4_ib [cmdline: rd.rdma.modules=mlx4_ib,ib_ipoib,rpcrdma]\n"
            "module ib_ipoib [cmdline: rd.rdma.modules=mlx4_ib,ib_ipoib,rpcrdma]\n"
            "module rpcrdma [cmdline: rd.rdma.modules=mlx4_ib,ib_ipoib,rpcrdma]\n"
            "mlx4 0000:81:00.0 port1=ib [cmdline: rd.rdma.mlx4=0000:81:00.0/ib,eth]\n"
            "mlx4 0000:81:00.0 port2=eth [cmdline: rd.rdma.mlx4=0000:81:00.0/ib,eth]\n"
            "pfc tx=0x08 [cmdline: rd.rdma.mlx4.pfc=0x08]\n"
            "pfc rx=0x08 [cmdline: rd.rdma.mlx4.pfc=0x08]\n"
            "name ib-a=guid f452:1403:007b:cba1 [cmdline: rd.rdma.name=ib-a:f452:1403:007b:cba1]\n"
            "name roce-a=mac f4:52:14:7b:cb:a2 [cmdline: rd.rdma.name=roce-a:f4:52:14:7b:cb:a2]\n"
            "ipoib ib-a mode=connected [cmdline: rd.rdma.ipoib=ib-a:connected:65520]\n"
            "ipoib ib-a mtu=65520 [cmdline: rd.rdma.ipoib=ib-a:connected:65520]\n"
            "pkey ib-a 0x8002 [cmdline: rd.rdma.pkey=ib-a:0x8002]\n"
            "roce mlx4_0/2 mode=v2 [cmdline: rd.rdma.roce=mlx4_0/2:v2:106]\n"
            "roce mlx4_0/2 tos=106 [cmdline: rd.rdma.roce=mlx4_0/2:v2:106]\n"
            "wait ib-a [cmdline: rd.rdma.wait=ib-a]\n");
}

TEST(ParseCmdline, EachValueNamesTheTokenItCameFromAfterAnOverride) {
  auto p = parse("rd.rdma.roce=mlx5_0/1:v2:106 rd.rdma.roce=mlx5_0/1:v1");
  EXPECT_EQ(summary(p.cfg, true),
            "roce mlx5_0/1 mode=v1 [cmdline: rd.rdma.roce=mlx5_0/1:v1]\n"
            "roce mlx5_0/1 tos=106 [cmdline: rd.rdma.roce=mlx5_0/1:v2:106]\n");
}

TEST(ParseCmdline, QuotedTokenIsTheSourceAsWritten) {
  auto p = parse("rd.rdma.modules=\"ib_ipoib rdma_ucm\"");
  EXPECT_EQ(summary(p.cfg, true),
            "module ib_ipoib [cmdline: rd.rdma.modules=\"ib_ipoib rdma_ucm\"]\n"
            "module rdma_ucm [cmdline: rd.rdma.modules=\"ib_ipoib rdma_ucm\"]\n");
}

TEST(ParseCmdline, OverridesWhatTheFilesSaid) {
  Config cfg;
  Diagnostics diag;
  cfg.enabled = {true, src("/etc/rdma-provision/rdma-provision.conf:2")};
  cfg.names["ib-a"] = {*HwKey::parse("0002:c903:0031:78f2"), src("/etc/rdma-provision/x.conf:5")};
  cfg.names["ib-b"] = {*HwKey::parse("0002:c903:0031:78f3"), src("/etc/rdma-provision/x.conf:6")};
  cfg.wait.push_back({WaitItem{}, src("/etc/rdma-provision/x.conf:3")});
  cfg.ipoib["ib-a"].mode = Sourced<IpoibMode>{IpoibMode::kConnected, src("x.conf:9")};
  cfg.ipoib["ib-a"].mtu = Sourced<unsigned>{65520, src("x.conf:10")};
  parse_cmdline(
      "rd.rdma=0 rd.rdma.name=ib-fast:0002:c903:0031:78f2 rd.rdma.wait=none "
      "rd.rdma.ipoib=ib-a:datagram",
      cfg, diag);
  EXPECT_EQ(strs(diag.errors), std::vector<std::string>{});
  EXPECT_EQ(
      summary(cfg, true),
      "enabled=0 [cmdline: rd.rdma=0]\n"
      "name ib-b=guid 0002:c903:0031:78f3 [/etc/rdma-provision/x.conf:6]\n"
      "name ib-fast=guid 0002:c903:0031:78f2 [cmdline: rd.rdma.name=ib-fast:0002:c903:0031:78f2]\n"
      "ipoib ib-a mode=datagram [cmdline: rd.rdma.ipoib=ib-a:datagram]\n"
      "ipoib ib-a mtu=65520 [x.conf:10]\n"
      "wait none [cmdline: rd.rdma.wait=none]\n");
}

// ---- Malformed tokens: the exact message ---------------------------------------------

struct Bad {
  const char* cmdline;
  const char* error;  // Error::str() of the one error expected
};

const Bad kBad[] = {
    {"rd.rdma=maybe",
     "cmdline: rd.rdma=maybe: value 'maybe' is not a boolean (1/0, yes/no, on/off, true/false)"},
    {"rd.rdma.required=2",
     "cmdline: rd.rdma.required=2: value '2' is not a boolean (1/0, yes/no, on/off, true/false)"},
    {"rd.rdma.timeout=0", "cmdline: rd.rdma.timeout=0: timeout '0' is out of range 1..3600"},
    {"rd.rdma.timeout=10s", "cmdline: rd.rdma.timeout=10s: timeout '10s' is not a number"},
    {"rd.rdma.modules",
     "cmdline: rd.rdma.modules: missing value; expected rd.rdma.modules=<module>[,<module>...]"},
    {"rd.rdma.modules=,",
     "cmdline: rd.rdma.modules=,: value ',' is not of the form <module>[,<module>...]"},
    {"rd.rdma.modules=ib_ipoib,rdma$ucm",
     "cmdline: rd.rdma.modules=ib_ipoib,rdma$ucm: module name 'rdma$ucm' may contain only "
     "letters, digits, '_' and '-'"},
    {"rd.rdma.modules=\"ib_ipoib ib/umad\"",
     "cmdline: rd.rdma.modules=\"ib_ipoib ib/umad\": module name 'ib/umad' may contain only "
     "letters, digits, '_' and '-'"},
    {"rd.rdma.mlx4=0000:81:00.0",
     "cmdline: rd.rdma.mlx4=0000:81:00.0: value '0000:81:00.0' is not of the form "
     "<pci>/<type1>[,<type2>]"},
    {"rd.rdma.mlx4=0000:81:00/eth",
     "cmdline: rd.rdma.mlx4=0000:81:00/eth: PCI address '0000:81:00' is not of the form "
     "DDDD:BB:DD.F"},
    {"rd.rdma.mlx4=0000:81:00.0/ethernet",
     "cmdline: rd.rdma.mlx4=0000:81:00.0/ethernet: port type 'ethernet' is not one of ib, eth, "
     "auto"},
    {"rd.rdma.mlx4=0000:81:00.0/",
     "cmdline: rd.rdma.mlx4=0000:81:00.0/: port type '' is not one of ib, eth, auto"},
    {"rd.rdma.mlx4=0000:81:00.0/eth,eth,ib",
     "cmdline: rd.rdma.mlx4=0000:81:00.0/eth,eth,ib: 'eth,eth,ib' gives 3 port types; an mlx4 "
     "card has 2 ports"},
    {"rd.rdma.mlx4.pfc=0x100",
     "cmdline: rd.rdma.mlx4.pfc=0x100: pfctx '0x100' is out of range 0..0xff"},
    {"rd.rdma.mlx4.pfc=8/x",
     "cmdline: rd.rdma.mlx4.pfc=8/x: pfcrx 'x' is not a number (a priority bitmask, e.g. 0x08)"},
    {"rd.rdma.mlx4.pfc=8/8/8",
     "cmdline: rd.rdma.mlx4.pfc=8/8/8: value '8/8/8' is not of the form <txmask>[/<rxmask>]"},
    {"rd.rdma.name=ib-a",
     "cmdline: rd.rdma.name=ib-a: value 'ib-a' is not of the form "
     "<ifname>:<guid|mac|pci-<bdf>[/<port>]|<ibdev>/<port>>"},
    {"rd.rdma.name=ib-a:0002:c903:0031",
     "cmdline: rd.rdma.name=ib-a:0002:c903:0031: address '0002:c903:0031' is neither a port GUID "
     "(0002:c903:0031:78f2), a MAC address (aa:bb:cc:dd:ee:ff), a PCI function "
     "(pci-0000:af:00.0) nor an RDMA port (mlx5_0/1)"},
    {"rd.rdma.name=ib-a:80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f2",
     "cmdline: rd.rdma.name=ib-a:80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f2: "
     "address '80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f2' is a whole 20-byte "
     "IPoIB address, whose first 12 bytes change between boots; give the port GUID (its last 8 "
     "bytes, 00:02:c9:03:00:31:78:f2)"},
    {"rd.rdma.name=ib0:0002:c903:0031:78f2",
     "cmdline: rd.rdma.name=ib0:0002:c903:0031:78f2: interface name 'ib0' is of the kernel's own "
     "ib<N> form and would collide with an unrenamed device"},
    {"rd.rdma.name=infiniband-left0:0002:c903:0031:78f2",
     "cmdline: rd.rdma.name=infiniband-left0:0002:c903:0031:78f2: interface name "
     "'infiniband-left0' is longer than 15 bytes"},
    {"rd.rdma.name=ib-a:0002:c903:0031:78f2 rd.rdma.name=ib-a:0002:c903:0031:78f3",
     "cmdline: rd.rdma.name=ib-a:0002:c903:0031:78f3: name 'ib-a' is already given to "
     "0002:c903:0031:78f2 at cmdline: rd.rdma.name=ib-a:0002:c903:0031:78f2"},
    {"rd.rdma.name=ib-a:0002:c903:0031:78f2 rd.rdma.name=ib-b:00:02:c9:03:00:31:78:f2",
     "cmdline: rd.rdma.name=ib-b:00:02:c9:03:00:31:78:f2: 0002:c903:0031:78f2 already has the "
     "name 'ib-a' at cmdline: rd.rdma.name=ib-a:0002:c903:0031:78f2"},
    {"rd.rdma.ipoib=ib-a",
     "cmdline: rd.rdma.ipoib=ib-a: value 'ib-a' is not of the form "
     "<ifname>:<datagram|connected>[:<mtu>]"},
    {"rd.rdma.ipoib=ib-a:cm",
     "cmdline: rd.rdma.ipoib=ib-a:cm: IPoIB mode 'cm' is not one of datagram, connected"},
    {"rd.rdma.ipoib=ib-a:connected:70000",
     "cmdline: rd.rdma.ipoib=ib-a:connected:70000: MTU '70000' is out of range 68..65520"},
    {"rd.rdma.ipoib=ib-a:datagram:2044:1",
     "cmdline: rd.rdma.ipoib=ib-a:datagram:2044:1: value 'ib-a:datagram:2044:1' is not of the "
     "form <ifname>:<datagram|connected>[:<mtu>]"},
    {"rd.rdma.ipoib=ib/a:datagram",
     "cmdline: rd.rdma.ipoib=ib/a:datagram: interface name 'ib/a' contains '/', ':', a space or "
     "a control character"},
    {"rd.rdma.pkey=ib0",
     "cmdline: rd.rdma.pkey=ib0: value 'ib0' is not of the form <parent>:<pkey>[:<childname>]"},
    {"rd.rdma.pkey=ib0:0",
     "cmdline: rd.rdma.pkey=ib0:0: P_Key '0' is invalid: 0x0000 and 0x8000 have no partition "
     "number"},
    {"rd.rdma.pkey=ib0:0x8000",
     "cmdline: rd.rdma.pkey=ib0:0x8000: P_Key '0x8000' is invalid: 0x0000 and 0x8000 have no "
     "partition number"},
    {"rd.rdma.pkey=ib0:0x10000",
     "cmdline: rd.rdma.pkey=ib0:0x10000: P_Key '0x10000' is out of range (at most 0xffff)"},
    {"rd.rdma.pkey=ib0:pk1",
     "cmdline: rd.rdma.pkey=ib0:pk1: P_Key 'pk1' is not a hexadecimal number (e.g. 0x8001)"},
    {"rd.rdma.pkey=ib0:8001:ib1",
     "cmdline: rd.rdma.pkey=ib0:8001:ib1: interface name 'ib1' is of the kernel's own ib<N> form "
     "and would collide with an unrenamed device"},
    {"rd.rdma.pkey=ib0:8001:data rd.rdma.pkey=ib0:8002:data",
     "cmdline: rd.rdma.pkey=ib0:8002:data: child name 'data' is already used for ib0 P_Key "
     "0x8001 at cmdline: rd.rdma.pkey=ib0:8001:data"},
    {"ib.pkey=ib0", "cmdline: ib.pkey=ib0: value 'ib0' is not of the form <parent>.<hex pkey>"},
    {"ib.pkey=ib0.8000",
     "cmdline: ib.pkey=ib0.8000: P_Key '8000' is invalid: 0x0000 and 0x8000 have no partition "
     "number"},
    {"ib.pkey=", "cmdline: ib.pkey=: missing value; expected ib.pkey=<parent>.<hex pkey>"},
    {"rd.rdma.roce=mlx5_0",
     "cmdline: rd.rdma.roce=mlx5_0: value 'mlx5_0' is not of the form "
     "<ibdev|pci-<bdf>|guid-<guid>|netdev-<if>|*>[/<port>]:<v1|v2>[:<tos>]"},
    {"rd.rdma.roce=mlx5_0/1:v3",
     "cmdline: rd.rdma.roce=mlx5_0/1:v3: RoCE mode 'v3' is not one of v1, v2"},
    {"rd.rdma.roce=mlx5_0/0:v2",
     "cmdline: rd.rdma.roce=mlx5_0/0:v2: port '0' is not a port number 1..255"},
    {"rd.rdma.roce=mlx5_0/1:v2:256",
     "cmdline: rd.rdma.roce=mlx5_0/1:v2:256: ToS '256' is out of range 0..255"},
    {"rd.rdma.roce=mlx$5/1:v2",
     "cmdline: rd.rdma.roce=mlx$5/1:v2: RDMA device name 'mlx$5' may contain only letters, "
     "digits, '_', '-' and '.'"},
    {"rd.rdma.rxe=eth1:rxe/0",
     "cmdline: rd.rdma.rxe=eth1:rxe/0: RDMA device name 'rxe/0' may contain only letters, "
     "digits, '_', '-' and '.'"},
    {"rd.rdma.siw=eth1:a:b",
     "cmdline: rd.rdma.siw=eth1:a:b: value 'eth1:a:b' is not of the form <netdev>[:<name>]"},
    {"rd.rdma.rxe=eth1:soft0 rd.rdma.siw=eth2:soft0",
     "cmdline: rd.rdma.siw=eth2:soft0: RDMA device name 'soft0' is already asked for eth1 at "
     "cmdline: rd.rdma.rxe=eth1:soft0"},
    {"rd.rdma.wait=mlx5_0/x",
     "cmdline: rd.rdma.wait=mlx5_0/x: port 'x' is not a port number 1..255"},
    {"rd.rdma.wait=all,,ib-a", "cmdline: rd.rdma.wait=all,,ib-a: wait list has an empty entry"},
    {"rd.rdma.wait=pci-0000:af:00.0",
     "cmdline: rd.rdma.wait=pci-0000:af:00.0: wait for 'pci-0000:af:00.0': name the port too "
     "(pci-0000:af:00.0/1)"},
    {"rd.rdma.wait=netdev-eth0/1",
     "cmdline: rd.rdma.wait=netdev-eth0/1: 'netdev-eth0/1': an interface names its port itself; "
     "write 'netdev-eth0'"},
    {"rd.rdma.roce=pci-0000:af:0.0:v2",
     "cmdline: rd.rdma.roce=pci-0000:af:0.0:v2: PCI address '0000:af:0.0' is not of the form "
     "0000:af:00.0"},
    {"rd.rdma.roce=guid-12:v2",
     "cmdline: rd.rdma.roce=guid-12:v2: node GUID '12' is not of the form 9803:9b03:0046:8a10"},
    {"rd.rdma.wait=*/1",
     "cmdline: rd.rdma.wait=*/1: '*' cannot be waited for: name a device and a port"},
    {"rd.rdma.pkey=ib/0:8001",
     "cmdline: rd.rdma.pkey=ib/0:8001: interface name 'ib/0' contains '/', ':', a space or a "
     "control character"},
    {"ib.pkey=.8001", "cmdline: ib.pkey=.8001: an interface name cannot be empty"},
    {"ib.pkey=storage-fabric0.8001",
     "cmdline: ib.pkey=storage-fabric0.8001: interface name 'storage-fabric0.8001' is longer "
     "than 15 bytes"},
    {"rd.rdma.rxe=eth\x01",
     "cmdline: rd.rdma.rxe=eth\\x01: interface name 'eth\\x01' contains "
     "'/', ':', a space or a control character"},
    {"rd.rdma.roce=:v2", "cmdline: rd.rdma.roce=:v2: an RDMA device name cannot be empty"},
    {"rd.rdma.wait=mlx$5/1",
     "cmdline: rd.rdma.wait=mlx$5/1: RDMA device name 'mlx$5' may contain only letters, digits, "
     "'_', '-' and '.'"},
    {"rd.rdma.wait=..", "cmdline: rd.rdma.wait=..: interface name '..' is reserved"},
    {"rd.rdma.name=ib%d:0002:c903:0031:78f2",
     "cmdline: rd.rdma.name=ib%d:0002:c903:0031:78f2: interface name 'ib%d' contains '%': the "
     "kernel takes it as a template (ib%d -> the first free ib<N>)"},
    {"rd.rdma.mlx4.pfc=08",
     "cmdline: rd.rdma.mlx4.pfc=08: pfctx '08' is not a number: with a leading zero the kernel "
     "reads octal"},
    {"rd.rdma.mlx=0000:81:00.0/eth",
     "cmdline: rd.rdma.mlx=0000:81:00.0/eth: unknown parameter 'rd.rdma.mlx' (did you mean "
     "'rd.rdma.mlx4'?)"},
    {"rd.rdma.modules_load=ib_ipoib",
     "cmdline: rd.rdma.modules_load=ib_ipoib: unknown parameter 'rd.rdma.modules_load' (known: "
     "rd.rdma, rd.rdma.modules, rd.rdma.modules.defer, rd.rdma.mlx4, rd.rdma.mlx4.pfc, "
     "rd.rdma.name, "
     "rd.rdma.ipoib, "
     "rd.rdma.pkey, rd.rdma.roce, rd.rdma.rxe, rd.rdma.dcb, rd.rdma.devname, rd.rdma.expect, "
     "rd.rdma.siw, "
     "rd.rdma.wait, "
     "rd.rdma.timeout, "
     "rd.rdma.required, rd.rdma.verify)"},
    {"rd.rdma.pkeys=ib0:8001",
     "cmdline: rd.rdma.pkeys=ib0:8001: unknown parameter 'rd.rdma.pkeys' (did you mean "
     "'rd.rdma.pkey'?)"},
    {"rd.rdma.name=ib-a:\x01",
     "cmdline: rd.rdma.name=ib-a:\\x01: address '\\x01' is neither a port GUID "
     "(0002:c903:0031:78f2), a MAC address (aa:bb:cc:dd:ee:ff), a PCI function "
     "(pci-0000:af:00.0) nor an RDMA port (mlx5_0/1)"},
};

TEST(ParseCmdline, MalformedTokensGiveExactMessages) {
  for (const auto& b : kBad) {
    auto p = parse(b.cmdline);
    EXPECT_EQ(strs(p.diag.errors), std::vector<std::string>{b.error}) << b.cmdline;
  }
}

TEST(ParseCmdline, EveryErrorIsCollectedAndGoodTokensStillCount) {
  auto p = parse("rd.rdma.timeout=0 rd.rdma.modules=ib_ipoib rd.rdma.roce=x/0:v9:999 quiet");
  EXPECT_EQ(strs(p.diag.errors),
            (std::vector<std::string>{
                "cmdline: rd.rdma.timeout=0: timeout '0' is out of range 1..3600",
                "cmdline: rd.rdma.roce=x/0:v9:999: port '0' is not a port number 1..255",
                "cmdline: rd.rdma.roce=x/0:v9:999: RoCE mode 'v9' is not one of v1, v2",
                "cmdline: rd.rdma.roce=x/0:v9:999: ToS '999' is out of range 0..255",
            }));
  EXPECT_EQ(summary(p.cfg), "module ib_ipoib\n");
}

TEST(ParseCmdline, BadTokenChangesNothing) {
  auto p = parse("rd.rdma.mlx4=0000:81:00.0/eth,bogus rd.rdma.ipoib=ib-a:connected:1");
  EXPECT_EQ(p.diag.errors.size(), 2u);
  EXPECT_EQ(summary(p.cfg), "");
}

// ---- Warnings ------------------------------------------------------------------------

TEST(ParseCmdline, WarnsAboutAnUnterminatedQuote) {
  auto p = parse("rd.rdma.modules=\"ib_ipoib rdma_ucm");
  EXPECT_EQ(strs(p.diag.errors), std::vector<std::string>{});
  EXPECT_EQ(strs(p.diag.warnings),
            std::vector<std::string>{
                "cmdline: rd.rdma.modules=\"ib_ipoib rdma_ucm: the opening '\"' is never closed: "
                "this parameter runs to the end of the command line"});
  EXPECT_EQ(summary(p.cfg), "module ib_ipoib\nmodule rdma_ucm\n");
}

TEST(ParseCmdline, WarnsAboutANearMissOutsideOurNamespace) {
  auto p = parse("rd.rmda.modules=ib_ipoib rd.rdma-wait=all rd.dm=0 rd.md=0 rd.lvm.vg=v");
  EXPECT_EQ(strs(p.diag.errors), std::vector<std::string>{});
  EXPECT_EQ(strs(p.diag.warnings),
            (std::vector<std::string>{
                "cmdline: rd.rmda.modules=ib_ipoib: parameter 'rd.rmda.modules' is not read by "
                "rdma-provision (did you mean 'rd.rdma.modules'?)",
                "cmdline: rd.rdma-wait=all: parameter 'rd.rdma-wait' is not read by "
                "rdma-provision (did you mean 'rd.rdma.wait'?)",
            }));
}

TEST(ParseCmdline, NetworkManagerPkeyOptionsAreIgnoredWithAWarning) {
  auto p = parse("ib.pkey=ib0.8001:mode=connected");
  EXPECT_EQ(strs(p.diag.errors), std::vector<std::string>{});
  EXPECT_EQ(strs(p.diag.warnings),
            std::vector<std::string>{"cmdline: ib.pkey=ib0.8001:mode=connected: ignoring "
                                     "':mode=connected': only <parent>.<pkey> is read"});
  EXPECT_EQ(summary(p.cfg), "pkey ib0 0x8001 name=ib0.8001\n");
}

TEST(ParseCmdline, HostileInputSetsNothingAndEveryMistakeIsReported) {
  const std::string big(1 << 16, 'x');
  struct HostileCase {
    std::string text;
    bool invalid;  // ours and wrong: at least one error; else nothing of ours, no error
    size_t items;  // most errors it may give: one per list item
  };
  const HostileCase cases[] = {
      {"\"\"\"\"", false, 0},
      {"=" + big, false, 0},
      {"rd.rdma." + big, true, 1},
      {"rd.rdma.name=" + big + ":" + big, true, 2},
      {std::string("\0\0rd.rdma=1", 11), false, 0},  // "\0\0rd.rdma" is not our parameter
      {"rd.rdma.wait=" + std::string(5000, ','), true, 5001},
      {"rd.rdma.modules=" + std::string(5000, ' '), true, 1},
  };
  for (const HostileCase& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 40) + "... (" + std::to_string(c.text.size()) + " bytes)");
    auto p = parse(c.text);
    EXPECT_EQ(summary(p.cfg), "");
    EXPECT_EQ(!p.diag.errors.empty(), c.invalid);
    EXPECT_LE(p.diag.errors.size(), c.items);
    // A message quotes its parameter (today the whole token, at most twice) and adds one
    // sentence: no longer than that, whatever the parser went through.
    for (const auto& e : p.diag.errors) EXPECT_LE(e.str().size(), 2 * c.text.size() + 256);
    for (const auto& w : p.diag.warnings) EXPECT_LE(w.str().size(), 2 * c.text.size() + 256);
  }
}

}  // namespace
}  // namespace rp
