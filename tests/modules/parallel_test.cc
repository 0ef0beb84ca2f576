// Module executors on a fake module tree, with a dry-run loader: the real libkmod
// resolution and the real parallel scheduler run; nothing is inserted.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "provision/apply/modules.h"
#include "provision/apply/registry.h"
#include "provision/kernel/files.h"
#include "tests/modules/fake_rdma_tree.h"

namespace rp {
namespace {

using ::rp::testing::FakeRdmaTreeOptions;
using ::rp::testing::make_fake_rdma_root;
using ::rp::testing::mark_loaded;
using std::chrono::milliseconds;

constexpr char kRxeMissing[] = "module rdma_rxe not found in /lib/modules/6.1.0-28-amd64";

struct Env {
  explicit Env(const std::string& dir, Clock::duration budget = std::chrono::seconds(20))
      : root(dir),
        files(Root(dir)),
        log(vector_sink(&lines)),
        ctx{files, false, Deadline(budget), log} {}
  std::string root;
  RealFileOps files;
  std::vector<std::string> lines;
  Log log;
  ApplyContext ctx;
};

Action load(const std::string& module, const std::string& options = "") {
  return Action(LoadModule{module, options, std::nullopt}, "not loaded", "test");
}

Action reload(PfcMasks pfc, const std::string& module = "mlx4_en") {
  return Action(ReloadModule{module, pfc}, "pfctx=0x00 pfcrx=0x00", "test");
}

ModuleLoading dry_run(milliseconds insert_time = milliseconds(0)) {
  ModuleLoading how;
  how.loader.dry_run = true;
  how.loader.dry_run_insert_time = insert_time;
  return how;
}

std::vector<const Action*> pointers(const std::vector<Action>& actions) {
  std::vector<const Action*> out;
  for (const auto& a : actions) out.push_back(&a);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Every outcome's error and detail, and every log line, as one text.
std::string everything(const std::vector<Outcome>& outs, const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& o : outs) all += o.error.str() + "\n" + o.detail + "\n";
  for (const auto& l : lines) all += l + "\n";
  return all;
}

TEST(ModuleExecutors, WithoutTheLiveKernelTheyAreSkipped) {
  Env env(make_fake_rdma_root());
  const Action a = load("ib_uverbs");
  const Action r = reload({0x08, 0x08});
  for (const Outcome& o :
       {execute(env.ctx, a), execute(env.ctx, r), load_modules_parallel(env.ctx, {&a}).front(),
        load_module(env.ctx, a, ModuleLoading{})}) {
    EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
    EXPECT_EQ(o.detail, "acts on the running kernel only (--root DIR)");
  }
}

TEST(ModuleExecutors, DryRunParallelLoadsShareDependencies) {
  Env env(make_fake_rdma_root());
  const std::vector<Action> actions = {load("rdma_ucm"), load("ib_ipoib"), load("xprtrdma"),
                                       load("mlx4_ib"), load("ib_umad")};
  // 21 insertions of 40 ms: 840 ms one after the other.
  const auto t0 = Clock::now();
  std::vector<Outcome> outs =
      load_modules_parallel(env.ctx, pointers(actions), dry_run(milliseconds(40)));
  const auto took = Clock::now() - t0;
  ASSERT_EQ(outs.size(), actions.size());
  const std::vector<std::string> last = {"rdma_ucm", "ib_ipoib [send_queue_size=256]", "rpcrdma",
                                         "mlx4_ib", "ib_umad"};
  for (size_t i = 0; i < outs.size(); ++i) {
    SCOPED_TRACE(actions[i].object());
    EXPECT_EQ(outs[i].kind, OutcomeKind::kDone) << outs[i].error.str();
    EXPECT_NE(outs[i].detail.find("dry run: would insert "), std::string::npos) << outs[i].detail;
    EXPECT_EQ(count(outs[i].detail, "ib_core"), 1u) << outs[i].detail;
    EXPECT_EQ(outs[i].detail.substr(outs[i].detail.size() - last[i].size()), last[i]);
  }
  EXPECT_EQ(outs[2].detail,
            "xprtrdma is an alias of rpcrdma; dry run: would insert sunrpc, ib_core, ib_cm, iw_cm, "
            "rdma_cm, rpcrdma");
  EXPECT_LT(took, milliseconds(600)) << "the loads did not run in parallel";
}

TEST(ModuleExecutors, ModuleNeededByAnotherOfTheBatchIsLoadedFirst) {
  Env env(make_fake_rdma_root());
  // rdma_ucm needs ib_uverbs: 2 insertions, then 6 (50 ms each), one after the other.
  const std::vector<Action> actions = {load("rdma_ucm"), load("ib_uverbs")};
  const auto t0 = Clock::now();
  std::vector<Outcome> outs =
      load_modules_parallel(env.ctx, pointers(actions), dry_run(milliseconds(50)));
  EXPECT_GE(Clock::now() - t0, milliseconds(400));
  EXPECT_EQ(outs[0].kind, OutcomeKind::kDone) << outs[0].error.str();
  EXPECT_EQ(outs[1].kind, OutcomeKind::kDone) << outs[1].error.str();
  EXPECT_EQ(outs[1].detail, "dry run: would insert ib_core, ib_uverbs");
}

TEST(ModuleExecutors, MissingModuleIsReportedOnceWithItsMessage) {
  Env env(make_fake_rdma_root());
  const std::vector<Action> actions = {load("rdma_rxe"), load("ib_uverbs"), load("rdma-rxe")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), dry_run());
  EXPECT_EQ(outs[0].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[0].error.str(), kRxeMissing);
  EXPECT_EQ(outs[0].detail, "not built for kernel 6.1.0-28-amd64, or left out of the initramfs");
  EXPECT_EQ(outs[1].kind, OutcomeKind::kDone);
  EXPECT_EQ(outs[2].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[2].error.str(), "module rdma_rxe could not be loaded (see load-module rdma_rxe)");
  EXPECT_EQ(count(everything(outs, env.lines), kRxeMissing), 1u);
}

TEST(ModuleExecutors, MissingDependencyIsReportedOnceNotPerDependent) {
  FakeRdmaTreeOptions o;
  o.mlx4_core_file = false;
  Env env(make_fake_rdma_root(o));
  const std::vector<Action> actions = {load("mlx4_en"), load("mlx4_ib")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), dry_run());
  EXPECT_EQ(outs[0].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[0].error.str(),
            "module mlx4_core not found: "
            "/lib/modules/6.1.0-28-amd64/kernel/drivers/net/ethernet/mellanox/mlx4/mlx4_core.ko "
            "is missing (needed by mlx4_en)");
  EXPECT_EQ(outs[0].detail, "modules.dep does not match the files; run depmod for 6.1.0-28-amd64");
  EXPECT_EQ(outs[1].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[1].error.str(),
            "needs module mlx4_core, which could not be loaded (see load-module mlx4_en)");
  EXPECT_EQ(count(everything(outs, env.lines), "mlx4_core.ko is missing"), 1u);
}

TEST(ModuleExecutors, BlacklistedModulesAreSkippedWithTheReason) {
  Env env(make_fake_rdma_root());
  const std::vector<Action> actions = {load("siw"), load("rdma-link-siw")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), dry_run());
  EXPECT_EQ(outs[0].kind, OutcomeKind::kSkipped);
  EXPECT_EQ(outs[0].detail, "module siw is blacklisted in modprobe.d; not loaded");
  EXPECT_EQ(outs[1].kind, OutcomeKind::kSkipped);
  EXPECT_EQ(outs[1].detail,
            "rdma-link-siw is an alias of siw, blacklisted in modprobe.d; not loaded");
}

TEST(ModuleExecutors, BuiltinAndLoadedModulesAreAlready) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "ib_core");
  Env env(root);
  const std::vector<Action> actions = {load("configfs"), load("ib_core"), load("ib_uverbs")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), dry_run());
  EXPECT_EQ(outs[0].kind, OutcomeKind::kAlready);
  EXPECT_EQ(outs[0].detail, "built into the kernel");
  EXPECT_EQ(outs[1].kind, OutcomeKind::kAlready);
  EXPECT_EQ(outs[1].detail, "already loaded");
  EXPECT_EQ(outs[2].kind, OutcomeKind::kDone);
  EXPECT_EQ(outs[2].detail, "dry run: would insert ib_uverbs");
}

TEST(ModuleExecutors, AliasesOfOneModuleLoadItOnce) {
  Env env(make_fake_rdma_root());
  const std::vector<Action> actions = {load("xprtrdma"), load("svcrdma"), load("rpcrdma", "x=1")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), dry_run());
  EXPECT_EQ(outs[0].kind, OutcomeKind::kDone);
  EXPECT_EQ(outs[1].kind, OutcomeKind::kAlready);
  EXPECT_EQ(outs[1].detail,
            "svcrdma is an alias of rpcrdma; rpcrdma loaded for load-module xprtrdma");
  EXPECT_EQ(outs[2].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[2].error.str(),
            "load-module rpcrdma: module rpcrdma is also asked for by load-module xprtrdma with "
            "other options (''); give its options once");
}

TEST(ModuleExecutors, IgnoredInstallCommandIsLogged) {
  Env env(make_fake_rdma_root());
  const Action a = load("mlx4_ib");
  Outcome o = load_module(env.ctx, a, dry_run());
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  ASSERT_EQ(
      count(everything({}, env.lines), "ignored the modprobe.d install command for mlx4_core"), 1u);
  bool warned = false;
  for (const auto& l : env.lines) warned |= l.rfind("4 ignored the modprobe.d install", 0) == 0;
  EXPECT_TRUE(warned);
}

TEST(ModuleExecutors, DeadlineEndsTheBatch) {
  Env env(make_fake_rdma_root(), milliseconds(150));
  const std::vector<Action> actions = {load("rdma_ucm"), load("ib_ipoib"), load("configfs")};
  const auto t0 = Clock::now();
  std::vector<Outcome> outs =
      load_modules_parallel(env.ctx, pointers(actions), dry_run(std::chrono::seconds(2)));
  EXPECT_LT(Clock::now() - t0, milliseconds(1500));
  EXPECT_EQ(outs[0].kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(outs[1].kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(outs[2].kind, OutcomeKind::kAlready);  // answered without waiting
}

TEST(ModuleExecutors, PassedDeadlineStartsNothing) {
  Env env(make_fake_rdma_root(), milliseconds(0));
  const std::vector<Action> actions = {load("ib_uverbs")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), dry_run());
  EXPECT_EQ(outs[0].kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(outs[0].error.str(), "the deadline passed before module ib_uverbs could be loaded");
}

TEST(ModuleExecutors, ReloadRemovesThenLoadsWithTheNewOptions) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "mlx4_core", 1);
  mark_loaded(root, "mlx4_en", 0);
  Env env(root);
  Outcome o = reload_module(env.ctx, reload({0x08, 0x08}), dry_run());
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "dry run: would remove mlx4_en, then insert mlx4_en [pfctx=0x08 pfcrx=0x08]");
}

TEST(ModuleExecutors, ReloadRefusesAModuleInUse) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "mlx4_core", 1);
  mark_loaded(root, "mlx4_en", 1);
  Env env(root);
  Outcome o = reload_module(env.ctx, reload({0x08, 0x08}), dry_run());
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            "/sys/module/mlx4_en/refcnt: module mlx4_en is in use (refcnt 1): not reloaded with "
            "pfctx=0x08 pfcrx=0x08");
  EXPECT_EQ(o.detail,
            "stop what uses it first, or put 'options mlx4_en pfctx=0x08 pfcrx=0x08' in "
            "/etc/modprobe.d and reboot");

  mark_loaded(root, "mlx4_en", 0);
  std::filesystem::create_directories(root + "/sys/module/mlx4_en/holders/mlx4_fake_user");
  o = reload_module(env.ctx, reload({0x08, 0x08}), dry_run());
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            "/sys/module/mlx4_en/refcnt: module mlx4_en is in use (refcnt 0, used by "
            "mlx4_fake_user): not reloaded with pfctx=0x08 pfcrx=0x08");
}

TEST(ModuleExecutors, ReloadOfAnUnloadedModuleJustLoadsIt) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "mlx4_core", 1);
  Env env(root);
  Outcome o = reload_module(env.ctx, reload({0x08, 0x08}), dry_run());
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "dry run: would insert mlx4_en [pfctx=0x08 pfcrx=0x08]");
}

TEST(ModuleExecutors, ReloadOfABuiltinModuleFails) {
  FakeRdmaTreeOptions opts;
  Env env(make_fake_rdma_root(opts));
  Action a = reload({0x08, 0x08}, "configfs");
  Outcome o = reload_module(env.ctx, a, dry_run());
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(
      o.error.str(),
      "module configfs is built into the kernel; its parameters (pfctx=0x08 pfcrx=0x08) can be set "
      "only on the kernel command line");
}

}  // namespace
}  // namespace rp
