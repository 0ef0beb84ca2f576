// ModuleLoader: kernel modules loaded in process through libkmod, as modprobe would, with
// the module tree and modprobe.d of one root directory. The only file that sees libkmod.
// A loader owns one libkmod context, which is not thread-safe: one loader per thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/root.h"

namespace rp {

struct ModuleLoaderOptions {
  // KMOD_PROBE_DRY_RUN: resolve names, dependencies and options for real, insert and
  // remove nothing. For tests and `plan`; a dry-run loader remembers what it "removed".
  bool dry_run = false;
  // Dry run only: every insertion that would happen takes this long (cut short at the
  // load's `until`), so that parallelism and deadlines can be exercised without a kernel.
  std::chrono::milliseconds dry_run_insert_time{0};
  // "" = <root>/proc/sys/kernel/osrelease, else the running kernel's (uname -r).
  std::string kernel_release;
};

// /sys/module/<name>/initstate, or built in according to modules.builtin.
enum class ModuleState { kNotLoaded, kBuiltin, kLive, kComing, kGoing };
std::string_view to_string(ModuleState s);

// What a module name or alias stands for.
struct ModuleResolution {
  std::string requested;                 // as given: "xprtrdma"
  bool alias = false;                    // found through an alias, not as a module name
  std::vector<std::string> modules;      // to load: {"rpcrdma"}
  std::vector<std::string> blacklisted;  // matches that a modprobe.d `blacklist` line removed
};

// One module of a load, in load order: dependencies, pre softdeps, the module, post softdeps.
struct ModuleStep {
  std::string module;
  std::string path;     // as the kernel sees it: /lib/modules/<kver>/kernel/.../x.ko
  std::string options;  // modprobe.d options, then the caller's (for the requested module)
  bool install_command_ignored = false;  // modprobe.d has `install <module> ...` for it
  bool already = false;                  // loaded or built in when the load began
};

enum class LoadStatus {
  kInserted,       // inserted (with whatever dependencies were missing)
  kWouldInsert,    // dry run: would be inserted
  kAlreadyLoaded,  // live in the kernel before we came to it
  kBuiltin,        // built into the kernel
  kFailed,
  kTimedOut,  // dry run only: the simulated insertion outlasted `until`
};
std::string_view to_string(LoadStatus s);

struct ModuleLoadReport {
  std::string module;
  LoadStatus status = LoadStatus::kFailed;
  std::vector<ModuleStep> steps;
  // Things an administrator should hear about: ignored install commands, options that
  // could not be applied, errors libkmod logged. One line each.
  std::vector<std::string> notes;
  // kFailed: the module that could not be loaded (this one or one it needs), the error
  // naming it and the reason, and what to look at next.
  std::string failed_module;
  Error error;
  std::string hint;
};

class ModuleLoader {
 public:
  // kmod_new(<root>/lib/modules/<kver>, <root>/{etc,run,usr/local/lib,lib}/modprobe.d).
  static Result<ModuleLoader> open(const Root& root, ModuleLoaderOptions options = {});

  ModuleLoader(ModuleLoader&&) noexcept;
  ModuleLoader& operator=(ModuleLoader&&) noexcept;
  ~ModuleLoader();

  const std::string& kernel_release() const;
  // "/lib/modules/<kver>" as the kernel sees it (the root is not shown).
  const std::string& module_dir() const;
  bool dry_run() const;

  // A module name or alias (modprobe.d aliases, modules.alias, modules.builtin) to the
  // modules it stands for. Blacklisted modules are left out when found through an alias;
  // a blacklisted module asked for by name is left out too and listed in `blacklisted`.
  // Error: "module rdma_rxe not found in /lib/modules/6.1.0-28-amd64".
  Result<ModuleResolution> resolve(const std::string& name_or_alias);

  ModuleState state(const std::string& module);

  // Loads a resolved module and its dependencies (kmod_module_probe_insert_module) with
  // its modprobe.d options followed by `extra_options`. modprobe.d `install` commands
  // are never run: the module is inserted directly and the ignored command is noted.
  // A module insertion cannot be interrupted; `until` bounds only dry-run waits.
  ModuleLoadReport load(const std::string& module, const std::string& extra_options,
                        std::chrono::steady_clock::time_point until);

  // delete_module(2) without waiting. Errors name the module: in use, not loaded.
  Status remove(const std::string& module);

 private:
  struct Impl;
  explicit ModuleLoader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The kernel's meaning of an init_module(2) errno, as modprobe explains it:
// ENOENT "Unknown symbol in module or unknown parameter", EINVAL "Invalid parameters"...
std::string insert_error_text(int errnum);

}  // namespace rp
