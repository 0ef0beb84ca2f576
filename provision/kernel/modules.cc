#include "provision/kernel/modules.h"

#include <libkmod.h>
#include <sys/utsname.h>
#include <syslog.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <set>

#include "provision/base/modprobe.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

struct CtxUnref {
  void operator()(kmod_ctx* c) const { kmod_unref(c); }
};
struct ModuleUnref {
  void operator()(kmod_module* m) const { kmod_module_unref(m); }
};
struct ListUnref {
  void operator()(kmod_list* l) const { kmod_module_unref_list(l); }
};
using CtxPtr = std::unique_ptr<kmod_ctx, CtxUnref>;
using ModulePtr = std::unique_ptr<kmod_module, ModuleUnref>;
using ListPtr = std::unique_ptr<kmod_list, ListUnref>;

// libkmod's default configuration directories (kmod 30), resolved under the root.
constexpr const char* kConfigDirs[] = {"/etc/modprobe.d", "/run/modprobe.d",
                                       "/usr/local/lib/modprobe.d", "/lib/modprobe.d"};

// Module names use '_' where users often type '-' (/sys/module, modules.dep keys).
std::string normalize(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::string read_kernel_release(const Root& root, const std::string& given) {
  if (!given.empty()) return given;
  if (auto r = root.read("/proc/sys/kernel/osrelease"); r && !trim(*r).empty()) {
    return std::string(trim(*r));
  }
  struct utsname u;
  if (::uname(&u) == 0) return u.release;
  return "unknown";
}

// What libkmod logged at LOG_ERR during one operation. libkmod reports some problems
// only this way (a dependency whose file is missing is dropped from the list, and the
// probe goes on), so the messages are kept and examined.
struct KmodMessage {
  std::string function;
  std::string text;
};

void capture_log(void* data, int priority, const char* file, int line, const char* fn,
                 const char* format, va_list args) {
  if (priority > LOG_ERR) return;
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, format, args);
  std::string text(buf);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  static_cast<std::vector<KmodMessage>*>(data)->push_back({fn ? fn : "", std::move(text)});
}

// kmod_module_probe_insert_module()'s print_action callback has no user data: the
// steps of the probe running on this thread are collected through this pointer.
struct StepRecorder {
  std::vector<ModuleStep>* steps;
  const std::string* root_dir;
};
thread_local StepRecorder* t_recorder = nullptr;

class ScopedRecorder {
 public:
  explicit ScopedRecorder(StepRecorder* r) { t_recorder = r; }
  ~ScopedRecorder() { t_recorder = nullptr; }
  ScopedRecorder(const ScopedRecorder&) = delete;
  ScopedRecorder& operator=(const ScopedRecorder&) = delete;
};

std::string kernel_path(const std::string& root_dir, const char* real_path) {
  if (real_path == nullptr) return "";
  std::string p(real_path);
  if (!root_dir.empty() && starts_with(p, root_dir + "/")) p.erase(0, root_dir.size());
  return p;
}

void record_step(kmod_module* m, bool install, const char* options) {
  if (t_recorder == nullptr) return;
  ModuleStep s;
  s.module = kmod_module_get_name(m);
  // libkmod lists a module twice when a softdep shares its dependencies; the second
  // insertion would only meet EEXIST.
  for (const auto& seen : *t_recorder->steps) {
    if (seen.module == s.module) return;
  }
  s.path = kernel_path(*t_recorder->root_dir, kmod_module_get_path(m));
  // libkmod joins modprobe.d and caller options with a blank even when one is empty.
  s.options = std::string(trim(options ? options : ""));
  s.install_command_ignored = install;
  t_recorder->steps->push_back(std::move(s));
}

// "kernel/drivers/infiniband/core/ib_core.ko.xz" -> "ib_core"
std::string module_name_of_path(const std::string& path) {
  std::string base = path.substr(path.rfind('/') + 1);
  base = base.substr(0, base.find(".ko"));
  return normalize(base);
}

}  // namespace

struct ModuleLoader::Impl {
  Root root;
  ModuleLoaderOptions options;
  std::string kver;
  std::string kernel_dir;  // /lib/modules/<kver>
  CtxPtr ctx;
  std::vector<KmodMessage> messages;  // libkmod's LOG_ERR lines since the last clear
  std::set<std::string> removed;      // dry run: modules "removed" by remove()

  Impl(Root r, ModuleLoaderOptions o) : root(std::move(r)), options(std::move(o)) {}

  Error not_found(const std::string& module) const {
    std::string what = "module " + module + " not found in " + kernel_dir;
    if (!root.is_dir(kernel_dir)) what += " (the directory does not exist)";
    return make_error("", what);
  }

  void fail(ModuleLoadReport& r, const std::string& culprit, std::string what, int errnum = 0,
            std::string hint = "") const {
    r.status = LoadStatus::kFailed;
    r.failed_module = culprit;
    r.error = make_error("", std::move(what), errnum);
    r.hint = std::move(hint);
  }

  // The whole probe list of `mod` as libkmod would insert it, without inserting and
  // without libkmod looking at the host's /sys/module (the root may be a fixture). A
  // module with a modprobe.d `install` command is listed with the options libkmod would
  // hand that command; it is inserted directly with them.
  int dry_probe(kmod_module* mod, const std::string& extra, std::vector<ModuleStep>* steps) {
    StepRecorder rec{steps, &root.dir()};
    ScopedRecorder scope(&rec);
    return kmod_module_probe_insert_module(mod, KMOD_PROBE_DRY_RUN | KMOD_PROBE_IGNORE_LOADED,
                                           extra.empty() ? nullptr : extra.c_str(), nullptr,
                                           nullptr, record_step);
  }

  // init_module(2) of one step: through the inserter, else libkmod's own insertion
  // (finit_module of the file, decompressed when needed). 0 or -errno.
  int insert(const ModuleStep& s) {
    if (options.inserter) return options.inserter->insert(s);
    kmod_module* raw = nullptr;
    if (int err = kmod_module_new_from_name(ctx.get(), s.module.c_str(), &raw); err < 0) {
      return err;
    }
    ModulePtr m(raw);
    return kmod_module_insert_module(m.get(), 0, s.options.c_str());
  }

  // delete_module(2) with O_NONBLOCK, the same way. 0 or -errno.
  int remove(const std::string& module) {
    if (options.inserter) return options.inserter->remove(module);
    kmod_module* raw = nullptr;
    if (int err = kmod_module_new_from_name(ctx.get(), module.c_str(), &raw); err < 0) {
      return err;
    }
    ModulePtr m(raw);
    return kmod_module_remove_module(m.get(), KMOD_REMOVE_NOLOG);
  }

  // Only the running kernel's own module tree may be inserted into it.
  bool may_touch_kernel() const { return options.dry_run || options.inserter || root.is_live(); }
};

ModuleLoader::ModuleLoader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModuleLoader::ModuleLoader(ModuleLoader&&) noexcept = default;
ModuleLoader& ModuleLoader::operator=(ModuleLoader&&) noexcept = default;
ModuleLoader::~ModuleLoader() = default;

Result<ModuleLoader> ModuleLoader::open(const Root& root, ModuleLoaderOptions options) {
  auto impl = std::make_unique<Impl>(root, std::move(options));
  impl->kver = read_kernel_release(root, impl->options.kernel_release);
  impl->kernel_dir = "/lib/modules/" + impl->kver;
  const std::string dirname = root.path(impl->kernel_dir);
  std::vector<std::string> dirs;
  for (const char* d : kConfigDirs) dirs.push_back(root.path(d));
  std::vector<const char*> config_paths;
  for (const auto& d : dirs) config_paths.push_back(d.c_str());
  config_paths.push_back(nullptr);
  // Parse errors in modprobe.d are logged by kmod_new() itself, to stderr.
  kmod_ctx* ctx = kmod_new(dirname.c_str(), config_paths.data());
  if (ctx == nullptr) {
    return make_error(impl->kernel_dir, "libkmod cannot create a context", ENOMEM);
  }
  impl->ctx.reset(ctx);
  kmod_set_log_priority(ctx, LOG_ERR);
  kmod_set_log_fn(ctx, capture_log, &impl->messages);
  return ModuleLoader(std::move(impl));
}

const std::string& ModuleLoader::kernel_release() const { return impl_->kver; }
const std::string& ModuleLoader::module_dir() const { return impl_->kernel_dir; }
bool ModuleLoader::dry_run() const { return impl_->options.dry_run; }

Result<ModuleResolution> ModuleLoader::resolve(const std::string& name_or_alias) {
  ModuleResolution res;
  res.requested = name_or_alias;
  impl_->messages.clear();
  kmod_list* raw = nullptr;
  int err = kmod_module_new_from_lookup(impl_->ctx.get(), name_or_alias.c_str(), &raw);
  ListPtr found(raw);
  if (err < 0) {
    return make_error("", "cannot look up module " + name_or_alias + " in " + impl_->kernel_dir,
                      -err);
  }
  if (!found) return impl_->not_found(normalize(name_or_alias));

  std::vector<std::string> names;
  kmod_list* l;
  kmod_list_foreach(l, found.get()) {
    ModulePtr m(kmod_module_get_module(l));
    names.emplace_back(kmod_module_get_name(m.get()));
  }
  res.alias = !(names.size() == 1 && names[0] == normalize(name_or_alias));

  // The blacklist filter modprobe applies to aliases. For a module asked for by name the
  // caller decides (and reports); it is listed as blacklisted either way.
  kmod_list* kept_raw = nullptr;
  err = kmod_module_apply_filter(impl_->ctx.get(), KMOD_FILTER_BLACKLIST, found.get(), &kept_raw);
  ListPtr kept(kept_raw);
  if (err < 0) return make_error("", "cannot apply the modprobe.d blacklist", -err);
  std::set<std::string> allowed;
  kmod_list_foreach(l, kept.get()) {
    ModulePtr m(kmod_module_get_module(l));
    allowed.insert(kmod_module_get_name(m.get()));
  }
  for (const auto& n : names) (allowed.count(n) ? res.modules : res.blacklisted).push_back(n);
  return res;
}

ModuleState ModuleLoader::state(const std::string& module_in) {
  const std::string module = normalize(module_in);
  if (impl_->removed.count(module)) return ModuleState::kNotLoaded;
  kmod_module* raw = nullptr;
  if (kmod_module_new_from_name(impl_->ctx.get(), module.c_str(), &raw) == 0) {
    ModulePtr m(raw);
    // modules.builtin comes from the root's tree; libkmod answers the rest from the
    // running kernel's /sys/module, which is the root's only when the root is live.
    const int st = kmod_module_get_initstate(m.get());
    if (st == KMOD_MODULE_BUILTIN) return ModuleState::kBuiltin;
    if (impl_->root.is_live()) {
      switch (st) {
        case KMOD_MODULE_LIVE:
          return ModuleState::kLive;
        case KMOD_MODULE_COMING:
          return ModuleState::kComing;
        case KMOD_MODULE_GOING:
          return ModuleState::kGoing;
        default:
          return ModuleState::kNotLoaded;
      }
    }
  }
  const std::string dir = "/sys/module/" + module;
  if (auto init = impl_->root.read(dir + "/initstate")) {
    const auto v = trim(*init);
    if (v == "live") return ModuleState::kLive;
    if (v == "coming") return ModuleState::kComing;
    if (v == "going") return ModuleState::kGoing;
  }
  // As libkmod: the directory exists before initstate does while a module loads.
  return impl_->root.is_dir(dir) ? ModuleState::kComing : ModuleState::kNotLoaded;
}

ModuleLoadReport ModuleLoader::load(const std::string& module_in, const std::string& extra,
                                    std::chrono::steady_clock::time_point until) {
  Impl& im = *impl_;
  ModuleLoadReport r;
  r.module = normalize(module_in);
  im.messages.clear();
  if (!im.may_touch_kernel()) {
    // The modules under a fixture root were not built for the running kernel.
    im.fail(r, r.module,
            "refusing to insert module " + r.module + " from " + im.root.dir() +
                " into the running kernel (only the live root loads modules)");
    return r;
  }

  kmod_module* raw = nullptr;
  int err = kmod_module_new_from_name_lookup(im.ctx.get(), r.module.c_str(), &raw);
  ModulePtr mod(raw);
  if (err < 0 || !mod) {
    im.fail(r, r.module, im.not_found(r.module).what);
    return r;
  }

  const std::string options_shown = extra.empty() ? "" : "options '" + extra + "' for ";
  switch (state(r.module)) {
    case ModuleState::kBuiltin:
      r.status = LoadStatus::kBuiltin;
      if (!extra.empty()) {
        r.notes.push_back(options_shown + r.module + " not applied: it is built into the " +
                          "kernel (give them on the kernel command line as " + r.module +
                          ".<param>=<value>)");
      }
      return r;
    case ModuleState::kLive:
      r.status = LoadStatus::kAlreadyLoaded;
      if (!extra.empty()) {
        r.notes.push_back(options_shown + r.module +
                          " not applied: it was already loaded (module parameters are "
                          "given at load time)");
      }
      return r;
    default:
      break;
  }

  // Pre-flight: the probe list as a dry run, checked against the root before anything
  // is inserted, so that a missing file fails the load before half of it happened.
  err = im.dry_probe(mod.get(), extra, &r.steps);
  if (err < 0) {
    im.fail(r, r.module, "cannot resolve the dependencies of module " + r.module, -err);
    return r;
  }
  for (auto& s : r.steps) {
    if (s.module != r.module) {
      const ModuleState st = state(s.module);
      s.already = st == ModuleState::kLive || st == ModuleState::kBuiltin;
    }
    if (s.install_command_ignored && !s.already) {
      const char* cmd = nullptr;
      kmod_module* sm = nullptr;
      if (kmod_module_new_from_name(im.ctx.get(), s.module.c_str(), &sm) == 0) {
        ModulePtr holder(sm);
        cmd = kmod_module_get_install_commands(sm);
        if (cmd && install_forbids(cmd)) {
          // `install <module> /bin/true`: modprobe would never load it (base/modprobe.h).
          im.fail(r, s.module,
                  "module " + s.module +
                      (s.module == r.module ? "" : " (needed by " + r.module + ")") +
                      " is forbidden by modprobe.d ('install " + s.module + " " + cmd + "')",
                  EPERM, "remove that install line to allow it");
          return r;
        }
        r.notes.push_back("ignored the modprobe.d install command for " + s.module + " ('" +
                          (cmd ? cmd : "") +
                          "'): rdma-provision inserts the module itself and runs no shell "
                          "commands in early boot");
      }
    }
  }
  // libkmod drops a dependency whose file is missing and only logs it.
  for (const auto& m : im.messages) {
    const auto at = m.text.find("path=");
    if (m.function == "kmod_module_parse_depline" && at != std::string::npos) {
      std::string path = m.text.substr(at + 5);
      path = path.substr(0, path.find(' '));
      path = kernel_path(im.root.dir(), path.c_str());
      const std::string dep = module_name_of_path(path);
      im.fail(r, dep,
              "module " + dep + " not found: " + path + " is missing (needed by " + r.module + ")",
              0, "modules.dep does not match the files; run depmod for " + im.kver);
      return r;
    }
    r.notes.push_back("libkmod: " + m.text);
  }
  for (const auto& s : r.steps) {
    if (s.already) continue;
    const std::string needed_by = s.module == r.module ? "" : " (needed by " + r.module + ")";
    if (s.path.empty()) {
      im.fail(r, s.module, "module " + s.module + " not found in " + im.kernel_dir + needed_by);
      return r;
    }
    if (!im.root.exists(s.path)) {
      im.fail(r, s.module,
              "module " + s.module + " not found: " + s.path + " is missing" + needed_by, 0,
              "modules.dep does not match the files; run depmod for " + im.kver);
      return r;
    }
  }

  if (im.options.dry_run) {
    im.removed.erase(r.module);
    r.status = LoadStatus::kWouldInsert;
    return r;
  }

  // The insertions, one step at a time with kmod_module_probe_insert_module()'s rules:
  // a module live by now is skipped (another loader or udev was quicker), EEXIST means
  // the same, and only the module and its dependencies must be inserted; a softdep that
  // fails is noted and passed over.
  std::set<std::string> required = {r.module};
  {
    ListPtr deps(kmod_module_get_dependencies(mod.get()));
    kmod_list* l;
    kmod_list_foreach(l, deps.get()) {
      ModulePtr m(kmod_module_get_module(l));
      required.insert(kmod_module_get_name(m.get()));
    }
  }
  im.messages.clear();
  std::set<std::string> passed_over;  // softdeps that could not be inserted
  for (ModuleStep& s : r.steps) {
    if (s.already) continue;
    const ModuleState st = state(s.module);
    if (st == ModuleState::kLive || st == ModuleState::kBuiltin) {
      s.already = true;
      continue;
    }
    const std::string needed_by = s.module == r.module ? "" : " (needed by " + r.module + ")";
    if (std::chrono::steady_clock::now() >= until) {
      r.status = LoadStatus::kTimedOut;
      r.failed_module = s.module;
      r.error = make_error(
          "", "the deadline passed before module " + s.module + needed_by + " could be inserted");
      return r;
    }
    err = im.insert(s);
    if (err == -EEXIST) s.already = true;
    if (err == 0 || err == -EEXIST) continue;
    if (!required.count(s.module)) {
      r.notes.push_back("softdep " + s.module + " of " + r.module + " not inserted (" +
                        insert_error_text(-err) + "); going on without it, as modprobe does");
      passed_over.insert(s.module);
      continue;
    }
    for (const auto& m : im.messages) r.notes.push_back("libkmod: " + m.text);
    im.fail(r, s.module,
            "cannot insert module " + s.module + needed_by + ": " + insert_error_text(-err), -err,
            "the kernel logs the reason: check dmesg");
    return r;
  }
  for (const auto& m : im.messages) r.notes.push_back("libkmod: " + m.text);
  r.steps.erase(std::remove_if(r.steps.begin(), r.steps.end(),
                               [&](const ModuleStep& s) { return passed_over.count(s.module); }),
                r.steps.end());
  const bool inserted =
      std::any_of(r.steps.begin(), r.steps.end(), [](const ModuleStep& s) { return !s.already; });
  r.status = inserted ? LoadStatus::kInserted : LoadStatus::kAlreadyLoaded;
  return r;
}

Status ModuleLoader::remove(const std::string& module_in) {
  const std::string module = normalize(module_in);
  switch (state(module)) {
    case ModuleState::kBuiltin:
      return make_error("", "module " + module + " is built into the kernel and cannot be removed");
    case ModuleState::kNotLoaded:
      return make_error("", "module " + module + " is not loaded");
    default:
      break;
  }
  if (impl_->options.dry_run) {
    impl_->removed.insert(module);
    return ok_status();
  }
  if (!impl_->may_touch_kernel()) {
    return make_error("", "refusing to remove module " + module +
                              " from the running kernel: the root is " + impl_->root.dir() +
                              " (only the live root removes modules)");
  }
  const int err = impl_->remove(module);
  if (err == 0) return ok_status();
  if (err == -EBUSY || err == -EAGAIN) {
    return make_error("", "module " + module + " is in use and cannot be removed", -err);
  }
  if (err == -ENOENT) return make_error("", "module " + module + " is not loaded", -err);
  return make_error("", "cannot remove module " + module, -err);
}

}  // namespace rp
