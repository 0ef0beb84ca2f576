#include "provision/apply/module_jobs.h"

#include <pthread.h>

#include <algorithm>
#include <optional>

namespace rp::module_jobs {
namespace {

Ms since(Clock::time_point t0) { return std::chrono::duration_cast<Ms>(Clock::now() - t0); }

// Inserts what the pre-flight planned (`planned`: its report), removing the module first
// for a reload.
ModuleLoadReport run_job(std::optional<ModuleLoader>& loader, const Batch& b,
                         ModuleLoadReport planned, bool remove_first) {
  const std::string& module = planned.module;
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
  return loader->insert_planned(std::move(planned), b.deadline);
}

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
    ModuleLoadReport planned = job.report;
    const bool remove_first = job.remove_first;
    lk.unlock();
    const auto t0 = Clock::now();
    ModuleLoadReport report = run_job(loader, *b, std::move(planned), remove_first);
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

std::vector<Job> run_jobs(const std::shared_ptr<Batch>& batch) {
  std::vector<Job>& jobs = batch->jobs;
  const size_t pending = std::count_if(
      jobs.begin(), jobs.end(), [](const Job& j) { return j.state == Job::State::kPending; });
  const size_t n = std::min<size_t>(std::max(1u, batch->how.max_threads), pending);
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
  std::lock_guard<std::mutex> lk(batch->mu);
  return jobs;
}

}  // namespace rp::module_jobs
