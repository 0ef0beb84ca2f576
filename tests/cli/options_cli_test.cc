// The command table as an administrator meets it: each command takes only its own options,
// --opt=value works like --opt value, and every usage error names the option and the
// command, word for word, with exit status 2.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/fixture.h"

namespace rp {
namespace {

struct Outcome {
  int status = -1;
  std::string out, err;
};

// Runs the binary with `args` (shell words), stdout and stderr apart.
Outcome run(const std::string& args) {
  Outcome r;
  const std::string err = testing::temp_dir("stderr") + "/err";
  r.out = testing::run(testing::tool_binary() + " " + args + " 2>'" + err + "'", &r.status);
  r.err = testing::run("cat '" + err + "'");
  return r;
}

void expect_usage_error(const std::string& args, const std::string& stderr_text) {
  Outcome r = run(args);
  EXPECT_EQ(r.status, 2) << args;
  EXPECT_EQ(r.err, stderr_text) << args;
  EXPECT_EQ(r.out, "") << args;
}

constexpr const char kStatusUsage[] =
    "usage: rdma-provision status [--root DIR] [inputs] [--json]\n";
constexpr const char kCheckUsage[] =
    "usage: rdma-provision check [--root DIR] [inputs] [--drivers 'MOD ...'] [--network-manager] "
    "[--json]\n";

TEST(OptionsCli, AnOptionOfAnotherCommandIsRefusedNamingOptionAndCommand) {
  expect_usage_error("status --metrics /tmp/m.prom",
                     std::string("rdma-provision: status: --metrics is not an option of status "
                                 "(it takes --root, --config, --cmdline, --cmdline-string, "
                                 "--json)\n") +
                         kStatusUsage);
  expect_usage_error("check --metrics /tmp/m.prom",
                     std::string("rdma-provision: check: --metrics is not an option "
                                 "of check (it takes --root, --config, "
                                 "--cmdline, --cmdline-string, --drivers, --network-manager, "
                                 "--json)\n") +
                         kCheckUsage);
  expect_usage_error("plan --generic",
                     "rdma-provision: plan: --generic is not an option of plan (it takes --root, "
                     "--config, --cmdline, --cmdline-string, --json)\n"
                     "usage: rdma-provision plan [--root DIR] [inputs] [--json]\n");
}

TEST(OptionsCli, AMissingValueSaysBothForms) {
  expect_usage_error("check --config", std::string("rdma-provision: check: --config needs a value: "
                                                   "--config FILE or --config=FILE\n") +
                                           kCheckUsage);
  // The next word is an option, not the value.
  expect_usage_error("check --config --root /", std::string("rdma-provision: check: --config "
                                                            "needs a value: --config FILE or "
                                                            "--config=FILE\n") +
                                                    kCheckUsage);
  expect_usage_error("check --config=", std::string("rdma-provision: check: --config needs a "
                                                    "value: --config FILE or --config=FILE\n") +
                                            kCheckUsage);
  expect_usage_error("status --root", std::string("rdma-provision: status: --root needs a value: "
                                                  "--root DIR or --root=DIR\n") +
                                          kStatusUsage);
}

TEST(OptionsCli, UnknownOptionsFlagsWithValuesRepeatsAndStrayWords) {
  expect_usage_error("check --confg x", std::string("rdma-provision: check: unknown option "
                                                    "'--confg' (did you mean '--config'?)\n") +
                                            kCheckUsage);
  expect_usage_error(
      "check --frobnicate",
      std::string("rdma-provision: check: unknown option '--frobnicate'\n") + kCheckUsage);
  expect_usage_error("status --json=yes",
                     std::string("rdma-provision: status: --json takes no value\n") + kStatusUsage);
  expect_usage_error("status --root / --root=/tmp",
                     std::string("rdma-provision: status: --root is given twice\n") + kStatusUsage);
  expect_usage_error("check now", std::string("rdma-provision: check: unexpected argument "
                                              "'now'\n") +
                                      kCheckUsage);
  expect_usage_error("check --cmdline /proc/cmdline --cmdline-string ''",
                     std::string("rdma-provision: check: --cmdline and --cmdline-string exclude "
                                 "each other\n") +
                         kCheckUsage);
  expect_usage_error("apply --log verbose",
                     "rdma-provision: apply: --log 'verbose' is not one of auto, kmsg, stderr\n"
                     "usage: rdma-provision apply [--root DIR] [inputs] [--log "
                     "auto|kmsg|stderr] [--metrics FILE] [--udev-settle SECONDS] [--history "
                     "DIR]\n");
}

// One line and where to read more, not the whole help (--help prints that).
TEST(OptionsCli, UnknownOrMissingCommandSaysSoAndWhereToReadMore) {
  const std::string more =
      "see 'rdma-provision --help' for the commands and their options, and rdma-provision(8)\n";
  Outcome r = run("stauts");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "rdma-provision: unknown command 'stauts' (did you mean 'status'?)\n" + more);
  r = run("provision");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), "rdma-provision: unknown command 'provision'\n");
  r = run("");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "rdma-provision: no command given\n" + more);
}

TEST(OptionsCli, ValueWithEqualsSignIsTheSameAsTheNextWord) {
  const std::string root = testing::unpack_fixture("cx3-vpi");
  testing::run("mkdir -p " + root + "/etc/node && printf '[mlx4 0000:81:00.0]\\nport2 = ib\\n' > " +
               root + "/etc/node/a.conf");
  Outcome spaced = run("check --root " + root + " --config /etc/node/a.conf --cmdline-string ''");
  Outcome joined = run("check --root=" + root + " --config=/etc/node/a.conf --cmdline-string=");
  EXPECT_EQ(spaced.status, 0) << spaced.err;
  EXPECT_EQ(joined.status, 0) << joined.err;
  EXPECT_EQ(joined.out, "check: 0 errors, 0 warnings; read: /etc/node/a.conf\n");
  EXPECT_EQ(joined.out, spaced.out);
  // '=' inside the value stays in the value.
  Outcome cmdline =
      run("plan --root=" + root + " '--cmdline-string=rd.rdma.mlx4=0000:81:00.0/eth'");
  EXPECT_EQ(cmdline.status, 0) << cmdline.err;
  EXPECT_NE(cmdline.out.find("0000:81:00.0 port 1"), std::string::npos) << cmdline.out;
  Outcome status = run("status --root=" + root);
  EXPECT_EQ(status.status, 0);
  EXPECT_EQ(status.out, run("status --root " + root).out);
  EXPECT_NE(status.out.find("mlx4_0"), std::string::npos);
}

constexpr const char kVerifyUsage[] =
    "usage: rdma-provision verify [--root DIR] [inputs] [--peer ADDR[:PORT]] "
    "[--listen ADDR[:PORT]|:PORT|all] [--allow PREFIX[,PREFIX]] [--max-sessions N] "
    "[--metrics FILE] [--boot] [--online IFACE] [--log auto|kmsg|stderr]\n";

TEST(OptionsCli, TheListenersLimitsAreCheckedAndGoWithListen) {
  const std::string usage = kVerifyUsage;
  expect_usage_error("verify --listen all --allow 10.77.0.0/24,10.77.1.0",
                     "rdma-provision: verify: --allow: address '10.77.1.0' has no prefix length "
                     "(e.g. 10.0.0.5/24)\n" +
                         usage);
  expect_usage_error("verify --listen all --allow 10.77.0.0/33",
                     "rdma-provision: verify: --allow: address '10.77.0.0/33' has an invalid "
                     "prefix length (0..32)\n" +
                         usage);
  expect_usage_error(
      "verify --listen all --max-sessions 0",
      "rdma-provision: verify: --max-sessions: '0' is not a number from 1 to 256\n" + usage);
  expect_usage_error(
      "verify --listen all --max-sessions 257",
      "rdma-provision: verify: --max-sessions: '257' is not a number from 1 to 256\n" + usage);
  expect_usage_error("verify --peer 10.77.0.1 --allow 10.77.0.0/24",
                     "rdma-provision: verify: --allow goes with --listen\n");
  expect_usage_error("verify --max-sessions 4",
                     "rdma-provision: verify: --max-sessions goes with --listen\n");
}

TEST(OptionsCli, TheUsageIsTheTable) {
  Outcome r = run("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* c :
       {"\n  status [--root DIR] [inputs] [--json]", "\n  check [--root DIR] [inputs]",
        "\n  plan [--root DIR] [inputs] [--json]",
        "\n  apply [--root DIR] [inputs] [--log auto|kmsg|stderr] [--metrics FILE]",
        "\n  udev-rules [--root DIR] [inputs] [--output FILE] [--state-env FILE]",
        "\n  image-needs [--root DIR] [inputs] [--generic] [--drivers 'MOD ...'] "
        "[--no-rdma-core]"}) {
    EXPECT_NE(r.out.find(c), std::string::npos) << c << "\n" << r.out;
  }
  Outcome one = run("status --help");
  EXPECT_EQ(one.status, 0);
  EXPECT_EQ(one.out.substr(0, one.out.find('\n') + 1), kStatusUsage);
  EXPECT_NE(one.out.find("  --json "), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("--metrics"), std::string::npos) << one.out;
  EXPECT_EQ(run("help status").out, one.out);
}

}  // namespace
}  // namespace rp
