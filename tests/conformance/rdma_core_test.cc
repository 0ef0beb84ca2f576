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
#include "provision/inventory/inventory.h"
#include "provision/plan/rdma_select.h"
#include "provision/resolve/module_needs.h"
#include "tests/conformance/man_page.h"
#include "tests/support/fixture.h"

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
     "0000:81:00.0\n", "the line is skipped, silently", "1 warning(s)"},
    {"redhat/rdma.mlx4-setup.sh: read device port1 port2 (a comment after the types)",
     parse_mlx4_conf, "0000:0b:00.0 eth eth # both Ethernet\n",
     "port2 is 'eth # both Ethernet': port 1 eth is refused, nothing set",
     "0000:0b:00.0 port1=eth; 0000:0b:00.0 port2=eth; 1 warning(s)",
     "a comment after the port types is one here and a warning"},
    {"redhat/rdma.mlx4-setup.sh: the card found by /sys/bus/pci/drivers/mlx4_core/$device "
     "(drivers/pci/probe.c pci_setup_device names it %04x:%02x:%02x.%d)",
     parse_mlx4_conf, "0b:00.0 eth eth\n",
     "no such directory without the domain: the line is skipped", "1 warning(s)"},
    {"redhat/rdma.mlx4-setup.sh: the same for an upper-case id", parse_mlx4_conf,
     "0000:0B:00.0 eth eth\n", "no such directory: the line is skipped", "1 warning(s)"},
    {"kernel-boot/persistent-ipoib.rules.in: the template's example rule", parse_ipoib_rules,
     "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
     "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"mlx4_ib3\"\n",
     "mlx4_ib3 for the port GUID 0002:c903:0031:78f2", "mlx4_ib3=0002:c903:0031:78f2"},
    {"kernel-boot/persistent-ipoib.rules.in: 'Modern udev is case sensitive' "
     "(udev-rules.c: fnmatch without FNM_CASEFOLD)",
     parse_ipoib_rules,
     "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
     "ATTR{address}==\"?*00:02:C9:03:00:31:78:F2\", NAME=\"ib-a\"\n",
     "never matches the lower-case sysfs address", "1 warning(s)",
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
     "never matches a 20-byte address", "1 warning(s)"},
    {"systemd src/udev/udev-rules.c udev_rules_parse_file: '#' lines are ignored regardless "
     "of line continuation",
     parse_ipoib_rules,
     "SUBSYSTEM==\"net\", ATTR{type}==\"32\", \\\n# the port of node 7\n"
     "  ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"ib-a\"\n",
     "one rule, ib-a for the GUID", "ib-a=0002:c903:0031:78f2"},
    {"systemd src/udev/udev-event.c udev_event_execute_rules: rename_netif on 'add' only",
     parse_ipoib_rules,
     "ACTION==\"remove\", ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"ib-a\"\n",
     "never renames", "1 warning(s)"},
    {"systemd src/udev/udev-rules.c: a rule whose KERNEL never is an IPoIB port's (ib%d, "
     "ipoib_main.c ipoib_add_one)",
     parse_ipoib_rules,
     "KERNEL==\"eth*\", ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"ib-a\"\n",
     "never renames", "1 warning(s)"},
    {"systemd src/udev/udev-rules.c TK_A_NAME: name_final after ':='", parse_ipoib_rules,
     "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME:=\"ib-a\"\n"
     "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"ib-b\"\n",
     "ib-a: the later NAME= is ignored", "ib-a=0002:c903:0031:78f2; 1 warning(s)"},
    {"systemd src/udev/udev-rules.c parse_line: a pair it cannot read drops the line only",
     parse_ipoib_rules,
     "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=ib-a\n"
     "ATTR{address}==\"?*00:02:c9:03:00:31:78:f3\", NAME=\"ib-b\"\n",
     "'Invalid key/value pair, ignoring.' for line 1; line 2 names ib-b",
     "ib-b=0002:c903:0031:78f3; 1 warning(s)"},
    {"systemd src/udev/udev-rules.c parse_token: NAME+= is taken as '='", parse_ipoib_rules,
     "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME+=\"ib-a\"\n", "ib-a, with udev's warning",
     "ib-a=0002:c903:0031:78f2; 1 warning(s)"},
    {"systemd src/udev/udev-rules.c token_match_string: KERNEL=\"ib*\" with a full 20-byte "
     "address: the address decides here",
     parse_ipoib_rules,
     "KERNEL==\"ib0\", ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME=\"ib-a\"\n",
     "ib-a only when the kernel named the port ib0", "ib-a=0002:c903:0031:78f2; 1 warning(s)",
     "the address alone decides"},
    {"systemd src/udev/udev-event.c rename_netif: !ifname_valid() -> 'Invalid network "
     "interface name, ignoring' (src/basic/socket-util.c ifname_valid_full: all, default)",
     parse_ipoib_rules,
     "SUBSYSTEM==\"net\", ATTR{type}==\"32\", ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", "
     "NAME=\"all\"\n",
     "the NAME= is ignored with a warning, the interface keeps its name", "1 warning(s)"},
    {"systemd src/basic/socket-util.c ifname_valid_full: a name of digits only", parse_ipoib_rules,
     "SUBSYSTEM==\"net\", ATTR{type}==\"32\", ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", "
     "NAME=\"1234\"\n",
     "the NAME= is ignored with a warning, the interface keeps its name", "1 warning(s)"},
};

TEST(RdmaCoreConformance, Mlx4ConfAndIpoibRules) {
  for (const auto& r : kRows) {
    check_row("rdma-core", r.source, r.input, r.owner, summary(r.parse, r.input), r.want,
              r.documented);
  }
}

// A machine as a fixture description (tests/fixtures/mkfixtures.py), laid out and
// discovered as the program discovers sysfs.
Inventory machine(const std::string& description) {
  const std::string dir = testing::temp_dir("rdma-core-row");
  testing::run("printf '%s' '" + description + "' > " + dir + "/m.sys && python3 " +
               "tests/fixtures/mkfixtures.py " + dir + "/m.sys " + dir + "/root");
  return discover(Root(dir + "/root"), Detail::kPlan);
}

// rdma_rename's names (kernel-boot/rdma_rename.c, policy NAME_FALLBACK from
// 60-rdma-persistent-naming.rules): the names the program gives each device for it.
struct NameRow {
  const char* source;
  const char* machine;  // a fixture description
  const char* owner;
  const char* want;
  const char* documented = nullptr;
};

std::string names_of(const std::string& description) {
  Summary sum;
  for (const auto& d : machine(description).rdma) {
    std::string n;
    for (const auto& name : rdma_core_names(d)) n += (n.empty() ? "" : " or ") + name;
    sum.add(d.name + " " + (n.empty() ? "kept" : n));
  }
  return sum.end(Diagnostics{});
}

#define MLX5(bdf, extra) "pci " bdf " driver=mlx5_core vendor=0x15b3 device=0x1017 " extra "\n"
#define DEV(name, bdf, ll)                                              \
  "rdma " name " pci=" bdf " node_guid=0c42:a103:0016:b2c4\nport " name \
  "/1 "                                                                 \
  "state=ACTIVE link_layer=" ll " rate=x\n"

const NameRow kNameRows[] = {
    {"kernel-boot/rdma_rename.c: header comment (by_pci, InfiniBand at 0000:00:0c.4)",
     MLX5("0000:00:0c.4", "multifunction=1") DEV("mlx5_0", "0000:00:0c.4", "InfiniBand"),
     "ibp0s12f4", "mlx5_0 ibp0s12f4"},
    {"kernel-boot/rdma_rename.c: by_pci (bus and slot in decimal, f with a multi-function "
     "header)",
     MLX5("0000:af:00.0", "multifunction=1") DEV("mlx5_0", "0000:af:00.0", "Ethernet"),
     "rocep175s0f0", "mlx5_0 rocep175s0f0"},
    {"kernel-boot/rdma_rename.c: by_pci (no f for function 0 of a lone function)",
     MLX5("0000:3b:00.0", "multifunction=0") DEV("mlx5_0", "0000:3b:00.0", "InfiniBand"), "ibp59s0",
     "mlx5_0 ibp59s0"},
    {"kernel-boot/rdma_rename.c: by_pci (P<domain> when the domain is not 0)",
     MLX5("0002:03:00.1", "") DEV("mlx5_1", "0002:03:00.1", "Ethernet"), "roceP2p3s0f1",
     "mlx5_1 roceP2p3s0f1"},
    {"kernel-boot/rdma_rename.c: by_onboard (acpi_index first, as NAME_FALLBACK tries)",
     MLX5("0000:af:00.0", "acpi_index=3 multifunction=1") DEV("mlx5_0", "0000:af:00.0", "Ethernet"),
     "roceo3", "mlx5_0 roceo3 or rocep175s0f0"},
    {"kernel-boot/rdma_rename.c: by_onboard (SMBIOS index; above ONBOARD_INDEX_MAX unused)",
     MLX5("0000:af:00.0", "index=16384 multifunction=1") DEV("mlx5_0", "0000:af:00.0", "Ethernet"),
     "rocep175s0f0", "mlx5_0 rocep175s0f0"},
    {"kernel-boot/rdma_rename.c: get_virtfn_info (a VF: its PF's name and v<N>)",
     MLX5("0000:03:00.0", "multifunction=1") MLX5("0000:03:00.1", "")
         MLX5("0000:03:00.3", "physfn=0000:03:00.0 vf=1") DEV("mlx5_2", "0000:03:00.3", "Ethernet"),
     "rocep3s0f0v1", "mlx5_2 rocep3s0f0v1"},
    {"kernel-boot/rdma_rename.c: fill_pci_info (ARI: func += 8 x slot, the slot still "
     "printed)",
     "pci 0000:3b:01.2 driver=bnxt_en vendor=0x14e4 device=0x16d7 ari=1 multifunction=1\n"
     "rdma bnxt_re1 pci=0000:3b:01.2 node_guid=020a:f7ff:feb1:2892\nport bnxt_re1/1 "
     "state=ACTIVE link_layer=Ethernet rate=x\n",
     "rocep59s1f10", "bnxt_re1 rocep59s1f10"},
    {"kernel-boot/rdma_rename.c: by_pci (subsystem not pci: virtual devices keep their name)",
     "net eth0 type=1 address=52:54:00:77:00:01\nrdma rxe0 parent=eth0 "
     "node_guid=5054:00ff:fe77:0001\nport rxe0/1 state=ACTIVE link_layer=Ethernet rate=x\n",
     "rxe0 kept", "rxe0 kept"},
};

TEST(RdmaCoreConformance, RdmaRenameNames) {
  for (const auto& r : kNameRows) {
    check_row("rdma-core", r.source, r.machine, r.owner, names_of(r.machine), r.want, r.documented);
  }
}

// kernel-boot/rdma-description.rules: which of rdma-core's module lists a device's
// technology loads (ID_RDMA_INFINIBAND, _ROCE, _IWARP, _OPA by the PCI driver, DRIVERS==;
// rxe by its device path), against the technologies the program sees (resolve/module_needs.h
// Machine: by each port's link layer and the device's node type).
std::string technologies(const std::string& description) {
  const Machine m = machine_of(Config{}, machine(description));
  Summary sum;
  if (m.infiniband) sum.add("infiniband.conf");
  if (m.roce) sum.add("roce.conf");
  if (m.iwarp) sum.add("iwarp.conf");
  if (m.opa) sum.add("opa.conf");
  return sum.end(Diagnostics{});
}

const NameRow kTechRows[] = {
    {"kernel-boot/rdma-description.rules: DRIVERS==\"mlx5_core\" (INFINIBAND and ROCE)",
     MLX5("0000:af:00.0", "") DEV("mlx5_0", "0000:af:00.0", "Ethernet"),
     "infiniband.conf and roce.conf", "roce.conf",
     "loads infiniband.conf only where a port is InfiniBand"},
    {"kernel-boot/rdma-description.rules: DRIVERS==\"mlx5_core\" (an InfiniBand port)",
     MLX5("0000:3b:00.0", "") DEV("mlx5_0", "0000:3b:00.0", "InfiniBand"),
     "infiniband.conf and roce.conf", "infiniband.conf", "roce.conf only where a port is Ethernet"},
    {"kernel-boot/rdma-description.rules: DRIVERS==\"hfi1\" (OPA)",
     "pci 0000:5e:00.0 driver=hfi1 vendor=0x8086 device=0x24f0\n" DEV("hfi1_0", "0000:5e:00.0",
                                                                      "InfiniBand"),
     "opa.conf", "opa.conf"},
    {"kernel-boot/rdma-description.rules: DRIVERS==\"bnxt_en\" (ROCE)",
     "pci 0000:3b:00.0 driver=bnxt_en vendor=0x14e4 device=0x16d7\n" DEV("bnxt_re0", "0000:3b:00.0",
                                                                         "Ethernet"),
     "roce.conf", "roce.conf"},
    {"kernel-boot/rdma-description.rules: DEVPATH==\"*/infiniband/rxe*\" with ATTR{parent} "
     "(ROCE)",
     "net eth0 type=1 address=52:54:00:77:00:01\nrdma rxe0 parent=eth0 "
     "node_guid=5054:00ff:fe77:0001\nport rxe0/1 state=ACTIVE link_layer=Ethernet rate=x\n",
     "roce.conf", "roce.conf"},
    {"kernel-boot/rdma-description.rules: no rule for siw (no tag: iwarp.conf never loads)",
     "net ens785f0 type=1 address=3c:fd:fe:a1:00:00\nrdma siw0 node_type=\"4: RNIC\" "
     "node_guid=3cfd:fea1:0000:0000 node_desc=\"Software iWARP stack\"\nport siw0/1 "
     "state=ACTIVE link_layer=Ethernet rate=x gid=3cfd:fea1:0000:0000:0000:0000:0000:0000 "
     "gid_types=none\n",
     "nothing", "iwarp.conf", "iwarp.conf for Soft-iWARP too"},
};

TEST(RdmaCoreConformance, DescriptionRulesTechnologies) {
  for (const auto& r : kTechRows) {
    check_row("rdma-core", r.source, r.machine, r.owner, technologies(r.machine), r.want,
              r.documented);
  }
}

}  // namespace
}  // namespace rp
