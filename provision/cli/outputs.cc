#include "provision/cli/outputs.h"

#include <sys/stat.h>

#include <cerrno>

#include "provision/base/strings.h"
#include "provision/inventory/inventory.h"
#include "provision/report/handoff.h"
#include "provision/report/metrics.h"
#include "provision/report/record.h"

namespace rp {

namespace {

// The state for the real root and for the dracut hooks: JSON for tools, the same facts
// as shell assignments for the hooks (they source it); the latest run's, and this phase's
// own copy (report/record.h), written for every exit code.
void write_state(const Root& root, const Config& cfg, const Plan& plan, const ApplyReport* report,
                 const RunRecord& run, Log& log) {
  const std::string json = state_json(cfg, plan, report, &run);
  const std::string env = state_env(cfg, plan, report, &run);
  const std::string pj = phase_state_path(run.phase, false), pe = phase_state_path(run.phase, true);
  std::string err;
  for (const auto& [path, text] : {std::pair<const char*, const std::string&>{kStatePath, json},
                                   {kStateEnvPath, env},
                                   {pj.c_str(), json},
                                   {pe.c_str(), env}}) {
    if (!write_run_file(root, path, text, err)) log.error(err);
  }
}

// apply --metrics FILE: the outcome for node_exporter's textfile collector, replaced
// atomically (the collector may read at any moment). A directory that does not exist
// (no node_exporter on this node) is a note, not a failure of the run.
void write_metrics(const Options& o, const Root& root, const RunRecord& run, const Config& cfg,
                   const Plan& plan, const ApplyReport* report, Log& log) {
  if (o.metrics.empty()) return;
  const size_t slash = o.metrics.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : o.metrics.substr(0, slash);
  struct stat st;
  if (!dir.empty() && (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
    log.notice("metrics: " + dir + " does not exist: " + o.metrics + " not written");
    return;
  }
  // The machine as the run left it: port states and RoCE modes; the initramfs' outcome.
  const Inventory after = report ? discover(root, Detail::kFull) : Inventory{};
  BootFacts boot{run.phase, run.boot_id, std::nullopt, root_mount(root)};
  if (auto t = root.read(phase_state_path(Phase::kInitramfs, true));
      t && run.phase != Phase::kInitramfs) {
    const auto env = read_env(*t);
    auto code = env.find("RP_EXIT_CODE");
    auto id = env.find("RP_BOOT_ID");
    if (code != env.end() && id != env.end() && id->second == run.boot_id) {
      if (auto n = parse_uint(code->second)) boot.initramfs_exit_code = static_cast<int>(*n);
    }
  }
  std::string err;
  if (!write_own_file(Root("/"), o.metrics,
                      metrics_text(run.exit_code, cfg, plan, report, after, run.finished, &boot),
                      err)) {
    log.error("metrics: " + err);
  }
}

// apply --history DIR (the real root's rdma-provision.service): this boot's records under
// DIR/boot, and those of the boot before moved to DIR/previous by the first run of a new
// boot, so that `explain` tells the boot before too (what /run held went with it).
void keep_history(const Options& o, const Root& root, const RunRecord& run, const std::string& env,
                  Log& log) {
  if (o.history.empty()) return;
  const std::string boot = o.history + "/boot/", previous = o.history + "/previous/";
  auto file = [](Phase p) { return std::string(to_string(p)) + ".env"; };
  auto boot_id = [](const std::string& text) {
    const auto e = read_env(text);
    auto it = e.find("RP_BOOT_ID");
    return it == e.end() ? std::string() : it->second;
  };
  bool said = false;
  auto write = [&](const std::string& path, const std::string& text) {
    auto st = root.write_file_atomic(path, text);
    if (st || said) return;
    said = true;  // once: the rest fails alike
    // A read-only root (many diskless nodes) keeps no history: a note, not a warning at
    // every boot.
    const std::string line = "history: " + st.error().str() + ": explain will not tell this boot";
    st.error().errnum == EROFS ? log.notice(line) : log.warn(line);
  };
  bool older = false;
  for (Phase p : {Phase::kInitramfs, Phase::kRealRoot}) {
    const std::string kept = root.read_or(boot + file(p), "");
    older |= !kept.empty() && boot_id(kept) != run.boot_id;
  }
  if (older) {
    // Every phase moves, an empty file where that boot had none (no stale record stays).
    for (Phase p : {Phase::kInitramfs, Phase::kRealRoot}) {
      write(previous + file(p), root.read_or(boot + file(p), ""));
      write(boot + file(p), "");
    }
  }
  if (run.phase == Phase::kRealRoot) {
    const std::string initramfs = root.read_or(phase_state_path(Phase::kInitramfs, true), "");
    if (!initramfs.empty() && boot_id(initramfs) == run.boot_id) {
      write(boot + file(Phase::kInitramfs), initramfs);
    }
  }
  write(boot + file(run.phase), env);
}

}  // namespace

int finish_apply(const Options& o, const Root& root, RunRecord& run, const Inputs& in,
                 const Plan& plan, const ApplyReport* report, int code, Log& log) {
  run.exit_code = code;
  run.finished = std::time(nullptr);
  for (const auto* d : {&in.diag, &plan.diag}) {
    for (const auto& e : d->errors) run.errors.push_back(e.str());
    for (const auto& w : d->warnings) run.warnings.push_back(w.str());
  }
  write_state(root, in.config, plan, report, run, log);
  keep_history(o, root, run, state_env(in.config, plan, report, &run), log);
  write_metrics(o, root, run, in.config, plan, report, log);
  return code;
}

}  // namespace rp
