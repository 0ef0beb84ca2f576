// The record of an apply (state.json, state.env, each phase's copy, the metrics), written
// for every exit code through the file writers of commands.h.
#pragma once

#include <string>

#include "provision/apply/apply.h"
#include "provision/apply/log.h"
#include "provision/base/root.h"
#include "provision/cli/commands.h"
#include "provision/cli/options.h"
#include "provision/inputs/load.h"
#include "provision/plan/plan.h"
#include "provision/report/record.h"

namespace rp {

// The end of an apply: its record (exit code, end time, the inputs' and the plan's errors
// and warnings), state.json and state.env (the latest, and the phase's own copy), and
// --metrics. Returns `code`.
int finish_apply(const Options& o, const Root& root, RunRecord& run, const Inputs& in,
                 const Plan& plan, const ApplyReport* report, int code, Log& log);

}  // namespace rp
