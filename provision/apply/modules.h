// Module executors: load-module and reload-module actions through the libkmod wrapper
// (kernel/modules.h). Independent loads run in parallel, one libkmod context per thread.
#pragma once

#include <vector>

#include "provision/apply/context.h"
#include "provision/kernel/modules.h"

namespace rp {

// How module actions reach libkmod (ApplyContext::modules). The default inserts into the
// running kernel and acts only when ctx.live. A dry-run setting resolves names,
// dependencies, options and blacklists through the real libkmod against
// ctx.files.root() and inserts nothing, on any root: tests and `plan` use it.
struct ModuleLoading {
  ModuleLoaderOptions loader;
  unsigned max_threads = 4;  // module inits mostly wait on hardware and firmware
};

// Loads a batch of load-module actions that may start now, in parallel: a module that
// another one of the batch needs (it is in that one's dependencies or softdeps) is loaded
// first; everything else concurrently. A module shared by several loads is inserted once
// (the kernel answers EEXIST to the others, which counts as loaded). Every load ends by
// ctx.deadline. A module that cannot be loaded is reported once, by the first action
// that needs it; the others name it and point there. One outcome per action, in order.
std::vector<Outcome> load_modules_parallel(ApplyContext& ctx,
                                           const std::vector<const Action*>& actions,
                                           const ModuleLoading& how);

// load-module's batch executor (apply/registry.cc): every load that may start now, in one
// parallel batch, through ctx.modules (the running kernel when null).
std::vector<Outcome> exec_load_modules(ApplyContext& ctx, const std::vector<const Action*>& a);

// The module a load-module or reload-module action asks for, and the options it gives.
struct ModuleWanted {
  std::string module, options;
};
ModuleWanted wanted_of(const Action& a);

// One load-module or reload-module action, a batch of one; `remove_first` removes the
// module before inserting it again (a reload).
Outcome load_one(ApplyContext& ctx, const Action& a, bool remove_first, const ModuleLoading& how);

// One load-module action (a batch of one).
Outcome load_module(ApplyContext& ctx, const Action& a, const ModuleLoading& how);

// reload-module (mlx4_en with new PFC masks: its parameters are read-only once loaded):
// refuses when the module is in use, removes it, loads it with `a.extra` and reads every
// `name=value` of `a.extra` back from /sys/module/<m>/parameters.
Outcome reload_module(ApplyContext& ctx, const Action& a, const ModuleLoading& how);

}  // namespace rp
