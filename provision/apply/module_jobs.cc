#include "provision/apply/module_jobs.h"

#include <algorithm>
#include <optional>

namespace rp::module_jobs {
namespace {

Ms since(Clock::time_point t0) { return std::chrono::duration_cast<Ms>(Clock::now() - t0); }

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

}  // namespace

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

}  // namespace rp::module_jobs
