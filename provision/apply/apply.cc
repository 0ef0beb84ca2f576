#include "provision/apply/apply.h"

#include <cstdio>
#include <thread>

#include "provision/apply/registry.h"

namespace rp {
namespace {

bool succeeded(const Outcome& o) {
  return o.kind == OutcomeKind::kDone || o.kind == OutcomeKind::kAlready ||
         o.kind == OutcomeKind::kChecked;
}

std::string fmt_seconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

}  // namespace

std::string ApplyReport::summary() const {
  return "summary: " + std::to_string(done) + " done, " + std::to_string(already) + " already, " +
         std::to_string(checked) + " checked, " + std::to_string(skipped) + " skipped, " +
         std::to_string(failed) + " failed" +
         (timed_out ? ", " + std::to_string(timed_out) + " timed out" : "") + " in " +
         fmt_seconds(took);
}

std::string outcome_line(const Action& a, const Outcome& o) {
  // Appended into one buffer: a line per action, without a temporary per piece.
  std::string line;
  line.reserve(256);
  line.append(to_string(o.kind)).append("  ").append(to_string(a.kind())).append(" ");
  line.append(a.object()).append(": ").append(a.current).append(" -> ").append(a.wanted());
  if (o.kind == OutcomeKind::kFailed || o.kind == OutcomeKind::kTimedOut) {
    line.append(": ").append(o.error.str());
    if (!o.detail.empty()) line.append("; ").append(o.detail);
  } else if (!o.detail.empty()) {
    line.append(" (").append(o.detail).append(")");
  }
  return line.append("  [").append(a.reason).append("]");
}

ApplyReport apply_plan(const Plan& plan, ApplyContext& ctx) {
  const auto start = Clock::now();
  ApplyReport r;
  const size_t n = plan.actions.size();
  r.outcomes.resize(n);
  std::vector<bool> finished(n, false);

  // Why an action cannot start: a prerequisite that did not succeed, or the deadline.
  auto blocked = [&](size_t i) -> std::optional<Outcome> {
    if (!plan.actions[i].never.empty()) {
      return Outcome::failed(make_error(plan.actions[i].object(), plan.actions[i].never));
    }
    for (size_t d : plan.actions[i].after) {
      if (!succeeded(r.outcomes[d])) {
        return Outcome::skipped("needs action " + std::to_string(d + 1) + " (" +
                                std::string(to_string(plan.actions[d].kind())) + " " +
                                plan.actions[d].object() + "), which " +
                                std::string(to_string(r.outcomes[d].kind)));
      }
    }
    if (ctx.deadline.expired()) {
      return Outcome::timed_out(make_error(
          plan.actions[i].object(),
          "the deadline of " + std::to_string(plan.timeout_s) + " s passed before it could start"));
    }
    return std::nullopt;
  };

  auto finish = [&](size_t i, Outcome o) {
    r.outcomes[i] = std::move(o);
    finished[i] = true;
    const Action& a = plan.actions[i];
    const Outcome& out = r.outcomes[i];
    const std::string line = outcome_line(a, out);
    switch (out.kind) {
      case OutcomeKind::kDone:
        ++r.done;
        ctx.log.notice(line);
        break;
      case OutcomeKind::kAlready:
        ++r.already;
        ctx.log.info(line);
        break;
      case OutcomeKind::kChecked:
        ++r.checked;
        ctx.log.notice(line);
        break;
      case OutcomeKind::kSkipped:
        ++r.skipped;
        ctx.log.warn(line);
        break;
      case OutcomeKind::kFailed:
        ++r.failed;
        ctx.log.error(line);
        break;
      case OutcomeKind::kTimedOut:
        ++r.timed_out;
        ctx.log.error(line);
        break;
    }
  };

  for (size_t i = 0; i < n; ++i) {
    if (finished[i]) continue;
    const Action& a = plan.actions[i];
    if (auto b = blocked(i)) {
      finish(i, *b);
      continue;
    }
    const ExecutorEntry& exec = executor_for(a.kind());
    if (exec.batch) {
      // Every action of this kind that can start now goes in one batch.
      std::vector<size_t> idx;
      std::vector<const Action*> acts;
      for (size_t j = i; j < n; ++j) {
        if (finished[j] || plan.actions[j].kind() != a.kind()) continue;
        bool ready = true;
        for (size_t d : plan.actions[j].after) ready &= finished[d] && succeeded(r.outcomes[d]);
        if (!ready) continue;
        idx.push_back(j);
        acts.push_back(&plan.actions[j]);
      }
      const auto t0 = Clock::now();
      std::vector<Outcome> outs = exec.batch(ctx, acts);
      for (size_t k = 0; k < idx.size(); ++k) {
        Outcome o =
            k < outs.size() ? outs[k] : Outcome::failed(make_error(acts[k]->object(), "no result"));
        if (o.took.count() == 0) {
          o.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
        }
        finish(idx[k], std::move(o));
      }
      continue;
    }
    const auto t0 = Clock::now();
    Outcome o = exec.run(ctx, a);
    o.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    finish(i, std::move(o));
  }
  r.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  ctx.log.notice(r.summary());
  return r;
}

}  // namespace rp
