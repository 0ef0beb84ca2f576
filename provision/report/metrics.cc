#include "provision/report/metrics.h"

#include <cstdio>

#include "provision/version.h"

namespace rp {

std::string prometheus_label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

namespace {

class Writer {
 public:
  // One metric family: its HELP and TYPE lines, then its samples.
  void family(const char* name, const char* type, const char* help) {
    name_ = name;
    out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const std::string& labels, double value) {
    char num[64];
    std::snprintf(num, sizeof num, "%.17g", value);
    out_ += name_ + (labels.empty() ? "" : "{" + labels + "}") + " " + num + "\n";
  }
  std::string str() const { return out_; }

 private:
  std::string name_, out_;
};

std::string label(const char* key, std::string_view value) {
  return std::string(key) + "=\"" + prometheus_label(value) + "\"";
}

}  // namespace

std::string metrics_text(int exit_code, const Config& cfg, const Plan& plan,
                         const ApplyReport* report, const Inventory& after, std::time_t now,
                         const BootFacts* boot) {
  Writer w;
  w.family("rdma_provision_info", "gauge", "The rdma-provision version that wrote this file.");
  w.sample(label("version", RDMA_PROVISION_VERSION), 1);
  w.family("rdma_provision_exit_code", "gauge",
           "Exit code of the last apply: 0 all done, 1 an action failed, 2 invalid input "
           "(nothing applied), 3 the deadline passed.");
  w.sample("", exit_code);
  if (boot) {
    w.family("rdma_provision_boot_exit_code", "gauge",
             "Exit code of each phase's apply in this boot: the initramfs' (from its record in "
             "/run/rdma-provision/initramfs) and this run's.");
    if (boot->phase == Phase::kRealRoot && boot->initramfs_exit_code) {
      w.sample(label("phase", "initramfs") + "," + label("boot_id", boot->boot_id),
               *boot->initramfs_exit_code);
    }
    w.sample(
        label("phase", std::string(to_string(boot->phase))) + "," + label("boot_id", boot->boot_id),
        exit_code);
    if (boot->root) {
      w.family("rdma_provision_root_over_rdma", "gauge",
               "1 when the root file system is NFS over RDMA (proto=rdma), 0 otherwise.");
      w.sample(label("fstype", boot->root->fstype), boot->root->over_rdma() ? 1 : 0);
    }
  }
  w.family("rdma_provision_enabled", "gauge", "0 when rd.rdma=0 (or [general] enabled = no).");
  w.sample("", plan.enabled && cfg.enabled.value ? 1 : 0);
  w.family("rdma_provision_actions", "gauge",
           "Actions of the last apply, by outcome (checked: a data-path check that passed; done: a "
           "change made).");
  const std::pair<const char*, unsigned> counts[] = {
      {"done", report ? report->done : 0},       {"already", report ? report->already : 0},
      {"checked", report ? report->checked : 0}, {"skipped", report ? report->skipped : 0},
      {"failed", report ? report->failed : 0},   {"timed_out", report ? report->timed_out : 0}};
  for (const auto& [outcome, n] : counts) w.sample(label("outcome", outcome), n);
  w.family("rdma_provision_duration_seconds", "gauge", "How long the last apply took.");
  w.sample("", report ? static_cast<double>(report->took.count()) / 1000.0 : 0.0);
  w.family("rdma_provision_deadline_seconds", "gauge",
           "The deadline of the run (rd.rdma.timeout, [general] timeout).");
  w.sample("", plan.timeout_s);
  w.family("rdma_provision_last_run_timestamp_seconds", "gauge",
           "When the last apply ended (Unix time).");
  w.sample("", static_cast<double>(now));
  w.family("rdma_provision_port_state", "gauge",
           "State of each RDMA port as the run left it (the IB port states: 1 DOWN, 2 INIT, "
           "3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER; 0 unknown).");
  for (const auto& d : after.rdma) {
    for (const auto& p : d.ports) {
      w.sample(label("device", d.name) + "," + label("port", std::to_string(p.num)) + "," +
                   label("netdev", p.netdev),
               static_cast<int>(p.state));
    }
  }
  w.family("rdma_provision_verify", "gauge",
           "The data-path checks of the last apply (rd.rdma.verify): 1 passed, 0 failed or "
           "not run; check is port (RC loopback), peer (rdma_cm connection) or nvmf (an NVMe/RDMA "
           "target's admin queue).");
  for (size_t i = 0; report && i < plan.actions.size() && i < report->outcomes.size(); ++i) {
    const Action& a = plan.actions[i];
    const ActionKind k = a.kind();
    if (k != ActionKind::kVerifyPort && k != ActionKind::kVerifyPeer &&
        k != ActionKind::kVerifyNvmf)
      continue;
    w.sample(label("check", k == ActionKind::kVerifyPort   ? "port"
                            : k == ActionKind::kVerifyPeer ? "peer"
                                                           : "nvmf") +
                 "," + label("object", a.object()),
             report->outcomes[i].kind == OutcomeKind::kChecked ? 1 : 0);
  }
  w.family("rdma_provision_link_expected", "gauge",
           "The links checked against what the fabric expects (rd.rdma.expect): 1 as "
           "expected, 0 degraded or not checked; port 0 is the HCA (firmware, PCIe link).");
  for (size_t i = 0; report && i < plan.actions.size() && i < report->outcomes.size(); ++i) {
    const Action& a = plan.actions[i];
    if (a.kind() != ActionKind::kCheckLink) continue;
    const auto& c = a.get<CheckLink>();
    w.sample(label("device", c.device) + "," + label("port", std::to_string(c.port)) + "," +
                 label("expected", c.want.str()),
             static_cast<int>(report->outcomes[i].kind == OutcomeKind::kChecked));
  }
  // NVMe over Fabrics controllers over RDMA (a root on NVMe/RDMA: `nvmf --boot` connected
  // them in the initramfs): 1 while live, 0 otherwise (reconnecting after a lost link).
  w.family("rdma_provision_nvmf_controller", "gauge",
           "NVMe over Fabrics controllers over RDMA: 1 live, 0 otherwise (its state label says).");
  for (const auto& c : after.nvme) {
    if (c.transport != "rdma") continue;
    w.sample(label("controller", "nvme" + std::to_string(c.instance)) + "," +
                 label("address", c.address) + "," + label("subsysnqn", c.subsysnqn) + "," +
                 label("state", c.state),
             c.state == "live" ? 1 : 0);
  }
  w.family("rdma_provision_port_roce_mode", "gauge",
           "Default RoCE mode of each port in the rdma_cm configfs (1 for the mode it has).");
  for (const auto& d : after.rdma) {
    for (const auto& p : d.ports) {
      if (p.cm_roce_mode.empty()) continue;
      w.sample(label("device", d.name) + "," + label("port", std::to_string(p.num)) + "," +
                   label("mode", p.cm_roce_mode),
               1);
    }
  }
  return w.str();
}

std::string listen_metrics_text(const ListenStats& s) {
  Writer w;
  auto counter = [&](const char* name, const char* help, uint64_t v) {
    w.family(name, "counter", help);
    w.sample("", static_cast<double>(v));
  };
  counter("rdma_provision_listener_sessions_total", "Peer-check connections accepted.", s.sessions);
  counter("rdma_provision_listener_refusals_total",
          "Connect requests rejected for good: outside --allow, or not a verify client.",
          s.refused);
  counter("rdma_provision_listener_busy_total",
          "Connect requests answered busy (at --max-sessions).", s.busy);
  w.family("rdma_provision_listener_checks_total", "counter",
           "Sessions ended, by whether the client's RDMA WRITE checked.");
  w.sample(label("result", "passed"), static_cast<double>(s.passed));
  w.sample(label("result", "failed"), static_cast<double>(s.failed));
  counter("rdma_provision_listener_expired_total", "Sessions closed at the per-session deadline.",
          s.expired);
  counter("rdma_provision_listener_relistens_total",
          "Times the listener was re-created after a device removal or an address change.",
          s.relistens);
  w.family("rdma_provision_listener_active_sessions", "gauge", "Sessions open now.");
  w.sample("", static_cast<double>(s.active));
  w.family("rdma_provision_listener_max_sessions", "gauge",
           "The cap on sessions open at once (--max-sessions).");
  w.sample("", static_cast<double>(s.max_sessions));
  return w.str();
}

}  // namespace rp
