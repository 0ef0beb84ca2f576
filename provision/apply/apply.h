// apply_plan(): carries out a plan action by action, in order. Independent module loads
// run in parallel; an action whose prerequisite failed is skipped with the reason;
// nothing runs past the deadline. Each outcome is logged as one line, then a summary.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "provision/apply/context.h"
#include "provision/plan/plan.h"

namespace rp {

struct ApplyReport {
  std::vector<Outcome> outcomes;  // one per plan action
  // "done" counts changes only: a passed check is "checked", so 0 done stays the sign that
  // nothing needed changing (a second apply with rd.rdma.verify on says 0 done).
  unsigned done = 0, already = 0, checked = 0, skipped = 0, failed = 0, timed_out = 0;
  std::chrono::milliseconds took{0};

  // 0 all done, 1 some action failed, 3 the deadline passed (documented exit codes;
  // 2, invalid input, is decided before anything is applied).
  int exit_code() const { return timed_out ? 3 : failed ? 1 : 0; }
  std::string summary() const;
};

// Runs the plan through the executors of apply/registry.cc; a kind with a batch executor
// (load-module) runs every action of it that may start in one batch.
ApplyReport apply_plan(const Plan& plan, ApplyContext& ctx);

// "done  port-type 0000:81:00.0 port 2: ib -> eth (after 1 retry)  [reason]"
std::string outcome_line(const Action& a, const Outcome& o);

}  // namespace rp
