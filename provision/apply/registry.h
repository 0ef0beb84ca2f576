// The executor of each action kind: one row per kind (apply/registry.cc). Adding a kind is
// a parameter struct (plan/action.h), a planner, an executor file and one row here.
#pragma once

#include <vector>

#include "provision/apply/context.h"
#include "provision/plan/action.h"

namespace rp {

struct ExecutorEntry {
  ActionKind kind;
  Outcome (*run)(ApplyContext& ctx, const Action& a);  // calls the kind's executor
  // Non-null: the engine starts every ready action of this kind in one batch through it,
  // one outcome per action (module loads in parallel, one libkmod context per thread:
  // apply/modules.cc).
  std::vector<Outcome> (*batch)(ApplyContext& ctx, const std::vector<const Action*>& a);
};

const ExecutorEntry& executor_for(ActionKind k);

// Runs one action through its kind's executor (no batching, no prerequisites): the engine's
// single step, and what executor tests call.
inline Outcome execute(ApplyContext& ctx, const Action& a) {
  return executor_for(a.kind()).run(ctx, a);
}

}  // namespace rp
