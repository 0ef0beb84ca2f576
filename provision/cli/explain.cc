// `rdma-provision explain`: the last boot in a few lines, for the administrator of a node
// that booted badly: what each phase's run was asked and did, what failed and why, how the
// root is mounted, and where the full record and the kernel-log lines are. It reads only
// the records the runs left in /run (report/record.h), so it works on the real root and in
// an rd.break shell alike, and never touches the kernel.
#include <cstdio>

#include "provision/base/json.h"
#include "provision/base/root.h"
#include "provision/base/strings.h"
#include "provision/cli/commands.h"
#include "provision/report/handoff.h"
#include "provision/report/record.h"

namespace rp {
namespace {

// Where rdma-provision.service's apply --history keeps the records of this boot and the
// one before.
constexpr const char* kHistoryDir = "/var/lib/rdma-provision";

// What an exit code of apply means (the man page's EXIT STATUS; the dracut hooks record a
// signal's 128+N, rdma-provision-lib.sh rp_record_crash).
std::string exit_meaning(const std::string& code) {
  if (code == "0") return "all done";
  if (code == "1") return "some actions failed";
  if (code == "2") return "invalid input, nothing applied";
  if (code == "3") return "the deadline passed before everything was done";
  if (code.empty()) return "nothing applied (disabled, or still running)";
  return "killed or crashed";
}

// One run's record, as explain tells it.
struct Told {
  std::string title, path, when, code, summary, not_applied;
  bool disabled = false;
  std::vector<std::string> actions, errors, warnings, slowest;
  bool ok() const { return code.empty() || code == "0"; }
};

std::vector<std::string> lines_of(const std::string& list) {
  std::vector<std::string> out;
  for (auto line : split(list, '\n'))
    if (!line.empty()) out.emplace_back(line);
  return out;
}

Told read_record(const std::string& title, const std::string& path,
                 const std::map<std::string, std::string>& env) {
  auto get = [&](const char* k) {
    auto it = env.find(k);
    return it == env.end() ? std::string() : it->second;
  };
  Told t;
  t.title = title;
  t.path = path;
  t.when = get("RP_FINISHED");
  t.code = get("RP_EXIT_CODE");
  t.summary = get("RP_SUMMARY");
  t.not_applied = get("RP_NOT_APPLIED");
  t.disabled = get("RP_ENABLED") == "0";
  t.actions = lines_of(get("RP_ACTIONS"));
  t.warnings = lines_of(get("RP_WARNINGS"));
  t.slowest = lines_of(get("RP_SLOWEST"));
  // An action's error is in its line already; the rest (invalid input, a crash the hooks
  // recorded) on its own.
  for (auto& e : lines_of(get("RP_ERRORS"))) {
    bool said = false;
    for (const auto& a : t.actions) said |= a.find(e) != std::string::npos;
    if (!said) t.errors.push_back(std::move(e));
  }
  return t;
}

void print_record(const Told& t) {
  std::printf("%-10s %s%sexit %s: %s\n", t.title.c_str(), t.when.c_str(),
              t.when.empty() ? "" : "  ", t.code.empty() ? "-" : t.code.c_str(),
              exit_meaning(t.code).c_str());
  if (t.disabled) std::printf("  disabled (rd.rdma=0 or [general] enabled = no)\n");
  if (!t.summary.empty()) std::printf("  %s\n", t.summary.c_str());
  for (const auto& a : t.actions) std::printf("  %s\n", a.c_str());
  for (const auto& e : t.errors) std::printf("  error: %s\n", e.c_str());
  if (!t.not_applied.empty()) std::printf("  not applied: %s\n", t.not_applied.c_str());
  for (const auto& w : t.warnings) std::printf("  warning: %s\n", w.c_str());
  if (!t.slowest.empty()) {
    std::string list;
    for (const auto& s : t.slowest) list += (list.empty() ? "" : ", ") + s;
    std::printf("  slowest: %s\n", list.c_str());
  }
  std::printf("  record: %s\n", t.path.c_str());
}

void json_record(JsonWriter& w, const Told& t) {
  w.begin_object().field("phase", t.title).field("finished", t.when);
  w.key("exit_code");
  if (auto n = parse_uint(t.code)) {
    w.value(static_cast<uint64_t>(*n));
  } else {
    w.null();
  }
  w.field("meaning", exit_meaning(t.code))
      .field("summary", t.summary)
      .field("disabled", t.disabled);
  for (const auto& [k, list] :
       {std::pair<const char*, const std::vector<std::string>*>{"actions", &t.actions},
        {"errors", &t.errors},
        {"warnings", &t.warnings},
        {"slowest", &t.slowest}}) {
    w.key(k).begin_array();
    for (const auto& l : *list) w.value(l);
    w.end_array();
  }
  w.field("not_applied", t.not_applied).field("record", t.path).end_object();
}

}  // namespace

int cmd_explain(const Options& o) {
  Root root(o.root);
  if (!root_usable(root, o, "explain")) return kExitUsage;
  const std::string boot_id(trim(root.read_or("/proc/sys/kernel/random/boot_id", "")));
  std::vector<Told> told;
  std::vector<std::string> ignored;  // records of another boot
  for (Phase p : {Phase::kInitramfs, Phase::kRealRoot}) {
    auto text = root.read(phase_state_path(p, true));
    if (!text) continue;
    const auto env = read_env(*text);
    auto id = env.find("RP_BOOT_ID");
    if (!boot_id.empty() && id != env.end() && !id->second.empty() && id->second != boot_id) {
      ignored.push_back(std::string(to_string(p)) + " " + id->second);
      continue;
    }
    told.push_back(read_record(std::string(to_string(p)), phase_state_path(p, false), env));
  }
  // Before this version, or when apply never ran (invalid input said by the early step,
  // the hooks' record of a crash): the latest state alone.
  if (told.empty()) {
    if (auto text = root.read(kStateEnvPath)) {
      told.push_back(read_record("last run", kStatePath, read_env(*text)));
    }
  }
  const bool any = !told.empty();
  if (auto text = root.read(kVerifyEnvPath)) {
    told.push_back(read_record("peer check", kVerifyPath, read_env(*text)));
  }
  bool ok = any;
  for (const auto& t : told) ok &= t.ok();
  // The boot before, as apply --history kept it (rdma-provision.service): told, not judged.
  const std::string kept =
      (o.history.empty() ? std::string(kHistoryDir) : o.history) + "/previous/";
  std::vector<Told> before;
  std::string before_id;
  for (Phase p : {Phase::kInitramfs, Phase::kRealRoot}) {
    const std::string file = kept + std::string(to_string(p)) + ".env";
    const std::string text = root.read_or(file, "");
    if (text.empty()) continue;
    const auto env = read_env(text);
    if (auto id = env.find("RP_BOOT_ID"); id != env.end()) before_id = id->second;
    before.push_back(read_record(std::string(to_string(p)), file, env));
  }
  const auto m = root_mount(root);
  const bool mounted = m && m->fstype != "rootfs" && m->fstype != "tmpfs";
  const std::string how = !m               ? ""
                          : m->over_rdma() ? "NFS over RDMA"
                          : m->nfs()       ? "NFS over TCP"
                                           : "";
  constexpr const char* kKernelLog =
      "journalctl -k -b | grep rdma-provision  (in an initramfs shell: dmesg | grep "
      "rdma-provision)";
  if (o.json) {
    JsonWriter w;
    w.begin_object().field("boot_id", boot_id).field("ok", ok).key("records").begin_array();
    for (const auto& t : told) json_record(w, t);
    w.end_array().key("ignored").begin_array();
    for (const auto& i : ignored) w.value(i);
    w.end_array().key("previous_boot");
    if (before.empty()) {
      w.null();
    } else {
      w.begin_object().field("boot_id", before_id).key("records").begin_array();
      for (const auto& t : before) json_record(w, t);
      w.end_array().end_object();
    }
    w.key("root");
    if (m) {
      w.begin_object().field("mounted", mounted).field("device", m->device);
      w.field("fstype", m->fstype).field("how", how).end_object();
    } else {
      w.null();
    }
    w.field("kernel_log", kKernelLog).end_object();
    print(w.str() + "\n");
    return ok ? kExitOk : 1;
  }
  std::printf("rdma-provision: this boot%s%s\n", boot_id.empty() ? "" : " ", boot_id.c_str());
  for (const auto& i : ignored) std::printf("%s: a record of another boot: ignored\n", i.c_str());
  for (const auto& t : told) print_record(t);
  if (!any) {
    std::printf("no record: rdma-provision has not run in this boot (%s is absent)\n",
                kStateEnvPath);
  }
  if (m && !mounted) {
    std::printf("root       not mounted yet (/ is the initramfs' %s)\n", m->fstype.c_str());
  } else if (m) {
    std::printf("root       %s on %s (%s%s)\n", m->device.c_str(), m->mount_point.c_str(),
                m->fstype.c_str(), how.empty() ? "" : (", " + how).c_str());
  }
  if (!before.empty()) {
    std::printf("the boot before%s%s (kept in %s):\n", before_id.empty() ? "" : " ",
                before_id.c_str(), kept.c_str());
    for (const auto& t : before) print_record(t);
  }
  // Where the lines of each run are: the kernel log (the binary writes to /dev/kmsg in
  // the initramfs, apply/log.cc), which the journal keeps as the kernel's.
  std::printf("kernel log: %s\n", kKernelLog);
  return ok ? kExitOk : 1;
}

}  // namespace rp
