// verify: the data path tried (loopback, peer) and verify --listen, the peer's side. Its
// checks change nothing, but --boot writes the result to /run.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>

#include "provision/apply/apply.h"
#include "provision/base/root.h"
#include "provision/base/strings.h"
#include "provision/cli/commands.h"
#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/kernel/files.h"
#include "provision/kernel/rtnl.h"
#include "provision/plan/plan.h"
#include "provision/report/handoff.h"
#include "provision/report/metrics.h"
#include "provision/resolve/node_table.h"
#include "provision/verify/check.h"
#include "provision/verify/listen_policy.h"

namespace rp {
namespace {

// "0.012 s CPU (user + system) for the whole run": what the checks cost the boot's CPU,
// beside the summary's wall time.
std::string cpu_used() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f s CPU (user + system) for the whole run", cpu);
  return buf;
}

volatile sig_atomic_t g_stop_listening = 0;
void stop_listening(int) { g_stop_listening = 1; }

// The listener's counts across a start anew, in the environment of the new process.
constexpr const char* kResumeVar = "RDMA_PROVISION_LISTEN_RESUME";

// After the listening device went away (cm_listen's kDeviceRemoved): the same command as a
// fresh process (execv of its own binary, same PID for the service manager), with every
// descriptor but the standard ones closed, so that the kernel can finish the removal.
int start_anew(const ListenStats& stats) {
  // Root's reader, not iostreams: <fstream> would bring libc++'s locales (200 KB).
  const std::string all = Root("").read_or("/proc/self/cmdline", "");
  std::vector<std::string> words;
  for (size_t at = 0; at < all.size();) {
    const size_t end = all.find('\0', at);
    words.push_back(all.substr(at, end - at));
    at = end == std::string::npos ? all.size() : end + 1;
  }
  if (words.empty()) {
    std::fprintf(stderr,
                 "rdma-provision: verify --listen: /proc/self/cmdline is unreadable: "
                 "cannot start anew\n");
    return 1;
  }
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  ::setenv(kResumeVar, listen_resume_text(stats).c_str(), 1);
  std::fflush(nullptr);
  if (DIR* d = ::opendir("/proc/self/fd")) {
    std::vector<int> fds;
    while (dirent* e = ::readdir(d)) {
      const int fd = std::atoi(e->d_name);
      if (fd > 2 && fd != ::dirfd(d)) fds.push_back(fd);
    }
    ::closedir(d);
    for (int fd : fds) ::close(fd);
  }
  // The binary's own path (its name stays the process name, as `ps` and pidof show it),
  // /proc/self/exe when it cannot be read.
  char self[4096] = "/proc/self/exe";
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) self[n] = '\0';
  if (n <= 0) std::strcpy(self, "/proc/self/exe");
  ::execv(self, argv.data());
  std::fprintf(stderr, "rdma-provision: verify --listen: execv %s: %s\n", self,
               std::strerror(errno));
  return 1;
}

int verify_listen(const Options& o) {
  std::signal(SIGTERM, stop_listening);
  std::signal(SIGINT, stop_listening);
  auto say = [](const std::string& line) {
    std::printf("rdma-provision: verify: %s\n", line.c_str());
    std::fflush(stdout);
  };
  ListenConfig c;
  if (!o.listen_any) c.address = o.listen->address;
  c.port = o.listen->port.value_or(kVerifyPort);
  c.limits.allow = o.allow;
  c.limits.max_sessions = o.max_sessions.value_or(kDefaultMaxSessions);
  c.resume = parse_listen_resume(std::getenv(kResumeVar));
  ::unsetenv(kResumeVar);
  ListenStats last;
  bool said = false;
  c.changed = [&](const ListenStats& st) {
    last = st;
    if (o.metrics.empty()) return;
    // The listener's counts for node_exporter, replaced atomically after each change; a
    // failure to write is said once, not at every session.
    std::string err;
    if (!write_own_file(Root("/"), o.metrics, listen_metrics_text(st), err) && !said) {
      std::fprintf(stderr, "rdma-provision: verify --listen: metrics: %s\n", err.c_str());
      said = true;
    }
  };
  auto end = cm_listen(c, say, [] { return g_stop_listening != 0; });
  if (!end) {
    std::fprintf(stderr, "rdma-provision: verify --listen %s\n", end.error().str().c_str());
    return 1;
  }
  if (*end == ListenEnd::kDeviceRemoved && !g_stop_listening) return start_anew(last);
  return kExitOk;
}

}  // namespace

int cmd_verify(const Options& o) {
  if (o.listen) return verify_listen(o);
  const char* listen_only = !o.allow.empty()     ? "--allow"
                            : o.max_sessions     ? "--max-sessions"
                            : !o.metrics.empty() ? "--metrics"
                                                 : nullptr;
  if (listen_only) {
    std::fprintf(stderr, "rdma-provision: verify: %s goes with --listen\n", listen_only);
    return kExitUsage;
  }
  if (!o.online.empty() && !o.boot) {
    std::fprintf(stderr, "rdma-provision: verify: --online goes with --boot\n");
    return kExitUsage;
  }
  auto p = prepare(o, "verify");
  if (!p) return kExitUsage;
  const Root& root = p->root;
  Inventory& inv = p->inv;
  Inputs& in = p->in;
  Log log(make_sink(root, o.log));
  // root=dhcp: the server dracut's DHCP handler recorded (for the interface now online).
  const std::string dhcp = o.boot ? read_dhcp_root(root, o.online, in.config) : "";
  // At boot apply has said the input's warnings already.
  if (!o.boot)
    for (const auto& w : in.diag.warnings) log.warn(w.str());
  if (!in.diag.ok()) {
    for (const auto& e : in.diag.errors) log.error(e.str());
    log.error("invalid input: nothing verified");
    return kExitInvalid;
  }
  const Config& cfg = in.config;
  const Sourced<VerifySetting>& v = cfg.verify;
  VerifyRequest r;
  std::string peer_source = "--peer";
  std::optional<VerifyPeer> peer;
  if (o.peer) {
    peer = VerifyPeer{o.peer->address, o.peer->port.value_or(kVerifyPort)};
  } else {
    peer = configured_peer(cfg, &peer_source);
  }
  if (o.boot) {
    // At the network-online point, only when rd.rdma.verify=peer asks: the ports the
    // configuration involves, then the peer (plan/verify.cc says why here and not in
    // apply). Quiet when there is nothing to do: the hook runs on every boot.
    if (!cfg.enabled.value || v.value.mode != VerifySetting::Mode::kPeer) return kExitOk;
    r.boot = true;
    r.reason = v.source;
    r.peer_reason = peer_source;
  } else {
    r.reason = o.peer ? "--peer" : "verify";
  }
  // An NVMe over Fabrics root over RDMA: the targets are the peers, each checked by `nvmf
  // --boot` before its connect (verify-nvmf); here the ports.
  const bool nvmf_peers = !o.peer && !cfg.boot.nvmf_rdma().empty();
  if (v.value.mode == VerifySetting::Mode::kPeer && !peer && !nvmf_peers) {
    // root=dhcp: another interface may bring the root-path; the real root has no record
    // of it (dracut's /tmp stays behind in the initramfs) and the initramfs checked it.
    if (!dhcp.empty() && (!o.online.empty() || !inv.initramfs)) {
      log.notice("verify: " + dhcp +
                 (inv.initramfs ? ": checked at the interface that brings it"
                                : ": the initramfs checked that peer"));
      return o.online.empty() ? kExitOk : kExitLater;
    }
    log.error(v.source + ": peer: no address given and root=/netroot= names no NFS server by " +
              "address" + (dhcp.empty() ? "" : ", and " + dhcp) +
              "; write rd.rdma.verify=peer:ADDR");
    return kExitInvalid;
  }
  if (!o.online.empty() && peer && root.is_live()) {
    // dracut sources the online hook once per configured interface, the first one to come
    // up first: the check waits for the interface the route to the peer goes through
    // (the route itself comes with that interface's address).
    const std::string via = rtnl_route_via(peer->address);
    if (via != o.online) {
      log.notice("verify: " + o.online + " is online, but the route to the peer " +
                 peer->address.str() + " " +
                 (via.empty() ? std::string("does not exist yet") : "goes through " + via) +
                 ": the peer is checked when that interface is online");
      return kExitLater;
    }
  }
  r.peer = peer;
  Plan plan = make_verify_plan(cfg, inv, r);
  for (const auto& n : plan.notes) log.notice(n);
  if (plan.actions.empty()) {
    // Checked nothing is not verified (--boot always has its peer, so never here).
    log.error("verify: nothing was checked, so nothing is verified (exit " +
              std::to_string(kExitNothingChecked) +
              "): no RDMA port it can check is present or configured, and no peer is given; "
              "load the HCA's driver, or give --peer ADDR");
    return kExitNothingChecked;
  }
  RealFileOps files(root);
  ApplyContext ctx{files, root.is_live(), Deadline(std::chrono::seconds(plan.timeout_s)), log};
  ApplyReport report = apply_plan(plan, ctx);
  int rc = report.exit_code();
  log.notice("verify: " + count_of(plan.actions.size(), "check") + ", " + cpu_used());
  if (o.boot) {
    std::string err;
    if (!write_run_file(root, kVerifyPath, state_json(cfg, plan, &report), err)) log.error(err);
    if (!write_run_file(root, kVerifyEnvPath, state_env(cfg, plan, &report), err)) log.error(err);
  }
  return rc;
}

}  // namespace rp
