// The phases of one ModuleLoader::load(): what is there already, the pre-flight of the
// probe list (a dry run of libkmod's own), and the insertions.
#include <cerrno>

#include "provision/base/modprobe.h"
#include "provision/base/strings.h"
#include "provision/kernel/kmod_impl.h"

namespace rp {
namespace {

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

bool ModuleLoader::Impl::present_already(ModuleLoadReport& r, const std::string& extra) {
  const std::string options_shown = extra.empty() ? "" : "options '" + extra + "' for ";
  switch (state(r.module)) {
    case ModuleState::kBuiltin:
      r.status = LoadStatus::kBuiltin;
      if (!extra.empty()) {
        r.notes.push_back(options_shown + r.module + " not applied: it is built into the " +
                          "kernel (give them on the kernel command line as " + r.module +
                          ".<param>=<value>)");
      }
      return true;
    case ModuleState::kLive:
      r.status = LoadStatus::kAlreadyLoaded;
      if (!extra.empty()) {
        r.notes.push_back(options_shown + r.module +
                          " not applied: it was already loaded (module parameters are "
                          "given at load time)");
      }
      return true;
    default:
      break;
  }

  return false;
}

int ModuleLoader::Impl::dry_probe(kmod_module* mod, const std::string& extra,
                                  std::vector<ModuleStep>* steps) {
  StepRecorder rec{steps, &root.dir()};
  ScopedRecorder scope(&rec);
  return kmod_module_probe_insert_module(mod, KMOD_PROBE_DRY_RUN | KMOD_PROBE_IGNORE_LOADED,
                                         extra.empty() ? nullptr : extra.c_str(), nullptr, nullptr,
                                         record_step);
}

bool ModuleLoader::Impl::preflight(ModuleLoadReport& r, kmod_module* mod,
                                   const std::string& extra) {
  const int err = dry_probe(mod, extra, &r.steps);
  if (err < 0) {
    fail(r, r.module, "cannot resolve the dependencies of module " + r.module, -err);
    return false;
  }
  for (auto& s : r.steps) {
    if (s.module != r.module) {
      const ModuleState st = state(s.module);
      s.already = st == ModuleState::kLive || st == ModuleState::kBuiltin;
    }
    if (s.install_command_ignored && !s.already) {
      const char* cmd = nullptr;
      kmod_module* sm = nullptr;
      if (kmod_module_new_from_name(ctx.get(), s.module.c_str(), &sm) == 0) {
        ModulePtr holder(sm);
        cmd = kmod_module_get_install_commands(sm);
        if (cmd && install_forbids(cmd)) {
          // `install <module> /bin/true`: modprobe would never load it (base/modprobe.h).
          fail(r, s.module,
               "module " + s.module +
                   (s.module == r.module ? "" : " (needed by " + r.module + ")") +
                   " is forbidden by modprobe.d ('install " + s.module + " " + cmd + "')",
               EPERM, "remove that install line to allow it");
          return false;
        }
        r.notes.push_back("ignored the modprobe.d install command for " + s.module + " ('" +
                          (cmd ? cmd : "") +
                          "'): rdma-provision inserts the module itself and runs no shell "
                          "commands in early boot");
      }
    }
  }
  // libkmod drops a dependency whose file is missing and only logs it.
  for (const auto& m : messages) {
    const auto at = m.text.find("path=");
    if (m.function == "kmod_module_parse_depline" && at != std::string::npos) {
      std::string path = m.text.substr(at + 5);
      path = path.substr(0, path.find(' '));
      path = kernel_path(root.dir(), path.c_str());
      const std::string dep = module_name_of_path(path);
      fail(r, dep,
           "module " + dep + " not found: " + path + " is missing (needed by " + r.module + ")", 0,
           "modules.dep does not match the files; run depmod for " + kver);
      return false;
    }
    r.notes.push_back("libkmod: " + m.text);
  }
  for (const auto& s : r.steps) {
    if (s.already) continue;
    const std::string needed_by = s.module == r.module ? "" : " (needed by " + r.module + ")";
    if (s.path.empty()) {
      fail(r, s.module, "module " + s.module + " not found in " + kernel_dir + needed_by);
      return false;
    }
    if (!root.exists(s.path)) {
      fail(r, s.module, "module " + s.module + " not found: " + s.path + " is missing" + needed_by,
           0, "modules.dep does not match the files; run depmod for " + kver);
      return false;
    }
  }

  return true;
}

void ModuleLoader::Impl::insert_steps(ModuleLoadReport& r, kmod_module* mod,
                                      std::chrono::steady_clock::time_point until) {
  // kmod_module_probe_insert_module()'s rules:
  // a module live by now is skipped (another loader or udev was quicker), EEXIST means
  // the same, and only the module and its dependencies must be inserted; a softdep that
  // fails is noted and passed over.
  std::set<std::string> required = {r.module};
  {
    ListPtr deps(kmod_module_get_dependencies(mod));
    kmod_list* l;
    kmod_list_foreach(l, deps.get()) {
      ModulePtr m(kmod_module_get_module(l));
      required.insert(kmod_module_get_name(m.get()));
    }
  }
  messages.clear();
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
      return;
    }
    const int err = insert(s);
    if (err == -EEXIST) s.already = true;
    if (err == 0 || err == -EEXIST) continue;
    if (!required.count(s.module)) {
      r.notes.push_back("softdep " + s.module + " of " + r.module + " not inserted (" +
                        insert_error_text(-err) + "); going on without it, as modprobe does");
      passed_over.insert(s.module);
      continue;
    }
    for (const auto& m : messages) r.notes.push_back("libkmod: " + m.text);
    fail(r, s.module,
         "cannot insert module " + s.module + needed_by + ": " + insert_error_text(-err), -err,
         "the kernel logs the reason: check dmesg");
    return;
  }
  for (const auto& m : messages) r.notes.push_back("libkmod: " + m.text);
  r.steps.erase(std::remove_if(r.steps.begin(), r.steps.end(),
                               [&](const ModuleStep& s) { return passed_over.count(s.module); }),
                r.steps.end());
  const bool inserted =
      std::any_of(r.steps.begin(), r.steps.end(), [](const ModuleStep& s) { return !s.already; });
  r.status = inserted ? LoadStatus::kInserted : LoadStatus::kAlreadyLoaded;
}

}  // namespace rp
