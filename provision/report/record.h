// The record of one run, kept for whoever looks at the node after a bad boot: which boot
// and which phase it belongs to, when it ran, how it ended, and what it warned about.
// Each phase keeps its own copy beside the latest (/run survives switch-root), so the
// real root's run no longer hides the initramfs outcome of a node that booted degraded.
#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/base/root.h"

namespace rp {

enum class Phase { kInitramfs, kRealRoot };
std::string_view to_string(Phase p);  // "initramfs" | "real-root"

struct RunRecord {
  Phase phase = Phase::kRealRoot;
  std::string boot_id;  // "" where the kernel file is absent (a fixture tree)
  std::time_t started = 0, finished = 0;
  int exit_code = 0;
  // Said once in the kernel log, kept here too: "source: message".
  std::vector<std::string> warnings, errors;
  // Invalid input: what the node goes without ("[name fab0], [roce mlx5_0]"), or "".
  std::string not_applied;
};

// The phase and boot of a run that starts now. An initramfs has /etc/initrd-release
// (dracut's 99base installs it; systemd's in_initrd(), src/basic/initrd-util.c, tests the
// same file); the boot id is /proc/sys/kernel/random/boot_id (drivers/char/random.c,
// proc_do_uuid: a random UUID per boot).
RunRecord start_record(const Root& root, std::time_t now);

// Where a phase keeps its own copy of state.json and state.env:
// /run/rdma-provision/<phase>/state.{json,env}.
std::string phase_state_path(Phase p, bool env);

// "2026-11-25T03:12:04Z" (UTC); "" for 0.
std::string iso8601(std::time_t t);

// The lines of a state.env file (KEY='value', shell_quote's '\'' for a quote), as a POSIX
// shell would read the assignments: key -> value. Other lines are ignored.
std::map<std::string, std::string> read_env(std::string_view text);

// How the root file system is mounted: the last mount of "/" in /proc/self/mounts
// (fs/proc_namespace.c show_vfsmnt: device, mount point, type, options; octal escapes for
// spaces). In an initramfs before switch-root the real root is at /sysroot.
struct RootMount {
  std::string device, mount_point, fstype, options;
  bool over_rdma() const;  // NFS with proto=rdma (fs/nfs/super.c nfs_show_mount_options)
  bool nfs() const { return fstype == "nfs" || fstype == "nfs4"; }
};
std::optional<RootMount> root_mount(const Root& root);

}  // namespace rp
