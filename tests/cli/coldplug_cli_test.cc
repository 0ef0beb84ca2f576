// apply --udev-settle on fixture trees, with udev's side played by the test as udevd does
// it: /run/udev/control while udevd runs, a database file per handled interface
// (/run/udev/data/n<ifindex>, written as a temporary file renamed over it: systemd
// sd-device/device-private.c device_update_db), /run/udev/queue while events are queued
// (udevd.c event_queue_update). On a fixture root there is no `udevadm settle` to run: the
// removal of the queue file is udev's end.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/support/fixture.h"

namespace rp {
namespace {

struct ApplyRun {
  std::string root, out;
  int rc = -1;
  bool ended_before_udev = false;  // apply had ended before the test played udev's part
  bool marked_before_udev = false;
};

// Starts apply in the background on a copy of cx5-initramfs (ens1f0np0 is ifindex 2,
// ens1f1np1 3, lo 1), waits half a second, runs `udev` (shell, $R is the root), then
// waits for apply to end (at most 20 s).
ApplyRun run_apply(const std::string& setup, const std::string& args, const std::string& udev) {
  ApplyRun r;
  r.root = testing::unpack_fixture("cx5-initramfs");
  const std::string dir = testing::temp_dir("coldplug");
  const std::string script = "R=" + r.root + "; D=" + dir + "; " + setup + "\n( " +
                             testing::tool_binary() + " apply --root \"$R\" " + args +
                             " > \"$D/out\" 2>&1; echo $? > \"$D/rc\" ) &\n"
                             "sleep 0.5\n"
                             "[ -e \"$D/rc\" ] && echo ENDED-EARLY\n"
                             "[ -e \"$R/run/rdma-provision/settled\" ] && echo MARKED-EARLY\n" +
                             udev +
                             "\nfor i in $(seq 200); do [ -e \"$D/rc\" ] && break; sleep 0.1; "
                             "done\nwait\n";
  {
    std::ofstream f(dir + "/script.sh");
    f << script;
  }
  const std::string early = testing::run("sh " + dir + "/script.sh");
  r.ended_before_udev = early.find("ENDED-EARLY") != std::string::npos;
  r.marked_before_udev = early.find("MARKED-EARLY") != std::string::npos;
  r.out = testing::run("cat " + dir + "/out");
  r.rc = std::stoi("0" + testing::run("cat " + dir + "/rc"));
  return r;
}

// How long apply says it waited ("udev's coldplug: went on after 0.52 s: ..."), or -1.
// The test holds udev's files back for half a second after starting apply, so a wait that
// ended on them lasts nearly that long however slow the machine (a slower start of apply
// only shortens it: the bounds below leave it a quarter of a second); one that did not
// wait lasts a few milliseconds.
double waited(const std::string& out) {
  const std::string mark = "udev's coldplug: went on after ";
  const size_t at = out.find(mark);
  return at == std::string::npos ? -1 : std::stod(out.substr(at + mark.size()));
}

// udevd handles an interface: its database file appears by a rename, as udevd writes it.
std::string handled(int ifindex) {
  const std::string n = "$R/run/udev/data/n" + std::to_string(ifindex);
  return "echo I:1 > $R/run/udev/data/.#tmp && mv $R/run/udev/data/.#tmp " + n + "; ";
}

constexpr const char* kUdevRuns = "mkdir -p $R/run/udev/data && : > $R/run/udev/control; ";

TEST(Coldplug, WaitsUntilUdevHasHandledTheInterfacesAndNoLonger) {
  // The plan's port is there, its interfaces are not handled yet: apply waits for them,
  // not for the queue (which stays: other devices are still being handled).
  ApplyRun r = run_apply(std::string(kUdevRuns) + ": > $R/run/udev/queue",
                         "--udev-settle 30 --cmdline-string 'rd.rdma.roce=mlx5_0/1:v2'",
                         handled(2) + handled(3));
  EXPECT_FALSE(r.ended_before_udev) << r.out;
  EXPECT_FALSE(r.marked_before_udev) << r.out;
  EXPECT_GE(waited(r.out), 0.25) << r.out;
  EXPECT_NE(r.out.find("udev's coldplug: went on after "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("everything this plan names is here and udev has handled it"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("did not end"), std::string::npos) << r.out;
  // The mark lists udev's ids of what apply saw: the udev rule queues no run for them.
  EXPECT_EQ(testing::run("cat " + r.root + "/run/rdma-provision/settled"),
            "n2\nn3\nn1\n+infiniband:mlx5_0\n+infiniband:mlx5_1\n");
}

TEST(Coldplug, OneInterfaceLeftKeepsItWaiting) {
  // Only ens1f0np0 is handled: apply is still waiting when the test ends udev's part by
  // removing the queue, and says nothing is absent.
  ApplyRun r =
      run_apply(std::string(kUdevRuns) + ": > $R/run/udev/queue",
                "--udev-settle 30 --cmdline-string 'rd.rdma.roce=mlx5_0/1:v2'",
                handled(2) + "sleep 0.5; [ -e $D/rc ] && echo ENDED-EARLY; rm $R/run/udev/queue");
  EXPECT_FALSE(r.ended_before_udev) << r.out;
  EXPECT_NE(r.out.find("udev has handled every event"), std::string::npos) << r.out;
  EXPECT_GE(waited(r.out), 0.75) << r.out;  // the queue went after a second
}

TEST(Coldplug, WhatIsAbsentWaitsForUdevsEndAndIsThenSaid) {
  ApplyRun r = run_apply(std::string(kUdevRuns) + handled(2) + handled(3) + ": > $R/run/udev/queue",
                         "--udev-settle 30 --cmdline-string 'rd.rdma.roce=mlx5_7/1:v2'",
                         "rm $R/run/udev/queue");
  EXPECT_FALSE(r.ended_before_udev) << r.out;
  EXPECT_NE(r.out.find("udev has handled every event"), std::string::npos) << r.out;
  EXPECT_GE(waited(r.out), 0.25) << r.out;
  EXPECT_NE(r.out.find("RoCE defaults: no RoCE port mlx5_7/1 is present"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.rc, 0) << r.out;
}

TEST(Coldplug, AUdevThatNeverEndsIsBoundedAndSaysWhatItWaitedFor) {
  ApplyRun r = run_apply(std::string(kUdevRuns) + ": > $R/run/udev/queue",
                         "--udev-settle 1 --cmdline-string 'rd.rdma.roce=mlx5_7/1:v2'", "");
  EXPECT_NE(r.out.find("udev's coldplug did not end within 1 s; applying anyway (interfaces "
                       "udev has not handled: ens1f0np0 (ifindex 2), ens1f1np1 (ifindex 3))"),
            std::string::npos)
      << r.out;
  // The absent port is said once, by the plan.
  const std::string absent = "no RoCE port mlx5_7/1 is present";
  EXPECT_NE(r.out.find(absent), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(absent), r.out.rfind(absent)) << r.out;
}

TEST(Coldplug, WithoutUdevNothingIsWaitedFor) {
  ApplyRun r = run_apply("", "--udev-settle 30 --cmdline-string 'rd.rdma.roce=mlx5_7/1:v2'", "");
  EXPECT_TRUE(r.ended_before_udev) << r.out;
  EXPECT_EQ(r.out.find("udev's coldplug"), std::string::npos) << r.out;
  EXPECT_EQ(testing::run("test -e " + r.root + "/run/rdma-provision/settled && echo yes"), "yes\n");
}

TEST(Coldplug, TheOptionIsBounded) {
  int st = -1;
  const std::string out =
      testing::run(testing::tool_binary() + " apply --root / --udev-settle 0 2>&1", &st);
  EXPECT_NE(out.find("--udev-settle: '0' is not a number of seconds from 1 to 3600"),
            std::string::npos)
      << out;
  EXPECT_NE(st, 0);
}

}  // namespace
}  // namespace rp
