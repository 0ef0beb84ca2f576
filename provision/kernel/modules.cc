#include "provision/kernel/modules.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <set>

#include "provision/base/modprobe.h"
#include "provision/base/strings.h"
#include "provision/kernel/kmod_impl.h"

namespace rp {
namespace {

// libkmod's default configuration directories (kmod 30), resolved under the root.
constexpr const char* kConfigDirs[] = {"/etc/modprobe.d", "/run/modprobe.d",
                                       "/usr/local/lib/modprobe.d", "/lib/modprobe.d"};

std::string read_kernel_release(const Root& root, const std::string& given) {
  if (!given.empty()) return given;
  if (auto r = root.read("/proc/sys/kernel/osrelease"); r && !trim(*r).empty()) {
    return std::string(trim(*r));
  }
  struct utsname u;
  if (::uname(&u) == 0) return u.release;
  return "unknown";
}

void capture_log(void* data, int priority, const char* file, int line, const char* fn,
                 const char* format, va_list args) {
  if (priority > LOG_ERR) return;
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, format, args);
  std::string text(buf);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  static_cast<std::vector<KmodMessage>*>(data)->push_back({fn ? fn : "", std::move(text)});
}

// include/uapi/linux/module.h (Linux 5.17 and later; older headers lack it).
constexpr unsigned kModuleInitCompressedFile = 4;

}  // namespace

int ModuleLoader::Impl::insert_compressed(const char* path, const std::string& options) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  const long rc = ::syscall(SYS_finit_module, fd, options.c_str(), kModuleInitCompressedFile);
  const int err = rc == 0 ? 0 : -errno;
  ::close(fd);
  return err;
}

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

ModuleState ModuleLoader::state(const std::string& module) { return impl_->state(module); }

ModuleState ModuleLoader::Impl::state(const std::string& module_in) {
  const std::string module = normalize(module_in);
  if (removed.count(module)) return ModuleState::kNotLoaded;
  kmod_module* raw = nullptr;
  if (kmod_module_new_from_name(ctx.get(), module.c_str(), &raw) == 0) {
    ModulePtr m(raw);
    // modules.builtin comes from the root's tree; libkmod answers the rest from the
    // running kernel's /sys/module, which is the root's only when the root is live.
    const int st = kmod_module_get_initstate(m.get());
    if (st == KMOD_MODULE_BUILTIN) return ModuleState::kBuiltin;
    if (root.is_live()) {
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
  if (auto init = root.read(dir + "/initstate")) {
    const auto v = trim(*init);
    if (v == "live") return ModuleState::kLive;
    if (v == "coming") return ModuleState::kComing;
    if (v == "going") return ModuleState::kGoing;
  }
  // As libkmod: the directory exists before initstate does while a module loads.
  return root.is_dir(dir) ? ModuleState::kComing : ModuleState::kNotLoaded;
}

ModulePtr ModuleLoader::Impl::module_to_insert(ModuleLoadReport& r) {
  messages.clear();
  if (!may_touch_kernel()) {
    // The modules under a fixture root were not built for the running kernel.
    fail(r, r.module,
         "refusing to insert module " + r.module + " from " + root.dir() +
             " into the running kernel (only the live root loads modules)");
    return nullptr;
  }
  kmod_module* raw = nullptr;
  const int err = kmod_module_new_from_name_lookup(ctx.get(), r.module.c_str(), &raw);
  ModulePtr mod(raw);
  if (err < 0 || !mod) {
    fail(r, r.module, not_found(r.module).what);
    return nullptr;
  }
  return mod;
}

ModuleLoadReport ModuleLoader::load(const std::string& module_in, const std::string& extra,
                                    std::chrono::steady_clock::time_point until) {
  Impl& im = *impl_;
  ModuleLoadReport r;
  r.module = normalize(module_in);
  ModulePtr mod = im.module_to_insert(r);
  if (!mod) return r;
  if (im.present_already(r, extra) || !im.preflight(r, mod.get(), extra)) return r;
  if (im.options.dry_run) {
    im.removed.erase(r.module);
    r.status = LoadStatus::kWouldInsert;
    return r;
  }
  im.insert_steps(r, mod.get(), until);
  return r;
}

ModuleLoadReport ModuleLoader::insert_planned(ModuleLoadReport r,
                                              std::chrono::steady_clock::time_point until) {
  Impl& im = *impl_;
  ModulePtr mod = im.module_to_insert(r);
  if (!mod) return r;
  if (im.options.dry_run) {
    r.status = LoadStatus::kWouldInsert;
    return r;
  }
  im.insert_steps(r, mod.get(), until);
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
