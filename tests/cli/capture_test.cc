// capture: every fixture, captured through the binary and unpacked, reads back the same
// (status, config, check, plan); the capture changes nothing, leaves out what the program
// does not read and withholds the kernel command line.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/support/fixture.h"

namespace rp {
namespace {

using testing::has;
using testing::Ran;
using testing::tool;

std::vector<std::string> fixture_names() {
  const std::string dir = std::string(std::getenv("TEST_SRCDIR")) + "/" +
                          std::getenv("TEST_WORKSPACE") + "/tests/fixtures";
  std::istringstream ls(testing::run("ls '" + dir + "' | sed -n 's/\\.tar$//p'"));
  std::vector<std::string> out;
  for (std::string n; std::getline(ls, n);) out.push_back(n);
  return out;
}

// The capture of `root`, unpacked into a new directory.
std::string captured(const std::string& root, const std::string& hint) {
  const std::string tar = testing::temp_dir(hint + "-tar") + "/capture.tar";
  const Ran r = tool(root, "capture --output " + tar);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "rdma-provision: capture: ")) << r.out;
  const std::string back = testing::temp_dir(hint + "-back");
  int st = 0;
  const std::string out = testing::run("tar -xf '" + tar + "' -C '" + back + "' 2>&1", &st);
  EXPECT_EQ(st, 0) << out;
  return back;
}

TEST(Capture, EveryFixtureReadsBackTheSame) {
  const auto names = fixture_names();
  ASSERT_GE(names.size(), 10u);
  const char* cmdline = " --cmdline-string 'rd.rdma.wait=all rd.rdma.roce=*:v2'";
  for (const auto& name : names) {
    const std::string root = testing::unpack_fixture(name);
    const std::string before = testing::tree_digest(root);
    const std::string back = captured(root, name);
    EXPECT_EQ(testing::tree_digest(root), before) << name << ": the capture changed the tree";
    for (const std::string& args : std::vector<std::string>{
             "status --json", std::string("plan --json") + cmdline, "config --json", "check"}) {
      const Ran a = tool(root, args);
      const Ran b = tool(back, args);
      EXPECT_EQ(a.status, b.status) << name << ": " << args;
      EXPECT_EQ(a.out, b.out) << name << ": " << args;
    }
  }
}

TEST(Capture, WithholdsTheCommandLineAndWhatIsNotRead) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  testing::run("printf 'ip=dhcp rd.luks.key=secret' > '" + root + "/proc/cmdline' && printf x > '" +
               root + "/etc/shadow'");
  const std::string back = captured(root, "withheld");
  EXPECT_EQ(testing::run("ls '" + back + "/proc/cmdline' '" + back + "/etc/shadow' 2>/dev/null"),
            "");
  EXPECT_TRUE(has(testing::run("cat '" + back + "/rdma-provision-capture.txt'"),
                  "withheld: /proc/cmdline (may carry secrets)"));
  // What it read is there, with its mode: the RDMA device's attributes, /proc/modules.
  EXPECT_NE(testing::run("ls '" + back + "/proc/modules'"), "");
}

TEST(Capture, NeedsAnOutput) {
  const Ran r = tool(testing::unpack_fixture("cx5-roce"), "capture");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "capture: --output FILE is needed")) << r.out;
}

}  // namespace
}  // namespace rp
