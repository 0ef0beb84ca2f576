// ModuleLoader against a fake module tree: the real libkmod resolves names, aliases,
// dependencies, options and blacklists; dry runs insert nothing.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "provision/kernel/modules.h"
#include "tests/modules/fake_rdma_tree.h"

namespace rp {
namespace {

using ::rp::testing::FakeRdmaTreeOptions;
using ::rp::testing::make_fake_rdma_root;
using ::rp::testing::mark_loaded;
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

TEST(ModuleLoader, DryRunInsertTimeIsBoundedByUntil) {
  ModuleLoaderOptions o;
  o.dry_run = true;
  o.dry_run_insert_time = std::chrono::milliseconds(500);
  auto l = ModuleLoader::open(Root(make_fake_rdma_root()), o);
  ASSERT_TRUE(l.ok());
  const auto t0 = std::chrono::steady_clock::now();
  ModuleLoadReport r =
      l.value().load("rdma_ucm", "", t0 + std::chrono::milliseconds(50));  // 6 x 500 ms
  EXPECT_EQ(r.status, LoadStatus::kTimedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(400));
}

TEST(ModuleLoader, InsertErrorsSayWhatTheKernelMeant) {
  EXPECT_EQ(insert_error_text(ENOENT), "Unknown symbol in module or unknown parameter");
  EXPECT_EQ(insert_error_text(EINVAL), "Invalid parameters");
  EXPECT_EQ(insert_error_text(ENOEXEC), "Invalid module format (built for another kernel?)");
}

}  // namespace
}  // namespace rp
