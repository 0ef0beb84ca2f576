// The phases of a batch of module actions (apply/modules.cc), each testable alone:
//   1. resolve_requests: names and aliases to jobs, one per module (serial, dry-run loader);
//   2. preflight_jobs: each job's probe list checked once against the root (serial);
//   3. run_jobs: the insertions, in parallel, one libkmod context per worker thread, a job
//      waiting for the jobs whose modules it needs, nothing past the deadline;
//   4. outcomes_of: one outcome per action, a failure reported once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "provision/apply/modules.h"

namespace rp::module_jobs {

using Ms = std::chrono::milliseconds;

inline bool loaded(const ModuleLoadReport& r) {
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

// One action of the batch; `remove_first` for reload-module.
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

// Phase 1: resolves each request's module name through `res` (a dry-run loader) into
// jobs, appended to `jobs`; a module asked for twice is one job (with other options: an
// early failure of the second). One plan per request.
std::vector<ActionPlan> resolve_requests(ModuleLoader& res, const std::vector<Request>& reqs,
                                         std::vector<Job>& jobs);

// Phase 2: the pre-flight, once per job, through `res` (a dry-run loader): a module
// present already, or one whose probe list fails against the root, is finished here;
// the others keep the steps to insert (Job::report) and wait for the jobs they need.
void preflight_jobs(ModuleLoader& res, std::vector<Job>& jobs, Clock::time_point deadline);

// Phase 3: inserts the pending jobs' planned steps in parallel (at most
// how.max_threads workers); by the deadline every job is finished, those still waiting or
// loading as timed out. Returns the jobs as they ended.
std::vector<Job> run_jobs(const std::shared_ptr<Batch>& batch);

// Phase 4: one outcome per request, in order, with the notes logged once. A module that
// could not be loaded is reported by the first action that needs it; later ones name it
// and point there.
std::vector<Outcome> outcomes_of(Log& log, const std::vector<Request>& reqs,
                                 const std::vector<ActionPlan>& plans,
                                 const std::vector<Job>& jobs);

// "load-module xprtrdma"
std::string action_name(const Action& a);

// A worker: owns one libkmod context (they are not thread-safe) and takes jobs whose
// prerequisites are loaded, lowest first, until none is left or the deadline passes.
// By value: the thread owns a share of the batch, which may outlive the caller.
void work(std::shared_ptr<Batch> b, size_t me);  // NOLINT(performance-unnecessary-value-param)

// Jobs that need another job's module wait for it; a cycle (only softdeps can make one)
// loses its edges rather than waiting forever.
void order_jobs(std::vector<Job>& jobs);

}  // namespace rp::module_jobs
