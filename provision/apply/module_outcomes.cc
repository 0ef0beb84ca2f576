// Phase 4 of a module batch (apply/module_jobs.h): what each action reports, from the
// jobs as they ended.
#include <algorithm>
#include <map>

#include "provision/apply/module_jobs.h"
#include "provision/base/strings.h"

namespace rp::module_jobs {
namespace {

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

}  // namespace

std::string action_name(const Action& a) {
  return std::string(to_string(a.kind())) + " " + a.object();
}

std::vector<Outcome> outcomes_of(Log& log, const std::vector<Request>& reqs,
                                 const std::vector<ActionPlan>& plans,
                                 const std::vector<Job>& jobs) {
  std::vector<Outcome> out(reqs.size());
  std::map<std::string, std::string> reported;  // module -> action that reported it
  std::vector<bool> job_used(jobs.size(), false);
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Action& a = *reqs[i].action;
    const ActionPlan& p = plans[i];
    for (const auto& note : p.notes) log.warn(note);
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
      const Job& job = jobs[j];
      took = std::max(took, job.took);
      const ModuleLoadReport& r = job.report;
      if (!job_used[j]) {
        for (const auto& note : r.notes) log.warn(note);
        log.debug("module " + job.module + ": " + std::string(to_string(r.status)) +
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

}  // namespace rp::module_jobs
