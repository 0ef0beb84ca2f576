// NetworkManager's initrd generator and our command-line reader side by side: the
// parameters both read (ip=, ib.pkey=, bootdev=, rd.neednet). Sources: NetworkManager
// src/nm-initrd-generator/tests/test-cmdline-reader.c and nmi-cmdline-reader.c (at
// 355bc90299). `owner` is what nm-initrd-generator does, `want` what rdma-provision reads.
// A row with `documented` is a difference on purpose: the man page must say so.
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
  if (c.boot_network) add("network");
  for (const auto& i : c.boot_ifaces) add("iface " + i.value);
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
};

TEST(NetworkManagerConformance, CmdlineReader) {
  for (const auto& r : kRows) {
    check_row("NM", r.source, r.input, r.owner, summary(r.input), r.want, r.documented);
  }
}

}  // namespace
}  // namespace rp
