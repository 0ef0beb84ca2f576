// The DCB planner (plan/dcb.cc) on a ConnectX-5 port: the configuration read, the
// interface's DCB as DCB netlink shows it (an mlx5 stand-in, tests/support/fake_dcb.h,
// from en_dcbnl.c), read for the interfaces resolve/concerns.cc names, as the CLI does;
// what is planned, what is said, what is refused. The executors: tests/apply/dcb_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "provision/resolve/concerns.h"
#include "tests/support/fake_dcb.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

using testing::FakeDcb;

// cx5-roce: mlx5_0/1 on ens1f0np0 (98:03:9b:46:8a:10, up), mlx5_1/1 on ens1f1np1 (down).
struct Node {
  std::string dir = testing::unpack_fixture("cx5-roce");
  FakeDcb dcb;
  Node() {
    dcb.add_mlx5("ens1f0np0");
    dcb.add_mlx5("ens1f1np1");
  }
  Inputs inputs(const std::string& cmdline, const std::string& conf = "") {
    if (!conf.empty()) {
      testing::run("mkdir -p " + dir + "/etc/rdma-provision && printf '%s' '" + conf + "' > " +
                   dir + "/etc/rdma-provision/rdma-provision.conf");
    }
    InputOptions opt;
    opt.cmdline_text = cmdline;
    return load_inputs(Root(dir), opt);
  }
  Plan plan(const Inputs& in) {
    Inventory inv = discover(Root(dir), Detail::kPlan);
    discover_dcb(inv, dcb, dcb_interfaces(in.config, inv));  // as cli/commands.cc prepare
    return make_plan(in.config, inv);
  }
};

std::vector<std::string> dcb_lines(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions) {
    const std::string kind(to_string(a.kind()));
    if (kind.rfind("dcb-", 0) == 0) out.push_back(kind + " " + a.object() + ": " + a.current);
  }
  return out;
}

TEST(Dcb, TheNativeSectionSaysWhatTheCommandLineSays) {
  Node n;
  const Inputs conf =
      n.inputs("",
               "[dcb ens1f0np0]\ntrust = dscp\ndscp_prio = 26:3\npfc = 3\ntc_bw = 0:50 3:50\n"
               "prio_tc = 3:3\n");
  ASSERT_TRUE(conf.diag.ok()) << conf.diag.errors[0].str();
  const Inputs cmd =
      n.inputs("rd.rdma.dcb=ens1f0np0:trust=dscp,dscp_prio=26:3,pfc=3,tc_bw=0:50+3:50,prio_tc=3:3");
  EXPECT_EQ(dcb_lines(n.plan(conf)), dcb_lines(n.plan(cmd)));
  EXPECT_EQ(dcb_lines(n.plan(conf)).size(), 3u);
}

// [dcb fab0] for the interface a name renames: planned against what that interface has
// now (its DCB read under its present name), only what differs. Before, its DCB was never
// read: "unknown", every part planned, and neither warning below possible.
TEST(Dcb, ARenamedInterfaceIsPlannedAgainstWhatItHasNow) {
  Node n;
  ASSERT_TRUE(n.dcb.set_pfc("ens1f0np0", DcbPfcRequest{8, 8, 0, 7}));  // PFC on 3
  const Plan p =
      n.plan(n.inputs("rd.rdma.name=fab0:98:03:9b:46:8a:10 rd.rdma.dcb=fab0:pfc=3,dscp_prio=26:3"));
  EXPECT_EQ(dcb_lines(p), (std::vector<std::string>{
                              "dcb-app fab0: trust pcp, dscp_prio none",
                          }));
  const Plan lossy =
      n.plan(n.inputs("rd.rdma.name=fab0:98:03:9b:46:8a:10 rd.rdma.roce=mlx5_0/1:v2:106 "
                      "rd.rdma.dcb=fab0:dscp_prio=26:4"));
  ASSERT_EQ(lossy.diag.warnings.size(), 1u);
  EXPECT_NE(lossy.diag.warnings[0].str().find("goes at priority 4, which is not lossless here "
                                              "(PFC on 3)"),
            std::string::npos)
      << lossy.diag.warnings[0].str();
}

// Where the ToS's priority is not lossless, or cannot be known, the plan says so.
TEST(Dcb, RoceTrafficOnALossyPriorityIsAWarning) {
  Node n;
  const Plan lossy =
      n.plan(n.inputs("rd.rdma.roce=mlx5_0/1:v2:106 rd.rdma.dcb=ens1f0np0:dscp_prio=26:3,pfc=4"));
  ASSERT_EQ(lossy.diag.warnings.size(), 1u);
  EXPECT_EQ(lossy.diag.warnings[0].str(),
            "cmdline: rd.rdma.dcb=ens1f0np0:dscp_prio=26:3,pfc=4: RoCE traffic of mlx5_0/1 (ToS "
            "106 is DSCP 26) goes at priority 3, which is not lossless here (PFC on 4)");
  const Plan unknown =
      n.plan(n.inputs("rd.rdma.roce=mlx5_0/1:v2:106 rd.rdma.dcb=ens1f0np0:dscp_prio=46:5,pfc=3"));
  ASSERT_EQ(unknown.diag.warnings.size(), 1u);
  EXPECT_NE(unknown.diag.warnings[0].str().find("(dscp_prio=26:<priority>)"), std::string::npos)
      << unknown.diag.warnings[0].str();
  // trust pcp, untagged: the RDMA CM's service level 0.
  const Plan pcp = n.plan(n.inputs("rd.rdma.dcb=ens1f0np0:trust=pcp,pfc=3"));
  ASSERT_EQ(pcp.diag.warnings.size(), 1u);
  EXPECT_NE(pcp.diag.warnings[0].str().find("goes at priority 0, which is not lossless"),
            std::string::npos)
      << pcp.diag.warnings[0].str();
}

// A driver without dcbnl_ops (virtio_net): an action that fails at once, saying so.
TEST(Dcb, AnInterfaceWithoutDcbIsAnActionThatCannotSucceed) {
  Node n;
  n.dcb.add_without_dcb("ens1f0np0");
  const Plan p = n.plan(n.inputs("rd.rdma.dcb=ens1f0np0:pfc=3"));
  ASSERT_EQ(p.actions.size(), 1u) << plan_text(p);
  EXPECT_NE(p.actions[0].never.find("ens1f0np0 has no DCB support: its driver mlx5_core"),
            std::string::npos)
      << p.actions[0].never;
}

// trust dscp with no DSCP priority given, on a device that has none: nothing would move
// the traffic, an error (nothing applied).
TEST(Dcb, TrustDscpWithNothingToTrustIsAnError) {
  Node n;
  const Plan p = n.plan(n.inputs("rd.rdma.dcb=ens1f0np0:trust=dscp"));
  ASSERT_EQ(p.diag.errors.size(), 1u);
  EXPECT_NE(p.diag.errors[0].str().find("trust dscp on ens1f0np0 with no DSCP priority"),
            std::string::npos);
}

}  // namespace
}  // namespace rp
