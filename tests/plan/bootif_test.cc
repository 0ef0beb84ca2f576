// BOOTIF (plan/bootif.cc) on the fixture trees: the forms a PXE loader writes (pxelinux's
// "<htype>-<chaddr>"; iPXE's Ethernet-compatible address of an IPoIB port, ipoib.c
// ipoib_init_addr; gPXE's 8-byte GUID; a 20-byte IPoIB address) and what each names here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(BootIf, AGuidFormNamesThePortByTheNameItWillHave) {
  const std::string cmdline =
      "BOOTIF=20-0c-42-a1-03-00-16-b2-c4 rd.rdma.name=ibfab0:0c42:a103:0016:b2c4 "
      "rd.neednet=1 rd.rdma.required=1";
  // On the real root the boot is over (BOOTIF is still on its command line): said, and no
  // action that would fail the real root's apply.
  for (const auto& a : plan_on("cx5-ib", cmdline).plan.actions)
    EXPECT_NE(a.kind(), ActionKind::kRequire) << a.object();
  Planned p = plan_on("cx5-ib", cmdline, "", "", true);
  ASSERT_EQ(p.warnings.size(), 1u) << plan_text(p.plan);
  EXPECT_NE(p.warnings[0].find("names the InfiniBand port 0c42:a103:0016:b2c4, ibfab0: "),
            std::string::npos)
      << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("write rd.bootif=0 ip=ibfab0:dhcp; cmdline: rd.rdma.required=1: "
                               "apply fails the boot on it"),
            std::string::npos)
      << p.warnings[0];
  // rd.rdma.required=1: an action that fails at once with that text.
  bool required = false;
  for (const auto& a : p.plan.actions)
    required = required || (a.kind() == ActionKind::kRequire && !a.never.empty());
  EXPECT_TRUE(required) << plan_text(p.plan);
}

// A port the node table names (an image built elsewhere): found by its row.
TEST(BootIf, ARowOfTheNodeTableIsFoundWithoutItsHardware) {
  // (This machine is not the row's: the plan says so too.)
  Planned p = plan_on("rxe-virtio", "BOOTIF=01-ec-0d-9a-9c-81-e2",
                      "[nodes]\nec0d:9a03:009c:81e2 name=ibfab0\n");
  ASSERT_EQ(p.warnings.size(), 2u) << plan_text(p.plan);
  EXPECT_NE(p.warnings[0].find("the node table (1 row) has no row for this node"),
            std::string::npos);
  EXPECT_NE(p.warnings[1].find("names the InfiniBand port ec0d:9a03:009c:81e2 (iPXE's"),
            std::string::npos)
      << p.warnings[0];
  EXPECT_NE(p.warnings[1].find("write rd.bootif=0 ip=ibfab0:dhcp"), std::string::npos)
      << p.warnings[1];
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
