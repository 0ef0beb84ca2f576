#include "provision/report/handoff.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "provision/base/json.h"
#include "provision/base/sort.h"
#include "provision/base/strings.h"
#include "provision/version.h"

namespace rp {

std::string udev_rules(const Config& cfg, bool ask_for_table) {
  // NAME:= makes the name final (udev(7)): a later rule, such as rdma-core's
  // 70-persistent-ipoib.rules, cannot override it. Our names are the merged inputs, in
  // which the command line already overrides the files.
  std::string o =
      "# Persistent RDMA interface names, written by rdma-provision from its configuration.\n"
      "# IPoIB interfaces match on the port GUID only: the first 12 bytes of the 20-byte\n"
      "# address (QPN, subnet prefix) change between boots. DRIVERS==\"?*\" leaves out\n"
      "# P_Key children (virtual netdevs, which share their parent's GUID). A name by PCI\n"
      "# function matches that parent device and the port's dev_port (port - 1).\n";
  for (const auto& [name, key] : cfg.names) {
    o += "# " + key.source + "\n";
    switch (key.value.by) {
      case HwKey::By::kGuid:
        o += "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
             "TEST!=\"parent\", ATTR{address}==\"?*" +
             PortGuid{key.value.value}.colon_bytes() + "\", NAME:=\"" + name + "\"\n";
        break;
      case HwKey::By::kMac:
        o += "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"1\", "
             "ATTR{address}==\"" +
             key.value.str() + "\", NAME:=\"" + name + "\"\n";
        break;
      case HwKey::By::kPci:
        // KERNELS and SUBSYSTEMS match one parent device up the devpath (udev(7)): the PCI
        // function, named by the kernel's "%04x:%02x:%02x.%d" (drivers/pci/probe.c
        // pci_setup_device). dev_port (net/core/net-sysfs.c dev_port_show) tells the ports
        // of one function apart: the port minus one (mlx4/en_netdev.c mlx4_en_init_netdev;
        // ipoib_main.c ipoib_add_port since Linux 4.20, dev_id before, which this rule
        // does not read: apply's rename still names such a second port). TEST!="parent"
        // leaves out create_child P_Key children, which sit under the same function
        // (ipoib_vlan.c __ipoib_vlan_add gives them the parent file).
        o += "ACTION==\"add\", SUBSYSTEM==\"net\", SUBSYSTEMS==\"pci\", KERNELS==\"" +
             key.value.pci.str() + "\", TEST!=\"parent\", ATTR{dev_port}==\"" +
             std::to_string(key.value.port ? key.value.port - 1 : 0) + "\", NAME:=\"" + name +
             "\"\n";
        break;
      case HwKey::By::kRdmaPort:
        // A net device has no udev attribute that names its RDMA device (the link is the
        // other way: the RDMA port's gid_attrs/ndevs, core/sysfs.c), and at its "add" the
        // device may not be registered yet (mlx5_core makes the netdev before mlx5_ib's
        // ib_register_device; rdma_rename may rename it after): apply's rename names it.
        o += "# " + name + " (" + key.value.str() +
             "): named by apply's rename, not here: no udev key matches a net device by its "
             "RDMA port\n";
        break;
    }
  }
  if (ask_for_table && (!cfg.nodes_by_guid.empty() || !cfg.nodes_by_mac.empty())) {
    o += "# The per-node table (" +
         std::to_string(cfg.nodes_by_guid.size() + cfg.nodes_by_mac.size()) +
         " rows): the binary looks each new interface up.\n"
         "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", TEST!=\"parent\", "
         "IMPORT{program}=\"/usr/sbin/rdma-provision udev-name --address $attr{address}\"\n"
         "ACTION==\"add\", SUBSYSTEM==\"net\", ENV{RDMA_PROVISION_NAME}==\"?*\", "
         "NAME:=\"$env{RDMA_PROVISION_NAME}\"\n";
  }
  return o;
}

std::string early_modprobe_conf(const Config& cfg) {
  const auto pfc = wanted_pfc(cfg);
  if (!pfc) return "";
  const std::string source = cfg.pfc_tx ? cfg.pfc_tx->source.str() : cfg.pfc_rx->source;
  return "# Written by rdma-provision before udev starts (" + source +
         "): mlx4_en reads its PFC\n# masks only when it loads, and the kernel loads it itself.\n"
         "options mlx4_en " +
         pfc->str() + "\n";
}

std::string rdma_rename_guard(const Config& cfg, std::string* note) {
  // The names of our soft devices: those given on the command line or in the files, those
  // of the per-node table's rows (rxe=/siw=: which row is this node's is known only once
  // the NIC is there, after this runs, so every row's), and the rxe<N>/siw<N> the plan
  // chooses.
  std::set<std::string> given;
  bool any = false;
  for (const auto& [netdev, l] : cfg.soft_links) {
    any = true;
    if (!l.name.empty()) given.insert(l.name);
  }
  for (const auto* table : {&cfg.nodes_by_mac, &cfg.nodes_by_guid}) {
    for (const auto& [key, row] : *table) {
      if (!row.soft) continue;
      any = true;
      if (!row.soft->name.empty()) given.insert(row.soft->name);
    }
  }
  // And the fixed names of rd.rdma.devname: a device renamed at boot keeps its name when
  // the real root's udev replays "add" (rdma_rename would give it its policy's name).
  for (const auto& [name, sel] : cfg.rdma_names) {
    any = true;
    given.insert(name);
  }
  if (!cfg.boot.rdma_rename_rules || !any) return "";
  std::string names = "rxe[0-9]*|siw[0-9]*";
  for (const auto& n : given) names += "|" + n;
  const std::string& text = cfg.boot.rdma_rename_rules->value;
  const std::string& path = cfg.boot.rdma_rename_rules->source.file;
  if (starts_with(path, "/etc/")) {
    if (note) {
      *note = path + " renames RDMA devices and masks " + kRunRdmaRenamePath +
              ": the soft devices rdma-provision creates may be renamed by rdma_rename on a "
              "kernel before 6.11; add KERNEL!=\"" +
              names + "\" to its rdma_rename rule";
    }
    return "";
  }
  std::string o = std::string(kRdmaRenameGuardMarker) + " (" + path +
                  "), the soft RDMA devices rdma-provision creates and the names it gives "
                  "left out:\n"
                  "# a kernel before 6.11 does not mark their names as the user's, and "
                  "rdma_rename would rename them.\n";
  for (auto line : split(text, '\n')) {
    const auto t = trim(line);
    if (!t.empty() && t.front() != '#' && t.find("rdma_rename") != std::string_view::npos) {
      o += "KERNEL!=\"" + names + "\", " + std::string(t) + "\n";
    } else {
      o += std::string(line) + "\n";
    }
  }
  while (o.size() >= 2 && o[o.size() - 1] == '\n' && o[o.size() - 2] == '\n') o.pop_back();
  return o;
}

std::string configured_name(const Config& cfg, const HwAddress& address) {
  std::optional<HwKey> key;
  if (auto g = address.ipoib_guid()) key = HwKey::of_guid(*g);
  if (auto m = address.mac()) key = HwKey::of_mac(*m);
  if (!key) return "";
  for (const auto& [name, k] : cfg.names)
    if (k.value == *key) return name;
  const NodeEntry* e = cfg.node_entry(*key);
  return e ? cfg.row_name(*e) : "";
}

std::string state_json(const Config& cfg, const Plan& plan, const ApplyReport* report,
                       const RunRecord* run) {
  JsonWriter w;
  w.begin_object().field("version", RDMA_PROVISION_VERSION).field("enabled", plan.enabled);
  // Whether a failure must stop the boot: the dracut module's policy reads it here, so
  // `required = yes` in the config file counts as much as rd.rdma.required=1.
  w.field("required", cfg.required.value);
  if (run) {
    w.field("phase", to_string(run->phase)).field("boot_id", run->boot_id);
    w.field("started", iso8601(run->started)).field("finished", iso8601(run->finished));
    w.field("exit_code", run->exit_code);
  } else if (report) {
    w.field("exit_code", report->exit_code());
  }
  if (report) w.field("summary", report->summary());
  if (run) {
    w.key("errors").begin_array();
    for (const auto& e : run->errors) w.value(e);
    w.end_array().key("warnings").begin_array();
    for (const auto& e : run->warnings) w.value(e);
    w.end_array();
    if (!run->not_applied.empty()) w.field("not_applied", run->not_applied);
  }
  w.key("actions").begin_array();
  for (size_t i = 0; i < plan.actions.size(); ++i) {
    const Action& a = plan.actions[i];
    w.begin_object().field("kind", to_string(a.kind())).field("object", a.object());
    w.field("current", a.current).field("wanted", a.wanted()).field("reason", a.reason);
    if (report && i < report->outcomes.size()) {
      const Outcome& o = report->outcomes[i];
      w.field("outcome", to_string(o.kind)).field("detail", o.detail);
      w.key("error");
      (o.kind == OutcomeKind::kFailed || o.kind == OutcomeKind::kTimedOut) ? w.value(o.error.str())
                                                                           : w.null();
      w.field("took_ms", static_cast<int64_t>(o.took.count()));
    }
    w.end_object();
  }
  w.end_array();
  w.key("names").begin_array();
  for (const auto& [name, key] : cfg.names) {
    w.begin_object().field("name", name).field("match", key.value.str());
    w.field("by", to_string(key.value.by)).field("source", key.source.str());
    w.end_object();
  }
  w.end_array();
  notes_json(w, plan);
  w.end_object();
  return w.str();
}

namespace {

constexpr int kInvalidExit = 2;  // invalid input: nothing applied

std::string invalid_summary(size_t n) {
  return "invalid input: " + std::to_string(n) + (n == 1 ? " error" : " errors");
}

std::string join_lines(const std::vector<std::string>& v) {
  std::string o;
  for (const auto& s : v) o += (o.empty() ? "" : "\n") + s;
  return o;
}

// The lines of state.env; `report` null: nothing applied (yet), the counts are empty.
std::string env_text(const Config& cfg, bool enabled, const std::string& exit_code,
                     const std::string& summary, const ApplyReport* report,
                     const std::string& errors, const std::string& actions = "",
                     const std::string& slowest = "") {
  std::string o =
      "# rdma-provision's state for the dracut hooks: . /run/rdma-provision/state.env\n";
  auto set = [&](const char* key, std::string_view value) {
    o += std::string(key) + "=" + shell_quote(value) + "\n";
  };
  auto count = [&](const char* key, unsigned n) { set(key, report ? std::to_string(n) : ""); };
  set("RP_VERSION", RDMA_PROVISION_VERSION);
  set("RP_ENABLED", enabled ? "1" : "0");
  set("RP_REQUIRED", cfg.required.value ? "1" : "0");
  set("RP_TIMEOUT", std::to_string(cfg.timeout_s.value));
  // rd.rdma.verify's mode: "peer" makes the module's online hook run `verify --boot`.
  set("RP_VERIFY", cfg.verify.value.mode_name());
  set("RP_EXIT_CODE", exit_code);
  set("RP_SUMMARY", summary);
  count("RP_DONE", report ? report->done : 0);
  count("RP_ALREADY", report ? report->already : 0);
  count("RP_CHECKED", report ? report->checked : 0);
  count("RP_SKIPPED", report ? report->skipped : 0);
  count("RP_FAILED", report ? report->failed : 0);
  count("RP_TIMED_OUT", report ? report->timed_out : 0);
  set("RP_ERRORS", errors);
  std::string names;
  for (const auto& [name, key] : cfg.names) names += (names.empty() ? "" : " ") + name;
  set("RP_NAMES", names);
  set("RP_ACTIONS", actions);
  set("RP_SLOWEST", slowest);
  // NVMe over Fabrics targets over RDMA (dracut's rd.nvmf.discover=rdma,...), one
  // "traddr,host_traddr,trsvcid" per line; and why the network is needed for them, which
  // dracut's 95nvmf asks for for tcp only: the module then writes rd.neednet=1.
  std::string nvmf, need;
  for (const auto* t : cfg.boot.nvmf_rdma()) {
    nvmf += (nvmf.empty() ? "" : "\n") + t->traddr + "," + t->host_traddr + "," + t->trsvcid;
    if (need.empty())
      need = t->source.str() +
             ": an NVMe over Fabrics target over RDMA is reached through "
             "the network (dracut's 95nvmf asks for it for tcp only)";
  }
  set("RP_NVMF_RDMA", nvmf);
  set("RP_NEED_NETWORK", need);
  return o;
}

// What `explain` tells of a run's actions: each that did not succeed as apply printed it,
// and the slowest three (where the boot's time went).
void action_lines(const Plan& plan, const ApplyReport* report, std::string& actions,
                  std::string& slowest) {
  if (!report) return;
  std::vector<std::pair<std::chrono::milliseconds, size_t>> took;
  for (size_t i = 0; i < report->outcomes.size() && i < plan.actions.size(); ++i) {
    const Outcome& o = report->outcomes[i];
    if (o.kind == OutcomeKind::kFailed || o.kind == OutcomeKind::kTimedOut ||
        o.kind == OutcomeKind::kSkipped) {
      actions += (actions.empty() ? "" : "\n") + outcome_line(plan.actions[i], o);
    }
    if (o.took.count() > 0) took.push_back({o.took, i});
  }
  sort_by(took, [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; k < took.size() && k < 3; ++k) {
    const Action& a = plan.actions[took[k].second];
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f s", static_cast<double>(took[k].first.count()) / 1000.0);
    slowest += (slowest.empty() ? "" : "\n") + std::string(secs) + "  " +
               std::string(to_string(a.kind())) + " " + a.object();
  }
}

}  // namespace

std::string state_env(const Config& cfg, const Plan& plan, const ApplyReport* report,
                      const RunRecord* run) {
  std::string errors;
  for (size_t i = 0; report && i < report->outcomes.size(); ++i) {
    const Outcome& out = report->outcomes[i];
    if (out.kind != OutcomeKind::kFailed && out.kind != OutcomeKind::kTimedOut) continue;
    errors += (errors.empty() ? "" : "\n") + out.error.str();
  }
  if (!report && run) errors = join_lines(run->errors);
  std::string summary = report ? report->summary() : "";
  if (!report && run && run->exit_code == kInvalidExit)
    summary = invalid_summary(run->errors.size());
  std::string actions, slowest;
  action_lines(plan, report, actions, slowest);
  std::string o = env_text(cfg, plan.enabled,
                           run      ? std::to_string(run->exit_code)
                           : report ? std::to_string(report->exit_code())
                                    : "",
                           summary, report, errors, actions, slowest);
  // The interfaces whose online point runs apply again (Plan::online_ifaces).
  o += cat({"RP_ONLINE_APPLY=", shell_quote(join(plan.online_ifaces, " ")), "\n"});
  if (run) {
    o += "RP_PHASE=" + shell_quote(to_string(run->phase)) + "\n";
    o += "RP_BOOT_ID=" + shell_quote(run->boot_id) + "\n";
    o += "RP_STARTED=" + shell_quote(iso8601(run->started)) + "\n";
    o += "RP_FINISHED=" + shell_quote(iso8601(run->finished)) + "\n";
    o += "RP_WARNINGS=" + shell_quote(join_lines(run->warnings)) + "\n";
    o += "RP_NOT_APPLIED=" + shell_quote(run->not_applied) + "\n";
  }
  return o;
}

std::string inputs_state_env(const Config& cfg, const Diagnostics& diag) {
  std::string errors;
  for (const auto& e : diag.errors) errors += (errors.empty() ? "" : "\n") + e.str();
  const size_t n = diag.errors.size();
  return env_text(cfg, cfg.enabled.value, n ? "2" : "", n ? invalid_summary(n) : "", nullptr,
                  errors);
}

}  // namespace rp
