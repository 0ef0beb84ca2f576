// Links @kmod//:libkmod and runs it for real against a fake module tree under
// $TEST_TMPDIR: lookups by name, by alias (wildcard, as in modules.alias) and by
// modprobe.d alias, dependencies from modules.dep, options/softdeps/blacklist from
// modprobe.d, and a dry-run probe. Nothing is loaded into the kernel and the host's
// /lib/modules and /etc/modprobe.d are not read; no root needed. (libkmod does read
// /proc/cmdline, for modprobe.blacklist= and <module>.<param>= options.)
//
// libkmod reads only the binary indexes (modules.dep.bin, modules.alias.bin, ...);
// the text forms are for humans and depmod. depmod cannot build them here without
// real .ko ELF files, so the test writes the binary format itself (the shared
// rp::testing::KmodIndexWriter in tests/support/kmod_index.h, following the format
// described in kmod's libkmod/libkmod-index.c). Both of
// libkmod's index readers are exercised: stdio (default) and mmap
// (after kmod_load_resources()).

#include <libkmod.h>
#include <syslog.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/kmod_index.h"

namespace {

namespace fs = std::filesystem;

constexpr char kKernelRelease[] = "6.1.0-kmodtest-amd64";

using rp::testing::FakeModule;
using rp::testing::FakeModuleTree;

// Modules in the order depmod would number them; deps as modules.dep lists them.
const std::vector<FakeModule>& FakeModules() {
  static const auto* modules = new std::vector<FakeModule>{
      {"fake_base", "kernel/net/fake_base.ko", {}},
      {"ib_core_fake",
       "kernel/drivers/infiniband/core/ib_core_fake.ko",
       {"kernel/net/fake_base.ko"}},
      {"rdma_fake",
       "kernel/drivers/infiniband/hw/rdma_fake.ko",
       {"kernel/drivers/infiniband/core/ib_core_fake.ko", "kernel/net/fake_base.ko"}},
      {"soft_pre_fake", "kernel/drivers/infiniband/soft_pre_fake.ko", {}},
      {"evil_fake", "kernel/drivers/misc/evil_fake.ko", {}},
  };
  return *modules;
}

// Builds <root>/lib/modules/<kver>/ (text and binary indexes, written by the shared
// rp::testing writer) and <root>/etc/modprobe.d/rdma.conf, plus a lone config file
// <root>/extra.conf.
void BuildFakeTree(const fs::path& root) {
  FakeModuleTree tree;
  tree.kernel_release = kKernelRelease;
  tree.modules = FakeModules();
  // Keys are normalised aliases (dashes -> underscores), values module names.
  tree.aliases = {
      {"pci:v000015B3d00001017sv*sd*bc*sc*i*", "rdma_fake"},
      {"pci:v000015B3d0000101[BD]sv*sd*bc*sc*i*", "rdma_fake"},
      {"net_pf_99", "fake_base"},
  };
  // The remaining indexes kmod_load_resources() wants; builtin has one entry.
  tree.symbols = {{"symbol:fake_base_register", "fake_base"}};
  tree.builtin = {"builtin_fake"};
  ASSERT_TRUE(rp::testing::write_module_tree(root.string(), tree));

  ASSERT_TRUE(rp::testing::write_text((root / "etc/modprobe.d/rdma.conf").string(),
                                      "# test configuration\n"
                                      "options rdma_fake debug=1 mode=fast\n"
                                      "options rdma-fake extra=2\n"
                                      "alias rdma-cfg-alias rdma_fake\n"
                                      "softdep rdma_fake pre: soft_pre_fake\n"
                                      "blacklist evil_fake\n"));
  ASSERT_TRUE(
      rp::testing::write_text((root / "extra.conf").string(), "options fake_base quiet=1\n"));
}

std::vector<std::string> Names(kmod_list* list) {
  std::vector<std::string> names;
  kmod_list* l;
  kmod_list_foreach(l, list) {
    kmod_module* mod = kmod_module_get_module(l);
    names.emplace_back(kmod_module_get_name(mod));
    kmod_module_unref(mod);
  }
  return names;
}

// Errors logged by libkmod during a test (it logs through this, not stderr).
std::vector<std::string>* g_log = nullptr;

void CaptureLog(void*, int priority, const char* file, int line, const char* fn, const char* format,
                va_list args) {
  char buf[1024];
  vsnprintf(buf, sizeof(buf), format, args);
  if (g_log != nullptr && priority <= LOG_ERR) g_log->push_back(std::string(fn) + ": " + buf);
}

// Parameter: true = mmap'ed indexes via kmod_load_resources(), false = stdio reader.
class KmodTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    ASSERT_NE(tmp, nullptr) << "run under bazel test";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string leaf = std::string(info->name());
    for (char& c : leaf)
      if (c == '/') c = '_';
    root_ = fs::path(tmp) / leaf;
    fs::remove_all(root_);
    BuildFakeTree(root_);
    moddir_ = (root_ / "lib/modules" / kKernelRelease).string();

    confdir_ = (root_ / "etc/modprobe.d").string() + "/";  // trailing slash on purpose
    extra_ = (root_ / "extra.conf").string();
    const char* config_paths[] = {confdir_.c_str(), extra_.c_str(), nullptr};
    ctx_ = kmod_new(moddir_.c_str(), config_paths);
    ASSERT_NE(ctx_, nullptr);
    g_log = &log_;
    kmod_set_log_priority(ctx_, LOG_ERR);
    kmod_set_log_fn(ctx_, CaptureLog, nullptr);
    if (GetParam()) {
      ASSERT_EQ(kmod_load_resources(ctx_), 0);
    }
  }

  void TearDown() override {
    if (ctx_ != nullptr) kmod_unref(ctx_);
    g_log = nullptr;
    EXPECT_TRUE(log_.empty()) << "libkmod logged: " << log_.front();
  }

  // Runs kmod_module_new_from_lookup() and returns the module names found.
  std::vector<std::string> Lookup(const std::string& alias) {
    kmod_list* list = nullptr;
    int err = kmod_module_new_from_lookup(ctx_, alias.c_str(), &list);
    EXPECT_GE(err, 0) << alias;
    std::vector<std::string> names = Names(list);
    kmod_module_unref_list(list);
    return names;
  }

  kmod_module* LookupOne(const std::string& alias) {
    kmod_list* list = nullptr;
    EXPECT_GE(kmod_module_new_from_lookup(ctx_, alias.c_str(), &list), 0);
    if (list == nullptr) return nullptr;
    kmod_module* mod = kmod_module_get_module(list);
    kmod_module_unref_list(list);
    return mod;
  }

  fs::path root_;
  std::string moddir_, confdir_, extra_;
  kmod_ctx* ctx_ = nullptr;
  std::vector<std::string> log_;
};

TEST_P(KmodTest, ContextUsesGivenRoot) {
  EXPECT_EQ(std::string(kmod_get_dirname(ctx_)), moddir_);
  EXPECT_EQ(kmod_validate_resources(ctx_), KMOD_RESOURCES_OK);
}

TEST_P(KmodTest, ResolvesByName) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Lookup("rdma_fake"), V{"rdma_fake"});
  EXPECT_EQ(Lookup("rdma-fake"), V{"rdma_fake"});  // dashes normalised
  EXPECT_EQ(Lookup("no_such_module"), V{});

  kmod_module* mod = nullptr;
  ASSERT_EQ(kmod_module_new_from_name_lookup(ctx_, "ib_core_fake", &mod), 0);
  ASSERT_NE(mod, nullptr);
  EXPECT_EQ(std::string(kmod_module_get_path(mod)),
            moddir_ + "/kernel/drivers/infiniband/core/ib_core_fake.ko");
  kmod_module_unref(mod);
}

TEST_P(KmodTest, ResolvesByAlias) {
  using V = std::vector<std::string>;
  // modules.alias wildcards, as for a ConnectX-5 (15b3:1017) and ConnectX-6 Dx (15b3:101d).
  EXPECT_EQ(Lookup("pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00"), V{"rdma_fake"});
  EXPECT_EQ(Lookup("pci:v000015B3d0000101Dsv000015B3sd00000016bc02sc00i00"), V{"rdma_fake"});
  EXPECT_EQ(Lookup("pci:v000015B3d0000101Csv000015B3sd00000016bc02sc00i00"), V{});
  EXPECT_EQ(Lookup("net-pf-99"), V{"fake_base"});
  // modprobe.d alias and modules.symbols.
  EXPECT_EQ(Lookup("rdma-cfg-alias"), V{"rdma_fake"});
  EXPECT_EQ(Lookup("symbol:fake_base_register"), V{"fake_base"});
  // modules.builtin.
  kmod_module* builtin = LookupOne("builtin_fake");
  ASSERT_NE(builtin, nullptr);
  EXPECT_EQ(kmod_module_get_initstate(builtin), KMOD_MODULE_BUILTIN);
  kmod_module_unref(builtin);
}

TEST_P(KmodTest, ListsDependencies) {
  kmod_module* mod = LookupOne("rdma_fake");
  ASSERT_NE(mod, nullptr);
  EXPECT_EQ(std::string(kmod_module_get_path(mod)),
            moddir_ + "/kernel/drivers/infiniband/hw/rdma_fake.ko");
  kmod_list* deps = kmod_module_get_dependencies(mod);
  // Reversed from the modules.dep line: libkmod returns them in load order.
  EXPECT_EQ(Names(deps), (std::vector<std::string>{"fake_base", "ib_core_fake"}));
  kmod_module_unref_list(deps);

  kmod_list* pre = nullptr;
  kmod_list* post = nullptr;
  ASSERT_EQ(kmod_module_get_softdeps(mod, &pre, &post), 0);
  EXPECT_EQ(Names(pre), std::vector<std::string>{"soft_pre_fake"});
  EXPECT_EQ(Names(post), std::vector<std::string>{});
  kmod_module_unref_list(pre);
  kmod_module_unref_list(post);
  kmod_module_unref(mod);
}

TEST_P(KmodTest, ReadsOptionsFromConfigPaths) {
  kmod_module* mod = LookupOne("rdma_fake");
  ASSERT_NE(mod, nullptr);
  // Both "options" lines, the second one given with a dash.
  EXPECT_STREQ(kmod_module_get_options(mod), "debug=1 mode=fast extra=2");
  kmod_module_unref(mod);

  // From the config path that is a single file, not a directory.
  kmod_module* base = LookupOne("fake_base");
  ASSERT_NE(base, nullptr);
  EXPECT_STREQ(kmod_module_get_options(base), "quiet=1");
  kmod_module_unref(base);

  // The same through the config iterator.
  std::map<std::string, std::string> options;
  kmod_config_iter* it = kmod_config_get_options(ctx_);
  ASSERT_NE(it, nullptr);
  while (kmod_config_iter_next(it))
    options[kmod_config_iter_get_key(it)] += kmod_config_iter_get_value(it);
  kmod_config_iter_free_iter(it);
  EXPECT_EQ(options.count("rdma_fake"), 1u);
  EXPECT_EQ(options["fake_base"], "quiet=1");
}

TEST_P(KmodTest, AppliesBlacklist) {
  for (const char* name : {"evil_fake", "fake_base"}) {
    kmod_list* in = nullptr;
    ASSERT_EQ(kmod_module_new_from_lookup(ctx_, name, &in), 0);
    ASSERT_NE(in, nullptr);
    kmod_list* out = nullptr;
    ASSERT_EQ(kmod_module_apply_filter(ctx_, KMOD_FILTER_BLACKLIST, in, &out), 0);
    EXPECT_EQ(Names(out), std::string(name) == "evil_fake" ? std::vector<std::string>{}
                                                           : std::vector<std::string>{name});
    kmod_module_unref_list(out);
    kmod_module_unref_list(in);
  }
  std::vector<std::string> blacklisted;
  kmod_config_iter* it = kmod_config_get_blacklists(ctx_);
  ASSERT_NE(it, nullptr);
  while (kmod_config_iter_next(it)) blacklisted.emplace_back(kmod_config_iter_get_key(it));
  kmod_config_iter_free_iter(it);
  // Contains, not equals: libkmod also adds modprobe.blacklist= from /proc/cmdline.
  EXPECT_NE(std::find(blacklisted.begin(), blacklisted.end(), "evil_fake"), blacklisted.end());
}

std::vector<std::string>* g_actions = nullptr;

void RecordAction(kmod_module* m, bool install_cmd, const char* options) {
  g_actions->push_back(std::string(kmod_module_get_name(m)) + (install_cmd ? " [install]" : "") +
                       "(" + options + ")");
}

TEST_P(KmodTest, DryRunProbeOrder) {
  kmod_module* mod = LookupOne("pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00");
  ASSERT_NE(mod, nullptr);
  std::vector<std::string> actions;
  g_actions = &actions;
  // DRY_RUN: nothing is inserted; IGNORE_LOADED: no look at the host's /sys/module.
  int err = kmod_module_probe_insert_module(
      mod, KMOD_PROBE_DRY_RUN | KMOD_PROBE_IGNORE_LOADED | KMOD_PROBE_APPLY_BLACKLIST,
      "from_caller=1", nullptr, nullptr, RecordAction);
  g_actions = nullptr;
  EXPECT_EQ(err, 0);
  // kmod 30's order: hard dependencies (load order), then the module's pre: softdeps,
  // then the module. The trailing blank after "quiet=1" is kmod's own
  // (module_options_concat() with no caller options); modprobe --dry-run shows it too.
  EXPECT_EQ(actions, (std::vector<std::string>{
                         "fake_base(quiet=1 )",
                         "ib_core_fake()",
                         "soft_pre_fake()",
                         "rdma_fake(debug=1 mode=fast extra=2 from_caller=1)",
                     }));
  kmod_module_unref(mod);

  kmod_module* evil = LookupOne("evil_fake");
  ASSERT_NE(evil, nullptr);
  EXPECT_EQ(kmod_module_probe_insert_module(
                evil, KMOD_PROBE_DRY_RUN | KMOD_PROBE_IGNORE_LOADED | KMOD_PROBE_APPLY_BLACKLIST,
                nullptr, nullptr, nullptr, nullptr),
            KMOD_PROBE_APPLY_BLACKLIST);
  kmod_module_unref(evil);
}

INSTANTIATE_TEST_SUITE_P(Readers, KmodTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Mmap") : std::string("Stdio");
                         });

}  // namespace
