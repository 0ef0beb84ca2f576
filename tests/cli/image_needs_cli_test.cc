// `rdma-provision image-needs` as dracut's module-setup.sh runs it on the build host: one
// item per line on stdout; invalid input is exit 2 with the errors, and nothing listed.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/fixture.h"

namespace rp {
namespace {

TEST(ImageNeedsCli, ListsTheHostsDriversAndTheConfigsModules) {
  const std::string root = testing::unpack_fixture("cx5-ib");
  testing::run("mkdir -p " + root +
               "/etc/rdma-provision && printf '[modules]\\nload = rpcrdma\\n' > " + root +
               "/etc/rdma-provision/rdma-provision.conf");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " image-needs --root " + root +
                                     " --cmdline-string 'rd.rdma.rxe=ib0'",
                                 &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_NE(out.find("\nmodule mlx5_ib  # RDMA driver of mlx5_core ("), std::string::npos) << out;
  EXPECT_NE(out.find("\nmodule rpcrdma  # /etc/rdma-provision/rdma-provision.conf:2\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\nmodule rdma_rxe  # cmdline: rd.rdma.rxe=ib0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nfile /etc/rdma-provision/rdma-provision.conf  # native configuration\n"),
            std::string::npos)
      << out;
}

TEST(ImageNeedsCli, AsTheDracutModuleCallsItForAnotherMachine) {
  const std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " image-needs --root " + root +
                                     " --drivers 'rdma_rxe' --no-rdma-core --cmdline-string ''",
                                 &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(out,
            "module ib_core  # RDMA core\n"
            "module ib_uverbs  # RDMA core\n"
            "module rdma_ucm  # RDMA core\n"
            "module rdma_cm  # RDMA core\n"
            "module ib_cm  # RDMA core\n"
            "module iw_cm  # RDMA core\n"
            "module configfs  # RDMA core\n"
            "module rdma_rxe  # --drivers\n"
            "module crc32_generic  # rdma_rxe's crc32 (crypto API, no softdep)\n"
            "module crc32-pclmul  # rdma_rxe's crc32 (crypto API, no softdep)\n");
}

TEST(ImageNeedsCli, InvalidInputIsExitTwoWithTheErrorsAndNothingListed) {
  const std::string root = testing::unpack_fixture("cx3-vpi");
  const std::string err = testing::temp_dir("err") + "/err";
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " image-needs --root " + root +
                                     " --generic --cmdline-string 'rd.rdma.rxe=eth0 rd.rdma.mlx=1' "
                                     "2>" +
                                     err,
                                 &st);
  EXPECT_EQ(st, 2);
  EXPECT_EQ(out, "");
  EXPECT_EQ(testing::run("cat " + err),
            "error: cmdline: rd.rdma.mlx=1: unknown parameter 'rd.rdma.mlx' (did you mean "
            "'rd.rdma.mlx4'?)\n"
            "rdma-provision: image-needs: invalid input, nothing listed\n");
}

TEST(ImageNeedsCli, AMissingConfigGivenByNameIsAnError) {
  const std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " image-needs --root " + root +
                                     " --config /etc/none.conf --cmdline-string '' 2>&1",
                                 &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_NE(out.find("error: /etc/none.conf: "), std::string::npos) << out;
}

}  // namespace
}  // namespace rp
