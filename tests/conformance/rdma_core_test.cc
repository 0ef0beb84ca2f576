// rdma-core's files as its own scripts and udev read them, row by row against ours:
// /etc/rdma/mlx4.conf (redhat/rdma.mlx4-setup.sh, redhat/rdma.mlx4.conf) and
// 70-persistent-ipoib.rules (kernel-boot/persistent-ipoib.rules.in, matched by udev:
// systemd src/udev/udev-rules.c, fnmatch, case-sensitive). rdma-core at 691953d8d. `owner`
// is what rdma-core's script or udev does, `want` what rdma-provision reads. A row with
// `documented` is a difference on purpose: the man page must say so.
#include <gtest/gtest.h>

#include <string>

#include "provision/base/strings.h"
#include "provision/inputs/rdma_core_files.h"
#include "tests/conformance/man_page.h"

namespace rp {
namespace {

using Parser = void (*)(std::string_view, const std::string&, Config&, Diagnostics&);

std::string summary(Parser parse, const std::string& text) {
  Config c;
  Diagnostics d;
  parse(text, "f", c, d);
  Summary sum;
  auto add = [&](const std::string& s) { sum.add(s); };
  for (const auto& [pci, card] : c.mlx4)
    for (int i = 0; i < 2; ++i)
      if (card.type[i])
        add(pci.str() + " port" + std::to_string(i + 1) + "=" +
            std::string(to_string(card.type[i]->value)));
  for (const auto& [name, key] : c.names) add(name + "=" + key.value.str());
  return sum.end(d);
}

struct Row {
  const char* source;
  Parser parse;
  const char* input;
  const char* owner;
  const char* want;
  const char* documented = nullptr;
};

const Row kRows[] = {
    {"redhat/rdma.mlx4.conf: the template's example line", parse_mlx4_conf,
     "# 0000:0b:00.0 eth eth\n0000:0b:00.0 eth eth\n", "both ports eth (port 2 first)",
     "0000:0b:00.0 port1=eth; 0000:0b:00.0 port2=eth"},
    {"redhat/rdma.mlx4-setup.sh: set_dual_port (port1 eth needs port2 eth)", parse_mlx4_conf,
     "0000:0b:00.0 eth ib\n",
     "'In order for port1 to be eth, port2 to must also be eth'; "
     "nothing set",
     "1 warning(s)"},
    {"redhat/rdma.mlx4-setup.sh: read device port1 port2 (one type: port 1 only)", parse_mlx4_conf,
     "0000:81:00.0 ib\n", "port 1 ib (a dual-port card's line is skipped)",
     "0000:81:00.0 port1=ib"},
    {"redhat/rdma.mlx4-setup.sh: [ -z \"$port1\" ] && continue (no type)", parse_mlx4_conf,
     "0000:81:00.0\n", "the line is skipped, silently",
     "error: f:1: no port type after '0000:81:00.0' (expected <pci address> <port1 type> "
     "[<port2 type>])",
     "a line rdma-core's script skips silently is an error here"},
    {"redhat/rdma.mlx4-setup.sh: read device port1 port2 (a comment after the types)",
     parse_mlx4_conf, "0000:0b:00.0 eth eth # both Ethernet\n",
     "port2 is 'eth # both Ethernet': port 1 eth is refused, nothing set",
     "0000:0b:00.0 port1=eth; 0000:0b:00.0 port2=eth; 1 warning(s)",
     "a comment after the port types is one here and a warning"},
    {"kernel-boot/persistent-ipoib.rules.in: the template's example rule", parse_ipoib_rules,
     "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
     "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"mlx4_ib3\"\n",
     "mlx4_ib3 for the port GUID 0002:c903:0031:78f2", "mlx4_ib3=0002:c903:0031:78f2"},
    {"kernel-boot/persistent-ipoib.rules.in: 'Modern udev is case sensitive' "
     "(udev-rules.c: fnmatch without FNM_CASEFOLD)",
     parse_ipoib_rules,
     "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
     "ATTR{address}==\"?*00:02:C9:03:00:31:78:F2\", NAME=\"ib-a\"\n",
     "never matches the lower-case sysfs address", "ib-a=0002:c903:0031:78f2; 1 warning(s)",
     "udev compares case-sensitively"},
    {"kernel-boot/persistent-ipoib.rules.in: 'must start with ?*' (the full 20 bytes)",
     parse_ipoib_rules,
     "SUBSYSTEM==\"net\", ATTR{type}==\"32\", ATTR{address}==\"80:00:02:08:fe:80:00:00:00:00:00:"
     "00:00:02:c9:03:00:31:78:f2\", NAME=\"ib-a\"\n",
     "matches only until the QPN or subnet prefix changes",
     "ib-a=0002:c903:0031:78f2; 1 warning(s)"},
    {"kernel-boot/persistent-ipoib.rules.in: 8 bytes without ?* (udev: the whole address)",
     parse_ipoib_rules,
     "SUBSYSTEM==\"net\", ATTR{type}==\"32\", ATTR{address}==\"00:02:c9:03:00:31:78:f2\", "
     "NAME=\"ib-a\"\n",
     "never matches a 20-byte address", "ib-a=0002:c903:0031:78f2; 1 warning(s)"},
};

TEST(RdmaCoreConformance, Mlx4ConfAndIpoibRules) {
  for (const auto& r : kRows) {
    check_row("rdma-core", r.source, r.input, r.owner, summary(r.parse, r.input), r.want,
              r.documented);
  }
}

}  // namespace
}  // namespace rp
