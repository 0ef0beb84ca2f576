// NetworkManager's initrd generator and our command-line reader side by side: the
// parameters both read (ip=, ib.pkey=, bootdev=, rd.neednet). Sources: NetworkManager
// src/nm-initrd-generator/tests/test-cmdline-reader.c and nmi-cmdline-reader.c (at
// 355bc90299). `owner` is what nm-initrd-generator does, `want` what rdma-provision reads.
// A row with `documented` is a difference on purpose: the man page must say so.
#include "provision/inputs/networkmanager.h"

#include <gtest/gtest.h>

#include <string>

#include "provision/base/strings.h"
#include "provision/inputs/cmdline.h"
#include "tests/conformance/man_page.h"

namespace rp {
namespace {

std::string summary(const std::string& text) {
  Config c;
  Diagnostics d;
  parse_cmdline(text, c, d);
  Summary sum;
  auto add = [&](const std::string& s) { sum.add(s); };
  if (c.boot.network) add("network");
  for (const auto& i : c.boot.ifaces) add("iface " + i.value);
  if (const std::string b = bootif_summary(c.boot); !b.empty()) add(b);
  for (const auto& [key, p] : c.pkeys) {
    add("pkey " + p.parent + " 0x" + hex(p.full_pkey(), 4) + " as " + p.child_name() +
        (p.nm_source ? " (NM's)" : ""));
  }
  return sum.end(d);
}

const Row kRows[] = {
    {"tests/test-cmdline-reader.c: test_infiniband_iface", "ip=ib1:dhcp",
     "an InfiniBand connection for ib1 (the 'ib' prefix)", "network; iface ib1"},
    {"tests/test-cmdline-reader.c: test_infiniband_mac",
     "ip=00-11-22-33-44-55-66-77-88-99-aa-bb-cc-dd-ee-ff-00-11-22-33:dhcp",
     "an InfiniBand connection matched by its 20-byte address, no interface name",
     "network; iface 00-11-22-33-44-55-66-77-88-99-aa-bb-cc-dd-ee-ff-00-11-22-33"},
    {"tests/test-cmdline-reader.c: test_infiniband_pkey", "ib.pkey=ib0.8004 ip=ib0.8004:dhcp",
     "one InfiniBand connection ib0.8004, parent ib0, P_Key 0x8004",
     "network; iface ib0.8004; pkey ib0 0x8004 as ib0.8004 (NM's)"},
    {"nmi-cmdline-reader.c: reader_parse_ib_pkey (':<options>' ignored, with a warning)",
     "ib.pkey=ib0.8004:mode=connected", "P_Key 0x8004 on ib0; 'Ignoring extra'",
     "pkey ib0 0x8004 as ib0.8004 (NM's); 1 warning(s)"},
    {"nmi-cmdline-reader.c: reader_parse_ib_pkey (the P_Key as written, no 0x8000 added)",
     "ib.pkey=ib0.000a", "P_Key 0x000a (limited membership), interface ib0.000a",
     "pkey ib0 0x800a as ib0.000a (NM's)", "creates ib0.000a with P_Key 0x800a"},
    {"nmi-cmdline-reader.c: reader_parse_ib_pkey (no '.': 'No pkey found', ignored)", "ib.pkey=ib0",
     "a warning, nothing created",
     "error: cmdline: ib.pkey=ib0: value 'ib0' is not of the form <parent>.<hex pkey>",
     "bad input is an error"},
    {"nmi-cmdline-reader.c: _parse_ip_method (<interface>:auto6 is dhcp6)", "ip=ib0:auto6",
     "ib0, method dhcp6", "network; iface ib0"},
    {"nmi-cmdline-reader.c: _parse_ip_method (comma list)", "ip=ib0:dhcp,dhcp6",
     "ib0, methods dhcp and dhcp6", "network; iface ib0"},
    {"nmi-cmdline-reader.c: _parse_ip_method (off is none)", "ip=ib0:off",
     "a connection for ib0 without addresses", "network; iface ib0"},
    {"nmi-cmdline-reader.c: reader_parse_ip (static, interface sixth)",
     "ip=192.0.2.2::192.0.2.1:255.255.255.0:node:ib-a:none", "ib-a, manual address",
     "network; iface ib-a"},
    {"nmi-cmdline-reader.c: bootdev=", "bootdev=ib0 ip=dhcp",
     "the connection for ib0 is the boot's (connection_set_needed)", "network; iface ib0"},
    {"nmi-cmdline-reader.c: rd.neednet (_nm_utils_ascii_str_to_bool: false is false)",
     "rd.neednet=false", "the network is not needed", "network",
     "rd.neednet=false needs the network for dracut and here, not for NetworkManager"},
    {"nmi-cmdline-reader.c: rd.neednet (bare: TRUE)", "rd.neednet", "the network is needed",
     "network"},
    // BOOTIF (plan/bootif.cc): the generator's Ethernet connection of it, by MAC.
    {"tests/test-cmdline-reader.c: test_bootif_no_ip", "BOOTIF=00:53:AB:cd:02:03",
     "the default connection, wired, MAC 00:53:AB:CD:02:03", "bootif mac 00:53:ab:cd:02:03"},
    {"tests/test-cmdline-reader.c: test_bootif_ip", "BOOTIF=00:53:AB:cd:02:03 ip=dhcp",
     "the default connection, wired, MAC 00:53:AB:CD:02:03",
     "network; bootif mac 00:53:ab:cd:02:03"},
    {"tests/test-cmdline-reader.c: test_bootif_hwtype (htype 01)",
     "ip=eth0:dhcp BOOTIF=01-00-53-AB-cd-02-03",
     "eth0, and 'BOOTIF Connection' for MAC 00:53:AB:CD:02:03 (the '01-' stripped)",
     "network; iface eth0; bootif mac 00:53:ab:cd:02:03"},
    {"tests/test-cmdline-reader.c: test_bootif_hwtype (htype 00)",
     "ip=eth0:dhcp BOOTIF=00-00-53-Ab-cD-02-03",
     "eth0, and 'BOOTIF Connection' for MAC 00:53:AB:CD:02:03 (the '00-' stripped)",
     "network; iface eth0; bootif mac 00:53:ab:cd:02:03"},
    {"tests/test-cmdline-reader.c: test_bootif_off", "BOOTIF=01-00-53-AB-cd-02-03 rd.bootif=0",
     "no connection at all", "bootif off"},
};

TEST(NetworkManagerConformance, CmdlineReader) {
  for (const auto& r : kRows) {
    check_row("NM", r.source, r.input, r.owner, summary(r.input), r.want, r.documented);
  }
}

// NetworkManager in the initramfs with IPoIB: what its generator and its InfiniBand device
// make of our names, modes and P_Key children (inputs/networkmanager.cc). `owner` is what
// NetworkManager does; a boot it cannot bring up is an error here (the image build fails).
std::string with_nm(const std::string& text) {
  Config c;
  Diagnostics d;
  parse_cmdline(text, c, d);
  c.boot.network_manager = Source::at(Source::Origin::kOption, "--network-manager");
  check_networkmanager(c, d);
  Summary sum;
  const std::string out = sum.end(d);
  return out.empty() ? "fine" : out;
}

const Row kInitramfsRows[] = {
    {"nmi-cmdline-reader.c: reader_get_connection (an 'ib' prefix, else Ethernet); "
     "nm-device-infiniband.c: connection_type_check_compatible",
     "rd.rdma.name=fabric0:f452:1403:007b:cba1 ip=fabric0:dhcp",
     "an Ethernet connection for fabric0, which never activates on the IPoIB interface",
     "error: cmdline: ip=fabric0:dhcp: fabric0 is an IPoIB interface (cmdline: "
     "rd.rdma.name=fabric0:f452:1403:007b:cba1), but NetworkManager configures this boot's "
     "network (--network-manager), and nm-initrd-generator makes an Ethernet connection for a "
     "name without the \"ib\" prefix (nmi-cmdline-reader.c reader_get_connection), which never "
     "activates on InfiniBand: give it a name that starts with \"ib\" (ib-fab0, ibfab0)"},
    {"tests/test-cmdline-reader.c: test_infiniband_iface (the 'ib' prefix)",
     "rd.rdma.name=ib-fab0:f452:1403:007b:cba1 ip=ib-fab0:dhcp",
     "an InfiniBand connection for ib-fab0, datagram", "fine"},
    {"nmi-cmdline-reader.c: reader_get_connection (a node-table row's name alike)",
     "rd.rdma.ipoib=storage0:datagram bootdev=storage0",
     "an Ethernet connection for storage0 (bootdev= creates it)",
     "error: cmdline: bootdev=storage0: storage0 is an IPoIB interface (cmdline: "
     "rd.rdma.ipoib=storage0:datagram), but NetworkManager configures this boot's network "
     "(--network-manager), and nm-initrd-generator makes an Ethernet connection for a name "
     "without the \"ib\" prefix (nmi-cmdline-reader.c reader_get_connection), which never "
     "activates on InfiniBand: give it a name that starts with \"ib\" (ib-fab0, ibfab0)"},
    {"nmi-cmdline-reader.c: reader_create_connection (transport-mode=datagram); "
     "nm-device-infiniband.c: act_stage1_prepare (writes mode, no compare)",
     "rd.rdma.ipoib=ib0:connected:65520 ip=ib0:dhcp",
     "datagram written to /sys/class/net/ib0/mode at activation: connected mode undone",
     "error: cmdline: rd.rdma.ipoib=ib0:connected:65520: connected mode on ib0, but "
     "NetworkManager configures this boot's network (--network-manager): nm-initrd-generator "
     "gives its connection transport-mode=datagram (nmi-cmdline-reader.c "
     "reader_create_connection), which NetworkManager writes to /sys/class/net/ib0/mode when it "
     "activates it (nm-device-infiniband.c act_stage1_prepare): use datagram mode, or leave ib0 "
     "out of ip="},
    {"nm-device-infiniband.c: act_stage1_prepare (datagram is what it writes)",
     "rd.rdma.ipoib=ib0:datagram:2044 ip=ib0:dhcp", "datagram, as configured", "fine"},
    {"nm-device-infiniband.c: act_stage1_prepare (mode of an ib.pkey= child too)",
     "ib.pkey=ib0.8004 rd.rdma.ipoib=ib0.8004:connected",
     "NetworkManager's child, written datagram at activation",
     "error: cmdline: rd.rdma.ipoib=ib0.8004:connected: connected mode on ib0.8004, "
     "but NetworkManager configures this boot's network (--network-manager): "
     "nm-initrd-generator gives its connection transport-mode=datagram (nmi-cmdline-reader.c "
     "reader_create_connection), which NetworkManager writes to /sys/class/net/ib0.8004/mode "
     "when it activates it (nm-device-infiniband.c act_stage1_prepare): use datagram mode, or "
     "leave ib0.8004 out of ip="},
    {"nm-device-infiniband.c: act_stage1_prepare (no mode file: activation fails); kernel "
     "ipoib_vlan.c __ipoib_vlan_add (rtnetlink children have no mode file)",
     "rd.rdma.pkey=ib0:0x12 ip=ib0.8012:dhcp",
     "activation of ib0.8012 fails: writing its mode file fails (ENOENT)",
     "error: cmdline: rd.rdma.pkey=ib0:0x12: P_Key child ib0.8012 is brought up by "
     "NetworkManager (--network-manager), whose activation writes its mode file and fails "
     "without one (nm-device-infiniband.c act_stage1_prepare), and a child made over rtnetlink "
     "has none (ipoib_vlan.c __ipoib_vlan_add): let NetworkManager make it, ib.pkey=ib0.8012"},
    {"tests/test-cmdline-reader.c: test_infiniband_pkey (ib.pkey= makes it InfiniBand)",
     "ib.pkey=fab0.8004 ip=fab0.8004:dhcp",
     "one InfiniBand connection fab0.8004, datagram, whatever its name", "fine"},
    {"nmi-cmdline-reader.c: reader_get_connection (ip= first: Ethernet, then made "
     "InfiniBand without a transport mode); nm-setting-infiniband.c verify",
     "ip=fab0.8004:dhcp ib.pkey=fab0.8004", "no connection written (verification fails)",
     "error: cmdline: ib.pkey=fab0.8004: comes after an ip= for fab0.8004, and NetworkManager "
     "configures this boot's network (--network-manager): nm-initrd-generator made fab0.8004 an "
     "Ethernet connection at ip= (no \"ib\" prefix), which ib.pkey= turns into an InfiniBand "
     "one without a transport mode (nmi-cmdline-reader.c reader_get_connection): "
     "NetworkManager writes none; put ib.pkey= before ip="},
    {"nm-base.c: nm_net_devname_infiniband (\"%s.%04x\"); nm-setting-infiniband.c verify "
     "(1.42.4 refuses, 1.42.8 normalizes)",
     "ib.pkey=ib0.4", "1.42.4: the connection is refused; 1.42.8: interface ib0.0004",
     "1 warning(s)"},
};

TEST(NetworkManagerConformance, InitramfsWithIpoib) {
  for (const auto& r : kInitramfsRows) {
    check_row("NM", r.source, r.input, r.owner, with_nm(r.input), r.want, r.documented);
  }
  // Without NetworkManager (dracut's network-legacy: ifup by name) none of it applies.
  Config c;
  Diagnostics d;
  parse_cmdline(
      "rd.rdma.name=fabric0:f452:1403:007b:cba1 ip=fabric0:dhcp "
      "rd.rdma.ipoib=fabric0:connected rd.rdma.pkey=fabric0:0x12 ip=fabric0.8012:dhcp",
      c, d);
  check_networkmanager(c, d);
  EXPECT_TRUE(d.ok() && d.warnings.empty());
}

}  // namespace
}  // namespace rp
