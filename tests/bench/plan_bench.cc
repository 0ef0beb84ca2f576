// Benchmark: what discovery + input loading + planning cost as a node grows (1, 4, 16, 64
// dual-port HCAs with names, P_Keys and RoCE defaults), in process, and what the whole
// `rdma-provision apply --root` costs on the same trees (a process per run; the RoCE
// defaults are written each time, the netlink actions are skipped on a fixture); then a
// 10,000-node table in the native config. Prints medians and spreads and the fitted cost
// per port; then, for 32 and 64 HCAs, the syscalls of apply (strace -c: the stable
// measure beside the time) when it writes every RoCE default and when a second run finds
// everything in place (which must make no kernel write and no configfs mkdir). Not a
// test: figures are printed, nothing is asserted.
//
// The trees live in /dev/shm when TMPDIR is not set: sysfs and configfs are in-memory
// filesystems, and a tree on a disk filesystem adds journal costs to every write that the
// kernel's own attributes never have.
//
//   bazel run -c opt //tests/bench:plan_bench [-- runs]
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "provision/inputs/load.h"
#include "provision/resolve/node_table.h"
#include "provision/plan/plan.h"

namespace {

// Test scaffolding: a failing shell step is reported by what follows it.
void sh(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "command failed: %s\n", cmd.c_str());
}

using Clock = std::chrono::steady_clock;

std::string guid(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%04llx:%04llx:%04llx:%04llx", (unsigned long long)(v >> 48),
                (unsigned long long)((v >> 32) & 0xffff), (unsigned long long)((v >> 16) & 0xffff),
                (unsigned long long)(v & 0xffff));
  return b;
}

std::string addr20(uint64_t g) {
  std::string s = "80:00:02:08:fe:80:00:00:00:00:00:00";
  for (int i = 7; i >= 0; --i) {
    char b[4];
    std::snprintf(b, sizeof b, ":%02llx", (unsigned long long)((g >> (8 * i)) & 0xff));
    s += b;
  }
  return s;
}

// A node with `hcas` dual-port ConnectX-3 (port 1 IB, port 2 Ethernet), as a fixture
// description; the native config names every IPoIB port, adds a P_Key child to each, and
// sets RoCE defaults on every Ethernet port.
void write_node(const std::string& dir, int hcas, std::string& config) {
  std::ofstream d(dir + ".sys");
  d << "net lo type=772 address=00:00:00:00:00:00 mtu=65536\n";
  for (int i = 0; i < hcas; ++i) {
    char bdf[32];
    std::snprintf(bdf, sizeof bdf, "0000:%02x:00.0", 0x10 + i);
    uint64_t g = 0xf452140300700000ULL + static_cast<uint64_t>(i) * 0x10;
    // ConnectX-3 Pro (0x1007): RoCE v1 and v2 GIDs (plain ConnectX-3 has v1 only).
    d << "pci " << bdf << " driver=mlx4_core vendor=0x15b3 device=0x1007 mlx4_port1=ib "
      << "mlx4_port2=eth mlx4_port1_mtu=4096\n";
    d << "rdma mlx4_" << i << " pci=" << bdf << " node_guid=" << guid(g)
      << " fw_ver=2.42.5000 board_id=MT_1090120019 hca_type=MT4099\n";
    d << "port mlx4_" << i << "/1 state=ACTIVE link_layer=InfiniBand rate=\"56 Gb/sec (4X FDR)\" "
      << "guid=" << guid(g + 1) << " lid=0x" << std::hex << (i + 2) << std::dec << " sm_lid=0x1\n";
    d << "port mlx4_" << i << "/2 state=ACTIVE link_layer=Ethernet rate=\"40 Gb/sec (4X QDR)\" "
      << "guid=" << guid(g + 2) << " ndev=en" << i << "d1 gid_types=\"IB/RoCE v1,RoCE v2\"\n";
    d << "net ib" << i << " type=32 address=" << addr20(g + 1) << " pci=" << bdf
      << " dev_port=0 mtu=2044\n";
    char mac[32];
    std::snprintf(mac, sizeof mac, "f4:52:14:%02x:00:02", i);
    d << "net en" << i << "d1 type=1 address=" << mac << " pci=" << bdf << " dev_port=1\n";
    config += "[name stor" + std::to_string(i) + "]\nmatch = " + guid(g + 1) + "\n";
    config += "[pkey stor" + std::to_string(i) + " 0x10]\n";
    config += "[roce mlx4_" + std::to_string(i) + "/2]\nmode = v2\ntos = 106\n";
  }
  d << "module mlx4_core mlx4_en mlx4_ib ib_core ib_ipoib rdma_cm\n";
  d << "mount configfs /sys/kernel/config\n";
  for (int i = 0; i < hcas; ++i) {
    d << "roce_cm mlx4_" << i << "/2 mode=\"IB/RoCE v1\" tos=0\n";
  }
}

// Puts the RoCE defaults back to the kernel's (untimed), so each apply writes them again.
void reset_roce(const std::string& dir, int hcas) {
  for (int i = 0; i < hcas; ++i) {
    const std::string port =
        dir + "/sys/kernel/config/rdma_cm/mlx4_" + std::to_string(i) + "/ports/2/";
    std::ofstream(port + "default_roce_mode") << "IB/RoCE v1\n";
    std::ofstream(port + "default_roce_tos") << "0\n";
  }
}

// Runs the command line tool, output to /dev/null; returns its exit status.
int spawn_quiet(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int st = -1;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ) == 0) {
    waitpid(pid, &st, 0);
  }
  posix_spawn_file_actions_destroy(&fa);
  return st;
}

struct Stats {
  double median, min, max;
};

// The "total" calls of `strace -f -c` around a shell command; -1 without strace.
long strace_total(const std::string& cmd) {
  const std::string out = "/tmp/rp-plan-bench-strace.txt";
  if (std::system(("strace -f -c -o " + out + " sh -c \"" + cmd + "\" 2>/dev/null").c_str()) != 0) {
    return -1;
  }
  std::ifstream in(out);
  long total = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.find(" total") == std::string::npos) continue;
    // "100.00    0.145244          16      8605       351 total": calls is the 4th field.
    std::istringstream f(line);
    std::string pct, secs, usecs;
    f >> pct >> secs >> usecs >> total;
  }
  return total;
}

// What a run changes in the kernel's files under `root`: opens for writing of sysfs,
// configfs and procfs files, and mkdir/rmdir there (strace -e, one line per call).
struct KernelChanges {
  long writes = -1, dirs = -1;
};
KernelChanges kernel_changes(const std::string& cmd, const std::string& root) {
  const std::string out = "/tmp/rp-plan-bench-changes.txt";
  KernelChanges c;
  if (std::system(("strace -f -e trace=openat,open,mkdir,mkdirat,rmdir -o " + out + " sh -c \"" +
                   cmd + "\" 2>/dev/null")
                      .c_str()) != 0) {
    return c;
  }
  c.writes = c.dirs = 0;
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    const bool kernel_path = line.find(root + "/sys/") != std::string::npos ||
                             line.find(root + "/proc/") != std::string::npos;
    if (!kernel_path || line.find("= -1") != std::string::npos) continue;
    if (line.find("mkdir") != std::string::npos || line.find("rmdir(") != std::string::npos) {
      ++c.dirs;
    } else if (line.find("O_WRONLY") != std::string::npos ||
               line.find("O_RDWR") != std::string::npos) {
      ++c.writes;
    }
  }
  return c;
}

Stats measure(
    int runs, const std::function<void()>& f, const std::function<void()>& before = [] {}) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    before();
    auto t0 = Clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}

size_t run_once(const std::string& root_dir, size_t* actions) {
  rp::Root root(root_dir);
  rp::Inventory inv = rp::discover(root, rp::Detail::kPlan);
  rp::InputOptions opt;
  opt.cmdline_text = "rd.rdma.wait=all";
  rp::Inputs in = rp::load_inputs(root, opt);
  in.config = rp::resolve_node_table(inv, in.config);
  if (!in.diag.ok()) {
    std::fprintf(stderr, "input error: %s\n", in.diag.errors[0].str().c_str());
    std::exit(1);
  }
  rp::Plan plan = rp::make_plan(in.config, inv);
  *actions = plan.actions.size();
  return inv.rdma.size();
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 21;
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = std::string(tmp                             ? tmp
                                       : access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                                                       : "/tmp") +
                           "/rp-plan-bench";
  sh("rm -rf '" + base + "' && mkdir -p '" + base + "'");
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string gen = std::string(ws ? ws : ".") + "/tests/fixtures/mkfixtures.py";

  // The command line tool beside this binary (bazel run: the runfiles directory).
  const std::string tool = argc > 2 ? argv[2] : "provision/rdma-provision";
  if (access(tool.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "no rdma-provision at %s\n", tool.c_str());
    return 1;
  }

  std::printf(
      "scaling: plan = discover + inputs + plan in process; apply = `rdma-provision apply"
      " --root` (a process each run); %d runs each\n",
      runs);
  std::printf("%6s %6s %8s | %9s %9s %9s %8s | %9s %9s %9s %8s\n", "HCAs", "ports", "actions",
              "plan med", "min", "max", "/port", "apply med", "min", "max", "/port");
  std::vector<std::pair<double, double>> plan_points, apply_points;  // (ports, median ms)
  for (int hcas : {1, 4, 16, 32, 64}) {
    const std::string dir = base + "/node" + std::to_string(hcas);
    std::string config;
    write_node(dir, hcas, config);
    if (std::system(("python3 '" + gen + "' '" + dir + ".sys' '" + dir + "'").c_str()) != 0) {
      std::fprintf(stderr, "fixture generation failed\n");
      return 1;
    }
    sh("mkdir -p '" + dir + "/etc/rdma-provision'");
    std::ofstream(dir + "/etc/rdma-provision/rdma-provision.conf") << config;
    size_t actions = 0;
    Stats p = measure(runs, [&] { run_once(dir, &actions); });
    int status = 0;
    Stats a = measure(
        runs,
        [&] {
          status = spawn_quiet({tool, "apply", "--log", "stderr", "--root", dir, "--cmdline-string",
                                "rd.rdma.wait=all"});
        },
        [&] { reset_roce(dir, hcas); });
    // On a fixture the netlink actions are skipped; 0 = every other action done or already.
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "apply --root %s ended with status %d\n", dir.c_str(), status);
    }
    const int ports = 2 * hcas;
    plan_points.push_back({static_cast<double>(ports), p.median});
    apply_points.push_back({static_cast<double>(ports), a.median});
    std::printf("%6d %6d %8zu | %9.3f %9.3f %9.3f %8.4f | %9.3f %9.3f %9.3f %8.4f\n", hcas, ports,
                actions, p.median, p.min, p.max, p.median / ports, a.median, a.min, a.max,
                a.median / ports);
  }
  // Least-squares line through (ports, ms): the per-port cost is its slope.
  auto fit = [](const std::vector<std::pair<double, double>>& pts, const char* what, double goal) {
    double n = static_cast<double>(pts.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (auto [x, y] : pts) sx += x, sy += y, sxx += x * x, sxy += x * y;
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double icept = (sy - slope * sx) / n;
    const double at64 = icept + 64 * slope;
    std::printf(
        "fit %-5s: %.4f ms per port + %.3f ms fixed; 64 ports: %.2f ms (goal <= %.0f ms: %s)\n",
        what, slope, icept, at64, goal, at64 <= goal ? "met" : "NOT met");
  };
  fit(plan_points, "plan", 10);
  fit(apply_points, "apply", 12);

  // Syscalls of apply as a process: writing every RoCE default, then the steady state.
  std::printf("syscalls of apply --root (strace -f): %6s %9s | %s\n", "ports", "writing",
              "second run: syscalls, kernel writes (sysfs/configfs/procfs files), mkdir/rmdir");
  for (int hcas : {32, 64}) {
    const std::string dir = base + "/node" + std::to_string(hcas);
    const std::string args = "'" + tool + "' apply --log stderr --root '" + dir +
                             "' --cmdline-string rd.rdma.wait=all > /dev/null 2>&1";
    reset_roce(dir, hcas);
    const long writing = strace_total(args);
    const long steady = strace_total(args);
    const KernelChanges changes = kernel_changes(args, dir);
    std::printf("syscalls of apply --root (strace -f): %6d %9ld | %ld, %ld, %ld\n", 2 * hcas,
                writing, steady, changes.writes, changes.dirs);
  }

  // One node's fixture with a 10,000-row per-node table (plus this node's own row).
  const std::string dir = base + "/table";
  std::string unused;
  write_node(dir, 1, unused);
  sh("python3 '" + gen + "' '" + dir + ".sys' '" + dir + "'");
  sh("mkdir -p '" + dir + "/etc/rdma-provision'");
  std::ofstream conf(dir + "/etc/rdma-provision/rdma-provision.conf");
  conf << "[nodes]\n";
  for (int i = 0; i < 10000; ++i) {
    conf << guid(0x0002c90300310000ULL + static_cast<uint64_t>(i)) << " name=ibs" << i % 1000
         << " address=10." << i / 250 << "." << i % 250 << ".1/16 pkeys=0x10,0x20 mode=datagram\n";
  }
  conf << guid(0xf452140300700001ULL) << " name=ibthis address=10.99.0.1/16 pkeys=0x10\n";
  conf.close();
  size_t actions = 0;
  Stats s = measure(runs, [&] { run_once(dir, &actions); });
  std::printf(
      "10,000-node table: median %.3f ms (min %.3f, max %.3f), %zu actions for this node "
      "(goal: well under 50 ms)\n",
      s.median, s.min, s.max, actions);
  return 0;
}
