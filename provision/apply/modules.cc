// Module executors: a batch of load-module or reload-module actions through the phases
// of apply/module_jobs.h.
#include "provision/apply/modules.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "provision/apply/module_jobs.h"
#include "provision/base/modprobe.h"
#include "provision/base/strings.h"

namespace rp {
namespace module_jobs {
namespace {

Ms since(Clock::time_point t0) { return std::chrono::duration_cast<Ms>(Clock::now() - t0); }

std::string blacklisted_text(const ModuleResolution& r) {
  if (!r.alias) {
    return "module " + r.blacklisted.front() + " is blacklisted in modprobe.d; not loaded";
  }
  return r.requested + " is an alias of " + join(r.blacklisted, ", ") +
         ", blacklisted in modprobe.d; not loaded";
}

}  // namespace

std::vector<ActionPlan> resolve_requests(ModuleLoader& res, const std::vector<Request>& reqs,
                                         std::vector<Job>& jobs) {
  std::vector<ActionPlan> plans(reqs.size());
  std::map<std::string, size_t> job_of;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Action& a = *reqs[i].action;
    ActionPlan& p = plans[i];
    const ModuleWanted want = wanted_of(a);
    const std::string& name = want.module;
    if (name.empty()) {
      p.early = Outcome::failed(make_error(action_name(a), "no module named"));
      continue;
    }
    auto r = res.resolve(name);
    if (!r) {
      p.early = Outcome::failed(r.error(), r.error().errnum != 0
                                               ? ""
                                               : "not built for kernel " + res.kernel_release() +
                                                     ", or left out of the initramfs");
      p.early_module = modprobe_name(name);
      continue;
    }
    if (r->modules.empty()) {
      p.early = Outcome::skipped(blacklisted_text(*r));
      continue;
    }
    if (!r->blacklisted.empty()) {
      p.notes.push_back(name + " also matches " + join(r->blacklisted, ", ") +
                        ", blacklisted in modprobe.d: not loaded");
    }
    if (r->alias) p.prefix = name + " is an alias of " + join(r->modules, ", ") + "; ";
    for (const auto& m : r->modules) {
      if (auto it = job_of.find(m); it != job_of.end()) {
        const Job& j = jobs[it->second];
        if (j.options != want.options || j.remove_first != reqs[i].remove_first) {
          p.early = Outcome::failed(
              make_error(action_name(a), "module " + m + " is also asked for by " + j.asked_by +
                                             " with other options ('" + j.options +
                                             "'); give its options once"));
          break;
        }
        p.jobs.push_back(it->second);
        continue;
      }
      Job j;
      j.module = m;
      j.options = want.options;
      j.remove_first = reqs[i].remove_first;
      j.asked_by = action_name(a);
      job_of[m] = jobs.size();
      p.jobs.push_back(jobs.size());
      jobs.push_back(std::move(j));
    }
  }
  return plans;
}

void preflight_jobs(ModuleLoader& res, std::vector<Job>& jobs, Clock::time_point deadline) {
  for (Job& j : jobs) {
    const auto t0 = Clock::now();
    // A dry-run loader only forgets that the module is loaded.
    if (j.remove_first) (void)res.remove(j.module);
    j.report = res.load(j.module, j.options, deadline);
    j.took = since(t0);
    if (j.report.status != LoadStatus::kWouldInsert) {
      j.state = Job::State::kFinished;
      continue;
    }
    for (const auto& s : j.report.steps) {
      if (!s.already && s.module != j.module) j.chain.insert(s.module);
    }
  }
  order_jobs(jobs);
}

}  // namespace module_jobs

namespace {

using module_jobs::Request;

const ModuleLoading kRunningKernel;

// How the context's module actions reach libkmod: the running kernel unless it says.
const ModuleLoading& loading_of(const ApplyContext& ctx) {
  return ctx.modules ? *ctx.modules : kRunningKernel;
}

std::vector<Outcome> run_batch(ApplyContext& ctx, const std::vector<Request>& reqs,
                               const ModuleLoading& how) {
  if (auto skip = live_only(ctx, how.loader.dry_run)) {
    return std::vector<Outcome>(reqs.size(), *skip);
  }
  auto batch = std::make_shared<module_jobs::Batch>(ctx.files.root(), how, ctx.deadline.end());
  // Phases 1 and 2, serially, with one dry-run loader.
  ModuleLoaderOptions preflight = how.loader;
  preflight.dry_run = true;
  auto resolver = ModuleLoader::open(batch->root, preflight);
  if (!resolver) return std::vector<Outcome>(reqs.size(), Outcome::failed(resolver.error()));
  const std::vector<module_jobs::ActionPlan> plans =
      module_jobs::resolve_requests(resolver.value(), reqs, batch->jobs);
  module_jobs::preflight_jobs(resolver.value(), batch->jobs, batch->deadline);
  // Phase 3, in parallel; phase 4.
  const std::vector<module_jobs::Job> done = module_jobs::run_jobs(batch);
  return module_jobs::outcomes_of(ctx.log, reqs, plans, done);
}

}  // namespace

ModuleWanted wanted_of(const Action& a) {
  if (const auto* l = std::get_if<LoadModule>(&a.params)) return {l->module, l->all_options()};
  const auto& r = a.get<ReloadModule>();
  return {r.module, r.pfc.str()};
}

Outcome load_one(ApplyContext& ctx, const Action& a, bool remove_first, const ModuleLoading& how) {
  return run_batch(ctx, {{&a, remove_first}}, how).front();
}

std::vector<Outcome> load_modules_parallel(ApplyContext& ctx,
                                           const std::vector<const Action*>& actions,
                                           const ModuleLoading& how) {
  std::vector<Request> reqs;
  for (const Action* a : actions) reqs.push_back({a, false});
  return run_batch(ctx, reqs, how);
}

std::vector<Outcome> exec_load_modules(ApplyContext& ctx, const std::vector<const Action*>& a) {
  return load_modules_parallel(ctx, a, loading_of(ctx));
}

Outcome load_module(ApplyContext& ctx, const Action& a, const ModuleLoading& how) {
  return load_one(ctx, a, false, how);
}

Outcome exec_load_module(ApplyContext& ctx, const Action& a, const LoadModule&) {
  return load_module(ctx, a, loading_of(ctx));
}

Outcome exec_reload_module(ApplyContext& ctx, const Action& a, const ReloadModule&) {
  return reload_module(ctx, a, loading_of(ctx));
}

}  // namespace rp
