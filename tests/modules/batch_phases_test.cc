// The phases of a module batch (provision/apply/module_jobs.h), each on its own: names to
// jobs, the pre-flight, the parallel insertions, the outcomes. The real libkmod on a fake
// module tree (fake_rdma_tree.h); insertions go to a scripted kernel.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "provision/apply/module_jobs.h"
#include "tests/modules/fake_rdma_tree.h"
#include "tests/modules/scripted_inserter.h"

namespace rp::module_jobs {
namespace {

using ::rp::testing::make_fake_rdma_root;
using ::rp::testing::mark_loaded;
using ::rp::testing::ScriptedInserter;
using std::chrono::milliseconds;

Action load(const std::string& module, const std::string& options = "") {
  return Action(LoadModule{module, options, std::nullopt}, "not loaded", "test");
}

std::vector<Request> requests(const std::vector<Action>& actions) {
  std::vector<Request> out;
  for (const auto& a : actions) out.push_back({&a, false});
  return out;
}

ModuleLoader dry_loader(const std::string& root) {
  ModuleLoaderOptions o;
  o.dry_run = true;
  auto l = ModuleLoader::open(Root(root), o);
  EXPECT_TRUE(l.ok());
  return std::move(l).value();
}

const Clock::time_point kLater = Clock::now() + std::chrono::seconds(30);

// Phases 1 and 2 of `actions` on the tree at `root`.
std::vector<Job> preflighted(const std::string& root, const std::vector<Action>& actions,
                             Clock::time_point deadline = kLater) {
  ModuleLoader res = dry_loader(root);
  std::vector<Job> jobs;
  resolve_requests(res, requests(actions), jobs);
  preflight_jobs(res, jobs, deadline);
  return jobs;
}

TEST(BatchResolve, AliasesOfOneModuleShareOneJob) {
  ModuleLoader res = dry_loader(make_fake_rdma_root());
  const std::vector<Action> actions = {load("xprtrdma"), load("svcrdma"), load("ib_uverbs")};
  std::vector<Job> jobs;
  const auto plans = resolve_requests(res, requests(actions), jobs);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].module, "rpcrdma");
  EXPECT_EQ(jobs[0].asked_by, "load-module xprtrdma");
  EXPECT_EQ(jobs[1].module, "ib_uverbs");
  EXPECT_EQ(plans[0].jobs, std::vector<size_t>{0});
  EXPECT_EQ(plans[1].jobs, std::vector<size_t>{0});
  EXPECT_EQ(plans[1].prefix, "svcrdma is an alias of rpcrdma; ");
  EXPECT_EQ(plans[2].jobs, std::vector<size_t>{1});
}

TEST(BatchResolve, WhatCannotBecomeAJobIsAnsweredEarly) {
  ModuleLoader res = dry_loader(make_fake_rdma_root());
  const std::vector<Action> actions = {load("rdma_rxe"), load("siw"), load("rpcrdma"),
                                       load("xprtrdma", "x=1")};
  std::vector<Job> jobs;
  const auto plans = resolve_requests(res, requests(actions), jobs);
  ASSERT_EQ(jobs.size(), 1u);  // rpcrdma only
  ASSERT_TRUE(plans[0].early);
  EXPECT_EQ(plans[0].early->kind, OutcomeKind::kFailed);
  EXPECT_EQ(plans[0].early_module, "rdma_rxe");
  ASSERT_TRUE(plans[1].early);
  EXPECT_EQ(plans[1].early->detail, "module siw is blacklisted in modprobe.d; not loaded");
  EXPECT_FALSE(plans[2].early);
  ASSERT_TRUE(plans[3].early);
  EXPECT_EQ(plans[3].early->error.str(),
            "load-module xprtrdma: module rpcrdma is also asked for by load-module rpcrdma with "
            "other options (''); give its options once");
}

TEST(BatchPreflight, PresentModulesFinishAndTheOthersWaitForWhatTheyNeed) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "ib_core");
  const std::vector<Action> actions = {load("rdma_ucm"), load("ib_cm"), load("ib_core"),
                                       load("configfs")};
  const std::vector<Job> jobs = preflighted(root, actions);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].state, Job::State::kPending);
  EXPECT_EQ(jobs[0].report.status, LoadStatus::kWouldInsert);
  EXPECT_TRUE(jobs[0].chain.count("ib_cm"));
  EXPECT_FALSE(jobs[0].chain.count("ib_core"));          // loaded already: not in the chain
  EXPECT_EQ(jobs[0].waits_for, std::vector<size_t>{1});  // rdma_ucm after ib_cm
  EXPECT_EQ(jobs[1].state, Job::State::kPending);
  EXPECT_TRUE(jobs[1].waits_for.empty());
  EXPECT_EQ(jobs[2].state, Job::State::kFinished);
  EXPECT_EQ(jobs[2].report.status, LoadStatus::kAlreadyLoaded);
  EXPECT_EQ(jobs[3].state, Job::State::kFinished);
  EXPECT_EQ(jobs[3].report.status, LoadStatus::kBuiltin);
}

TEST(BatchPreflight, AMissingDependencyFinishesTheJobAsFailed) {
  testing::FakeRdmaTreeOptions o;
  o.mlx4_core_file = false;
  const std::vector<Job> jobs = preflighted(make_fake_rdma_root(o), {load("mlx4_en")});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, Job::State::kFinished);
  EXPECT_EQ(jobs[0].report.status, LoadStatus::kFailed);
  EXPECT_EQ(jobs[0].report.failed_module, "mlx4_core");
}

// A batch through phases 1 and 2, ready for run_jobs.
std::shared_ptr<Batch> prepared(const std::string& root, const std::vector<Action>& actions,
                                std::shared_ptr<ScriptedInserter> kernel,
                                Clock::duration budget = std::chrono::seconds(20)) {
  ModuleLoading how;
  how.loader.inserter = std::move(kernel);
  auto batch = std::make_shared<Batch>(Root(root), how, Clock::now() + budget);
  batch->jobs = preflighted(root, actions, batch->deadline);
  return batch;
}

TEST(BatchRun, InsertsWhatThePreflightPlannedInParallelInDependencyOrder) {
  const std::string root = make_fake_rdma_root();
  auto kernel = std::make_shared<ScriptedInserter>(root, testing::InsertScript{milliseconds(30)});
  const std::vector<Action> actions = {load("ib_cm"), load("sunrpc"), load("rdma_cm")};
  const std::vector<Job> done = run_jobs(prepared(root, actions, kernel));
  ASSERT_EQ(done.size(), 3u);
  for (const Job& j : done) {
    EXPECT_EQ(j.state, Job::State::kFinished);
    EXPECT_EQ(j.report.status, LoadStatus::kInserted) << j.module << ": " << j.report.error.str();
    EXPECT_TRUE(j.ran);
  }
  const auto ins = kernel->inserted();
  auto at = [&](const std::string& m) {
    return std::find(ins.begin(), ins.end(), m) - ins.begin();
  };
  EXPECT_LT(at("ib_cm"), at("rdma_cm"));
  EXPECT_GE(kernel->max_in_flight(), 2);  // sunrpc beside the IB chain
  // Each module inserted once: rdma_cm waited for ib_cm instead of inserting it too.
  EXPECT_EQ(std::count(ins.begin(), ins.end(), "ib_cm"), 1);
}

TEST(BatchRun, TheDeadlineFinishesWhatIsLeft) {
  const std::string root = make_fake_rdma_root();
  auto kernel = std::make_shared<ScriptedInserter>(root, testing::InsertScript{milliseconds(1000)});
  const std::vector<Action> actions = {load("ib_core"), load("ib_cm")};
  const std::vector<Job> done = run_jobs(prepared(root, actions, kernel, milliseconds(100)));
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].report.status, LoadStatus::kTimedOut);
  EXPECT_EQ(done[0].report.error.str(),
            "module ib_core was still loading when the deadline passed (its initialisation goes "
            "on in the kernel)");
  EXPECT_EQ(done[1].report.status, LoadStatus::kTimedOut);
  EXPECT_EQ(done[1].report.error.str(), "the deadline passed before module ib_cm could be loaded");
}

TEST(BatchOutcomes, AFailedModuleIsReportedByTheFirstActionOnly) {
  const std::vector<Action> actions = {load("xprtrdma"), load("svcrdma"), load("sunrpc")};
  const auto reqs = requests(actions);
  Job rpc;
  rpc.module = "rpcrdma";
  rpc.asked_by = "load-module xprtrdma";
  rpc.report.status = LoadStatus::kFailed;
  rpc.report.failed_module = "rpcrdma";
  rpc.report.error = make_error("", "cannot insert module rpcrdma");
  rpc.report.notes = {"a note of rpcrdma"};
  Job sun;
  sun.module = "sunrpc";
  sun.report.status = LoadStatus::kInserted;
  sun.report.steps = {ModuleStep{"sunrpc", "", "", false, false}};
  std::vector<ActionPlan> plans(3);
  plans[0].jobs = {0};
  plans[1].jobs = {0};
  plans[2].jobs = {1};
  std::vector<std::string> lines;
  Log log(vector_sink(&lines));
  const auto outs = outcomes_of(log, reqs, plans, {rpc, sun});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[0].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[0].error.str(), "cannot insert module rpcrdma");
  EXPECT_EQ(outs[1].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[1].error.str(),
            "needs module rpcrdma, which could not be loaded (see load-module xprtrdma)");
  EXPECT_EQ(outs[2].kind, OutcomeKind::kDone);
  EXPECT_EQ(outs[2].detail, "inserted sunrpc");
  size_t notes = 0;
  for (const auto& l : lines) notes += l.find("a note of rpcrdma") != std::string::npos;
  EXPECT_EQ(notes, 1u);
}

}  // namespace
}  // namespace rp::module_jobs
