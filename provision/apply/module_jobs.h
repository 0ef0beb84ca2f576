// The worker pool behind parallel module loading (apply/modules.cc): jobs, one libkmod
// context per worker thread, a job waits for the jobs whose modules it needs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
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

// A worker: owns one libkmod context (they are not thread-safe) and takes jobs whose
// prerequisites are loaded, lowest first, until none is left or the deadline passes.
// By value: the thread owns a share of the batch, which may outlive the caller.
void work(std::shared_ptr<Batch> b, size_t me);  // NOLINT(performance-unnecessary-value-param)

// Jobs that need another job's module wait for it; a cycle (only softdeps can make one)
// loses its edges rather than waiting forever.
void order_jobs(std::vector<Job>& jobs);

}  // namespace rp::module_jobs
