// What the commands that write leave behind: our own files (atomically, under /run only
// where the kernel's files are near), where messages go, and the record of an apply
// (state.json, state.env, each phase's copy, the metrics) for every exit code.
#pragma once

#include <string>

#include "provision/apply/apply.h"
#include "provision/apply/log.h"
#include "provision/base/root.h"
#include "provision/cli/options.h"
#include "provision/inputs/load.h"
#include "provision/plan/plan.h"
#include "provision/report/record.h"

namespace rp {

// Writes one of our own files under the root (Root::write_file_atomic): the files named
// by --output, --state-env and --metrics, and write_run_file's.
bool write_own_file(const Root& root, const std::string& path, const std::string& text,
                    std::string& err);
// One of our files under /run (Root::check_write: nothing outside /sys and /run).
bool write_run_file(const Root& root, const char* path, const std::string& text, std::string& err);
// In the initramfs messages go to the kernel log (console, dmesg, journal).
Log::Sink make_sink(const Root& root, const std::string& choice);

// The end of an apply: its record (exit code, end time, the inputs' and the plan's errors
// and warnings), state.json and state.env (the latest, and the phase's own copy), and
// --metrics. Returns `code`.
int finish_apply(const Options& o, const Root& root, RunRecord& run, const Inputs& in,
                 const Plan& plan, const ApplyReport* report, int code, Log& log);

}  // namespace rp
