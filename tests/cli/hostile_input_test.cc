// Hostile input through every input path of the command line tool (#16): a kernel command
// line at the kernel's 4096-byte limit with NUL and non-UTF-8 bytes, 10,000 parameters,
// a 100 MB configuration file, a named pipe where the configuration should be. Each ends
// in a clear error naming its source, in bounded time and memory, and nothing is applied.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/fixture.h"

namespace rp {
namespace {

struct Ran {
  int status = -1;
  std::string out;
  long peak_kib = -1;
  double seconds = -1;
};

// Runs `apply` under GNU time (peak RSS, wall) and a hard 20 s limit: a hang fails here.
Ran run_apply(const std::string& root, const std::string& inputs) {
  Ran r;
  const std::string stats = root + "/../time.txt";
  r.out = testing::run("timeout 20 /usr/bin/time -f '%M %e' -o '" + stats + "' " +
                           testing::tool_binary() + " apply --log stderr --root '" + root + "' " +
                           inputs + " 2>&1",
                       &r.status);
  // GNU time writes "Command exited with non-zero status N" first when it did: the
  // figures are on the last line.
  std::ifstream in(stats);
  std::string last;
  for (std::string l; std::getline(in, l);) last = l;
  std::istringstream(last) >> r.peak_kib >> r.seconds;
  EXPECT_GT(r.peak_kib, 0) << "no figures from /usr/bin/time: " << last;
  return r;
}

TEST(HostileInput, CommandLineAtTheKernelLimitWithNulAndNonUtf8Bytes) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  std::string line = std::string("rd.rdma.rxe=eth0 rd.rdma.name=ib") + '\0' +
                     "x:00:11:22:33:44:55 rd.rdma.timeout=\xff\xfe ";
  while (line.size() + 6 <= 4096) line += "quiet ";  // COMMAND_LINE_SIZE on x86 is 2048..4096
  std::ofstream(root + "/../cmdline", std::ios::binary) << line;
  const std::string before = testing::tree_digest(root);
  Ran r = run_apply(root, "--cmdline '" + root + "/../cmdline'");
  EXPECT_EQ(r.status, 2) << r.out;
  // Every byte that is not printable ASCII is shown escaped, never raw.
  EXPECT_NE(r.out.find("error: cmdline: rd.rdma.name=ib\\x00x:00:11:22:33:44:55: interface "
                       "name 'ib\\x00x'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("error: cmdline: rd.rdma.timeout=\\xff\\xfe: timeout '\\xff\\xfe' is not "
                       "a number"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find('\xff'), std::string::npos);
  EXPECT_NE(r.out.find("invalid input: nothing applied"), std::string::npos) << r.out;
  EXPECT_EQ(testing::tree_digest(root), before);
  EXPECT_LT(r.seconds, 5);
}

TEST(HostileInput, TenThousandParametersStayBounded) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  std::string line;
  for (int i = 0; i < 10000; ++i) line += "rd.rdma.wiat=x" + std::to_string(i) + " ";
  std::ofstream(root + "/../cmdline") << line;
  Ran r = run_apply(root, "--cmdline '" + root + "/../cmdline'");
  EXPECT_EQ(r.status, 2);
  // One error per token, each naming it and the near miss.
  EXPECT_NE(r.out.find("error: cmdline: rd.rdma.wiat=x9999: unknown parameter 'rd.rdma.wiat' "
                       "(did you mean 'rd.rdma.wait'?)"),
            std::string::npos);
  EXPECT_LT(r.seconds, 10);
  EXPECT_LT(r.peak_kib, 64 * 1024);
  std::printf("10,000 parameters: %.2f s, peak RSS %ld KiB\n", r.seconds, r.peak_kib);
}

TEST(HostileInput, AHundredMegabyteConfigurationIsRefusedWithoutReadingIt) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("mkdir -p '" + root + "/etc/rdma-provision' && truncate -s 100M '" + root +
               "/etc/rdma-provision/rdma-provision.conf'");
  const std::string before = testing::tree_digest(root);
  Ran r = run_apply(root, "--cmdline-string 'rd.rdma.rxe=eth0'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("error: /etc/rdma-provision/rdma-provision.conf: is larger than 8 MiB: "
                       "not an attribute or configuration file"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(testing::tree_digest(root), before);
  EXPECT_LT(r.peak_kib, 32 * 1024);  // the read stops at the limit
  std::printf("100 MB configuration: %.2f s, peak RSS %ld KiB\n", r.seconds, r.peak_kib);
}

TEST(HostileInput, ANamedPipeWhereTheConfigurationShouldBeDoesNotHang) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("mkdir -p '" + root + "/etc/rdma-provision' && mkfifo '" + root +
               "/etc/rdma-provision/rdma-provision.conf'");
  Ran r = run_apply(root, "--cmdline-string 'rd.rdma.rxe=eth0'");
  EXPECT_EQ(r.status, 2) << r.out;  // 124 would be timeout(1): a hang
  EXPECT_NE(r.out.find("error: /etc/rdma-provision/rdma-provision.conf: is a named pipe, not a "
                       "configuration file"),
            std::string::npos)
      << r.out;
  EXPECT_LT(r.seconds, 5);
}

// A sysfs attribute the kernel refuses to show (EIO): /proc/self/mem read at address 0
// gives the reading process EIO (fs/proc/base.c mem_rw: access_remote_vm copies nothing),
// a real EIO in place of rxe0's port state. The wait names the file and the errno, not a
// missing port, and ends at the deadline.
TEST(HostileInput, AnAttributeThatAnswersEioIsNamedWithTheError) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("ln -sf /proc/self/mem '" + root + "/sys/class/infiniband/rxe0/ports/1/state'");
  Ran r = run_apply(root, "--cmdline-string 'rd.rdma.wait=rxe0/1 rd.rdma.timeout=2'");
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("timed-out  wait-port rxe0/1: UNKNOWN -> ACTIVE: the state of port 1 of "
                       "rxe0 cannot be read: /sys/class/infiniband/rxe0/ports/1/state: cannot "
                       "read (Input/output error)"),
            std::string::npos)
      << r.out;
  EXPECT_LT(r.seconds, 6);
  const std::string status =
      testing::run(testing::tool_binary() + " status --root '" + root + "' 2>&1", nullptr);
  EXPECT_NE(status.find("rxe0"), std::string::npos) << status;  // discovery goes on
}

// A named pipe in place of a sysfs attribute (an attribute whose show() would block):
// read at once, as empty, never waited on.
TEST(HostileInput, AnAttributeThatWouldBlockIsReadAtOnce) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("rm -f '" + root + "/sys/class/infiniband/rxe0/ports/1/state' && mkfifo '" + root +
               "/sys/class/infiniband/rxe0/ports/1/state'");
  Ran r = run_apply(root, "--cmdline-string 'rd.rdma.wait=rxe0/1 rd.rdma.timeout=2'");
  EXPECT_EQ(r.status, 3) << r.out;  // 124 would be timeout(1): a hang
  EXPECT_NE(r.out.find("timed-out  wait-port rxe0/1: UNKNOWN -> ACTIVE: port 1 of rxe0 is in an "
                       "unknown state"),
            std::string::npos)
      << r.out;
  EXPECT_LT(r.seconds, 6);
}

// Where the configuration should be: a symlink loop, a dangling symlink, a directory.
// Each is an error naming the file (not taken for an absent file), nothing is applied.
TEST(HostileInput, ASymlinkLoopOrADirectoryWhereTheConfigurationShouldBe) {
  for (const char* make :
       {"ln -s loop.conf '%s/loop.conf' && ln -s loop.conf '%s/rdma-provision.conf'",
        "mkdir '%s/rdma-provision.conf' && true '%s'"}) {
    const std::string root = testing::unpack_fixture("rxe-virtio");
    const std::string dir = root + "/etc/rdma-provision";
    char cmd[1024];
    std::snprintf(cmd, sizeof cmd, make, dir.c_str(), dir.c_str());
    testing::run("mkdir -p '" + dir + "' && " + cmd);
    const std::string before = testing::tree_digest(root);
    Ran r = run_apply(root, "--cmdline-string 'rd.rdma.rxe=eth0'");
    EXPECT_EQ(r.status, 2) << make << "\n" << r.out;
    EXPECT_NE(r.out.find("error: /etc/rdma-provision/rdma-provision.conf: "), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("invalid input: nothing applied"), std::string::npos) << r.out;
    EXPECT_EQ(testing::tree_digest(root), before);
    EXPECT_LT(r.seconds, 5);
  }
}

}  // namespace
}  // namespace rp
