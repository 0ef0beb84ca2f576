// The record's readers: state.env as a POSIX shell reads it, /proc/self/mounts as the
// kernel writes it.
#include "provision/report/record.h"

#include <gtest/gtest.h>

#include <fstream>

#include "provision/base/strings.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

TEST(ReadEnv, ReadsBackWhatShellQuoteWrites) {
  const std::string hard = "it's a \"line\"\nand $another `one` \\ here";
  const std::string text = "# comment with = and '\nRP_A=" + shell_quote(hard) +
                           "\nRP_EMPTY=''\nnot an assignment\nRP_B='plain'\n";
  const auto env = read_env(text);
  EXPECT_EQ(env.at("RP_A"), hard);
  EXPECT_EQ(env.at("RP_EMPTY"), "");
  EXPECT_EQ(env.at("RP_B"), "plain");
  EXPECT_EQ(env.size(), 3u);
  // What sh itself makes of it.
  const std::string dir = testing::temp_dir("record");
  std::ofstream(dir + "/s.env") << text;
  EXPECT_EQ(testing::run(". " + dir + "/s.env && printf %s \"$RP_A\""), hard);
}

TEST(RootMount, TheLastMountOfRootAndNfsOverRdma) {
  const std::string dir = testing::temp_dir("record");
  testing::run("mkdir -p " + dir + "/proc/self");
  auto write = [&](const std::string& text) {
    std::ofstream(dir + "/proc/self/mounts") << text;
    return root_mount(Root(dir));
  };
  // fs/nfs/super.c nfs_show_mount_options: proto=rdma (rdma6 over IPv6).
  auto m = write(
      "rootfs / rootfs rw 0 0\n10.0.0.1:/srv/a\\040b / nfs4 rw,vers=4.2,proto=rdma6,"
      "port=20049 0 0\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->device, "10.0.0.1:/srv/a b");
  EXPECT_TRUE(m->over_rdma());
  m = write("10.0.0.1:/srv / nfs rw,vers=3,proto=tcp 0 0\n");
  EXPECT_TRUE(m->nfs());
  EXPECT_FALSE(m->over_rdma());
  // In the initramfs, before switch-root: the real root at /sysroot.
  m = write("rootfs / rootfs rw 0 0\n10.0.0.1:/srv /sysroot nfs4 rw,proto=rdma 0 0\n");
  EXPECT_EQ(m->mount_point, "/sysroot");
  EXPECT_TRUE(m->over_rdma());
  // Only a backslash and three octal digits is an escape; anything else is kept.
  m = write("host:/a\\09b\\x / nfs rw,proto=tcp 0 0\n");
  EXPECT_EQ(m->device, "host:/a\\09b\\x");
  m = write("/dev/sda1 / ext4 rw 0 0\n");
  EXPECT_FALSE(m->over_rdma());
}

TEST(RunRecord, PhaseFromInitrdReleaseAndTheBootId) {
  const std::string dir = testing::temp_dir("record");
  EXPECT_EQ(start_record(Root(dir), 1).phase, Phase::kRealRoot);
  testing::run("mkdir -p " + dir + "/etc " + dir + "/proc/sys/kernel/random && touch " + dir +
               "/etc/initrd-release && echo 1234-abcd > " + dir +
               "/proc/sys/kernel/random/boot_id");
  const RunRecord r = start_record(Root(dir), 1764040324);
  EXPECT_EQ(r.phase, Phase::kInitramfs);
  EXPECT_EQ(r.boot_id, "1234-abcd");
  EXPECT_EQ(iso8601(r.started), "2025-11-25T03:12:04Z");
  EXPECT_EQ(phase_state_path(r.phase, true), "/run/rdma-provision/initramfs/state.env");
}

}  // namespace
}  // namespace rp
