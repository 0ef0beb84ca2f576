// The commands that change the machine or write files: apply, preload, udev-rules and
// udev-name (verify is in verify.cc).
#include <sys/stat.h>

#include <cstdio>
#include <ctime>

#include "provision/apply/apply.h"
#include "provision/base/root.h"
#include "provision/base/strings.h"
#include "provision/cli/commands.h"
#include "provision/cli/outputs.h"
#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/kernel/files.h"
#include "provision/plan/plan.h"
#include "provision/report/effective.h"
#include "provision/report/handoff.h"
#include "provision/report/metrics.h"
#include "provision/report/record.h"

namespace rp {

int cmd_apply(const Options& o) {
  const std::time_t started = std::time(nullptr);
  auto p = prepare(o, "apply");
  if (!p) return kExitUsage;
  Log log(make_sink(p->root, o.log));
  if (o.udev_settle) {
    p = prepare_after_coldplug(o, std::move(*p), log);
    if (!p) return kExitUsage;
  }
  const Root& root = p->root;
  const Inputs& in = p->in;
  RunRecord run = start_record(root, started);
  Plan plan = make_plan(in.config, p->inv);
  for (const auto& w : in.diag.warnings) log.warn(w.str());
  for (const auto& w : plan.diag.warnings) log.warn(w.str());
  if (!in.diag.ok() || !plan.diag.ok()) {
    for (const auto& e : in.diag.errors) log.error(e.str());
    for (const auto& e : plan.diag.errors) log.error(e.str());
    // Say what the node goes without: every setting of a valid input is left too.
    const std::string left = not_applied_summary(in.config);
    log.error("invalid input: nothing applied" +
              (left.empty() ? std::string() : "; not applied: " + left));
    run.not_applied = left;
    return finish_apply(o, root, run, in, plan, nullptr, kExitInvalid, log);
  }
  for (const auto& n : plan.notes) log.notice(n);
  if (!plan.enabled) return finish_apply(o, root, run, in, plan, nullptr, kExitOk, log);
  log.info(count_of(plan.actions.size(), "action") + " planned, deadline " +
           std::to_string(plan.timeout_s) + " s");
  RealFileOps files(root);
  ApplyContext ctx{files, root.is_live(), Deadline(std::chrono::seconds(plan.timeout_s)), log};
  ApplyReport report = apply_plan(plan, ctx);
  std::string err;
  if (!in.config.names.empty() &&
      !write_run_file(root, kRunRulesPath, udev_rules(in.config), err)) {
    log.error(err);
  }
  return finish_apply(o, root, run, in, plan, &report, report.exit_code(), log);
}

int cmd_preload(const Options& o) {
  auto p = prepare(o, "preload");
  if (!p) return kExitUsage;
  const Root& root = p->root;
  if (!p->in.diag.ok()) return kExitOk;  // udev-rules and apply say why, once
  const Plan full = make_plan(p->in.config, p->inv);
  if (!full.enabled || !full.diag.ok()) return kExitOk;
  discover_crc32(root, p->inv);
  const Plan plan = early_module_plan(full, p->inv);
  if (plan.actions.empty()) return kExitOk;
  // Every line says it is this step's, apart from apply's (its summary included).
  Log log([sink = make_sink(root, o.log)](LogLevel l, const std::string& m) {
    sink(l, "preload: " + m);
  });
  std::string list;
  for (const auto& a : plan.actions) list += " " + a.get<LoadModule>().module;
  log.notice("loading before udev's coldplug, in parallel:" + list);
  RealFileOps files(root);
  ApplyContext ctx{files, root.is_live(), Deadline(std::chrono::seconds(plan.timeout_s)), log};
  const ApplyReport report = apply_plan(plan, ctx);
  // A module that failed here is planned again by apply, which reports it with the policy.
  return report.exit_code();
}

int cmd_udev_rules(const Options& o) {
  // The inputs alone: the rules ask udev-name about the node table when a link appears.
  auto p = prepare(o, "udev-rules", false);
  if (!p) return kExitUsage;
  const Root& root = p->root;
  const Inputs& in = p->in;
  // The dracut module's early step (--state-env) leaves a valid input's warnings to apply,
  // which says them in the kernel log, once per boot; invalid input is said here, whole,
  // since apply will not run.
  if (o.state_env.empty() || !in.diag.ok()) print_diagnostics(in.diag);
  Root host("/");
  std::string err;
  // Written whatever the input: the dracut hooks' failure policy reads it.
  if (!o.state_env.empty() &&
      !write_own_file(host, o.state_env, inputs_state_env(in.config, in.diag), err)) {
    std::fprintf(stderr, "rdma-provision: %s\n", err.c_str());
    if (in.diag.ok()) return 1;
  }
  if (!in.diag.ok()) return kExitInvalid;
  // Before udevd: the early rules ask the binary about the per-node table.
  const std::string rules = in.config.enabled.value ? udev_rules(in.config, true) : "";
  // And mlx4_en's PFC masks, for every load of it from now on (the kernel's own first).
  if (in.config.enabled.value && o.output.size()) {
    const std::string conf = early_modprobe_conf(in.config);
    if (!conf.empty() && !write_run_file(root, kRunModprobePath, conf, err)) {
      std::fprintf(stderr, "rdma-provision: %s\n", err.c_str());
      return 1;
    }
  }
  // rdma-core's renaming rule without our soft devices, before udevd reads the rules.
  if (in.config.enabled.value && o.output.size()) {
    std::string note;
    const std::string guard = rdma_rename_guard(in.config, &note);
    if (!note.empty()) std::fprintf(stderr, "rdma-provision: warning: %s\n", note.c_str());
    if (!guard.empty() && !write_run_file(root, kRunRdmaRenamePath, guard, err)) {
      std::fprintf(stderr, "rdma-provision: %s\n", err.c_str());
      return 1;
    }
  }
  if (o.output.empty()) {
    print(rules);
    return kExitOk;
  }
  if (!write_own_file(host, o.output, rules, err)) {
    std::fprintf(stderr, "rdma-provision: %s\n", err.c_str());
    return 1;
  }
  return kExitOk;
}

int cmd_udev_name(const Options& o) {
  if (!o.address) {
    std::fprintf(stderr, "rdma-provision: udev-name needs --address\n");
    return kExitUsage;
  }
  // The inputs alone: udev asks while the interface is being added, before anything else
  // could be discovered about it. Invalid inputs give no name (udev-rules reported them).
  auto p = prepare(o, "udev-name", false);
  if (!p) return kExitUsage;
  const Inputs& in = p->in;
  if (!in.diag.ok() || !in.config.enabled.value) return kExitOk;
  const std::string name = configured_name(in.config, *o.address);
  if (!name.empty()) print("RDMA_PROVISION_NAME=" + name + "\n");
  return kExitOk;
}

}  // namespace rp
