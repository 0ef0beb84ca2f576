// Module executors on a fake module tree: the real libkmod resolution and the real
// parallel scheduler run; insertions go to a scripted kernel (tests/modules/
// scripted_inserter.h) or, in dry runs, nowhere.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "provision/apply/modules.h"
#include "provision/apply/registry.h"
#include "provision/kernel/files.h"
#include "tests/modules/fake_rdma_tree.h"
#include "tests/modules/scripted_inserter.h"

namespace rp {
namespace {

using ::rp::testing::FakeRdmaTreeOptions;
using ::rp::testing::make_fake_rdma_root;
using ::rp::testing::mark_loaded;
using ::rp::testing::ScriptedInserter;
using std::chrono::milliseconds;

constexpr char kRxeMissing[] = "module rdma_rxe not found in /lib/modules/6.1.0-28-amd64";

// `live`: module loading is available (through a scripted kernel, in these tests).
struct Env {
  explicit Env(const std::string& dir, Clock::duration budget = std::chrono::seconds(20),
               bool live = false)
      : root(dir),
        files(Root(dir)),
        log(vector_sink(&lines)),
        ctx{files, live, Deadline(budget), log} {}
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

ModuleLoading dry_run() {
  ModuleLoading how;
  how.loader.dry_run = true;
  return how;
}

ModuleLoading through(std::shared_ptr<ScriptedInserter> kernel) {
  ModuleLoading how;
  how.loader.inserter = std::move(kernel);
  return how;
}

// What each module needs (tests/modules/fake_rdma_tree.h).
const std::map<std::string, std::vector<std::string>> kNeeds = {
    {"ib_cm", {"ib_core"}},
    {"iw_cm", {"ib_core"}},
    {"ib_uverbs", {"ib_core"}},
    {"ib_umad", {"ib_core"}},
    {"rdma_cm", {"ib_core", "ib_cm", "iw_cm"}},
    {"rdma_ucm", {"ib_core", "ib_cm", "ib_uverbs", "iw_cm", "rdma_cm"}},
    {"ib_ipoib", {"ib_core", "ib_cm"}},
    {"rpcrdma", {"sunrpc", "ib_core", "ib_cm", "iw_cm", "rdma_cm"}},
    {"mlx4_en", {"mlx4_core"}},
    {"mlx4_ib", {"ib_core", "ib_uverbs", "mlx4_core"}},
};

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
       {execute(env.ctx, a), execute(env.ctx, r), exec_load_modules(env.ctx, {&a}).front(),
        load_module(env.ctx, a, ModuleLoading{})}) {
    EXPECT_EQ(o.kind, OutcomeKind::kSkipped);
    EXPECT_EQ(o.detail, "acts on the running kernel only (--root DIR)");
  }
}

TEST(ModuleExecutors, ParallelLoadsShareDependenciesAndRespectTheirOrder) {
  const std::string root = make_fake_rdma_root();
  auto kernel = std::make_shared<ScriptedInserter>(root, testing::InsertScript{milliseconds(40)});
  Env env(root, std::chrono::seconds(20), true);
  const std::vector<Action> actions = {load("rdma_ucm"), load("ib_ipoib"), load("xprtrdma"),
                                       load("mlx4_ib"), load("ib_umad")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), through(kernel));
  ASSERT_EQ(outs.size(), actions.size());
  const std::vector<std::string> last = {"rdma_ucm", "ib_ipoib [send_queue_size=256]", "rpcrdma",
                                         "mlx4_ib", "ib_umad"};
  for (size_t i = 0; i < outs.size(); ++i) {
    SCOPED_TRACE(actions[i].object());
    EXPECT_EQ(outs[i].kind, OutcomeKind::kDone) << outs[i].error.str();
    EXPECT_EQ(outs[i].detail.substr(outs[i].detail.size() - last[i].size()), last[i]);
  }
  EXPECT_EQ(outs[2].detail.rfind("xprtrdma is an alias of rpcrdma; inserted ", 0), 0u)
      << outs[2].detail;
  EXPECT_EQ(count(everything(outs, {}), "ib_core"), 1u) << "one action inserted it";

  // 12 modules, each inserted once, after what it needs, several at a time.
  std::vector<std::string> order = kernel->inserted();
  std::vector<std::string> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{"ib_cm", "ib_core", "ib_ipoib", "ib_umad",
                                              "ib_uverbs", "iw_cm", "mlx4_core", "mlx4_ib",
                                              "rdma_cm", "rdma_ucm", "rpcrdma", "sunrpc"}));
  for (size_t i = 0; i < order.size(); ++i) {
    auto needs = kNeeds.find(order[i]);
    if (needs == kNeeds.end()) continue;
    for (const auto& dep : needs->second) {
      auto at = std::find(order.begin(), order.end(), dep);
      EXPECT_LT(at - order.begin(), static_cast<std::ptrdiff_t>(i))
          << order[i] << " before " << dep;
    }
  }
  EXPECT_GE(kernel->max_in_flight(), 2) << "the loads did not run in parallel";
}

TEST(ModuleExecutors, ModuleNeededByAnotherOfTheBatchIsLoadedFirst) {
  const std::string root = make_fake_rdma_root();
  auto kernel = std::make_shared<ScriptedInserter>(root, testing::InsertScript{milliseconds(20)});
  Env env(root, std::chrono::seconds(20), true);
  // rdma_ucm needs ib_uverbs: its load waits for that one, then inserts only what is left.
  const std::vector<Action> actions = {load("rdma_ucm"), load("ib_uverbs")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), through(kernel));
  EXPECT_EQ(outs[0].kind, OutcomeKind::kDone) << outs[0].error.str();
  EXPECT_EQ(outs[1].kind, OutcomeKind::kDone) << outs[1].error.str();
  EXPECT_EQ(outs[1].detail, "inserted ib_core, ib_uverbs");
  EXPECT_EQ(outs[0].detail, "inserted ib_cm, iw_cm, rdma_cm, rdma_ucm");
  EXPECT_EQ(kernel->inserted(), (std::vector<std::string>{"ib_core", "ib_uverbs", "ib_cm", "iw_cm",
                                                          "rdma_cm", "rdma_ucm"}));
  EXPECT_EQ(kernel->max_in_flight(), 1);
}

TEST(ModuleExecutors, KernelRefusalIsReportedOnceForTheBatch) {
  const std::string root = make_fake_rdma_root();
  auto kernel = std::make_shared<ScriptedInserter>(root);
  kernel->script("ib_core", {milliseconds(0), ENOEXEC});
  Env env(root, std::chrono::seconds(20), true);
  const std::vector<Action> actions = {load("ib_uverbs"), load("ib_umad"), load("sunrpc")};
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), through(kernel));
  EXPECT_EQ(outs[0].kind, OutcomeKind::kFailed);
  EXPECT_EQ(outs[1].kind, OutcomeKind::kFailed);
  const std::string full =
      "cannot insert module ib_core (needed by ib_uverbs): Invalid module format (built for "
      "another kernel?) (Exec format error)";
  EXPECT_EQ(outs[0].error.str(), full);
  EXPECT_EQ(outs[0].detail, "the kernel logs the reason: check dmesg");
  EXPECT_EQ(outs[1].error.str(),
            "needs module ib_core, which could not be loaded (see load-module ib_uverbs)");
  EXPECT_EQ(outs[2].kind, OutcomeKind::kDone) << outs[2].error.str();
  EXPECT_EQ(outs[2].detail, "inserted sunrpc");
  EXPECT_EQ(kernel->inserted(), std::vector<std::string>{"sunrpc"});
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
  const std::string root = make_fake_rdma_root();
  // Every insertion takes a second; the batch has 150 ms. The workers stuck in the kernel
  // are left behind (they hold the kernel and the batch) and stop before their next step.
  auto kernel = std::make_shared<ScriptedInserter>(root, testing::InsertScript{milliseconds(1000)});
  Env env(root, milliseconds(150), true);
  const std::vector<Action> actions = {load("rdma_ucm"), load("ib_ipoib"), load("configfs")};
  const auto t0 = Clock::now();
  std::vector<Outcome> outs = load_modules_parallel(env.ctx, pointers(actions), through(kernel));
  EXPECT_LT(Clock::now() - t0, milliseconds(800));
  EXPECT_EQ(outs[0].kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(outs[0].error.str(),
            "module rdma_ucm was still loading when the deadline passed (its initialisation goes "
            "on in the kernel)");
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

TEST(ModuleExecutors, ReloadReadsTheNewParametersBackFromTheKernel) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "mlx4_core", 1);
  mark_loaded(root, "mlx4_en", 0);
  auto kernel = std::make_shared<ScriptedInserter>(root);
  Env env(root, std::chrono::seconds(20), true);
  Outcome o = reload_module(env.ctx, reload({0x08, 0x08}), through(kernel));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail,
            "removed mlx4_en, then inserted mlx4_en [pfctx=0x08 pfcrx=0x08]; read back pfctx=8 "
            "pfcrx=8");
  EXPECT_EQ(kernel->calls(),
            (std::vector<std::string>{"remove mlx4_en", "insert mlx4_en pfctx=0x08 pfcrx=0x08"}));
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
