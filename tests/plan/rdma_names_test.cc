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
#include "provision/resolve/node_table.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

// The plan for `cmdline` and a configuration file `conf` (with its node table resolved as
// the commands resolve it).
Plan plan_on(const std::string& cmdline, const std::string& conf = "") {
  Root root(testing::unpack_fixture("cx5-roce"));
  if (!conf.empty()) {
    testing::run("mkdir -p " + root.path("/etc/rdma-provision"));
    testing::run("printf '%s' '" + conf + "' > " +
                 root.path("/etc/rdma-provision/rdma-provision.conf"));
  }
  InputOptions opt;
  opt.cmdline_text = cmdline;
  Inputs in = load_inputs(root, opt);
  EXPECT_TRUE(in.diag.ok()) << in.diag.errors[0].str();
  const Inventory inv = discover(root, Detail::kPlan);
  return make_plan(resolve_node_table(inv, in.config), inv);
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
  // A device that is not there: a warning naming what is, said as absent (so apply's
  // coldplug wait waits for it, as for a card still probing).
  p = plan_on("rd.rdma.devname=hca0:pci-0000:3b:00.0");
  EXPECT_TRUE(p.actions.empty());
  ASSERT_EQ(p.diag.warnings.size(), 1u);
  EXPECT_NE(p.diag.warnings[0].str().find(
                "RDMA device name hca0: no RDMA device pci-0000:3b:00.0 is present; present: "
                "pci-0000:af:00.0 (mlx5_0), pci-0000:af:00.1 (mlx5_1)"),
            std::string::npos)
      << p.diag.warnings[0].str();
  EXPECT_EQ(p.absent.size(), 1u);
  // Under rd.rdma.required=1 a failing require action.
  p = plan_on("rd.rdma.devname=hca0:guid-0c42:a103:0016:b2c5 rd.rdma.required=1");
  ASSERT_EQ(p.actions.size(), 1u);
  EXPECT_EQ(p.actions[0].kind(), ActionKind::kRequire);
  EXPECT_NE(p.actions[0].never.find("no such RDMA device is present"), std::string::npos);
}

// Named by the name it had (rd.rdma.devname=hca0:mlx5_0): once renamed, a second run (the
// real root's after the initramfs's) finds hca0 and no mlx5_0, and has nothing to do or say.
TEST(RdmaNames, ADeviceNamedByItsOldNameIsDoneOnTheSecondRun) {
  const Plan first = plan_on("rd.rdma.devname=mlx5_9:mlx5_1");
  EXPECT_EQ(lines(first), (std::vector<std::string>{"rdma-rename mlx5_1 -> mlx5_9"}));
  const Plan second = plan_on("rd.rdma.devname=mlx5_1:mlx5_0");  // mlx5_1 holds its name
  ASSERT_EQ(second.diag.errors.size(), 1u);  // ... and is no device this setting means
  const Plan again = plan_on("rd.rdma.devname=mlx5_0:mlx5_7");
  EXPECT_TRUE(again.actions.empty());
  EXPECT_TRUE(again.diag.warnings.empty()) << again.diag.warnings[0].str();
  EXPECT_TRUE(again.absent.empty());
}

// The node table's devname= column: one image for a fleet, each node's HCA by its row
// (keyed by the port's MAC or GUID); an explicit setting for that interface wins.
TEST(RdmaNames, ANodeTableRowNamesTheDeviceUnderItsInterface) {
  const std::string rows =
      "[nodes]\n98:03:9b:46:8a:10 name=fab0 devname=hca0\n"
      "98:03:9b:46:8a:11 devname=hca1\n";
  const Plan p = plan_on("", rows);
  EXPECT_TRUE(p.diag.errors.empty()) << p.diag.errors[0].str();
  EXPECT_EQ(lines(p), (std::vector<std::string>{
                          "rdma-rename mlx5_0 -> hca0",
                          "rdma-rename mlx5_1 -> hca1 after 1",
                          "rename ens1f0np0 -> fab0",
                      }));
  EXPECT_EQ(p.actions[0].reason, "/etc/rdma-provision/rdma-provision.conf:2 (node table)");
  const Plan explicit_wins = plan_on("rd.rdma.devname=rail0:netdev-fab0", rows);
  EXPECT_EQ(lines(explicit_wins), (std::vector<std::string>{
                                      "rdma-rename mlx5_1 -> hca1",
                                      "rdma-rename mlx5_0 -> rail0 after 1",
                                      "rename ens1f0np0 -> fab0",
                                  }));
}

}  // namespace
}  // namespace rp
