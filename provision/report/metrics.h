// The outcome of a run in Prometheus' text exposition format (version 0.0.4), for
// node_exporter's textfile collector: a fleet sees which nodes provisioned badly without
// logging into each. Written by `apply --metrics FILE` (the real root's unit).
#pragma once

#include <ctime>
#include <string>

#include "provision/apply/apply.h"
#include "provision/config/config.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "provision/report/record.h"
#include "provision/verify/listen_policy.h"

namespace rp {

// Node_exporter's textfile directory on Debian (prometheus-node-exporter's
// ARGS="--collector.textfile.directory=/var/lib/prometheus/node-exporter").
inline constexpr const char* kDefaultMetricsPath =
    "/var/lib/prometheus/node-exporter/rdma_provision.prom";

// `report` null: nothing was applied (invalid input: exit code 2, or rd.rdma=0).
// `after` is the machine as the run left it: per-port state and RoCE mode.
// `boot`, when given: the phase of this run, the initramfs run's exit code (its record,
// read on the real root) and how the root is mounted:
// rdma_provision_boot_exit_code{phase=...}, rdma_provision_root_over_rdma.
struct BootFacts {
  Phase phase = Phase::kRealRoot;
  std::string boot_id;
  std::optional<int> initramfs_exit_code;  // on the real root, from the initramfs' record
  std::optional<RootMount> root;
};
std::string metrics_text(int exit_code, const Config& cfg, const Plan& plan,
                         const ApplyReport* report, const Inventory& after, std::time_t now,
                         const BootFacts* boot = nullptr);

// verify --listen's own counts (--metrics): rdma_provision_listener_sessions_total,
// _refusals_total, _busy_total, _checks_total{result="passed|failed"}, _expired_total,
// _relistens_total, _active_sessions, _max_sessions.
std::string listen_metrics_text(const ListenStats& s);

// A label value as the format wants it: backslash, double quote and newline escaped.
std::string prometheus_label(std::string_view v);

}  // namespace rp
