// check, plan, apply and udev-rules as an administrator runs them, on fixture trees.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/fixture.h"

namespace rp {
namespace {

TEST(CheckCli, ReportsEveryErrorWithItsSourceAndExitsTwo) {
  std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out =
      testing::run(testing::tool_binary() + " check --root " + root +
                       " --cmdline-string 'rd.rdma.mlx=1 rd.rdma.mlx4=0000:81:00.0/ethernet' 2>&1",
                   &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_NE(out.find("error: cmdline: rd.rdma.mlx=1: unknown parameter 'rd.rdma.mlx' (did you "
                     "mean 'rd.rdma.mlx4'?)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("error: cmdline: rd.rdma.mlx4=0000:81:00.0/ethernet: port type 'ethernet' "
                     "is not one of ib, eth, auto"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("check: 2 errors, 0 warnings"), std::string::npos) << out;
}

TEST(CheckCli, ValidInputExitsZero) {
  std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " check --root " + root +
                                     " --cmdline-string 'rd.rdma.mlx4=0000:81:00.0/eth' 2>&1",
                                 &st);
  EXPECT_EQ(st, 0) << out;
}

TEST(ApplyCli, InvalidInputTouchesNothingAndExitsTwo) {
  std::string root = testing::unpack_fixture("cx3-vpi");
  const std::string before = testing::tree_digest(root);
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " apply --log stderr --root " + root +
                                     " --cmdline-string 'rd.rdma.mlx4=0000:81:00.0/eth,eth "
                                     "rd.rdma.roce=mlx4_0/2:v3' 2>&1",
                                 &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_NE(out.find("RoCE mode 'v3' is not one of v1, v2"), std::string::npos) << out;
  EXPECT_NE(out.find("invalid input: nothing applied"), std::string::npos) << out;
  EXPECT_EQ(testing::tree_digest(root), before);
  // Invalid input has a record too: the exit code, the errors, the phase.
  const std::string env = testing::run("cat " + root + "/run/rdma-provision/real-root/state.env");
  EXPECT_NE(env.find("RP_EXIT_CODE='2'"), std::string::npos) << env;
  EXPECT_NE(env.find("RP_SUMMARY='invalid input: "), std::string::npos) << env;
  EXPECT_NE(env.find("RoCE mode '\\''v3'\\'' is not one of v1, v2"), std::string::npos) << env;
  EXPECT_NE(env.find("RP_PHASE='real-root'"), std::string::npos) << env;
  const std::string json = testing::run("cat " + root + "/run/rdma-provision/state.json");
  EXPECT_NE(json.find("\"exit_code\": 2"), std::string::npos) << json;
}

TEST(ApplyCli, DisabledSaysSoOnceAndDoesNothing) {
  std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " apply --log stderr --root " + root +
                                     " --cmdline-string 'rd.rdma=0 rd.rdma.mlx4=0000:81:00.0/eth'"
                                     " 2>&1",
                                 &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(out, "rdma-provision: disabled by cmdline: rd.rdma=0: nothing to do\n");
  EXPECT_EQ(testing::run("cat " + root + "/sys/bus/pci/devices/0000:81:00.0/mlx4_port1"), "ib\n");
}

TEST(ApplyCli, WritesThePortTypeReportsEachActionAndLeavesState) {
  std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " apply --log stderr --root " + root +
                                     " --cmdline-string 'rd.rdma.mlx4=0000:81:00.0/eth,eth "
                                     "rd.rdma.timeout=5' 2>&1",
                                 &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(testing::run("cat " + root + "/sys/bus/pci/devices/0000:81:00.0/mlx4_port1"), "eth\n");
  EXPECT_NE(out.find("rdma-provision: done  port-type 0000:81:00.0 port 1: ib -> eth"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rdma-provision: summary: 1 done, 0 already, 0 checked, 0 skipped, 0 failed"),
            std::string::npos)
      << out;
  auto state =
      nlohmann::json::parse(testing::run("cat " + root + "/run/rdma-provision/state.json"));
  EXPECT_EQ(state["exit_code"], 0);
  EXPECT_EQ(state["actions"][0]["outcome"], "done");
  // The same facts for the dracut hooks, which source them.
  EXPECT_EQ(
      testing::run(". " + root +
                   "/run/rdma-provision/state.env && echo \"$RP_EXIT_CODE|$RP_DONE|$RP_SUMMARY\""),
      "0|1|" + state["summary"].get<std::string>() + "\n");
}

TEST(PlanCli, JsonIsValidAndInvalidInputPlansNothing) {
  std::string root = testing::unpack_fixture("cx5-roce");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " plan --json --root " + root +
                                     " --cmdline-string 'rd.rdma.roce=*:v2:106'",
                                 &st);
  ASSERT_EQ(st, 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["actions"].size(), 4u);
  out = testing::run(testing::tool_binary() + " plan --root " + root +
                         " --cmdline-string 'rd.rdma.roce=*:v9' 2>&1",
                     &st);
  EXPECT_EQ(st, 2);
  EXPECT_NE(out.find("invalid input, nothing planned"), std::string::npos) << out;
}

TEST(UdevRulesCli, PrintsTheNamingRulesOfTheInputs) {
  std::string root = testing::unpack_fixture("rxe-virtio");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " udev-rules --root " + root +
                                     " --cmdline-string 'rd.rdma.name=fabric0:52:54:00:77:00:02'",
                                 &st);
  EXPECT_EQ(st, 0) << out;
  // NAME:= is final: rdma-core's 70-persistent-ipoib.rules, read after ours, cannot undo it.
  EXPECT_NE(out.find("ATTR{address}==\"52:54:00:77:00:02\", NAME:=\"fabric0\""), std::string::npos)
      << out;
  EXPECT_EQ(out.find("IMPORT{program}"), std::string::npos) << "no table, no question";
}

TEST(UdevRulesCli, WritesMlx4EnsPfcMasksWhereTheKernelsOwnLoadFindsThem) {
  // mlx4_core loads mlx4_en itself (request_module_nowait) before apply runs: the masks
  // must be in /run/modprobe.d by then, which the early step writes.
  std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " udev-rules --root " + root +
                                     " --output " + testing::temp_dir("pfc") +
                                     "/60.rules --cmdline-string 'rd.rdma.mlx4.pfc=0x08'",
                                 &st);
  ASSERT_EQ(st, 0) << out;
  const std::string conf = testing::run("cat " + root + "/run/modprobe.d/rdma-provision.conf", &st);
  EXPECT_NE(conf.find("\noptions mlx4_en pfctx=0x08 pfcrx=0x08\n"), std::string::npos) << conf;
  // Masks that come from modprobe.d alone are modprobe's business: no file.
  std::string plain = testing::unpack_fixture("cx3-vpi");
  testing::run(testing::tool_binary() + " udev-rules --root " + plain + " --output " +
                   testing::temp_dir("nopfc") + "/60.rules --cmdline-string ''",
               &st);
  EXPECT_EQ(st, 0);
  testing::run("test -e " + plain + "/run/modprobe.d/rdma-provision.conf", &st);
  EXPECT_NE(st, 0);
}

TEST(UdevRulesCli, RdmaCoresRenamingRuleLeavesOurSoftDevicesAlone) {
  // rdma-core's rule as kernel-boot/rdma-persistent-naming.rules installs it. Its
  // rdma_rename renames rxe0 on "add" unless the kernel marks the name as the user's (Linux
  // 6.11+); the early step masks it in /run with our soft devices left out.
  std::string root = testing::unpack_fixture("rxe-virtio");
  int st = -1;
  testing::run("mkdir -p " + root +
                   "/usr/lib/udev/rules.d && printf '%s\\n' "
                   "'# Rename modes:' "
                   "'ACTION==\"add\", SUBSYSTEM==\"infiniband\", PROGRAM=\"rdma_rename %k "
                   "NAME_FALLBACK\"' > " +
                   root + "/usr/lib/udev/rules.d/60-rdma-persistent-naming.rules",
               &st);
  ASSERT_EQ(st, 0);
  const std::string cmd = testing::tool_binary() + " udev-rules --root " + root + " --output " +
                          testing::temp_dir("guard") + "/60.rules --cmdline-string ";
  std::string out = testing::run(cmd + "'rd.rdma.rxe=eth0:fabric_rxe'", &st);
  ASSERT_EQ(st, 0) << out;
  const std::string guard =
      testing::run("cat " + root + "/run/udev/rules.d/60-rdma-persistent-naming.rules", &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(guard.find("\n# Rename modes:\nKERNEL!=\"rxe[0-9]*|siw[0-9]*|fabric_rxe\", "
                       "ACTION==\"add\", SUBSYSTEM==\"infiniband\", PROGRAM=\"rdma_rename %k "
                       "NAME_FALLBACK\"\n"),
            std::string::npos)
      << guard;
  // A second run reads rdma-core's file again, not its own copy.
  out = testing::run(cmd + "'rd.rdma.rxe=eth0'", &st);
  ASSERT_EQ(st, 0) << out;
  const std::string again =
      testing::run("cat " + root + "/run/udev/rules.d/60-rdma-persistent-naming.rules", &st);
  EXPECT_NE(again.find("\nKERNEL!=\"rxe[0-9]*|siw[0-9]*\", ACTION"), std::string::npos) << again;
  EXPECT_EQ(again.find("KERNEL!=\"rxe[0-9]*|siw[0-9]*\", KERNEL"), std::string::npos) << again;
  // An administrator's copy in /etc wins over /run: a warning instead.
  testing::run("mkdir -p " + root + "/etc/udev/rules.d && cp " + root +
                   "/usr/lib/udev/rules.d/60-rdma-persistent-naming.rules " + root +
                   "/etc/udev/rules.d/",
               &st);
  out = testing::run(cmd + "'rd.rdma.rxe=eth0' 2>&1", &st);
  EXPECT_EQ(st, 0);
  EXPECT_NE(out.find("warning: /etc/udev/rules.d/60-rdma-persistent-naming.rules renames RDMA "
                     "devices"),
            std::string::npos)
      << out;
}

// A soft device asked for only by a per-node table row (rxe=NAME) is left out of
// rdma_rename too: the early step runs before the row is known, so every row's name counts.
TEST(UdevRulesCli, RdmaCoresRenamingRuleLeavesTheNodeTablesSoftDevicesAlone) {
  std::string root = testing::unpack_fixture("rxe-virtio");
  int st = -1;
  testing::run("mkdir -p " + root + "/usr/lib/udev/rules.d " + root +
                   "/etc/rdma-provision && printf '%s\\n' "
                   "'ACTION==\"add\", SUBSYSTEM==\"infiniband\", PROGRAM=\"rdma_rename %k "
                   "NAME_FALLBACK\"' > " +
                   root +
                   "/usr/lib/udev/rules.d/60-rdma-persistent-naming.rules && printf '[nodes]\\n"
                   "52:54:00:77:00:02 name=nodea0 rxe=fab_a\\n"
                   "52:54:00:77:00:03 name=nodeb0 siw=fab_b\\n' > " +
                   root + "/etc/rdma-provision/rdma-provision.conf",
               &st);
  ASSERT_EQ(st, 0);
  const std::string out =
      testing::run(testing::tool_binary() + " udev-rules --root " + root + " --output " +
                       testing::temp_dir("rowguard") + "/60.rules --cmdline-string ''",
                   &st);
  ASSERT_EQ(st, 0) << out;
  const std::string guard =
      testing::run("cat " + root + "/run/udev/rules.d/60-rdma-persistent-naming.rules", &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(guard.find("KERNEL!=\"rxe[0-9]*|siw[0-9]*|fab_a|fab_b\", ACTION==\"add\""),
            std::string::npos)
      << guard;
}

// A fixed RDMA device name (rd.rdma.devname) is left out of rdma_rename as well: the real
// root's udev replays "add", and rdma_rename would give the device its policy's name back
// (kernels before 6.11 do not mark a name set over netlink as the user's).
TEST(UdevRulesCli, RdmaCoresRenamingRuleLeavesTheFixedNamesAlone) {
  std::string root = testing::unpack_fixture("cx5-roce");
  int st = -1;
  testing::run("mkdir -p " + root +
                   "/usr/lib/udev/rules.d && printf '%s\\n' "
                   "'ACTION==\"add\", SUBSYSTEM==\"infiniband\", PROGRAM=\"rdma_rename %k "
                   "NAME_FALLBACK\"' > " +
                   root + "/usr/lib/udev/rules.d/60-rdma-persistent-naming.rules",
               &st);
  ASSERT_EQ(st, 0);
  const std::string out = testing::run(
      testing::tool_binary() + " udev-rules --root " + root + " --output " +
          testing::temp_dir("devname") +
          "/60.rules --cmdline-string "
          "'rd.rdma.devname=hca0:pci-0000:af:00.0 rd.rdma.devname=hca1:pci-0000:af:00.1'",
      &st);
  ASSERT_EQ(st, 0) << out;
  const std::string guard =
      testing::run("cat " + root + "/run/udev/rules.d/60-rdma-persistent-naming.rules", &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(guard.find("KERNEL!=\"rxe[0-9]*|siw[0-9]*|hca0|hca1\", ACTION==\"add\""),
            std::string::npos)
      << guard;
}

TEST(UdevRulesCli, APerNodeTableReachesTheEarlyRulesThroughUdevName) {
  // Before udevd no interface exists: the early rules ask the binary about each new one.
  std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("mkdir -p " + root +
               "/etc/rdma-provision && printf '[nodes]\\n"
               "52:54:00:77:00:02 name=fabric0\\n"
               "f452:1403:007b:cba1 name=ibstor0\\n' > " +
               root + "/etc/rdma-provision/rdma-provision.conf");
  int st = -1;
  std::string rules = testing::run(
      testing::tool_binary() + " udev-rules --root " + root + " --cmdline-string ''", &st);
  ASSERT_EQ(st, 0) << rules;
  EXPECT_NE(rules.find("IMPORT{program}=\"/usr/sbin/rdma-provision udev-name --address "
                       "$attr{address}\""),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("NAME:=\"$env{RDMA_PROVISION_NAME}\""), std::string::npos) << rules;
  const std::string ask =
      testing::tool_binary() + " udev-name --root " + root + " --cmdline-string '' ";
  EXPECT_EQ(testing::run(ask + "--address 52:54:00:77:00:02", &st),
            "RDMA_PROVISION_NAME=fabric0\n");
  EXPECT_EQ(st, 0);
  // An IPoIB address: its port GUID, whatever the QPN and prefix in front of it.
  EXPECT_EQ(testing::run(ask + "--address 80:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:"
                               "cb:a1",
                         &st),
            "RDMA_PROVISION_NAME=ibstor0\n");
  // No row: nothing printed, udev keeps its own name.
  EXPECT_EQ(testing::run(ask + "--address 52:54:00:77:00:09", &st), "");
  EXPECT_EQ(st, 0);
  testing::run(ask + "--address nonsense 2>&1", &st);
  EXPECT_EQ(st, 2);
}

// A row gives fabric0 to NIC A while rd.rdma.name gives it to NIC B: one answer for the
// early rules and the plan (NIC B is fabric0, NIC A keeps udev's name), and `check` names
// both sources (#29 item 2).
TEST(UdevRulesCli, ANodeTableNameTheCommandLineGivesToAnotherNicIsNotGivenTwice) {
  std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("mkdir -p " + root +
               "/etc/rdma-provision && printf '[nodes]\\n52:54:00:77:00:02 name=fabric0\\n' > " +
               root + "/etc/rdma-provision/rdma-provision.conf");
  const std::string cmdline = " --cmdline-string 'rd.rdma.name=fabric0:52:54:00:77:00:09' ";
  int st = -1;
  const std::string ask = testing::tool_binary() + " udev-name --root " + root + cmdline;
  EXPECT_EQ(testing::run(ask + "--address 52:54:00:77:00:02", &st), "");
  EXPECT_EQ(st, 0);
  EXPECT_EQ(testing::run(ask + "--address 52:54:00:77:00:09", &st),
            "RDMA_PROVISION_NAME=fabric0\n");
  const std::string check =
      testing::run(testing::tool_binary() + " check --root " + root + cmdline + "2>&1", &st);
  EXPECT_NE(check.find("/etc/rdma-provision/rdma-provision.conf:2: the node table gives fabric0 "
                       "to 52:54:00:77:00:02, and cmdline: rd.rdma.name=fabric0:52:54:00:77:00:09 "
                       "gives it to 52:54:00:77:00:09: 52:54:00:77:00:02 is not named by the "
                       "table (the explicit name wins)"),
            std::string::npos)
      << check;
}

TEST(UdevRulesCli, StateEnvOfInvalidInputSaysRequiredAndTheErrors) {
  std::string root = testing::unpack_fixture("rxe-virtio");
  const std::string env = testing::temp_dir("early") + "/state.env";
  int st = -1;
  std::string out =
      testing::run(testing::tool_binary() + " udev-rules --root " + root + " --output " +
                       testing::temp_dir("rules") + "/60.rules --state-env " + env +
                       " --cmdline-string 'rd.rdma.required=1 rd.rdma.mlx=1' 2>&1",
                   &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_EQ(testing::run(". " + env + " && echo \"$RP_REQUIRED|$RP_EXIT_CODE|$RP_ERRORS\""),
            "1|2|cmdline: rd.rdma.mlx=1: unknown parameter 'rd.rdma.mlx' (did you mean "
            "'rd.rdma.mlx4'?)\n");
}

}  // namespace
}  // namespace rp
