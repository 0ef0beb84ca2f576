// BOOTIF (plan/bootif.cc) on the fixture trees: the forms a PXE loader writes (pxelinux's
// "<htype>-<chaddr>"; iPXE's Ethernet-compatible address of an IPoIB port, ipoib.c
// ipoib_init_addr; gPXE's 8-byte GUID; a 20-byte IPoIB address) and what each names here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/base/strings.h"
#include "provision/inputs/cmdline.h"
#include "provision/inputs/load.h"
#include "provision/inputs/values.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "provision/resolve/node_table.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

using Strings = std::vector<std::string>;

struct Planned {
  Plan plan;
  Strings warnings, errors;
};

Planned plan_on(const std::string& fixture, const std::string& cmdline,
                const std::string& conf = "", const std::string& port_state = "",
                bool initramfs = false) {
  Root root(testing::unpack_fixture(fixture));
  // The port as a subnet manager has not configured it yet (ib_core's port state file:
  // "2: INIT" until the SM makes it ACTIVE).
  if (!port_state.empty()) {
    testing::run("echo '" + port_state + "' > " +
                 root.path("/sys/class/infiniband/mlx5_0/ports/1/state"));
  }
  if (!conf.empty()) {
    testing::run("mkdir -p " + root.path("/etc/rdma-provision"));
    testing::run("printf '%s' '" + conf + "' > " +
                 root.path("/etc/rdma-provision/rdma-provision.conf"));
  }
  Inventory inv = discover(root, Detail::kPlan);
  inv.initramfs = initramfs;  // as /etc/initrd-release would say
  InputOptions opt;
  opt.cmdline_text = cmdline;
  Inputs in = load_inputs(root, opt);
  in.config = resolve_node_table(inv, in.config);
  Planned p;
  p.plan = make_plan(in.config, inv);
  for (const auto* d : {&in.diag, &p.plan.diag}) {
    for (const auto& e : d->warnings) p.warnings.push_back(e.str());
    for (const auto& e : d->errors) p.errors.push_back(e.str());
  }
  return p;
}

// The forms, as parse_bootif reads them (dracut's fix_bootif turns '-' into ':' and keeps
// the last 6 bytes of anything longer; we keep what each length means).
TEST(BootIf, TheFormsALoaderWrites) {
  using Form = BootContext::BootIf::Form;
  struct Row {
    const char* text;
    Form form;
    uint64_t value;
  } rows[] = {
      {"01-52-54-00-77-00-02", Form::kMac, 0x525400770002},             // pxelinux, Ethernet
      {"52:54:00:77:00:02", Form::kMac, 0x525400770002},                // dracut's own form
      {"01-0C-42-A1-16-B2-C4", Form::kMac, 0x0c42a116b2c4},             // iPXE over IPoIB, any case
      {"20-0c-42-a1-03-00-16-b2-c4", Form::kGuid, 0x0c42a1030016b2c4},  // gPXE over IPoIB
      {"0c:42:a1:03:00:16:b2:c4", Form::kGuid, 0x0c42a1030016b2c4},
      {"20-00-00-10-87-fe-80-00-00-00-00-00-00-0c-42-a1-03-00-16-b2-c4", Form::kGuid,
       0x0c42a1030016b2c4},
      {"00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:16:b2:c4", Form::kGuid,
       0x0c42a1030016b2c4},
  };
  for (const auto& r : rows) {
    auto b = parse_bootif(r.text);
    ASSERT_TRUE(b) << r.text;
    EXPECT_EQ(b->form, r.form) << r.text;
    EXPECT_EQ(b->value, r.value) << r.text;
  }
  // Another htype before 6 bytes, 7 bytes alone, a stray byte, a byte of 3 digits.
  for (const char* bad : {"06-52-54-00-77-00-02", "52-54-00-77-00-02-03-04-05-06", "01-52-54",
                          "01-525-54-00-77-00-02", "", "ib0"}) {
    EXPECT_FALSE(parse_bootif(bad)) << bad;
  }
}

// cx5-ib: ib0 on port GUID 0c42:a103:0016:b2c4. iPXE's address of it (0c:42:a1:16:b2:c4)
// is what pxelinux puts in BOOTIF after an iPXE or FlexBoot PXE over InfiniBand.
TEST(BootIf, AnIpxeAddressOfAnIpoibPortIsNamedWithWhatToWrite) {
  Planned p = plan_on("cx5-ib", "BOOTIF=01-0c-42-a1-16-b2-c4");
  ASSERT_EQ(p.warnings.size(), 1u) << plan_text(p.plan);
  EXPECT_EQ(p.warnings[0],
            "cmdline: BOOTIF=01-0c-42-a1-16-b2-c4: BOOTIF (htype 1 and a MAC) names the "
            "InfiniBand port 0c42:a103:0016:b2c4 (iPXE's Ethernet-compatible address of its "
            "GUID: bytes 0-2 and 5-7, ipoib.c ipoib_init_addr), ib0: dracut matches BOOTIF as "
            "a 6-byte Ethernet address (net-lib.sh fix_bootif, net-genrules.sh), which an "
            "IPoIB interface's 20-byte address never is, and NetworkManager's generator makes "
            "an Ethernet connection of it, so the boot waits for that network until dracut's "
            "timeout; write rd.bootif=0 ip=ib0:dhcp");
  EXPECT_TRUE(p.plan.actions.empty()) << plan_text(p.plan);
}

// Where nothing names the port's interface, the hand-over cannot be made (ib_ipoib names it
// after udev's coldplug, dracut reads the command line before): under rd.rdma.required=1 in
// the initramfs, a failing action; on the real root (BOOTIF still on its command line, the
// boot over) said only.
TEST(BootIf, UnnamedPortUnderRequiredFailsInTheInitramfsOnly) {
  const std::string cmdline = "BOOTIF=20-0c-42-a1-03-00-16-b2-c4 rd.neednet=1 rd.rdma.required=1";
  for (const auto& a : plan_on("cx5-ib", cmdline).plan.actions)
    EXPECT_NE(a.kind(), ActionKind::kRequire) << a.object();
  Planned p = plan_on("cx5-ib", cmdline, "", "", true);
  ASSERT_EQ(p.warnings.size(), 1u) << plan_text(p.plan);
  EXPECT_NE(p.warnings[0].find("names the InfiniBand port 0c42:a103:0016:b2c4, ib0: "),
            std::string::npos)
      << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("write rd.bootif=0 ip=ib0:dhcp; cmdline: rd.rdma.required=1: "
                               "apply fails the boot on it"),
            std::string::npos)
      << p.warnings[0];
  bool required = false;
  for (const auto& a : p.plan.actions)
    required = required || (a.kind() == ActionKind::kRequire && !a.never.empty());
  EXPECT_TRUE(required) << plan_text(p.plan);
}

// Where the configuration names it (rd.rdma.name= by GUID), the initramfs hands dracut that
// interface (cli/bootif.cc, the cmdline hook 97): a note, no warning, nothing that fails.
TEST(BootIf, ANamedPortIsHandedToDracut) {
  const std::string cmdline =
      "BOOTIF=20-0c-42-a1-03-00-16-b2-c4 rd.rdma.name=ibfab0:0c42:a103:0016:b2c4 "
      "rd.neednet=1 rd.rdma.required=1";
  Planned p = plan_on("cx5-ib", cmdline, "", "", true);
  EXPECT_EQ(p.warnings, Strings{}) << plan_text(p.plan);
  for (const auto& a : p.plan.actions) EXPECT_NE(a.kind(), ActionKind::kRequire) << a.object();
  ASSERT_EQ(p.plan.notes.size(), 1u) << plan_text(p.plan);
  EXPECT_EQ(p.plan.notes[0],
            "BOOTIF (htype 32 and a port GUID) names the InfiniBand port 0c42:a103:0016:b2c4, "
            "ibfab0 (cmdline: rd.rdma.name=ibfab0:0c42:a103:0016:b2c4): the initramfs gives "
            "dracut rd.bootif=0 ip=ibfab0:dhcp at its cmdline step, before parse-ip-opts.sh and "
            "nm-initrd-generator read the command line (rdma-provision bootif)");
  // What dracut then reads (those words in /etc/cmdline.d, before /proc/cmdline): BOOTIF
  // off, the interface configured by name; nothing more to say.
  p = plan_on("cx5-ib", "rd.bootif=0 ip=ibfab0:dhcp " + cmdline, "", "", true);
  EXPECT_EQ(p.warnings, Strings{}) << plan_text(p.plan);
  EXPECT_TRUE(p.plan.notes.empty()) << plan_text(p.plan);
}

// A port the node table names (an image built elsewhere for the whole cluster): found by
// its row, without its hardware, and handed over under the row's name.
TEST(BootIf, ARowOfTheNodeTableIsHandedOverWithoutItsHardware) {
  // (This machine is not the row's: the plan says so.)
  Planned p = plan_on("rxe-virtio", "BOOTIF=01-ec-0d-9a-9c-81-e2",
                      "[nodes]\nec0d:9a03:009c:81e2 name=ibfab0\n");
  ASSERT_EQ(p.warnings.size(), 1u) << plan_text(p.plan);
  EXPECT_NE(p.warnings[0].find("the node table (1 row) has no row for this node"),
            std::string::npos);
  ASSERT_EQ(p.plan.notes.size(), 1u) << plan_text(p.plan);
  EXPECT_NE(p.plan.notes[0].find("names the InfiniBand port ec0d:9a03:009c:81e2 (iPXE's"),
            std::string::npos)
      << p.plan.notes[0];
  EXPECT_NE(p.plan.notes[0].find("gives dracut rd.bootif=0 ip=ibfab0:dhcp at its cmdline step"),
            std::string::npos)
      << p.plan.notes[0];
}

// What is handed over, by what else the command line says and which stack reads it
// (plan/bootif.cc bootif_handoff, each rule's source there).
TEST(BootIf, WhatIsHandedOverFollowsTheCommandLine) {
  const std::string port = " BOOTIF=01-0c-42-a1-16-b2-c4 rd.rdma.name=ibfab0:0c42:a103:0016:b2c4";
  struct Row {
    std::string cmdline;
    bool nm;
    std::string words;  // "" : nothing handed over; "-": no hand-over at all (nullopt)
  } rows[] = {
      {"rd.neednet=1", false, "rd.bootif=0 ip=ibfab0:dhcp"},
      // parse-ip-opts.sh refuses ip=dhcp beside another ip=; ip=dhcp reaches every interface.
      {"ip=dhcp", false, "rd.bootif=0"},
      // NetworkManager's generator takes both; its default connection stays for Ethernet.
      {"ip=dhcp", true, "rd.bootif=0 ip=ibfab0:dhcp"},
      {"ip=ibfab0:dhcp:2044", false, "rd.bootif=0"},
      {"ip=ibfab0:dhcp", true, "rd.bootif=0"},
      {"ip=eth0:dhcp", false, "rd.bootif=0"},
      {"ip=eth0:dhcp", true, "rd.bootif=0"},
      {"ip=10.0.0.2:::255.255.255.0:h:eth0:none", true, "rd.bootif=0"},
      {"ip=off", false, "rd.bootif=0 ip=ibfab0:dhcp"},
      {"rd.bootif=0", false, "-"},
      {"rd.bootif=0 rd.bootif=1", false, "rd.bootif=0 ip=ibfab0:dhcp"},
  };
  for (const auto& r : rows) {
    Config c;
    Diagnostics d;
    parse_cmdline(r.cmdline + port, c, d);
    if (r.nm) c.boot.network_manager = Source::at(Source::Origin::kOther, "nm");
    const auto h = bootif_handoff(c);
    const std::string got = !h ? "-" : join(h->words, " ");
    EXPECT_EQ(got, r.words) << r.cmdline << (r.nm ? " (NetworkManager)" : "");
  }
  // NetworkManager types a connection InfiniBand by an "ib" name only: another name cannot
  // be handed to it through ip=.
  Config c;
  Diagnostics d;
  parse_cmdline("BOOTIF=01-0c-42-a1-16-b2-c4 rd.rdma.name=fabric0:0c42:a103:0016:b2c4", c, d);
  EXPECT_EQ(bootif_handoff(c)->words, (Strings{"rd.bootif=0", "ip=fabric0:dhcp"}));
  c.boot.network_manager = Source::at(Source::Origin::kOther, "nm");
  auto h = bootif_handoff(c);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->words.empty());
  EXPECT_NE(h->why.find("only under a name that starts with \"ib\""), std::string::npos) << h->why;
  // An Ethernet BOOTIF, or an InfiniBand port nothing names: nothing to hand over.
  Config e;
  parse_cmdline("BOOTIF=01-52-54-00-77-00-01 rd.rdma.name=ibfab0:0c42:a103:0016:b2c4", e, d);
  EXPECT_FALSE(bootif_handoff(e));
  Config u;
  parse_cmdline("BOOTIF=01-0c-42-a1-16-b2-c4", u, d);
  EXPECT_FALSE(bootif_handoff(u));
  // Two named ports with one iPXE address (their GUIDs differ in bytes 3 and 4 only): which
  // one booted is unknown, so nothing is handed over.
  Config two;
  parse_cmdline(
      "BOOTIF=01-0c-42-a1-16-b2-c4 rd.rdma.name=ibfab0:0c42:a103:0016:b2c4 "
      "rd.rdma.name=ibfab1:0c42:a104:0016:b2c4",
      two, d);
  h = bootif_handoff(two);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->words.empty());
  EXPECT_NE(h->why.find("too: nothing is handed to dracut"), std::string::npos) << h->why;
  EXPECT_TRUE(d.errors.empty());
}

// What dracut matches itself, rd.bootif=0, and a BOOTIF nothing here has.
TEST(BootIf, EthernetIsDracutsAndNothingIsSaidWithWhatIsThere) {
  // rxe-virtio's eth0 is 52:54:00:77:00:01.
  EXPECT_EQ(plan_on("rxe-virtio", "BOOTIF=01-52-54-00-77-00-01").warnings, Strings{});
  EXPECT_EQ(plan_on("cx5-ib", "BOOTIF=01-0c-42-a1-16-b2-c4 rd.bootif=0").warnings, Strings{});
  Planned p = plan_on("cx5-ib", "BOOTIF=01-0c-42-a1-16-b2-c5");
  ASSERT_EQ(p.warnings.size(), 1u) << plan_text(p.plan);
  EXPECT_EQ(p.warnings[0],
            "cmdline: BOOTIF=01-0c-42-a1-16-b2-c5: BOOTIF (htype 1 and a MAC): no interface with "
            "address 0c:42:a1:16:b2:c5 is present; present: mlx5_0/1 0c42:a103:0016:b2c4");
  p = plan_on("cx5-ib", "BOOTIF=ib0");
  EXPECT_EQ(p.warnings,
            Strings{"cmdline: BOOTIF=ib0: BOOTIF 'ib0' is no hardware address a PXE loader "
                    "writes (<htype>-<6, 8 or 20 bytes>): left to dracut"});
}

// The boot's network on an IPoIB interface: its port waited for ACTIVE before dracut's
// ifup (DHCP over IPoIB goes nowhere before the SM has made it so), unless
// rd.rdma.wait=none says otherwise; an ACTIVE port needs no wait, an Ethernet boot
// interface none of this.
TEST(IbBoot, TheBootInterfacesPortIsWaitedForActive) {
  Planned p = plan_on("cx5-ib", "ip=ib0:dhcp rd.neednet=1", "", "2: INIT");
  ASSERT_EQ(p.plan.actions.size(), 1u) << plan_text(p.plan);
  EXPECT_EQ(p.plan.actions[0].kind(), ActionKind::kWaitPort);
  EXPECT_EQ(p.plan.actions[0].object(), "mlx5_0/1");
  EXPECT_EQ(p.plan.actions[0].current, "INIT");
  EXPECT_EQ(p.plan.actions[0].reason, "cmdline: ip=ib0:dhcp (the boot's network over IPoIB)");
  // By the name the configuration gives the port's interface.
  p = plan_on("cx5-ib", "ip=ibfab0:dhcp rd.rdma.name=ibfab0:0c42:a103:0016:b2c4", "", "2: INIT");
  bool waited = false;
  for (const auto& a : p.plan.actions)
    waited = waited || (a.kind() == ActionKind::kWaitPort && a.object() == "mlx5_0/1");
  EXPECT_TRUE(waited) << plan_text(p.plan);
  EXPECT_TRUE(
      plan_on("cx5-ib", "ip=ib0:dhcp rd.rdma.wait=none", "", "2: INIT").plan.actions.empty());
  EXPECT_TRUE(plan_on("cx5-ib", "ip=ib0:dhcp").plan.actions.empty());  // ACTIVE already
}

// dracut's bond= over IPoIB interfaces (four-hca: ib0..ib7, ports ACTIVE on ib0, ib2, ...):
// the bonding driver takes InfiniBand slaves in active-backup mode only, and never beside
// Ethernet ones (bond_main.c bond_enslave); said with what to write, a failing require
// action under rd.rdma.required=1.
TEST(IbBond, OnlyActiveBackupTakesIpoibSlaves) {
  Planned p = plan_on("four-hca", "bond=bond0:ib0,ib2 ip=bond0:dhcp");
  ASSERT_EQ(p.warnings.size(), 1u) << plan_text(p.plan);
  EXPECT_EQ(p.warnings[0],
            "cmdline: bond=bond0:ib0,ib2: bond bond0: IPoIB slaves (ib0, ib2) in mode balance-rr "
            "(the bonding driver's default: bond= gives no mode=): the bonding driver takes an "
            "InfiniBand slave only in active-backup mode (bond_main.c bond_enslave: \"Only "
            "active-backup mode is supported for infiniband slaves\"), so the bond never gets a "
            "slave; write bond=bond0:ib0,ib2:mode=active-backup,miimon=100");
  p = plan_on("four-hca", "bond=bond0:ib0,ib2:mode=802.3ad ip=bond0:dhcp rd.rdma.required=1");
  ASSERT_EQ(p.warnings.size(), 1u) << plan_text(p.plan);
  EXPECT_NE(p.warnings[0].find("in mode 802.3ad: "), std::string::npos) << p.warnings[0];
  bool required = false;
  for (const auto& a : p.plan.actions)
    required = required || (a.kind() == ActionKind::kRequire && !a.never.empty());
  EXPECT_TRUE(required) << plan_text(p.plan);
  // active-backup, by name or by the driver's number: nothing to say.
  EXPECT_EQ(plan_on("four-hca", "bond=bond0:ib0,ib2:mode=active-backup,miimon=100").warnings,
            Strings{});
  EXPECT_EQ(plan_on("four-hca", "bond=bond0:ib0,ib2:mode=1").warnings, Strings{});
  // Ethernet slaves are none of this.
  EXPECT_EQ(plan_on("cx5-roce", "bond=bond0:ens1f0np0,ens1f1np1:mode=802.3ad").warnings, Strings{});
}

// A bond= slave nothing provides (not present, not named here, not made by dracut or
// ib_ipoib): with another slave the bond comes up without failover, said and listed as
// absent (apply waits for udev's coldplug to bring it); with none, the boot's network never
// comes up: absent, a failing action under rd.rdma.required=1.
TEST(Bond, SlavesNothingProvidesAreSaid) {
  Planned p = plan_on("cx5-roce", "bond=bond0:ens1f0np0,eth9:mode=active-backup ip=bond0:dhcp");
  EXPECT_EQ(p.warnings,
            Strings{"cmdline: bond=bond0:ens1f0np0,eth9:mode=active-backup: bond bond0: no "
                    "interface eth9 is present and nothing here makes it: the bond comes up with "
                    "ens1f0np0 alone, without a link to fail over to"});
  EXPECT_EQ(p.plan.absent.size(), 1u);
  for (const auto& a : p.plan.actions) EXPECT_NE(a.kind(), ActionKind::kRequire) << a.object();
  p = plan_on("cx5-roce", "bond=bond0:eth8,eth9:mode=1 ip=bond0:dhcp rd.rdma.required=1", "", "",
              true);
  ASSERT_EQ(p.warnings.size(), 2u) << plan_text(p.plan);
  EXPECT_NE(p.warnings[0].find("bond bond0 (dracut enslaves its slaves): no interface eth8 is "
                               "present; present: ens1f0np0, ens1f1np1"),
            std::string::npos)
      << p.warnings[0];
  size_t required = 0;
  for (const auto& a : p.plan.actions) required += a.kind() == ActionKind::kRequire;
  EXPECT_EQ(required, 2u) << plan_text(p.plan);
  // Renamed away: the name dracut would look for never appears.
  p = plan_on("cx5-roce",
              "bond=bond0:ens1f0np0,ens1f1np1:mode=1 rd.rdma.name=fab1:98:03:9b:46:8a:11");
  EXPECT_EQ(p.warnings,
            Strings{"cmdline: bond=bond0:ens1f0np0,ens1f1np1:mode=1: ens1f1np1 is renamed to fab1 "
                    "(cmdline: rd.rdma.name=fab1:98:03:9b:46:8a:11): dracut would wait for "
                    "ens1f1np1 in vain; name fab1 here"});
  // Both there, and IPoIB slaves ib_ipoib will make: nothing to say.
  EXPECT_EQ(plan_on("cx5-roce", "bond=bond0:ens1f0np0,ens1f1np1:mode=1").warnings, Strings{});
}

TEST(IbBond, TheSlavesPortsAreWaitedForAsTheBootsNetwork) {
  Planned p = plan_on("cx5-ib", "bond=bond0:ib0:mode=active-backup ip=bond0:dhcp", "", "2: INIT");
  bool waited = false;
  for (const auto& a : p.plan.actions) {
    waited = waited || (a.kind() == ActionKind::kWaitPort && a.object() == "mlx5_0/1" &&
                        a.reason == "cmdline: ip=bond0:dhcp (the boot's network over IPoIB)");
  }
  EXPECT_TRUE(waited) << plan_text(p.plan);
}

}  // namespace
}  // namespace rp
