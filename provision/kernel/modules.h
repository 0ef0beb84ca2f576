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
  bool already = false;  // loaded or built in by someone else: not inserted by this load
};

// Where a loader's insertions and removals go: init_module(2) and delete_module(2), one
// module at a time, everything above them (names, dependencies, options, order) being the
// real libkmod's. The default (no inserter) is the running kernel through libkmod, from
// the live root only. Tests give a scripted fake (delays, errnos) instead, as kmod's
// testsuite fakes init_module under the real libkmod. The loaders of one batch share it
// from several threads: an implementation must be thread-safe.
class ModuleInserter {
 public:
  virtual ~ModuleInserter() = default;
  // Inserts step.module (file step.path, as the kernel sees it) with step.options. 0, or
  // -errno as the kernel refuses: -EEXIST when the module is loaded already.
  virtual int insert(const ModuleStep& step) = 0;
  // Removes a module without waiting. 0, or -errno: -EBUSY in use, -ENOENT not loaded.
  virtual int remove(const std::string& module) = 0;
};

struct ModuleLoaderOptions {
  // KMOD_PROBE_DRY_RUN: resolve names, dependencies and options for real, insert and
  // remove nothing. The pre-flight of every load and `plan` use it; a dry-run loader
  // remembers what it "removed".
  bool dry_run = false;
  // null: the running kernel (through libkmod). Else insertions and removals go here, on
  // any root; the loader sees their effect under the root's /sys/module.
  std::shared_ptr<ModuleInserter> inserter;
  // "" = <root>/proc/sys/kernel/osrelease, else the running kernel's (uname -r).
  std::string kernel_release;
};

enum class LoadStatus {
  kInserted,       // inserted (with whatever dependencies were missing)
  kWouldInsert,    // dry run: would be inserted
  kAlreadyLoaded,  // live in the kernel before we came to it
  kBuiltin,        // built into the kernel
  kFailed,
  kTimedOut,  // `until` passed before every module of the load was inserted
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

  // Loads a resolved module and its dependencies with its modprobe.d options followed by
  // `extra_options`, in the order and with the rules of kmod_module_probe_insert_module():
  // what is live by then is skipped, EEXIST counts as loaded, a softdep that cannot be
  // inserted is noted and passed over. modprobe.d `install` commands are never run: the
  // module is inserted directly and the ignored command is noted. An insertion cannot be
  // interrupted; none starts once `until` has passed.
  ModuleLoadReport load(const std::string& module, const std::string& extra_options,
                        std::chrono::steady_clock::time_point until);

  // Inserts what a dry-run load() found for a module (the pre-flight: its steps, options
  // and notes, in `planned`) with the rules of load(), without resolving and checking it
  // again: a batch pre-flights each module once, serially, and inserts in parallel.
  ModuleLoadReport insert_planned(ModuleLoadReport planned,
                                  std::chrono::steady_clock::time_point until);

  // delete_module(2) without waiting (only from the live root, unless through an
  // inserter). Errors name the module: in use, not loaded.
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
