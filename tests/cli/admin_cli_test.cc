// The administrator's view of a bad boot (issue: loud mistakes, a record that survives,
// one command that explains the last boot), through the binary as it is run, on fixtures.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tests/support/fixture.h"

namespace rp {
namespace {

using testing::has;
using testing::Ran;
using testing::tool;

// cx5-roce: mlx5_0 (ens1f0np0, 98:03:9b:46:8a:10) and mlx5_1 (ens1f1np1, ...:11), RoCE.
TEST(LoudMistakes, AMacThatMatchesNothingIsAWarningListingTheInterfacesThere) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const Ran r = tool(root, "check --cmdline-string 'rd.rdma.name=fabric0:98:03:9b:46:8a:1f'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: rd.rdma.name=fabric0:98:03:9b:46:8a:1f: name fabric0: no "
                  "interface with MAC 98:03:9b:46:8a:1f is present; present: ens1f0np0 "
                  "98:03:9b:46:8a:10, ens1f1np1 98:03:9b:46:8a:11"))
      << r.out;
  EXPECT_TRUE(has(r.out, "check: 0 errors, 1 warning")) << r.out;
  // One digit off one MAC and two off the other: the typo is named.
  const Ran typo = tool(root, "check --cmdline-string 'rd.rdma.name=fabric0:98:03:9b:46:8a:20'");
  EXPECT_TRUE(has(typo.out, "(did you mean '98:03:9b:46:8a:10'?)")) << typo.out;
}

// cx3-vpi: one mlx4 function 0000:81:00.0, port 1 IPoIB (ib0), port 2 Ethernet.
TEST(FleetNames, OneCommandLineForEveryNodeNamesByFunctionAndPort) {
  const std::string root = testing::unpack_fixture("cx3-vpi");
  const Ran r = tool(root,
                     "plan --cmdline-string 'rd.rdma.name=fab0:pci-0000:81:00.0/2 "
                     "rd.rdma.name=fab1:mlx4_0/1'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "  1. rename       enp129s0d1: enp129s0d1 -> fab0  [cmdline: "
                  "rd.rdma.name=fab0:pci-0000:81:00.0/2]\n"
                  "  2. rename       ib0: ib0 -> fab1  [cmdline: rd.rdma.name=fab1:mlx4_0/1] "
                  "after 1\n"))
      << r.out;
  // A node of another make: said, with the functions it has.
  const Ran other = tool(root, "check --cmdline-string 'rd.rdma.name=fab0:pci-0000:af:00.0'");
  EXPECT_EQ(other.status, 0) << other.out;
  EXPECT_TRUE(has(other.out,
                  "name fab0: no interface at pci-0000:af:00.0 is present; present: "
                  "pci-0000:00:19.0/1 eno1, pci-0000:81:00.0/1 ib0, "
                  "pci-0000:81:00.0/2 enp129s0d1"))
      << other.out;
}

TEST(LoudMistakes, ARoceSettingForADeviceThatIsNotThereNamesTheRocePorts) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const Ran r = tool(root, "check --cmdline-string 'rd.rdma.roce=mlx5_7:v2'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: rd.rdma.roce=mlx5_7:v2: RoCE defaults: no RoCE port "
                  "mlx5_7 is present; present: mlx5_0/1, mlx5_1/1"))
      << r.out;
}

TEST(LoudMistakes, AWaitThatCanNeverBeMetFailsApplyAtOnce) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const std::string cmdline = "--cmdline-string 'rd.rdma.required=1 rd.rdma.wait=mlx5_9/1'";
  const Ran check = tool(root, "check " + cmdline);
  EXPECT_EQ(check.status, 0) << check.out;
  EXPECT_TRUE(has(check.out,
                  "warning: cmdline: rd.rdma.wait=mlx5_9/1: wait-port mlx5_9/1: no such "
                  "RDMA port is present; present: mlx5_0/1, mlx5_1/1; apply fails it"))
      << check.out;
  const Ran apply = tool(root, "apply --log stderr " + cmdline);
  EXPECT_EQ(apply.status, 1) << apply.out;  // the dracut module's policy stops the boot
  EXPECT_TRUE(has(apply.out,
                  "failed  wait-port mlx5_9/1: absent -> ACTIVE: mlx5_9/1: no such RDMA "
                  "port is present"))
      << apply.out;
  EXPECT_TRUE(has(apply.out, "summary: 0 done, 0 already, 0 checked, 0 skipped, 1 failed"))
      << apply.out;
  // Said once: no warning besides the failed action.
  EXPECT_FALSE(has(apply.out, "warning:")) << apply.out;
  // A wait for an interface that is not there fails the same way.
  const Ran link = tool(root, "apply --log stderr --cmdline-string 'rd.rdma.wait=fabric9'");
  EXPECT_EQ(link.status, 1) << link.out;
}

TEST(LoudMistakes, IpAndBootdevAreCheckedAgainstTheNamesGivenHere) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const std::string name = " rd.rdma.name=fabric0:98:03:9b:46:8a:10";
  // A typo of the name given here.
  Ran r = tool(root, "check --cmdline-string 'ip=fabirc0:dhcp" + name + "'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: ip=fabirc0:dhcp: the boot's network (dracut waits for "
                  "it): no interface fabirc0 is present; present: fabric0 (now ens1f0np0), "
                  "ens1f1np1 (did you mean 'fabric0'?)"))
      << r.out;
  // The kernel's name of the interface this configuration renames.
  r = tool(root, "check --cmdline-string 'bootdev=ens1f0np0" + name + "'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: bootdev=ens1f0np0: ens1f0np0 is renamed to fabric0 "
                  "(cmdline: rd.rdma.name=fabric0:98:03:9b:46:8a:10): dracut would wait "
                  "for ens1f0np0 in vain; name fabric0 here"))
      << r.out;
  // The given name, and an interface that keeps its name: nothing to say.
  r = tool(root, "check --cmdline-string 'ip=fabric0:dhcp bootdev=ens1f1np1" + name + "'");
  EXPECT_TRUE(has(r.out, "check: 0 errors, 0 warnings")) << r.out;
}

TEST(LoudMistakes, ANodeTableWithoutThisNodesRowSaysWhichRowIsATypo) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  testing::run("mkdir -p " + root + "/etc/rdma-provision");
  std::ofstream(root + "/etc/rdma-provision/rdma-provision.conf")
      << "[nodes]\n98:03:9b:46:8a:01 name=fabric0\n";
  const Ran r = tool(root, "check");
  EXPECT_TRUE(has(r.out,
                  "warning: /etc/rdma-provision/rdma-provision.conf: the node table (1 row) "
                  "has no row for this node"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "(did you mean the row 98:03:9b:46:8a:01 at "
                  "/etc/rdma-provision/rdma-provision.conf:2"))
      << r.out;
}

std::string read(const std::string& path) { return testing::run("cat '" + path + "' 2>&1"); }

TEST(BootRecord, EachPhaseKeepsItsOwnRecordAndExplainTellsBoth) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  testing::run("mkdir -p " + root + "/proc/sys/kernel/random " + root + "/etc");
  std::ofstream(root + "/proc/sys/kernel/random/boot_id")
      << "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n";
  // The initramfs (dracut installs /etc/initrd-release): a wait that fails.
  std::ofstream(root + "/etc/initrd-release") << "NAME=dracut\n";
  Ran r = tool(root, "apply --log stderr --cmdline-string 'rd.rdma.wait=mlx5_9/1'");
  EXPECT_EQ(r.status, 1) << r.out;
  // The real root: all well, which must not hide the initramfs' failure.
  testing::run("rm " + root + "/etc/initrd-release");
  const std::string prom = root + "/../metrics.prom";
  r = tool(root, "apply --log stderr --metrics " + prom);
  EXPECT_EQ(r.status, 0) << r.out;

  const std::string initramfs = read(root + "/run/rdma-provision/initramfs/state.env");
  EXPECT_TRUE(has(initramfs, "RP_EXIT_CODE='1'")) << initramfs;
  EXPECT_TRUE(has(initramfs, "RP_PHASE='initramfs'")) << initramfs;
  EXPECT_TRUE(has(initramfs, "RP_BOOT_ID='0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'")) << initramfs;
  EXPECT_TRUE(has(initramfs, "RP_ERRORS='mlx5_9/1: no such RDMA port is present")) << initramfs;
  const std::string real = read(root + "/run/rdma-provision/real-root/state.env");
  EXPECT_TRUE(has(real, "RP_EXIT_CODE='0'")) << real;
  const std::string json = read(root + "/run/rdma-provision/state.json");
  EXPECT_TRUE(has(json, "\"phase\": \"real-root\"")) << json;
  EXPECT_TRUE(has(json, "\"started\": \"20")) << json;

  const std::string metrics = read(prom);
  EXPECT_TRUE(has(metrics,
                  "rdma_provision_boot_exit_code{phase=\"initramfs\",boot_id=\"0f1e2d3c-"
                  "4b5a-6978-8796-a5b4c3d2e1f0\"} 1"))
      << metrics;
  EXPECT_TRUE(has(metrics,
                  "rdma_provision_boot_exit_code{phase=\"real-root\",boot_id=\"0f1e2d3c-"
                  "4b5a-6978-8796-a5b4c3d2e1f0\"} 0"))
      << metrics;

  r = tool(root, "explain");
  EXPECT_EQ(r.status, 1) << r.out;  // a record shows a failure
  EXPECT_TRUE(has(r.out, "this boot 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")) << r.out;
  EXPECT_TRUE(has(r.out, "exit 1: some actions failed")) << r.out;
  // The action as apply printed it: kind, object, states, error and fix, its source.
  EXPECT_TRUE(has(r.out,
                  "  failed  wait-port mlx5_9/1: absent -> ACTIVE: mlx5_9/1: no such RDMA port "
                  "is present; present: mlx5_0/1, mlx5_1/1  [cmdline: rd.rdma.wait=mlx5_9/1]"))
      << r.out;
  EXPECT_FALSE(has(r.out, "  error: mlx5_9/1")) << r.out;  // said once, in the action's line
  EXPECT_TRUE(has(r.out, "record: /run/rdma-provision/initramfs/state.json")) << r.out;
  EXPECT_TRUE(has(r.out, "exit 0: all done")) << r.out;
  EXPECT_TRUE(has(r.out, "journalctl -k -b")) << r.out;
  // initramfs first, then the real root.
  EXPECT_LT(r.out.find("initramfs "), r.out.find("real-root "));
}

// apply --history (the real root's unit) keeps this boot's records; the first run of the
// next boot moves them aside, and explain tells that boot as the one before.
TEST(BootRecord, ExplainTellsTheBootBeforeFromTheKeptHistory) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  testing::run("mkdir -p " + root + "/proc/sys/kernel/random " + root + "/etc");
  auto boot = [&](const std::string& id) {
    std::ofstream(root + "/proc/sys/kernel/random/boot_id") << id << "\n";
  };
  const std::string first = "11111111-2222-3333-4444-555555555555";
  boot(first);
  std::ofstream(root + "/etc/initrd-release") << "NAME=dracut\n";
  Ran r = tool(root, "apply --log stderr --cmdline-string 'rd.rdma.wait=mlx5_9/1'");
  EXPECT_EQ(r.status, 1) << r.out;
  testing::run("rm " + root + "/etc/initrd-release");
  r = tool(root, "apply --log stderr --history /var/lib/rdma-provision --cmdline-string ''");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(read(root + "/var/lib/rdma-provision/boot/initramfs.env"), first));
  // Nothing before the first boot.
  EXPECT_FALSE(has(tool(root, "explain").out, "the boot before")) << r.out;
  // The next boot: /run is new, the kept records become the boot before's.
  testing::run("rm -rf " + root + "/run/rdma-provision");
  boot("66666666-7777-8888-9999-000000000000");
  r = tool(root, "apply --log stderr --history /var/lib/rdma-provision --cmdline-string ''");
  EXPECT_EQ(r.status, 0) << r.out;
  r = tool(root, "explain");
  EXPECT_EQ(r.status, 0) << r.out;  // this boot is well; the one before is told, not judged
  EXPECT_TRUE(has(r.out, "the boot before " + first +
                             " (kept in /var/lib/rdma-provision/"
                             "previous/):\ninitramfs "))
      << r.out;
  EXPECT_TRUE(has(r.out, "  failed  wait-port mlx5_9/1: absent -> ACTIVE")) << r.out;
  EXPECT_TRUE(has(tool(root, "explain --json").out, "\"previous_boot\": {")) << r.out;
  // This boot has no initramfs record: none is kept for it.
  EXPECT_EQ(read(root + "/var/lib/rdma-provision/boot/initramfs.env"), "");
}

TEST(BootRecord, InvalidInputAndTheRootMountAreInTheRecord) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  testing::run("mkdir -p " + root + "/proc/self");
  // fs/proc_namespace.c show_vfsmnt; fs/nfs/super.c nfs_show_mount_options (proto=rdma).
  std::ofstream(root + "/proc/self/mounts")
      << "rootfs / rootfs rw 0 0\n"
         "10.77.0.1:/srv/root / nfs4 rw,relatime,vers=4.2,rsize=1048576,proto=rdma,port=20049,"
         "timeo=600,retrans=2,sec=sys,clientaddr=10.77.0.2 0 0\n"
         "proc /proc proc rw 0 0\n";
  Ran r = tool(root,
               "apply --log stderr --cmdline-string 'rd.rdma.roce=mlx5_0:v3 "
               "rd.rdma.name=fab0:98:03:9b:46:8a:10'");
  EXPECT_EQ(r.status, 2) << r.out;
  r = tool(root, "explain");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "exit 2: invalid input, nothing applied")) << r.out;
  EXPECT_TRUE(has(r.out, "error: cmdline: rd.rdma.roce=mlx5_0:v3: RoCE mode 'v3'")) << r.out;
  // What the node went without, as apply said it.
  EXPECT_TRUE(has(r.out, "  not applied: [name fab0]\n")) << r.out;
  EXPECT_TRUE(has(r.out, "root       10.77.0.1:/srv/root on / (nfs4, NFS over RDMA)")) << r.out;
}

TEST(BootRecord, ExplainWithoutAnyRecordSaysSo) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const Ran r = tool(root, "explain");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "no record: rdma-provision has not run in this boot")) << r.out;
}

TEST(WhatConfuses, AConfigUnderRootSaysWhereItLooked) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const Ran r = tool(root, "check --config /etc/my.conf");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out,
                  "error: /etc/my.conf: cannot open (No such file or directory) (read "
                  "under --root as " +
                      root + "/etc/my.conf)"))
      << r.out;
}

TEST(WhatConfuses, StatusShowsEachRocePortsDefaults) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  // mlx5_1's directory gone, as when nobody made it: its defaults are not readable.
  EXPECT_EQ(testing::run("rm -rf " + root + "/sys/kernel/config/rdma_cm/mlx5_1 2>&1"), "");
  testing::run("mkdir -p " + root +
               "/sys/kernel/config/rdma_cm/mlx5_0/ports/1 && echo 'RoCE v2' > " + root +
               "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode && echo 106 > " + root +
               "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
  const Ran r = tool(root, "status");
  EXPECT_TRUE(has(r.out, "      RoCE defaults: mode RoCE v2, ToS 106\n")) << r.out;
  EXPECT_TRUE(
      has(r.out, "      RoCE defaults: the kernel's (no /sys/kernel/config/rdma_cm/mlx5_1)"))
      << r.out;
}

// bash completion: the script asks the binary, which answers from its command table.
TEST(WhatConfuses, BashCompletesCommandsAndEachCommandsOptions) {
  const std::string script = std::string(std::getenv("TEST_SRCDIR")) + "/" +
                             std::getenv("TEST_WORKSPACE") +
                             "/configs/rdma-provision.bash-completion";
  auto complete = [&](const std::string& words, int cword) {
    return testing::run("bash -c '. " + script + "; COMP_WORDS=(" + testing::tool_binary() + " " +
                        words + "); COMP_CWORD=" + std::to_string(cword) +
                        "; _rdma_provision; echo \"${COMPREPLY[*]}\"'");
  };
  EXPECT_EQ(complete("ex", 1), "explain\n");
  EXPECT_EQ(complete("\"\"", 1).find("status check config plan apply"), 0u);
  EXPECT_EQ(complete("explain --", 2), "--root --json --history --help\n");
  EXPECT_EQ(complete("apply --me", 2), "--metrics\n");
  // After an option that takes a value: files (here, none begins with that).
  EXPECT_EQ(complete("apply --root /nonexistent-x", 3), "\n");
}

// ---- Validation for the target at image build (item 4) ----------------------------------

void conf(const std::string& root, const std::string& path, const std::string& text) {
  testing::run("mkdir -p \"$(dirname '" + root + path + "')\"");
  std::ofstream(root + path) << text;
}

// Before: `check` knew only the build host, and image-needs only listed modules: connected
// mode for an mlx5 target passed both and failed at boot (ipoib_set_mode: EINVAL).
TEST(TargetCheck, ConnectedModeOnEnhancedIpoibFailsTheImageBuild) {
  const std::string root = testing::unpack_fixture("rxe-virtio");  // the build host
  conf(root, "/etc/rdma-provision/rdma-provision.conf", "[ipoib ib0]\nmode = connected\n");
  Ran r = tool(root, "check --drivers mlx5_ib --cmdline-string ''");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out,
                  "error: /etc/rdma-provision/rdma-provision.conf:2: connected mode for ib0: "
                  "the target's InfiniBand driver mlx5_ib runs Enhanced IPoIB, which has "
                  "datagram mode only (options ib_ipoib ipoib_enhanced=0 gives it connected "
                  "mode)"))
      << r.out;
  EXPECT_TRUE(has(r.out, "check: 1 error, 0 warnings; target drivers: mlx5_ib")) << r.out;
  // dracut's module-setup.sh runs image-needs with rdma_provision_drivers: it fails too.
  r = tool(root, "image-needs --drivers mlx5_ib --cmdline-string ''");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "connected mode for ib0")) << r.out;
  // An mlx4 card beside it has connected mode; so has mlx5 with ipoib_enhanced=0.
  EXPECT_EQ(tool(root, "check --drivers 'mlx5_ib mlx4_ib' --cmdline-string ''").status, 0);
  conf(root, "/etc/modprobe.d/ipoib.conf", "options ib_ipoib ipoib_enhanced=0\n");
  r = tool(root, "check --drivers mlx5_ib --cmdline-string ''");
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST(TargetCheck, WhatNoDriverOfTheTargetCanDoIsAnError) {
  const std::string root = testing::unpack_fixture("cx5-ib");
  Ran r = tool(root,
               "check --drivers rdma_rxe --cmdline-string 'rd.rdma.ipoib=ib0:datagram "
               "rd.rdma.roce=*:v1'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out,
                  "error: cmdline: rd.rdma.ipoib=ib0:datagram: IPoIB settings for ib0: none of "
                  "the target's drivers (rdma_rxe) has InfiniBand ports"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "error: cmdline: rd.rdma.roce=*:v1: RoCE defaults for *: RoCE v1, which none "
                  "of the target's RoCE drivers (rdma_rxe) has: they run RoCE v2 only"))
      << r.out;
  // RoCE v2 on mlx4 is a ConnectX-3 Pro's alone: said, not refused.
  r = tool(root, "check --drivers 'mlx4_ib mlx4_en' --cmdline-string 'rd.rdma.roce=mlx4_0:v2'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "RoCE v2, which mlx4_ib (a ConnectX-3 Pro only) has: on other "
                  "hardware of that driver (a plain ConnectX-3) the boot refuses it"))
      << r.out;
  // The build host is not the target: its InfiniBand ports make no difference.
  r = tool(root, "check --drivers bnxt_re --cmdline-string 'rd.rdma.pkey=ib0:0x10'");
  EXPECT_TRUE(has(r.out, "P_Key child ib0.8010: none of the target's drivers (bnxt_re)")) << r.out;
}

// Before: a row was looked at only when it was the build host's (or the booting node's).
TEST(TargetCheck, EveryNodeTableRowIsCheckedOnItsOwn) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  conf(root, "/etc/rdma-provision/rdma-provision.conf",
       "[nodes]\n"
       "0002:c903:0031:7901 name=fab0 address=10.10.1.1/16\n"
       "0002:c903:0031:7902 name=fab0 address=10.10.1.1/16\n"
       "52:54:00:77:00:02 name=roce0 mode=connected\n"
       "0002:c903:0031:7903 siw=siw0\n"
       "0002:c903:0031:7904 name=fab0 address=10.10.1.4/16\n");
  const Ran r = tool(root, "check");
  EXPECT_EQ(r.status, 2) << r.out;
  const std::string f = "/etc/rdma-provision/rdma-provision.conf:";
  EXPECT_TRUE(has(r.out, "error: " + f +
                             "3: node 0002:c903:0031:7902: address 10.10.1.1 is "
                             "also node 0002:c903:0031:7901's, at " +
                             f + "2"))
      << r.out;
  EXPECT_TRUE(has(r.out, "error: " + f +
                             "4: node 52:54:00:77:00:02: mode= is an IPoIB "
                             "setting, and a MAC names an Ethernet interface"))
      << r.out;
  EXPECT_TRUE(has(r.out, "error: " + f +
                             "5: node 0002:c903:0031:7903: siw= needs an "
                             "Ethernet interface"))
      << r.out;
  // Every node may call its port fab0: names repeat across rows.
  EXPECT_TRUE(has(r.out, "check: 3 errors")) << r.out;
}

// Before: "invalid input: nothing applied", and nothing said what the node went without.
TEST(TargetCheck, AnInvalidInputSaysWhatWasNotApplied) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const Ran r = tool(root,
                     "apply --log stderr --cmdline-string 'rd.rdma.roce=mlx5_0:v2:106 "
                     "rd.rdma.name=fab0:98:03:9b:46:8a:10 rd.rdma.wait=mlx5_0/1 "
                     "rd.rdma.timeout=abc'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out,
                  "invalid input: nothing applied; not applied: [general] wait, "
                  "[roce mlx5_0], [name fab0]"))
      << r.out;
}

// ---- The effective configuration (item 5) -----------------------------------------------

TEST(EffectiveConfig, EveryValueWithItsSourceTheNodeTableRowIncluded) {
  const std::string root = testing::unpack_fixture("cx3-vpi");  // ib0: port GUID ...cba1
  conf(root, "/etc/rdma-provision/rdma-provision.conf",
       "[general]\ntimeout = 90\n[nodes]\nf452:1403:007b:cba1 name=fab0 mode=connected\n");
  conf(root, "/etc/modprobe.d/mlx4.conf", "options mlx4_en pfctx=0x08 pfcrx=0x08\n");
  Ran r = tool(root, "config --cmdline-string 'rd.rdma.timeout=30 ip=fab0:dhcp'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "timeout = 30                            # cmdline: rd.rdma.timeout=30"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "[name fab0]\nmatch = f452:1403:007b:cba1             # "
                  "/etc/rdma-provision/rdma-provision.conf:4 (node table)"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "[pfc]\ntx = 0x08                               # "
                  "/etc/modprobe.d/mlx4.conf:1"))
      << r.out;
  EXPECT_TRUE(has(r.out, "# dracut boot interface = fab0          # cmdline: ip=fab0:dhcp"))
      << r.out;
  EXPECT_TRUE(has(r.out, "# The node table has 1 row")) << r.out;
  r = tool(root, "config --json --cmdline-string 'rd.rdma.timeout=30'");
  EXPECT_TRUE(has(r.out,
                  "\"key\": \"timeout\",\n      \"value\": \"30\",\n      \"source\": "
                  "\"cmdline: rd.rdma.timeout=30\""))
      << r.out;
  // An invalid input is shown too, its error first, and the exit says it.
  r = tool(root, "config --cmdline-string 'rd.rdma.timeout=abc'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "error: cmdline: rd.rdma.timeout=abc")) << r.out;
}

// Before: "no parent interface ib0 is present; present: ..., ib0 (did you mean 'ib0'?)".
TEST(WhatConfuses, ASettingOnANameThatIsRenamedAwaySaysSo) {
  const std::string root = testing::unpack_fixture("cx3-vpi");
  const Ran r = tool(root,
                     "check --cmdline-string 'rd.rdma.name=fab0:f452:1403:007b:cba1 "
                     "rd.rdma.pkey=ib0:0x10 rd.rdma.ipoib=ib1:connected'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: rd.rdma.pkey=ib0:0x10: P_Key child ib0.8010: interface "
                  "ib0 is renamed fab0 by cmdline: rd.rdma.name=fab0:f452:1403:007b:cba1 "
                  "before this applies: name it fab0"))
      << r.out;
  // What is present is listed by the names it will have.
  EXPECT_TRUE(has(r.out, "present: eno1, enp129s0d1, fab0 (now ib0)")) << r.out;
  EXPECT_FALSE(has(r.out, "did you mean 'ib0'")) << r.out;
}

// Before: "[cmdline: rd.rdma.mlx4.pfc=0x08/0x08; PFC from cmdline: rd.rdma.mlx4.pfc=0x08/0x08]"
// and "wait-port mlx4_0/2: ACTIVE -> ACTIVE".
TEST(WhatConfuses, AReasonNamesItsSourceOnceAndAWaitSaysWhatItWaitsFor) {
  const std::string single = testing::unpack_fixture("cx3-single-builtin");
  Ran r = tool(single, "plan --cmdline-string 'rd.rdma.mlx4.pfc=0x08/0x08'");
  EXPECT_TRUE(
      has(r.out, "loaded with pfctx=0x08 pfcrx=0x08  [cmdline: rd.rdma.mlx4.pfc=0x08/0x08]\n"))
      << r.out;
  const std::string vpi = testing::unpack_fixture("cx3-vpi");
  r = tool(vpi, "plan --cmdline-string 'rd.rdma.mlx4=0000:81:00.0/eth,eth rd.rdma.wait=mlx4_0/2'");
  EXPECT_TRUE(has(r.out, "wait-port    mlx4_0/2: ACTIVE before action 1 -> ACTIVE")) << r.out;
}

// NetworkManager in the initramfs, against this machine (inputs/networkmanager.cc has the
// configuration-only rules and their table): an ib.pkey= parent this plan renames away,
// and an IPoIB interface that is here under a name NetworkManager takes for Ethernet.
TEST(NetworkManagerImage, APkeyParentRenamedAwayAndAnIpoibNameWithoutIb) {
  const std::string root = testing::unpack_fixture("cx3-vpi");
  const Ran renamed = tool(root,
                           "check --network-manager --cmdline-string "
                           "'rd.rdma.name=ib-fab0:f452:1403:007b:cba1 ib.pkey=ib0.8004'");
  EXPECT_EQ(renamed.status, 2) << renamed.out;
  EXPECT_TRUE(has(renamed.out,
                  "error: cmdline: ib.pkey=ib0.8004: NetworkManager makes this partition on an "
                  "interface named ib0 (nm-manager.c find_parent_device_for_connection), and "
                  "cmdline: rd.rdma.name=ib-fab0:f452:1403:007b:cba1 renames ib0 to ib-fab0 "
                  "before NetworkManager starts: write ib.pkey=ib-fab0.8004"))
      << renamed.out;
  // The same without NetworkManager: our own child, made on the renamed parent.
  EXPECT_EQ(tool(root,
                 "check --cmdline-string 'rd.rdma.name=ib-fab0:f452:1403:007b:cba1 "
                 "ib.pkey=ib0.8004'")
                .status,
            0);
  // ib0 as 70-persistent-ipoib.rules' template names it: mlx4_ib0.
  const std::string net = "/sys/devices/pci0000:81/0000:80:03.0/0000:81:00.0/net";
  testing::run("cd " + root + " && mv ." + net + "/ib0 ." + net +
               "/mlx4_ib0 && rm sys/class/net/ib0 " +
               "&& ln -s ../../devices/pci0000:81/0000:80:03.0/0000:81:00.0/net/mlx4_ib0 "
               "sys/class/net/mlx4_ib0");
  const Ran ipoib = tool(root, "check --network-manager --cmdline-string 'ip=mlx4_ib0:dhcp'");
  EXPECT_EQ(ipoib.status, 2) << ipoib.out;
  EXPECT_TRUE(has(ipoib.out,
                  "error: cmdline: ip=mlx4_ib0:dhcp: mlx4_ib0 is an IPoIB interface here, but "
                  "NetworkManager configures this boot's network (--network-manager), and "
                  "nm-initrd-generator makes an Ethernet connection for a name without the "
                  "\"ib\" prefix (nmi-cmdline-reader.c reader_get_connection), which never "
                  "activates on InfiniBand: name it so that it starts with \"ib\" "
                  "(rd.rdma.name=ib-mlx4_ib0:f452:1403:007b:cba1)"))
      << ipoib.out;
  EXPECT_EQ(tool(root, "check --cmdline-string 'ip=mlx4_ib0:dhcp'").status, 0);
}

}  // namespace
}  // namespace rp
