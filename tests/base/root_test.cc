// Root::read and DirHandle against what a hostile or broken tree puts where a kernel
// attribute or a configuration file should be: a named pipe (must not block), a file
// larger than any real one or an endless character device (bounded), a symlink loop.
#include "provision/base/root.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace rp {
namespace {

class HostileTree : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rp-root-test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(::mkdir((dir_ + "/sys").c_str(), 0755), 0);
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    (void)std::system(cmd.c_str());
  }
  std::string dir_;
};

using Clock = std::chrono::steady_clock;

TEST_F(HostileTree, ANamedPipeReadsAtOnceInsteadOfWaitingForAWriter) {
  ASSERT_EQ(::mkfifo((dir_ + "/sys/state").c_str(), 0644), 0);
  Root root(dir_);
  const auto t0 = Clock::now();
  auto r = root.read("/sys/state");
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, "");
  EXPECT_EQ(root.open_dir("/sys").read_or("state", "fallback"), "");
  EXPECT_TRUE(root.is_fifo("/sys/state"));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
}

TEST_F(HostileTree, AFileLargerThanTheLimitIsAnErrorNotABuffer) {
  const std::string big = dir_ + "/sys/big";
  std::ofstream(big).close();  // then sparse: no disk space needed
  ASSERT_EQ(::truncate(big.c_str(), Root::kMaxFileBytes + 1), 0);
  Root root(dir_);
  auto r = root.read("/sys/big");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, EFBIG);
  EXPECT_NE(r.error().str().find("/sys/big: is larger than 8 MiB"), std::string::npos)
      << r.error().str();
  // Exactly at the limit is still read.
  ASSERT_EQ(::truncate(big.c_str(), Root::kMaxFileBytes), 0);
  auto at = root.read("/sys/big");
  ASSERT_TRUE(at) << at.error().str();
  EXPECT_EQ(at->size(), Root::kMaxFileBytes);
}

TEST_F(HostileTree, AnEndlessDeviceIsCutOffAtTheLimit) {
  ASSERT_EQ(::symlink("/dev/zero", (dir_ + "/sys/zero").c_str()), 0);
  Root root(dir_);
  const auto t0 = Clock::now();
  auto r = root.open_dir("/sys").read("zero");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, EFBIG);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
}

TEST_F(HostileTree, ASymlinkLoopIsAnErrorWithItsPath) {
  ASSERT_EQ(::symlink("b", (dir_ + "/sys/a").c_str()), 0);
  ASSERT_EQ(::symlink("a", (dir_ + "/sys/b").c_str()), 0);
  Root root(dir_);
  auto r = root.read("/sys/a");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, ELOOP);
  EXPECT_EQ(r.error().where, "/sys/a");
  auto d = root.open_dir("/sys").read("a");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().where, "/sys/a");
  EXPECT_TRUE(root.list("/sys/a").empty());
}

// #16 item 8: what the executors may write (RealFileOps and the /run files of act.cc
// ask Root::check_write before any syscall).
TEST(CheckWrite, SysfsConfigfsAndRunOnly) {
  for (const char* ok :
       {"/sys/bus/pci/devices/0000:81:00.0/mlx4_port1", "/sys/kernel/config/rdma_cm/mlx4_0",
        "/sys/kernel/config", "/run/rdma-provision/state.json", "/run/udev/rules.d/60-x.rules"}) {
    EXPECT_TRUE(Root::check_write(ok)) << ok;
  }
  for (const char* bad : {"/etc/modprobe.d/x.conf", "/sys", "/sys/", "/run", "/runx/a", "/system/a",
                          "sys/class/net", "", "/sys/../etc/passwd", "/run/./x", "/run//x",
                          "/sys/class/net/..", "/lib/modules/6.1.0/modules.dep"}) {
    auto st = Root::check_write(bad);
    ASSERT_FALSE(st) << bad;
    EXPECT_EQ(st.error().errnum, EPERM) << bad;
    EXPECT_EQ(st.error().where, bad);
  }
}

// Our own files (state.json, state.env, metrics, rules): missing directories made, the
// old text replaced whole, the mode readable by the hooks, no temporary left behind; a
// directory that cannot be made is named.
TEST_F(HostileTree, OwnFilesAreWrittenWholeThroughAUniqueTemporaryName) {
  const Root root(dir_);
  ASSERT_TRUE(root.write_file_atomic("/run/rdma-provision/state.env", "A=1\n").ok());
  ASSERT_TRUE(root.write_file_atomic("/run/rdma-provision/state.env", "B=2\n").ok());
  EXPECT_EQ(root.read_or("/run/rdma-provision/state.env", ""), "B=2");  // read() trims
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/run/rdma-provision/state.env").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(root.list("/run/rdma-provision"), std::vector<std::string>{"state.env"});
  // A file where a directory must be: the error names that directory.
  std::ofstream(dir_ + "/run/blocker") << "x";
  const auto bad = root.write_file_atomic("/run/blocker/state.json", "{}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().str().find("cannot create the directory " + dir_ + "/run/blocker"),
            std::string::npos)
      << bad.error().str();
}

}  // namespace
}  // namespace rp
