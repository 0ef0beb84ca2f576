// ModuleLoader against a fake module tree: the real libkmod resolves names, aliases,
// dependencies, options and blacklists; dry runs insert nothing, the others insert into
// a scripted kernel (tests/modules/scripted_inserter.h).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "provision/kernel/modules.h"
#include "tests/modules/fake_rdma_tree.h"
#include "tests/modules/scripted_inserter.h"

namespace rp {
namespace {

using ::rp::testing::FakeRdmaTreeOptions;
using ::rp::testing::make_fake_rdma_root;
using ::rp::testing::mark_loaded;
using ::rp::testing::ScriptedInserter;
using Strings = std::vector<std::string>;

constexpr char kModDir[] = "/lib/modules/6.1.0-28-amd64";

ModuleLoader open_dry(const std::string& root) {
  ModuleLoaderOptions o;
  o.dry_run = true;
  auto l = ModuleLoader::open(Root(root), o);
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().str());
  return std::move(l).value();
}

Strings names(const ModuleLoadReport& r) {
  Strings out;
  for (const auto& s : r.steps) out.push_back(s.module);
  return out;
}

auto later() { return std::chrono::steady_clock::now() + std::chrono::seconds(10); }

TEST(ModuleLoader, KernelReleaseComesFromTheRoot) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  EXPECT_EQ(l.kernel_release(), "6.1.0-28-amd64");
  EXPECT_EQ(l.module_dir(), kModDir);
  EXPECT_TRUE(l.dry_run());
}

TEST(ModuleLoader, ResolvesModuleByNameWithDashesOrUnderscores) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  for (const char* name : {"ib_uverbs", "ib-uverbs"}) {
    auto r = l.resolve(name);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->modules, Strings{"ib_uverbs"});
    EXPECT_FALSE(r->alias);
    EXPECT_TRUE(r->blacklisted.empty());
  }
}

TEST(ModuleLoader, ResolvesAliasToItsModule) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  auto nfs = l.resolve("xprtrdma");
  ASSERT_TRUE(nfs.ok()) << nfs.error().str();
  EXPECT_EQ(nfs->modules, Strings{"rpcrdma"});
  EXPECT_TRUE(nfs->alias);
  // A ConnectX-3 (15b3:1003) through the modules.alias wildcard.
  auto hw = l.resolve("pci:v000015B3d00001003sv000015B3sd00000006bc02sc00i00");
  ASSERT_TRUE(hw.ok()) << hw.error().str();
  EXPECT_EQ(hw->modules, Strings{"mlx4_core"});
}

TEST(ModuleLoader, MissingModuleNamesTheModuleDirectory) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  auto r = l.resolve("rdma_rxe");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().str(), "module rdma_rxe not found in /lib/modules/6.1.0-28-amd64");
  ModuleLoadReport load = l.load("rdma_rxe", "", later());
  EXPECT_EQ(load.status, LoadStatus::kFailed);
  EXPECT_EQ(load.failed_module, "rdma_rxe");
  EXPECT_EQ(load.error.str(), "module rdma_rxe not found in /lib/modules/6.1.0-28-amd64");
}

TEST(ModuleLoader, DependenciesComeFirstInLoadOrder) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  ModuleLoadReport r = l.load("rdma_ucm", "", later());
  ASSERT_EQ(r.status, LoadStatus::kWouldInsert) << r.error.str();
  EXPECT_EQ(names(r), (Strings{"ib_core", "ib_cm", "ib_uverbs", "iw_cm", "rdma_cm", "rdma_ucm"}));
  EXPECT_EQ(r.steps.front().path,
            std::string(kModDir) + "/kernel/drivers/infiniband/core/ib_core.ko");
  for (const auto& s : r.steps) EXPECT_FALSE(s.already) << s.module;
}

TEST(ModuleLoader, OptionsFromModprobeDThenTheCallers) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  ModuleLoadReport r = l.load("ib_ipoib", "recv_queue_size=512", later());
  ASSERT_EQ(r.status, LoadStatus::kWouldInsert) << r.error.str();
  ASSERT_EQ(names(r), (Strings{"ib_core", "ib_cm", "ib_ipoib"}));
  EXPECT_EQ(r.steps[0].options, "");  // the caller's options are for the requested module only
  EXPECT_EQ(r.steps[2].options, "send_queue_size=256 recv_queue_size=512");
}

TEST(ModuleLoader, BlacklistLeavesOutWhatAnAliasResolvesTo) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  auto r = l.resolve("rdma-link-siw");
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_TRUE(r->alias);
  EXPECT_TRUE(r->modules.empty());
  EXPECT_EQ(r->blacklisted, Strings{"siw"});
}

TEST(ModuleLoader, BlacklistedModuleAskedByNameIsListed) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  auto r = l.resolve("siw");
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_FALSE(r->alias);
  EXPECT_TRUE(r->modules.empty());
  EXPECT_EQ(r->blacklisted, Strings{"siw"});
}

TEST(ModuleLoader, BuiltinModuleIsReportedAsBuiltin) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  EXPECT_EQ(l.state("configfs"), ModuleState::kBuiltin);
  ModuleLoadReport r = l.load("configfs", "", later());
  EXPECT_EQ(r.status, LoadStatus::kBuiltin);
  EXPECT_TRUE(r.steps.empty());
  ModuleLoadReport with_options = l.load("configfs", "x=1", later());
  ASSERT_EQ(with_options.notes.size(), 1u);
  EXPECT_NE(with_options.notes[0].find("kernel command line"), std::string::npos);
}

TEST(ModuleLoader, LoadedModulesAreAlreadyThere) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "ib_core");
  ModuleLoader l = open_dry(root);
  EXPECT_EQ(l.state("ib_core"), ModuleState::kLive);
  EXPECT_EQ(l.state("ib_uverbs"), ModuleState::kNotLoaded);
  EXPECT_EQ(l.load("ib_core", "", later()).status, LoadStatus::kAlreadyLoaded);
  ModuleLoadReport r = l.load("ib_uverbs", "", later());
  ASSERT_EQ(r.status, LoadStatus::kWouldInsert) << r.error.str();
  ASSERT_EQ(names(r), (Strings{"ib_core", "ib_uverbs"}));
  EXPECT_TRUE(r.steps[0].already);
  EXPECT_FALSE(r.steps[1].already);
}

TEST(ModuleLoader, InstallCommandIsIgnoredAndSaidSo) {
  ModuleLoader l = open_dry(make_fake_rdma_root());
  for (const char* module : {"mlx4_core", "mlx4_ib"}) {
    ModuleLoadReport r = l.load(module, "", later());
    ASSERT_EQ(r.status, LoadStatus::kWouldInsert) << r.error.str();
    auto core = std::find_if(r.steps.begin(), r.steps.end(),
                             [](const ModuleStep& s) { return s.module == "mlx4_core"; });
    ASSERT_NE(core, r.steps.end());
    EXPECT_TRUE(core->install_command_ignored);
    EXPECT_EQ(r.notes,
              Strings{"ignored the modprobe.d install command for mlx4_core ('/sbin/modprobe "
                      "--ignore-install mlx4_core && /usr/libexec/mlx4-setup.sh < "
                      "/etc/rdma/mlx4.conf'): rdma-provision inserts the module itself and runs "
                      "no shell commands in early boot"});
  }
}

TEST(ModuleLoader, AnInstallTrueLineForbidsTheModuleAndWhatNeedsIt) {
  // Hardening guides disable a module with `install <m> /bin/true`: modprobe runs the
  // command instead of inserting (libkmod-module.c), so the module never loads.
  FakeRdmaTreeOptions o;
  o.extra_modprobe_conf = "install ib_cm /bin/true\n";
  ModuleLoader l = open_dry(make_fake_rdma_root(o));
  ModuleLoadReport self = l.load("ib_cm", "", later());
  EXPECT_EQ(self.status, LoadStatus::kFailed);
  EXPECT_EQ(self.error.str(),
            "module ib_cm is forbidden by modprobe.d ('install ib_cm /bin/true') "
            "(Operation not permitted)");
  // ib_ipoib needs ib_cm: it cannot load either, and says why.
  ModuleLoadReport dep = l.load("ib_ipoib", "", later());
  EXPECT_EQ(dep.status, LoadStatus::kFailed);
  EXPECT_EQ(dep.failed_module, "ib_cm");
  EXPECT_NE(dep.error.str().find("ib_cm (needed by ib_ipoib) is forbidden"), std::string::npos)
      << dep.error.str();
}

TEST(ModuleLoader, SoftdepsOfTheRequestedModuleAreFollowed) {
  FakeRdmaTreeOptions o;
  o.extra_modprobe_conf = "softdep ib_ipoib pre: ib_umad\n";
  ModuleLoader l = open_dry(make_fake_rdma_root(o));
  ModuleLoadReport r = l.load("ib_ipoib", "", later());
  ASSERT_EQ(r.status, LoadStatus::kWouldInsert) << r.error.str();
  // ib_core, needed by ib_umad too, is listed once.
  EXPECT_EQ(names(r), (Strings{"ib_core", "ib_cm", "ib_umad", "ib_ipoib"}));
}

TEST(ModuleLoader, MissingDependencyFileIsNamed) {
  FakeRdmaTreeOptions o;
  o.mlx4_core_file = false;
  ModuleLoader l = open_dry(make_fake_rdma_root(o));
  ModuleLoadReport r = l.load("mlx4_en", "", later());
  ASSERT_EQ(r.status, LoadStatus::kFailed);
  EXPECT_EQ(r.failed_module, "mlx4_core");
  EXPECT_EQ(r.error.str(),
            "module mlx4_core not found: "
            "/lib/modules/6.1.0-28-amd64/kernel/drivers/net/ethernet/mellanox/mlx4/mlx4_core.ko "
            "is missing (needed by mlx4_en)");
  EXPECT_EQ(r.hint, "modules.dep does not match the files; run depmod for 6.1.0-28-amd64");
  // The same file missing for the module itself.
  ModuleLoadReport own = l.load("mlx4_core", "", later());
  ASSERT_EQ(own.status, LoadStatus::kFailed);
  EXPECT_EQ(own.error.str(),
            "module mlx4_core not found: "
            "/lib/modules/6.1.0-28-amd64/kernel/drivers/net/ethernet/mellanox/mlx4/mlx4_core.ko "
            "is missing");
}

TEST(ModuleLoader, DryRunRemoveOnlyForgetsTheModule) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "mlx4_core");
  mark_loaded(root, "mlx4_en");
  ModuleLoader l = open_dry(root);
  EXPECT_FALSE(l.remove("ib_core").ok());  // not loaded
  EXPECT_EQ(l.remove("ib_core").error().str(), "module ib_core is not loaded");
  ASSERT_TRUE(l.remove("mlx4_en").ok());
  EXPECT_EQ(l.state("mlx4_en"), ModuleState::kNotLoaded);
  ModuleLoadReport r = l.load("mlx4_en", "pfctx=0x08 pfcrx=0x08", later());
  ASSERT_EQ(r.status, LoadStatus::kWouldInsert) << r.error.str();
  ASSERT_EQ(names(r), (Strings{"mlx4_core", "mlx4_en"}));
  EXPECT_TRUE(r.steps[0].already);
  EXPECT_EQ(r.steps[1].options, "pfctx=0x08 pfcrx=0x08");
}

TEST(ModuleLoader, NeverInsertsFromAFixtureRoot) {
  auto l = ModuleLoader::open(Root(make_fake_rdma_root()));  // not a dry run
  ASSERT_TRUE(l.ok());
  ModuleLoadReport r = l.value().load("ib_core", "", later());
  EXPECT_EQ(r.status, LoadStatus::kFailed);
  EXPECT_NE(r.error.str().find("refusing to insert module ib_core"), std::string::npos)
      << r.error.str();
}

// ---- Insertions, into the scripted kernel ---------------------------------------------

struct Scripted {
  explicit Scripted(const std::string& r, ScriptedInserter::Script every = {})
      : root(r), kernel(std::make_shared<ScriptedInserter>(r, every)) {}
  ModuleLoader open() {
    ModuleLoaderOptions o;
    o.inserter = kernel;
    auto l = ModuleLoader::open(Root(root), o);
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().str());
    return std::move(l).value();
  }
  std::string root;
  std::shared_ptr<ScriptedInserter> kernel;
};

TEST(ModuleLoader, InsertsTheProbeListInOrderWithItsOptions) {
  Scripted k(make_fake_rdma_root());
  ModuleLoader l = k.open();
  ModuleLoadReport r = l.load("ib_ipoib", "recv_queue_size=512", later());
  ASSERT_EQ(r.status, LoadStatus::kInserted) << r.error.str();
  EXPECT_EQ(k.kernel->calls(),
            (Strings{"insert ib_core", "insert ib_cm",
                     "insert ib_ipoib send_queue_size=256 recv_queue_size=512"}));
  EXPECT_EQ(l.state("ib_ipoib"), ModuleState::kLive);
  for (const auto& s : r.steps) EXPECT_FALSE(s.already) << s.module;
  // Everything is there now: nothing to insert.
  EXPECT_EQ(l.load("ib_ipoib", "", later()).status, LoadStatus::kAlreadyLoaded);
  ModuleLoadReport cm = l.load("ib_cm", "", later());
  EXPECT_EQ(cm.status, LoadStatus::kAlreadyLoaded);
  EXPECT_EQ(k.kernel->calls().size(), 3u);
}

TEST(ModuleLoader, ModuleTheKernelSaysExistsCountsAsLoaded) {
  Scripted k(make_fake_rdma_root());
  k.kernel->script("ib_core", {std::chrono::milliseconds(0), EEXIST});
  ModuleLoader l = k.open();
  ModuleLoadReport r = l.load("ib_uverbs", "", later());
  ASSERT_EQ(r.status, LoadStatus::kInserted) << r.error.str();
  ASSERT_EQ(names(r), (Strings{"ib_core", "ib_uverbs"}));
  EXPECT_TRUE(r.steps[0].already);
  EXPECT_FALSE(r.steps[1].already);
}

TEST(ModuleLoader, RefusedDependencyFailsTheLoadNamingIt) {
  Scripted k(make_fake_rdma_root());
  k.kernel->script("ib_cm", {std::chrono::milliseconds(0), ENOEXEC});
  ModuleLoader l = k.open();
  ModuleLoadReport r = l.load("ib_ipoib", "", later());
  ASSERT_EQ(r.status, LoadStatus::kFailed);
  EXPECT_EQ(r.failed_module, "ib_cm");
  EXPECT_EQ(r.error.str(),
            "cannot insert module ib_cm (needed by ib_ipoib): Invalid module format (built for "
            "another kernel?) (Exec format error)");
  EXPECT_EQ(r.error.errnum, ENOEXEC);
  EXPECT_EQ(r.hint, "the kernel logs the reason: check dmesg");
  EXPECT_EQ(k.kernel->calls(), (Strings{"insert ib_core", "insert ib_cm -> ENOEXEC"}));
}

TEST(ModuleLoader, RefusedModuleItselfIsNamedWithTheKernelsMeaning) {
  Scripted k(make_fake_rdma_root());
  k.kernel->script("ib_umad", {std::chrono::milliseconds(0), ENOENT});
  ModuleLoader l = k.open();
  ModuleLoadReport r = l.load("ib_umad", "", later());
  ASSERT_EQ(r.status, LoadStatus::kFailed);
  EXPECT_EQ(r.error.str(),
            "cannot insert module ib_umad: Unknown symbol in module or unknown parameter (No "
            "such file or directory)");
  EXPECT_EQ(l.state("ib_core"), ModuleState::kLive);  // what went in stays in, as with modprobe
}

TEST(ModuleLoader, SoftdepTheKernelRefusesIsNotedAndPassedOver) {
  FakeRdmaTreeOptions o;
  o.extra_modprobe_conf = "softdep ib_ipoib post: ib_umad\n";
  Scripted k(make_fake_rdma_root(o));
  k.kernel->script("ib_umad", {std::chrono::milliseconds(0), ENOENT});
  ModuleLoader l = k.open();
  ModuleLoadReport r = l.load("ib_ipoib", "", later());
  ASSERT_EQ(r.status, LoadStatus::kInserted) << r.error.str();
  EXPECT_EQ(names(r), (Strings{"ib_core", "ib_cm", "ib_ipoib"}));
  EXPECT_EQ(r.notes, Strings{"softdep ib_umad of ib_ipoib not inserted (Unknown symbol in "
                             "module or unknown parameter); going on without it, as modprobe "
                             "does"});
  EXPECT_EQ(k.kernel->inserted(), (Strings{"ib_core", "ib_cm", "ib_ipoib"}));
}

TEST(ModuleLoader, NoInsertionStartsOnceUntilHasPassed) {
  Scripted k(make_fake_rdma_root(), {std::chrono::milliseconds(100), 0});
  ModuleLoader l = k.open();
  const auto t0 = std::chrono::steady_clock::now();
  ModuleLoadReport r = l.load("rdma_ucm", "", t0 + std::chrono::milliseconds(150));  // 6 x 100 ms
  ASSERT_EQ(r.status, LoadStatus::kTimedOut);
  const Strings done = k.kernel->inserted();
  ASSERT_GE(done.size(), 1u);
  ASSERT_LE(done.size(), 2u);
  const std::string next = r.steps[done.size()].module;
  EXPECT_EQ(r.failed_module, next);
  EXPECT_EQ(r.error.str(), "the deadline passed before module " + next +
                               " (needed by rdma_ucm) could be inserted");
  EXPECT_EQ(k.kernel->calls().size(), done.size());
}

TEST(ModuleLoader, RemovalGoesToTheSameKernel) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "mlx4_core", 1);
  mark_loaded(root, "mlx4_en", 0);
  Scripted k(root);
  ModuleLoader l = k.open();
  EXPECT_EQ(l.remove("mlx4_core").error().str(),
            "module mlx4_core is in use and cannot be removed (Device or resource busy)");
  ASSERT_TRUE(l.remove("mlx4_en").ok());
  EXPECT_EQ(l.state("mlx4_en"), ModuleState::kNotLoaded);
  EXPECT_EQ(k.kernel->calls(), (Strings{"remove mlx4_core -> EBUSY", "remove mlx4_en"}));
}

TEST(ModuleLoader, NeverRemovesFromAFixtureRoot) {
  const std::string root = make_fake_rdma_root();
  mark_loaded(root, "mlx4_en", 0);
  auto l = ModuleLoader::open(Root(root));  // not a dry run, no inserter: the running kernel
  ASSERT_TRUE(l.ok());
  Status st = l.value().remove("mlx4_en");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().str(),
            "refusing to remove module mlx4_en from the running kernel: the root is " + root +
                " (only the live root removes modules)");
}

TEST(ModuleLoader, InsertErrorsSayWhatTheKernelMeant) {
  EXPECT_EQ(insert_error_text(ENOENT), "Unknown symbol in module or unknown parameter");
  EXPECT_EQ(insert_error_text(EINVAL), "Invalid parameters");
  EXPECT_EQ(insert_error_text(ENOEXEC), "Invalid module format (built for another kernel?)");
}

}  // namespace
}  // namespace rp

namespace rp {
namespace {

TEST(ModuleLoader, InsertPlannedInsertsThePreflightsStepsWithoutProbingAgain) {
  // A batch pre-flights with a dry-run loader, then inserts with another: the steps,
  // options and notes are the pre-flight's, said once.
  const std::string root = make_fake_rdma_root();
  ModuleLoader dry = open_dry(root);
  const ModuleLoadReport planned = dry.load("mlx4_ib", "", later());
  ASSERT_EQ(planned.status, LoadStatus::kWouldInsert);
  auto kernel = std::make_shared<ScriptedInserter>(root);
  ModuleLoaderOptions o;
  o.inserter = kernel;
  auto l = ModuleLoader::open(Root(root), o);
  ASSERT_TRUE(l.ok());
  mark_loaded(root, "ib_core");  // loaded by someone else since the pre-flight
  const ModuleLoadReport r = l.value().insert_planned(planned, later());
  EXPECT_EQ(r.status, LoadStatus::kInserted) << r.error.str();
  EXPECT_EQ(names(r), names(planned));
  // In the pre-flight's order, less ib_core.
  Strings want = names(planned);
  want.erase(std::remove(want.begin(), want.end(), "ib_core"), want.end());
  EXPECT_EQ(kernel->inserted(), want);
  EXPECT_EQ(std::count_if(r.notes.begin(), r.notes.end(),
                          [](const std::string& n) {
                            return n.find("ignored the modprobe.d install command") !=
                                   std::string::npos;
                          }),
            1);
}

}  // namespace
}  // namespace rp
