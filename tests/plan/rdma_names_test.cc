// Fixed RDMA device names (rd.rdma.devname, plan/rdma_names.cc) on the cx5-roce fixture
// (mlx5_0 at 0000:af:00.0 on ens1f0np0, mlx5_1 at 0000:af:00.1 on ens1f1np1): the
// renames, swaps through a temporary name, names that cannot hold, and the rest of the
// plan made against the new names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

Plan plan_on(const std::string& cmdline) {
  const std::string dir = testing::unpack_fixture("cx5-roce");
  InputOptions opt;
  opt.cmdline_text = cmdline;
  Inputs in = load_inputs(Root(dir), opt);
  EXPECT_TRUE(in.diag.ok()) << in.diag.errors[0].str();
  return make_plan(in.config, discover(Root(dir), Detail::kPlan));
}

std::vector<std::string> lines(const Plan& p) {
  std::vector<std::string> out;
  for (size_t i = 0; i < p.actions.size(); ++i) {
    const Action& a = p.actions[i];
    std::string l = std::string(to_string(a.kind())) + " " + a.object() + " -> " + a.wanted();
    for (size_t d : a.after) l += " after " + std::to_string(d + 1);
    out.push_back(l);
  }
  return out;
}

TEST(RdmaNames, EachDeviceByItsPciFunctionRenamedFirstAndTheRestUnderTheNewName) {
  const Plan p = plan_on(
      "rd.rdma.devname=hca0:pci-0000:af:00.0 rd.rdma.devname=hca1:netdev-ens1f1np1 "
      "rd.rdma.roce=hca0/1:v2:106");
  EXPECT_TRUE(p.diag.errors.empty()) << p.diag.errors[0].str();
  EXPECT_EQ(lines(p), (std::vector<std::string>{
                          "rdma-rename mlx5_0 -> hca0",
                          "rdma-rename mlx5_1 -> hca1 after 1",
                          "roce-mode hca0/1 -> RoCE v2 after 1",
                          "roce-tos hca0/1 -> 106 after 1 after 3",
                      }));
  // A second boot: the names hold, nothing to do.
  const Plan none = plan_on("rd.rdma.devname=mlx5_0:pci-0000:af:00.0");
  EXPECT_TRUE(none.actions.empty()) << plan_text(none);
}

// Two devices trading names: one through a temporary name (rename_solver), in order.
TEST(RdmaNames, ASwapGoesThroughATemporaryName) {
  const Plan p =
      plan_on("rd.rdma.devname=mlx5_1:pci-0000:af:00.0 rd.rdma.devname=mlx5_0:pci-0000:af:00.1");
  EXPECT_EQ(lines(p), (std::vector<std::string>{
                          "rdma-rename mlx5_0 -> rename0",
                          "rdma-rename mlx5_1 -> mlx5_0 after 1",
                          "rdma-rename rename0 -> mlx5_1 after 2",
                      }));
}

TEST(RdmaNames, NamesThatCannotHoldAreErrorsAndAnAbsentDeviceAWarning) {
  // The name of a device that keeps it.
  Plan p = plan_on("rd.rdma.devname=mlx5_1:pci-0000:af:00.0");
  ASSERT_EQ(p.diag.errors.size(), 1u);
  EXPECT_NE(p.diag.errors[0].str().find("mlx5_1 is the name of another device here, which keeps "
                                        "it"),
            std::string::npos)
      << p.diag.errors[0].str();
  // Two names for one device.
  p = plan_on("rd.rdma.devname=hca0:pci-0000:af:00.0 rd.rdma.devname=hca9:mlx5_0");
  ASSERT_EQ(p.diag.errors.size(), 1u);
  EXPECT_NE(p.diag.errors[0].str().find("one device has one name"), std::string::npos);
  // A device that is not there.
  p = plan_on("rd.rdma.devname=hca0:pci-0000:3b:00.0");
  EXPECT_TRUE(p.actions.empty());
  ASSERT_EQ(p.diag.warnings.size(), 1u);
  EXPECT_NE(p.diag.warnings[0].str().find("no such RDMA device is present (present: mlx5_0, "
                                          "mlx5_1)"),
            std::string::npos)
      << p.diag.warnings[0].str();
}

}  // namespace
}  // namespace rp
