// status as an administrator's own account runs it, on a tree with files only root may
// read. Its own target: Bazel's sandbox maps no user but root, so it runs unsandboxed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "tests/support/fixture.h"

namespace rp {
namespace {

// Files only root may read, as an administrator's own account meets them (status as a
// user): each value is unknown with its path and the kernel's reason, never "" or 0, in
// the text and in the JSON. The tree and the binary are copied where that user can reach
// them (the test's own directories are under root's home).
TEST(UnprivilegedStatus, WhatCannotBeReadIsUnknownWithItsPath) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  char dir[] = "/tmp/rp-unreadable.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string tmp = dir;
  const std::string root = tmp + "/root";
  testing::run("cp -a " + testing::unpack_fixture("cx5-roce") + " " + root + " && cp " +
               testing::tool_binary() + " " + tmp + "/rp && chmod 0755 " + tmp);
  const std::string dev = "/sys/devices/pci0000:af/0000:af:00.0";
  testing::run("cd " + root + dev + " && chmod 0400 infiniband/mlx5_0/fw_ver " +
               "infiniband/mlx5_0/ports/1/state infiniband/mlx5_0/ports/1/rate net/ens1f0np0/mtu");
  int st = -1;
  const std::string as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups " + tmp + "/rp";
  const std::string out = testing::run(as_user + " status --root " + root + " 2>&1", &st);
  const std::string json = testing::run(as_user + " status --json --root " + root + " 2>&1");
  testing::run("rm -rf " + tmp);
  ASSERT_EQ(st, 0) << out;
  for (const char* want :
       {"fw unknown (/sys/class/infiniband/mlx5_0/fw_ver: Permission denied)",
        "port 1  unknown (/sys/class/infiniband/mlx5_0/ports/1/state: Permission denied)  "
        "Ethernet  unknown (/sys/class/infiniband/mlx5_0/ports/1/rate: Permission denied)",
        "ens1f0np0  ether  98:03:9b:46:8a:10  mtu unknown (/sys/class/net/ens1f0np0/mtu: "
        "Permission denied)",
        // What could be read is shown as it is.
        "mlx5_1  driver mlx5_core  pci 0000:af:00.1  fw 16.35.2000"}) {
    EXPECT_NE(out.find(want), std::string::npos) << want << "\n" << out;
  }
  auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["unreadable"]["/sys/class/net/ens1f0np0/mtu"], "Permission denied") << json;
  EXPECT_EQ(j["unreadable"].size(), 4u) << json;
  for (const auto& n : j["netdevs"]) {
    if (n["name"] == "ens1f0np0") EXPECT_TRUE(n["mtu"].is_null()) << n;
  }
}

}  // namespace
}  // namespace rp
