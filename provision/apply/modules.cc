#include "provision/apply/modules.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "provision/apply/module_jobs.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

using module_jobs::Batch;
using module_jobs::Job;
using module_jobs::loaded;
using module_jobs::order_jobs;
using module_jobs::work;

// A worker through pthread_create, whose failure (EAGAIN: no thread to be had) is a return
// code: the project is built without exceptions, and std::thread reports it by throwing.
struct Worker {
  std::shared_ptr<Batch> batch;
  size_t me;
};
void* run_worker(void* arg) {
  std::unique_ptr<Worker> w(static_cast<Worker*>(arg));
  work(std::move(w->batch), w->me);
  return nullptr;
}

constexpr char kLiveOnly[] = "acts on the running kernel only (--root DIR)";

using Ms = std::chrono::milliseconds;

Ms since(Clock::time_point t0) { return std::chrono::duration_cast<Ms>(Clock::now() - t0); }

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string normalized(std::string s) {
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

std::string action_name(const Action& a) {
  return std::string(to_string(a.kind())) + " " + a.object();
}

std::string steps_text(const ModuleLoadReport& r) {
  std::vector<std::string> parts;
  for (const auto& s : r.steps) {
    if (!s.already) parts.push_back(s.module + (s.options.empty() ? "" : " [" + s.options + "]"));
  }
  return join(parts, ", ");
}

std::string success_text(const Job& job) {
  const ModuleLoadReport& r = job.report;
  switch (r.status) {
    case LoadStatus::kInserted:
      return (job.remove_first ? "removed " + job.module + ", then inserted " : "inserted ") +
             steps_text(r);
    case LoadStatus::kWouldInsert:
      return std::string("dry run: ") +
             (job.remove_first ? "would remove " + job.module + ", then insert "
                               : "would insert ") +
             steps_text(r);
    case LoadStatus::kAlreadyLoaded:
      return "already loaded";
    case LoadStatus::kBuiltin:
      return "built into the kernel";
    default:
      return "";
  }
}

struct Request {
  const Action* action;
  bool remove_first;
};

// What an action became before anything ran: an answer already, or jobs.
struct ActionPlan {
  std::optional<Outcome> early;
  std::string early_module;  // for an early failure: the module it names
  std::vector<size_t> jobs;
  std::string prefix;  // "xprtrdma is an alias of rpcrdma; "
  std::vector<std::string> notes;
};

std::string blacklisted_text(const ModuleResolution& r) {
  if (!r.alias) {
    return "module " + r.blacklisted.front() + " is blacklisted in modprobe.d; not loaded";
  }
  return r.requested + " is an alias of " + join(r.blacklisted, ", ") +
         ", blacklisted in modprobe.d; not loaded";
}

std::vector<Outcome> run_batch(ApplyContext& ctx, const std::vector<Request>& reqs,
                               const ModuleLoading& how) {
  std::vector<Outcome> out(reqs.size());
  if (!how.loader.dry_run && !ctx.live) {
    std::fill(out.begin(), out.end(), Outcome::skipped(kLiveOnly));
    return out;
  }
  auto batch = std::make_shared<Batch>(ctx.files.root(), how, ctx.deadline.end());
  std::vector<Job>& jobs = batch->jobs;

  // 1. Serially, with one dry-run loader: names to modules, blacklists, and each
  // module's probe list checked against the root (missing files fail here, in order).
  ModuleLoaderOptions preflight = how.loader;
  preflight.dry_run = true;
  auto resolver = ModuleLoader::open(batch->root, preflight);
  if (!resolver) {
    std::fill(out.begin(), out.end(), Outcome::failed(resolver.error()));
    return out;
  }
  ModuleLoader& res = resolver.value();
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
      p.early_module = normalized(name);
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
  for (Job& j : jobs) {
    const auto t0 = Clock::now();
    // A dry-run loader only forgets that the module is loaded.
    if (j.remove_first) (void)res.remove(j.module);
    j.report = res.load(j.module, j.options, batch->deadline);
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

  // 2. In parallel: each worker has its own libkmod context.
  const size_t pending = std::count_if(
      jobs.begin(), jobs.end(), [](const Job& j) { return j.state == Job::State::kPending; });
  const size_t n = std::min<size_t>(std::max(1u, how.max_threads), pending);
  batch->busy.assign(std::max<size_t>(n, 1), false);
  std::vector<pthread_t> threads;
  for (size_t k = 0; k < n; ++k) {
    auto* w = new Worker{batch, k};
    pthread_t t;
    if (::pthread_create(&t, nullptr, run_worker, w) != 0) {
      delete w;
      break;  // no thread to be had: the ones started (or this one) do the work
    }
    threads.push_back(t);
  }
  if (pending > 0 && threads.empty()) work(batch, 0);

  std::vector<bool> busy;
  {
    std::unique_lock<std::mutex> lk(batch->mu);
    batch->cv.wait_until(lk, batch->deadline, [&] {
      return std::all_of(jobs.begin(), jobs.end(),
                         [](const Job& j) { return j.state == Job::State::kFinished; });
    });
    for (Job& j : jobs) {
      if (j.state == Job::State::kFinished) continue;
      j.report.status = LoadStatus::kTimedOut;
      j.report.failed_module = j.module;
      j.report.error = make_error(
          "", j.state == Job::State::kRunning
                  ? "module " + j.module +
                        " was still loading when the deadline passed (its initialisation "
                        "goes on in the kernel)"
                  : "the deadline passed before module " + j.module + " could be loaded");
      j.report.hint.clear();
      j.state = Job::State::kFinished;
    }
    busy = batch->busy;
  }
  batch->cv.notify_all();
  for (size_t k = 0; k < threads.size(); ++k) {
    if (busy[k]) {
      ::pthread_detach(threads[k]);  // inside init_module(2): cannot be interrupted
    } else {
      ::pthread_join(threads[k], nullptr);
    }
  }
  std::vector<Job> done;
  {
    std::lock_guard<std::mutex> lk(batch->mu);
    done = jobs;
  }

  // 3. Outcomes in action order. A module that could not be loaded is reported by the
  // first action that needs it; later ones name it and point there.
  std::map<std::string, std::string> reported;  // module -> action that reported it
  std::vector<bool> job_used(done.size(), false);
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Action& a = *reqs[i].action;
    const ActionPlan& p = plans[i];
    for (const auto& note : p.notes) ctx.log.warn(note);
    if (p.early) {
      out[i] = *p.early;
      if (!p.early_module.empty()) {
        if (auto it = reported.find(p.early_module); it != reported.end()) {
          out[i] = Outcome::failed(make_error(
              "", "module " + p.early_module + " could not be loaded (see " + it->second + ")"));
        } else {
          reported.emplace(p.early_module, action_name(a));
        }
      }
      continue;
    }
    std::optional<Outcome> bad;
    std::vector<std::string> parts;
    bool any_done = false;
    Ms took{0};
    for (size_t j : p.jobs) {
      const Job& job = done[j];
      took = std::max(took, job.took);
      const ModuleLoadReport& r = job.report;
      if (!job_used[j]) {
        for (const auto& note : r.notes) ctx.log.warn(note);
        ctx.log.debug("module " + job.module + ": " + std::string(to_string(r.status)) +
                      (job.ran ? "" : " (pre-flight)") + " in " + std::to_string(job.took.count()) +
                      " ms");
      }
      if (!loaded(r)) {
        if (bad) continue;
        auto it = reported.find(r.failed_module);
        if (r.status == LoadStatus::kFailed && it != reported.end()) {
          bad = Outcome::failed(make_error("", "needs module " + r.failed_module +
                                                   ", which could not be loaded (see " +
                                                   it->second + ")"));
        } else if (r.status == LoadStatus::kFailed) {
          bad = Outcome::failed(r.error, r.hint);
          reported.emplace(r.failed_module, action_name(a));
        } else {
          bad = Outcome::timed_out(r.error);
        }
        continue;
      }
      if (job_used[j]) {
        parts.push_back(job.module + " loaded for " + job.asked_by);
        continue;
      }
      job_used[j] = true;
      const bool inserted =
          r.status == LoadStatus::kInserted || r.status == LoadStatus::kWouldInsert;
      any_done |= inserted;
      parts.push_back(success_text(job));
    }
    for (size_t j : p.jobs) job_used[j] = true;
    if (bad) {
      out[i] = *bad;
    } else if (any_done) {
      out[i] = Outcome::done(p.prefix + join(parts, "; "));
    } else {
      out[i] = Outcome::already(p.prefix + join(parts, "; "));
    }
    out[i].took = took;
  }
  return out;
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

std::vector<Outcome> load_modules_parallel(ApplyContext& ctx,
                                           const std::vector<const Action*>& actions) {
  if (!ctx.live) return std::vector<Outcome>(actions.size(), Outcome::skipped(kLiveOnly));
  return load_modules_parallel(ctx, actions, ModuleLoading{});
}

Outcome load_module(ApplyContext& ctx, const Action& a, const ModuleLoading& how) {
  return load_one(ctx, a, false, how);
}

Outcome exec_load_module(ApplyContext& ctx, const Action& a, const LoadModule&) {
  if (!ctx.live) return Outcome::skipped(kLiveOnly);
  return load_module(ctx, a, ModuleLoading{});
}

}  // namespace rp
