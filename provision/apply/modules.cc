#include "provision/apply/modules.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "provision/base/strings.h"

namespace rp {
namespace {

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

// The module a load-module or reload-module action asks for, and the options it gives.
struct ModuleWanted {
  std::string module, options;
};
ModuleWanted wanted_of(const Action& a) {
  if (const auto* l = std::get_if<LoadModule>(&a.params)) return {l->module, l->all_options()};
  const auto& r = a.get<ReloadModule>();
  return {r.module, r.pfc.str()};
}

bool loaded(const ModuleLoadReport& r) {
  return r.status != LoadStatus::kFailed && r.status != LoadStatus::kTimedOut;
}

// One module to load. Several actions may share one (an alias and the module itself).
struct Job {
  enum class State { kPending, kRunning, kFinished };
  std::string module;
  std::string options;
  bool remove_first = false;      // reload-module
  std::string asked_by;           // the first action that asked for it: "load-module xprtrdma"
  std::set<std::string> chain;    // modules it would insert (dry-run pre-flight)
  std::vector<size_t> waits_for;  // jobs whose module is in `chain`: they go first
  State state = State::kPending;
  bool ran = false;  // went through a worker (else the pre-flight was the answer)
  ModuleLoadReport report;
  Ms took{0};
};

// Shared by the calling thread and the workers. Held through a shared_ptr: a worker stuck
// in init_module(2) past the deadline is left behind and finishes on its own.
struct Batch {
  Batch(Root r, ModuleLoading h, Clock::time_point d)
      : root(std::move(r)), how(std::move(h)), deadline(d) {}
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Job> jobs;
  const Root root;
  const ModuleLoading how;
  const Clock::time_point deadline;
  std::vector<bool> busy;  // per worker: inside a load right now
};

ModuleLoadReport run_job(std::optional<ModuleLoader>& loader, const Batch& b,
                         const std::string& module, const std::string& options, bool remove_first) {
  if (!loader) {
    auto opened = ModuleLoader::open(b.root, b.how.loader);
    if (!opened) {
      ModuleLoadReport r;
      r.module = r.failed_module = module;
      r.error = opened.error();
      return r;
    }
    loader.emplace(std::move(opened).value());
  }
  if (remove_first) {
    Status removed = loader->remove(module);
    if (!removed && loader->state(module) != ModuleState::kNotLoaded) {
      ModuleLoadReport r;
      r.module = r.failed_module = module;
      r.error = removed.error();
      r.hint = "stop what uses it first";
      return r;
    }
  }
  return loader->load(module, options, b.deadline);
}

// A worker: owns one libkmod context (they are not thread-safe) and takes jobs whose
// prerequisites are loaded, lowest first, until none is left or the deadline passes.
// By value: the thread owns a share of the batch, which may outlive the caller.
void work(std::shared_ptr<Batch> b, size_t me) {  // NOLINT(performance-unnecessary-value-param)
  std::optional<ModuleLoader> loader;
  std::unique_lock<std::mutex> lk(b->mu);
  for (;;) {
    bool pending = false, changed = false;
    std::optional<size_t> pick;
    for (size_t j = 0; j < b->jobs.size() && !pick; ++j) {
      Job& job = b->jobs[j];
      if (job.state != Job::State::kPending) continue;
      pending = true;
      bool ready = true;
      for (size_t w : job.waits_for) {
        const Job& pre = b->jobs[w];
        if (pre.state != Job::State::kFinished) {
          ready = false;
        } else if (!loaded(pre.report)) {
          // Its failure names the module that is missing; reported once, by `pre`.
          job.report.status = LoadStatus::kFailed;
          job.report.failed_module = pre.report.failed_module;
          job.report.error = pre.report.error;
          job.report.hint = pre.report.hint;
          job.report.notes.clear();
          job.state = Job::State::kFinished;
          ready = false;
          changed = true;
          break;
        }
      }
      if (ready) pick = j;
    }
    if (changed) b->cv.notify_all();
    if (!pending || Clock::now() >= b->deadline) return;
    if (!pick) {
      if (!changed) b->cv.wait_until(lk, b->deadline);
      continue;
    }
    Job& job = b->jobs[*pick];  // the vector does not change size once workers run
    job.state = Job::State::kRunning;
    b->busy[me] = true;
    const std::string module = job.module, options = job.options;
    const bool remove_first = job.remove_first;
    lk.unlock();
    const auto t0 = Clock::now();
    ModuleLoadReport report = run_job(loader, *b, module, options, remove_first);
    const Ms took = since(t0);
    lk.lock();
    b->busy[me] = false;
    if (job.state == Job::State::kRunning) {  // else the caller gave up on it at the deadline
      job.report = std::move(report);
      job.took += took;
      job.ran = true;
      job.state = Job::State::kFinished;
    }
    b->cv.notify_all();
  }
}

// Jobs that need another job's module wait for it; a cycle (only softdeps can make one)
// loses its edges rather than waiting forever.
void order_jobs(std::vector<Job>& jobs) {
  for (size_t y = 0; y < jobs.size(); ++y) {
    if (jobs[y].state != Job::State::kPending) continue;
    for (size_t x = 0; x < jobs.size(); ++x) {
      if (x == y || jobs[x].state != Job::State::kPending) continue;
      if (jobs[y].chain.count(jobs[x].module) && !jobs[x].chain.count(jobs[y].module)) {
        jobs[y].waits_for.push_back(x);
      }
    }
  }
  std::vector<bool> ordered(jobs.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (ordered[j]) continue;
      if (std::all_of(jobs[j].waits_for.begin(), jobs[j].waits_for.end(),
                      [&](size_t w) { return ordered[w]; })) {
        ordered[j] = progress = true;
      }
    }
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (!ordered[j]) jobs[j].waits_for.clear();
  }
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
  std::vector<std::thread> threads;
  for (size_t k = 0; k < n; ++k) {
    try {
      threads.emplace_back(work, batch, k);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the ones started (or this one) do the work
    }
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
      threads[k].detach();  // inside init_module(2): cannot be interrupted
    } else {
      threads[k].join();
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
  return run_batch(ctx, {{&a, false}}, how).front();
}

Outcome reload_module(ApplyContext& ctx, const Action& a, const ModuleLoading& how) {
  if (!how.loader.dry_run && !ctx.live) return Outcome::skipped(kLiveOnly);
  const ModuleWanted want = wanted_of(a);
  const std::string module = normalized(want.module);
  const std::string sys = "/sys/module/" + module;

  ModuleLoaderOptions look = how.loader;
  look.dry_run = true;
  auto probe = ModuleLoader::open(ctx.files.root(), look);
  if (!probe) return Outcome::failed(probe.error());
  const ModuleState st = probe.value().state(module);
  if (st == ModuleState::kBuiltin) {
    return Outcome::failed(
        make_error("", "module " + module + " is built into the kernel; its parameters (" +
                           want.options + ") can be set only on the kernel command line"),
        "add " + module + ".<param>=<value> to the kernel command line");
  }
  const bool is_loaded = st != ModuleState::kNotLoaded;
  if (is_loaded) {
    auto refcnt = ctx.files.read(sys + "/refcnt");
    // -1: unreadable. (A plain integer: gcc -O2 misreads an std::optional here as
    // maybe-uninitialized.)
    long long users = -1;
    if (refcnt) {
      if (auto v = parse_uint(trim(*refcnt))) users = static_cast<long long>(*v);
    }
    const std::vector<std::string> holders = ctx.files.root().list(sys + "/holders");
    if (users > 0 || !holders.empty()) {
      std::string who = "refcnt " + (users >= 0 ? std::to_string(users) : std::string("?"));
      if (!holders.empty()) who += ", used by " + join(holders, ", ");
      return Outcome::failed(
          make_error(sys + "/refcnt", "module " + module + " is in use (" + who +
                                          "): not reloaded with " + want.options),
          "stop what uses it first, or put 'options " + module + " " + want.options +
              "' in /etc/modprobe.d and reboot");
    }
  }

  Outcome o = run_batch(ctx, {{&a, is_loaded}}, how).front();
  if (o.kind != OutcomeKind::kDone && o.kind != OutcomeKind::kAlready) {
    if (is_loaded && !how.loader.dry_run && o.kind == OutcomeKind::kFailed) {
      o.detail = module + " may now be unloaded (its interfaces gone)" +
                 (o.detail.empty() ? "" : "; " + o.detail);
    }
    return o;
  }
  if (how.loader.dry_run) return o;

  // Parameters are read-only once loaded: read each one back from sysfs.
  std::vector<std::string> checked;
  for (auto token : split_ws(want.options)) {
    const auto eq = token.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string key(token.substr(0, eq)), value(token.substr(eq + 1));
    const std::string path = sys + "/parameters/" + key;
    auto got = ctx.files.read(path);
    if (!got) {
      Error e = got.error();
      e.what = "cannot read back " + key + " after loading " + module + ": " + e.what;
      return Outcome::failed(e);
    }
    const std::string have(trim(*got));
    const auto w = parse_uint(value), h = parse_uint(have);
    if ((w && h) ? *w != *h : have != value) {
      return Outcome::failed(
          make_error(path, "reads " + have + " after loading " + module + ", wanted " + value),
          "the kernel ignores or resets values it does not accept (pfctx/pfcrx above 0xff "
          "become 0); check dmesg");
    }
    checked.push_back(key + "=" + have);
  }
  if (!checked.empty()) o.detail += "; read back " + join(checked, " ");
  return o;
}

Outcome exec_load_module(ApplyContext& ctx, const Action& a, const LoadModule&) {
  if (!ctx.live) return Outcome::skipped(kLiveOnly);
  return load_module(ctx, a, ModuleLoading{});
}

Outcome exec_reload_module(ApplyContext& ctx, const Action& a, const ReloadModule&) {
  if (!ctx.live) return Outcome::skipped(kLiveOnly);
  return reload_module(ctx, a, ModuleLoading{});
}

}  // namespace rp
