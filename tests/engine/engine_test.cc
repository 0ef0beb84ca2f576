// The engine end to end on fixtures: inputs -> plan -> apply through the real executors,
// with the fake kernel making the tree behave like sysfs/configfs. Checks the tree ends
// in the wanted state, one line per action plus a summary, the skip/deadline policy, and
// that a second run changes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "provision/apply/apply.h"
#include "provision/apply/modules.h"
#include "provision/inputs/load.h"
#include "provision/resolve/node_table.h"
#include "provision/report/handoff.h"
#include "tests/modules/fake_rdma_tree.h"
#include "tests/modules/scripted_inserter.h"
#include "tests/support/fake_kernel.h"
#include "tests/support/fixture.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

struct TreeRun {
  explicit TreeRun(const std::string& fixture) : dir(testing::unpack_fixture(fixture)) {}

  // One whole `apply` over the tree (a fresh fake kernel each time, as a new process).
  ApplyReport apply(const std::string& cmdline,
                    std::chrono::milliseconds budget = std::chrono::seconds(10)) {
    Root root(dir);
    Inventory inv = discover(root, Detail::kPlan);  // as the command line's apply
    InputOptions opt;
    opt.cmdline_text = cmdline;
    Inputs in = load_inputs(root, opt);
    in.config = resolve_node_table(inv, in.config);
    EXPECT_TRUE(in.diag.ok()) << (in.diag.errors.empty() ? "" : in.diag.errors[0].str());
    plan = make_plan(in.config, inv);
    EXPECT_TRUE(plan.diag.ok());
    kernel = std::make_unique<testing::FakeKernel>(dir);
    configure(*kernel);
    lines.clear();
    Log log(vector_sink(&lines));
    ApplyContext ctx{*kernel, false, Deadline(budget), log};
    return apply_plan(plan, ctx);
  }

  std::string file(const std::string& path) const {
    std::ifstream f(dir + path);
    std::string s;
    std::getline(f, s);
    return s;
  }

  std::string dir;
  Plan plan;
  std::unique_ptr<testing::FakeKernel> kernel;
  std::function<void(testing::FakeKernel&)> configure = [](testing::FakeKernel&) {};
  std::vector<std::string> lines;
};

TEST(Engine, PortTypesAndRoceDefaultsReachTheWantedStateThenNothingChanges) {
  TreeRun r("cx3-vpi");
  ApplyReport first = r.apply("rd.rdma.mlx4=0000:81:00.0/eth,eth rd.rdma.wait=mlx4_0/2");
  EXPECT_EQ(first.failed, 0u) << ::testing::PrintToString(r.lines);
  EXPECT_EQ(first.exit_code(), 0);
  EXPECT_EQ(r.file("/sys/bus/pci/devices/0000:81:00.0/mlx4_port1"), "eth");
  EXPECT_EQ(r.file("/sys/bus/pci/devices/0000:81:00.0/mlx4_port2"), "eth");
  // One line per action, then the summary.
  ASSERT_EQ(r.lines.size(), r.plan.actions.size() + 1);
  EXPECT_NE(r.lines.back().find("summary: "), std::string::npos);

  ApplyReport second = r.apply("rd.rdma.mlx4=0000:81:00.0/eth,eth rd.rdma.wait=mlx4_0/2");
  EXPECT_EQ(r.plan.actions.size(), 0u) << plan_text(r.plan);
  EXPECT_EQ(r.kernel->changes(), 0u);
  EXPECT_EQ(second.exit_code(), 0);
}

// A check changes nothing: its outcome is "checked", counted apart from the changes, so a
// second apply with rd.rdma.verify on still says 0 done (issue #27 item 8).
TEST(Engine, ChecksAreCountedApartFromChanges) {
  ApplyReport r;
  r.already = 1;
  r.checked = 2;
  r.took = std::chrono::milliseconds(410);
  EXPECT_EQ(r.summary(), "summary: 0 done, 1 already, 2 checked, 0 skipped, 0 failed in 0.41 s");
  EXPECT_EQ(r.exit_code(), 0);
  const Action a{VerifyPort{"rxe0", 1, RoceMode::kV2}, "not verified", "rd.rdma.verify=ports"};
  EXPECT_EQ(
      outcome_line(a, Outcome::checked("8 round trips")).rfind("checked  verify-port rxe0/1: ", 0),
      0u)
      << outcome_line(a, Outcome::checked(""));
  // The state files say it too: state.json's outcome, state.env's count.
  Plan plan;
  plan.actions.push_back(a);
  r.outcomes = {Outcome::checked("8 round trips")};
  EXPECT_NE(state_json(Config{}, plan, &r).find("\"outcome\": \"checked\""), std::string::npos)
      << state_json(Config{}, plan, &r);
  EXPECT_NE(state_env(Config{}, plan, &r).find("RP_CHECKED='2'"), std::string::npos);
  EXPECT_NE(state_env(Config{}, plan, &r).find("RP_DONE='0'"), std::string::npos);
}

// The kernel loads mlx4_en itself when a card gets an Ethernet port (mlx4_request_modules),
// before apply could load it with options: the PFC masks reach that load only through the
// /run/modprobe.d file the early step writes (udev-rules --output).
TEST(Engine, PfcMasksReachTheKernelsOwnLoadOfMlx4En) {
  for (const bool early : {true, false}) {
    TreeRun r("four-hca");
    // A node whose cards are all InfiniBand: mlx4_en is not loaded.
    std::ifstream in(r.dir + "/proc/modules");
    std::string modules, line;
    while (std::getline(in, line))
      if (line.rfind("mlx4_en ", 0) != 0) modules += line + "\n";
    in.close();
    std::ofstream(r.dir + "/proc/modules") << modules;
    const std::string cmdline = "rd.rdma.mlx4=0000:04:00.0/eth,eth rd.rdma.mlx4.pfc=0x08";
    if (early) {
      InputOptions opt;
      opt.cmdline_text = cmdline;
      Inputs inputs = load_inputs(Root(r.dir), opt);
      std::filesystem::create_directories(r.dir + "/run/modprobe.d");
      std::ofstream(r.dir + kRunModprobePath) << early_modprobe_conf(inputs.config);
    }
    r.configure = [](testing::FakeKernel& k) { k.mlx4_reregistration("0000:04:00.0", 0); };
    ApplyReport first = r.apply(cmdline);
    EXPECT_EQ(r.file("/sys/module/mlx4_en/parameters/pfctx"), early ? "8" : "0") << early;
    EXPECT_EQ(r.file("/sys/module/mlx4_en/parameters/pfcrx"), early ? "8" : "0") << early;
    r.apply(cmdline);
    bool pfc_left = false;
    for (const auto& a : r.plan.actions) pfc_left |= a.object() == "mlx4_en";
    for (const auto& w : r.plan.diag.warnings)
      pfc_left |= w.str().find("mlx4_en is already loaded with pfctx=0x00") != std::string::npos;
    // With the early file the loaded module has the masks: nothing is left to do about it;
    // without, the masks missed the only load there was (a warning, or a reload).
    EXPECT_EQ(pfc_left, !early) << early << "\n" << plan_text(r.plan);
  }
}

TEST(Engine, ARefusedStepSkipsWhatDependsOnItButNotTheRest) {
  TreeRun r("cx3-vpi");
  r.configure = [](testing::FakeKernel& k) {
    k.fail_writes("/sys/bus/pci/devices/0000:81:00.0/mlx4_port2", EIO);
  };
  // Port 2 fails (EIO); the RoCE defaults of that card wait for its re-registration and
  // are skipped; the independent wait still runs.
  ApplyReport rep =
      r.apply("rd.rdma.mlx4=0000:81:00.0/ib,ib rd.rdma.roce=mlx4_0/2:v2 rd.rdma.wait=mlx4_0/1");
  ASSERT_EQ(r.plan.actions.size(), 3u) << plan_text(r.plan);
  EXPECT_EQ(rep.outcomes[0].kind, OutcomeKind::kFailed);
  EXPECT_EQ(rep.outcomes[0].error.str(),
            "/sys/bus/pci/devices/0000:81:00.0/mlx4_port2: writing 'ib' failed "
            "(Input/output error)");
  EXPECT_EQ(rep.outcomes[1].kind, OutcomeKind::kSkipped);
  EXPECT_EQ(rep.outcomes[1].detail, "needs action 1 (port-type 0000:81:00.0 port 2), which failed");
  EXPECT_EQ(rep.outcomes[2].kind, OutcomeKind::kSkipped) << rep.outcomes[2].detail;
  EXPECT_EQ(rep.exit_code(), 1);
}

TEST(Engine, BothPortsOfOneCardAreTriedEvenWhenOneIsRefused) {
  TreeRun r("cx3-sriov-eth");
  ApplyReport rep = r.apply("rd.rdma.mlx4=0000:03:00.0/ib,ib");
  ASSERT_EQ(r.plan.actions.size(), 2u) << plan_text(r.plan);
  EXPECT_EQ(rep.outcomes[0].kind, OutcomeKind::kFailed);
  EXPECT_EQ(rep.outcomes[1].kind, OutcomeKind::kFailed);
  EXPECT_NE(rep.outcomes[1].error.str().find("read-only"), std::string::npos)
      << rep.outcomes[1].error.str();
  EXPECT_EQ(r.file("/sys/bus/pci/devices/0000:03:00.0/mlx4_port1"), "eth");
}

TEST(Engine, ALoadWhosePrerequisiteFailedStaysOutOfALaterBatch) {
  // mlx4_en with PFC masks loads after the port types (plan/builder.cc). Once the port
  // write has failed, a load that needs nothing starts a parallel batch: the mlx4_en load
  // is not taken into it but skipped with the reason.
  const std::string dir = testing::unpack_fixture("cx3-vpi");
  testing::FakeKernel kernel(dir);
  kernel.fail_writes("/sys/bus/pci/devices/0000:81:00.0/mlx4_port1", EIO);
  Plan plan;
  plan.actions.emplace_back(SetPortType{*PciAddress::parse("0000:81:00.0"), 1, PortType::kEth},
                            "ib", "test:1");
  plan.actions.emplace_back(LoadModule{"ib_ipoib", "", std::nullopt}, "not loaded", "test:2");
  Action en(LoadModule{"mlx4_en", "", PfcMasks{8, 8}}, "not loaded", "test:3");
  en.after = {0};
  plan.actions.push_back(en);
  std::vector<std::string> lines;
  Log log(vector_sink(&lines));
  ApplyContext ctx{kernel, false, Deadline(std::chrono::seconds(5)), log};
  const ApplyReport rep = apply_plan(plan, ctx);
  ASSERT_EQ(rep.outcomes.size(), 3u);
  EXPECT_EQ(rep.outcomes[0].kind, OutcomeKind::kFailed);
  // The batch of the one load that could start (skipped by the loader on a fixture root).
  EXPECT_EQ(rep.outcomes[1].kind, OutcomeKind::kSkipped);
  EXPECT_EQ(rep.outcomes[1].detail, "acts on the running kernel only (--root DIR)");
  EXPECT_EQ(rep.outcomes[2].kind, OutcomeKind::kSkipped);
  EXPECT_EQ(rep.outcomes[2].detail, "needs action 1 (port-type 0000:81:00.0 port 1), which failed");
}

TEST(Engine, TheLoadsThatMayStartRunInOneParallelBatchAndALaterLoadInTheNext) {
  // The registry's batch executor for load-module, through a scripted kernel under the real
  // libkmod (tests/modules): rdma_ucm waits for the ib_cm action, so it is not in the
  // first batch; the others insert side by side.
  const std::string root = testing::make_fake_rdma_root();
  auto kernel = std::make_shared<testing::ScriptedInserter>(
      root, testing::InsertScript{std::chrono::milliseconds(40)});
  ModuleLoading how;
  how.loader.inserter = kernel;
  Plan plan;
  for (const char* m : {"sunrpc", "ib_cm", "rdma_ucm", "ib_umad"}) {
    plan.actions.emplace_back(LoadModule{m, "", std::nullopt}, "not loaded", "test");
  }
  plan.actions[2].after = {1};
  RealFileOps files{Root(root)};
  std::vector<std::string> lines;
  Log log(vector_sink(&lines));
  ApplyContext ctx{files, true, Deadline(std::chrono::seconds(20)), log, &how};
  const ApplyReport rep = apply_plan(plan, ctx);
  ASSERT_EQ(rep.outcomes.size(), 4u);
  for (const Outcome& o : rep.outcomes) EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(rep.outcomes[2].detail, "inserted ib_uverbs, iw_cm, rdma_cm, rdma_ucm");
  EXPECT_GE(kernel->max_in_flight(), 2);
  // The first batch's three lines, then the later batch's.
  std::vector<std::string> order;
  for (const auto& l : lines) {
    if (l.find("load-module") != std::string::npos)
      order.push_back(l.substr(l.find("load-module")));
  }
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[3].rfind("load-module rdma_ucm", 0), 0u) << order[3];
}

TEST(Engine, NothingStartsAfterTheDeadline) {
  TreeRun r("four-hca");
  // Ports 2 are INIT and never become ACTIVE: the first wait uses the whole budget, the
  // next ones report that the deadline passed before they could start.
  ApplyReport rep =
      r.apply("rd.rdma.wait=mlx4_0/2,mlx4_1/2,mlx4_2/2,mlx4_3/2", std::chrono::milliseconds(150));
  ASSERT_EQ(r.plan.actions.size(), 4u) << plan_text(r.plan);
  EXPECT_EQ(rep.outcomes[0].kind, OutcomeKind::kTimedOut);
  EXPECT_NE(rep.outcomes[0].error.str().find("INIT"), std::string::npos)
      << rep.outcomes[0].error.str();
  EXPECT_EQ(rep.outcomes[3].kind, OutcomeKind::kTimedOut);
  EXPECT_NE(rep.outcomes[3].error.str().find("passed before it could start"), std::string::npos)
      << rep.outcomes[3].error.str();
  EXPECT_EQ(rep.exit_code(), 3);
  EXPECT_LT(rep.took, std::chrono::milliseconds(2000));
}

TEST(Engine, NetlinkAndModuleActionsOnAFixtureRootAreSkippedWithTheReason) {
  TreeRun r("rxe-virtio");
  ApplyReport rep = r.apply("rd.rdma.name=roce0:52:54:00:77:00:01 rd.rdma.modules=rpcrdma");
  ASSERT_EQ(r.plan.actions.size(), 2u) << plan_text(r.plan);
  for (const auto& o : rep.outcomes) {
    EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
    EXPECT_EQ(o.detail, "acts on the running kernel only (--root DIR)");
  }
  EXPECT_EQ(rep.exit_code(), 0);
}

// The state file of a real apply on a tree (its constructed cases: tests/report/).
TEST(Engine, TheStateFileOfAFailedApplyRecordsTheActionAndItsOutcome) {
  TreeRun r("cx3-sriov-eth");
  ApplyReport rep = r.apply("rd.rdma.mlx4=0000:03:00.0/ib");
  Config cfg;
  const std::string json = state_json(cfg, r.plan, &rep);
  EXPECT_NE(json.find("\"exit_code\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"outcome\": \"failed\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"port-type\""), std::string::npos) << json;
}

}  // namespace
}  // namespace rp
