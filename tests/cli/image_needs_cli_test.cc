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

// A host-only image built where the configured card is absent (a head node without RDMA
// hardware): it would carry no driver for it, and says so at build time.
TEST(ImageNeedsCli, AConfiguredDeviceWhoseDriverTheImageLacksIsAWarning) {
  const std::string root = testing::unpack_fixture("rxe-virtio");  // no mlx5 here
  int st = -1;
  const std::string cmd = testing::tool_binary() + " image-needs --root " + root;
  std::string out = testing::run(cmd + " --cmdline-string 'rd.rdma.roce=mlx5_0:v2:106' 2>&1", &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_NE(out.find("warning: cmdline: rd.rdma.roce=mlx5_0:v2:106: mlx5_0 is an mlx5_ib device, "
                     "but this host-only image carries the drivers of the build host's cards, "
                     "and no mlx5_ib: the boot would find no such device"),
            std::string::npos)
      << out;
  // Named by --drivers, or a generic image: no warning.
  out = testing::run(cmd + " --drivers mlx5_core --cmdline-string 'rd.rdma.roce=mlx5_0:v2' 2>&1");
  EXPECT_EQ(out.find("warning:"), std::string::npos) << out;
  out = testing::run(cmd + " --generic --cmdline-string 'rd.rdma.roce=mlx5_0:v2' 2>&1");
  EXPECT_EQ(out.find("warning:"), std::string::npos) << out;
  // A --drivers list without it, at check too.
  out = testing::run(testing::tool_binary() + " check --root " + root +
                     " --drivers bnxt_en --cmdline-string 'rd.rdma.wait=mlx5_1/1' 2>&1");
  EXPECT_NE(out.find("warning: cmdline: rd.rdma.wait=mlx5_1/1: mlx5_1 is an mlx5_ib device, but "
                     "the image's --drivers (dracut's rdma_provision_drivers) name no mlx5_ib"),
            std::string::npos)
      << out;
}

// A --drivers name no table knows is most likely a typo: said, with the name meant.
TEST(ImageNeedsCli, AnUnknownDriverNameIsAWarningWithTheNameMeant) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  for (const std::string command : {"image-needs", "check"}) {
    std::string out = testing::run(testing::tool_binary() + " " + command + " --root " + root +
                                   " --drivers 'mlx5_bi' --cmdline-string '' 2>&1");
    EXPECT_NE(out.find("warning: --drivers: 'mlx5_bi' is no RDMA driver rdma-provision knows "
                       "(did you mean 'mlx5_ib'?)"),
              std::string::npos)
        << command << "\n"
        << out;
    // Two as near: the known names are listed.
    out = testing::run(testing::tool_binary() + " " + command + " --root " + root +
                       " --drivers 'mlx5' --cmdline-string '' 2>&1");
    EXPECT_NE(out.find("warning: --drivers: 'mlx5' is no RDMA driver rdma-provision knows "
                       "(known: mlx4_core, mlx4_ib, mlx5_core, mlx5_ib, "),
              std::string::npos)
        << command << "\n"
        << out;
  }
  const std::string ok = testing::run(testing::tool_binary() + " check --root " + root +
                                      " --drivers 'mlx5_core mana_ib' --cmdline-string '' 2>&1");
  EXPECT_EQ(ok.find("warning:"), std::string::npos) << ok;
}

}  // namespace
}  // namespace rp
