// Lossless RoCE on a ConnectX-5 port (#31): planned, applied through the DCB executors
// (apply/dcb.cc) and planned again, on the cx5-roce fixture with an mlx5 stand-in
// (tests/support/fake_dcb.h, from en_dcbnl.c); what mlx5 does with each write; a driver
// without DCB. The planner's own rules: tests/plan/dcb_test.cc.
#include <gtest/gtest.h>

#include <cerrno>

#include "provision/apply/apply.h"
#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "provision/resolve/concerns.h"
#include "tests/apply/test_run.h"
#include "tests/support/fake_dcb.h"

namespace rp {
namespace {

using testing::FakeDcb;
using testing::TestRun;

// cx5-roce: mlx5_0/1 on ens1f0np0 (up, carrier), mlx5_1/1 on ens1f1np1 (down).
struct Node {
  TestRun run{"cx5-roce"};
  FakeDcb dcb;
  Node() {
    dcb.add_mlx5("ens1f0np0");
    dcb.add_mlx5("ens1f1np1");
    run.ctx.dcb = &dcb;
  }
  Inputs inputs(const std::string& cmdline, const std::string& conf = "") {
    if (!conf.empty()) {
      testing::run("mkdir -p " + run.dir + "/etc/rdma-provision && printf '%s' '" + conf + "' > " +
                   run.dir + "/etc/rdma-provision/rdma-provision.conf");
    }
    InputOptions opt;
    opt.cmdline_text = cmdline;
    return load_inputs(Root(run.dir), opt);
  }
  Plan plan(const Inputs& in) {
    Inventory inv = discover(Root(run.dir), Detail::kPlan);
    discover_dcb(inv, dcb, dcb_interfaces(in.config, inv));  // as cli/commands.cc prepare
    return make_plan(in.config, inv);
  }
};

std::vector<std::string> lines(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions) {
    out.push_back(std::string(to_string(a.kind())) + " " + a.object() + ": " + a.current + " -> " +
                  a.wanted());
  }
  return out;
}

const char* kCmdline =
    "rd.rdma.roce=mlx5_0/1:v2:106 "
    "rd.rdma.dcb=ens1f0np0:trust=dscp,dscp_prio=26:3,pfc=3,tc_bw=0:50+3:50,prio_tc=3:3";

TEST(Dcb, PlanApplyPlanLeavesNothingToDoAndASecondApplyWritesNothing) {
  Node n;
  const Inputs in = n.inputs(kCmdline);
  ASSERT_TRUE(in.diag.ok()) << in.diag.errors[0].str();
  const Plan first = n.plan(in);
  std::vector<std::string> dcb;
  for (const auto& l : lines(first))
    if (l.rfind("dcb-", 0) == 0) dcb.push_back(l);
  EXPECT_EQ(dcb, (std::vector<std::string>{
                     "dcb-ets ens1f0np0: not all ETS tc_bw 0:100,1:100,2:100,3:100,4:100,5:100,"
                     "6:100,7:100, prio_tc 0:1,1:0 -> ETS tc_bw 0:50,3:50, prio_tc 3:3",
                     "dcb-pfc ens1f0np0: PFC on none -> PFC on 3",
                     "dcb-app ens1f0np0: trust pcp, dscp_prio none -> trust dscp, dscp_prio 26:3",
                 }));
  EXPECT_TRUE(first.diag.warnings.empty()) << first.diag.warnings[0].str();
  const ApplyReport r = apply_plan(first, n.run.ctx);
  for (size_t i = 0; i < first.actions.size(); ++i) {
    if (first.actions[i].kind() == ActionKind::kDcbEts ||
        first.actions[i].kind() == ActionKind::kDcbPfc ||
        first.actions[i].kind() == ActionKind::kDcbApps) {
      EXPECT_EQ(r.outcomes[i].kind, OutcomeKind::kDone) << r.outcomes[i].error.str();
    }
  }
  // mlx5's answers: the first DSCP entry switches QPTS to DSCP trust; the PFC change
  // toggled the link (mlx5e_dcbnl_ieee_setpfc).
  EXPECT_EQ(n.dcb.trust_register("ens1f0np0"), 2);
  EXPECT_EQ(n.dcb.writes(),
            (std::vector<std::string>{"ens1f0np0 ets", "ens1f0np0 pfc 0x8",
                                      "ens1f0np0 link toggled", "ens1f0np0 app+ 26:3"}));
  // The DCB actions come before the link comes up and the RoCE port is waited for.
  size_t last_dcb = 0, first_after = first.actions.size();
  for (size_t i = 0; i < first.actions.size(); ++i) {
    const ActionKind k = first.actions[i].kind();
    if (k == ActionKind::kDcbApps) last_dcb = i;
    if ((k == ActionKind::kLinkUp || k == ActionKind::kWaitPort) && first_after > i)
      first_after = i;
  }
  EXPECT_LT(last_dcb, first_after);

  const Plan again = n.plan(in);
  for (const auto& l : lines(again)) EXPECT_NE(l.rfind("dcb-", 0), 0u) << l;
  const size_t writes = n.dcb.writes().size();
  std::vector<Action> dcb_actions;
  for (const auto& a : first.actions)
    if (std::string(to_string(a.kind())).rfind("dcb-", 0) == 0) dcb_actions.push_back(a);
  for (const auto& a : dcb_actions) EXPECT_EQ(execute(n.run.ctx, a).kind, OutcomeKind::kAlready);
  EXPECT_EQ(n.dcb.writes().size(), writes);
}

// trust pcp on an mlx5 that trusts DSCP: its DSCP entries go, and the last one switches
// it back (mlx5e_dcbnl_ieee_delapp); a changed DSCP priority replaces the entry.
TEST(Dcb, TrustPcpDeletesTheDscpEntriesAndAChangedPriorityReplacesOne) {
  Node n;
  ASSERT_TRUE(n.dcb.add_apps("ens1f0np0", {{5, 1, 26}, {5, 5, 46}}));
  ASSERT_EQ(n.dcb.trust_register("ens1f0np0"), 2);
  const Plan change = n.plan(n.inputs("rd.rdma.dcb=ens1f0np0:dscp_prio=26:3"));
  const ApplyReport moved = apply_plan(change, n.run.ctx);
  // mlx5 replaced 26:1 when 26:3 was added: no delete of what it no longer has (ENOENT).
  EXPECT_EQ(moved.failed, 0u) << moved.summary();
  EXPECT_EQ(moved.done, 1u) << moved.summary();
  EXPECT_EQ(n.dcb.get("ens1f0np0")->dscp_prio, (std::map<uint8_t, uint8_t>{{26, 3}, {46, 5}}));
  const Plan pcp = n.plan(n.inputs("rd.rdma.dcb=ens1f0np0:trust=pcp"));
  const ApplyReport r = apply_plan(pcp, n.run.ctx);
  EXPECT_EQ(r.failed, 0u) << r.summary();
  EXPECT_TRUE(n.dcb.get("ens1f0np0")->dscp_prio.empty());
  EXPECT_EQ(n.dcb.trust_register("ens1f0np0"), 1);
}

// A driver without dcbnl_ops (virtio_net): the actions fail at once, saying so.
TEST(Dcb, AnInterfaceWithoutDcbIsRefusedNamingIt) {
  Node n;
  n.dcb.add_without_dcb("ens1f0np0");
  const Plan p = n.plan(n.inputs("rd.rdma.dcb=ens1f0np0:pfc=3"));
  ASSERT_EQ(p.actions.size(), 1u) << plan_text(p);
  EXPECT_NE(p.actions[0].never.find("ens1f0np0 has no DCB support: its driver mlx5_core"),
            std::string::npos)
      << p.actions[0].never;
  const ApplyReport r = apply_plan(p, n.run.ctx);
  EXPECT_EQ(r.failed, 1u);  // the plan's side: tests/plan/dcb_test.cc
  // The executor meets the kernel's answer too.
  const Outcome o = execute(n.run.ctx, Action(SetDcbPfc{"ens1f0np0", 8}, "unknown", "test"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.errnum, EOPNOTSUPP);
}

// Refusals by the driver are its status byte, named; the input's own refusal.
TEST(Dcb, WhatTheDriverOrTheInputRefuses) {
  Node n;
  Outcome bad = execute(
      n.run.ctx,
      Action(SetDcbEts{"ens1f0np0", std::array<uint8_t, 8>{50, 0, 0, 40}, {}}, "unknown", "test"));
  EXPECT_EQ(bad.kind, OutcomeKind::kFailed);
  EXPECT_EQ(bad.error.errnum, EINVAL);
  const Inputs in = n.inputs("rd.rdma.dcb=ens1f0np0:tc_bw=0:50+3:40");
  ASSERT_EQ(in.diag.errors.size(), 1u);
  EXPECT_NE(in.diag.errors[0].str().find("sums to 90%"), std::string::npos);
}

}  // namespace
}  // namespace rp
