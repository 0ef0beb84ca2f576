// `rdma-provision explain`: the last boot in a few lines, for the administrator of a node
// that booted badly: what each phase's run was asked and did, what failed and why, how the
// root is mounted, and where the full record and the kernel-log lines are. It reads only
// the records the runs left in /run (report/record.h), so it works on the real root and in
// an rd.break shell alike, and never touches the kernel.
#include <cstdio>

#include "provision/base/root.h"
#include "provision/base/strings.h"
#include "provision/cli/commands.h"
#include "provision/report/handoff.h"
#include "provision/report/record.h"

namespace rp {
namespace {

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

// The lines of one record; false when it shows a failure.
bool show_record(const std::string& title, const std::string& path,
                 const std::map<std::string, std::string>& env) {
  auto get = [&](const char* k) {
    auto it = env.find(k);
    return it == env.end() ? std::string() : it->second;
  };
  const std::string code = get("RP_EXIT_CODE");
  std::string when = get("RP_FINISHED");
  std::printf("%-10s %s%sexit %s: %s\n", title.c_str(), when.c_str(), when.empty() ? "" : "  ",
              code.empty() ? "-" : code.c_str(), exit_meaning(code).c_str());
  if (get("RP_ENABLED") == "0") std::printf("  disabled (rd.rdma=0 or [general] enabled = no)\n");
  if (!get("RP_SUMMARY").empty()) std::printf("  %s\n", get("RP_SUMMARY").c_str());
  // Each line of a list (held: split() returns views into it).
  for (const char* what : {"error", "warning"}) {
    const std::string list = get(what[0] == 'e' ? "RP_ERRORS" : "RP_WARNINGS");
    for (auto line : split(list, '\n')) {
      if (!line.empty()) {
        std::printf("  %s: %.*s\n", what, static_cast<int>(line.size()), line.data());
      }
    }
  }
  std::printf("  record: %s\n", path.c_str());
  return code.empty() || code == "0";
}

}  // namespace

int cmd_explain(const Options& o) {
  Root root(o.root);
  if (!root_usable(root, o, "explain")) return kExitUsage;
  const std::string boot_id(trim(root.read_or("/proc/sys/kernel/random/boot_id", "")));
  std::printf("rdma-provision: this boot%s%s\n", boot_id.empty() ? "" : " ", boot_id.c_str());
  bool ok = true, any = false;
  for (Phase p : {Phase::kInitramfs, Phase::kRealRoot}) {
    auto text = root.read(phase_state_path(p, true));
    if (!text) continue;
    const auto env = read_env(*text);
    auto id = env.find("RP_BOOT_ID");
    if (!boot_id.empty() && id != env.end() && !id->second.empty() && id->second != boot_id) {
      std::printf("%-10s a record of another boot (%s): ignored\n",
                  std::string(to_string(p)).c_str(), id->second.c_str());
      continue;
    }
    any = true;
    ok &= show_record(std::string(to_string(p)), phase_state_path(p, false), env);
  }
  // Before this version, or when apply never ran (invalid input said by the early step,
  // the hooks' record of a crash): the latest state alone.
  if (!any) {
    if (auto text = root.read(kStateEnvPath)) {
      any = true;
      ok &= show_record("last run", kStatePath, read_env(*text));
    }
  }
  if (!any) {
    std::printf("no record: rdma-provision has not run in this boot (%s is absent)\n",
                kStateEnvPath);
    ok = false;
  }
  if (auto text = root.read(kVerifyEnvPath)) {
    ok &= show_record("peer check", kVerifyPath, read_env(*text));
  }
  if (auto m = root_mount(root); m && (m->fstype == "rootfs" || m->fstype == "tmpfs")) {
    std::printf("root       not mounted yet (/ is the initramfs' %s)\n", m->fstype.c_str());
  } else if (m) {
    std::printf("root       %s on %s (%s%s)\n", m->device.c_str(), m->mount_point.c_str(),
                m->fstype.c_str(),
                m->over_rdma() ? ", NFS over RDMA"
                : m->nfs()     ? ", NFS over TCP"
                               : "");
  }
  // Where the lines of each run are: the kernel log (the binary writes to /dev/kmsg in
  // the initramfs, apply/log.cc), which the journal keeps as the kernel's.
  std::printf(
      "kernel log: journalctl -k -b | grep rdma-provision  (in an initramfs shell: "
      "dmesg | grep rdma-provision)\n");
  return ok ? kExitOk : 1;
}

}  // namespace rp
