// Benchmark: what discovery + input loading + planning cost as a node grows (1, 4, 16, 64
// dual-port HCAs with names, P_Keys and RoCE defaults), and with a 10,000-node table in
// the native config. Prints medians and spreads of in-process runs and the fitted cost
// per port. Not a test: figures are printed, nothing is asserted.
//
//   bazel run -c opt //tests/bench:plan_bench [-- runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "provision/inputs/load.h"
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
    char bdf[16];
    std::snprintf(bdf, sizeof bdf, "0000:%02x:00.0", 0x10 + i);
    uint64_t g = 0xf452140300700000ULL + static_cast<uint64_t>(i) * 0x10;
    d << "pci " << bdf << " driver=mlx4_core vendor=0x15b3 device=0x1003 mlx4_port1=ib "
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
}

struct Stats {
  double median, min, max;
};

Stats measure(int runs, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
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
  rp::Inputs in = rp::load_inputs(root, inv, opt);
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
  const std::string base = std::string(tmp ? tmp : "/tmp") + "/rp-plan-bench";
  sh("rm -rf '" + base + "' && mkdir -p '" + base + "'");
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string gen = std::string(ws ? ws : ".") + "/tests/fixtures/mkfixtures.py";

  std::printf("plan scaling (discover + inputs + plan, in process, %d runs each)\n", runs);
  std::printf("%6s %6s %8s %10s %10s %10s %12s\n", "HCAs", "ports", "actions", "median ms",
              "min ms", "max ms", "ms per port");
  std::vector<std::pair<double, double>> points;  // (ports, median ms)
  for (int hcas : {1, 4, 16, 64}) {
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
    Stats s = measure(runs, [&] { run_once(dir, &actions); });
    const int ports = 2 * hcas;
    points.push_back({static_cast<double>(ports), s.median});
    std::printf("%6d %6d %8zu %10.3f %10.3f %10.3f %12.4f\n", hcas, ports, actions, s.median, s.min,
                s.max, s.median / ports);
  }
  // Least-squares line through (ports, ms): the per-port cost is its slope.
  double n = static_cast<double>(points.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (auto [x, y] : points) sx += x, sy += y, sxx += x * x, sxy += x * y;
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double icept = (sy - slope * sx) / n;
  std::printf("fit: %.4f ms per port + %.3f ms fixed (goal: 64 ports <= 10 ms, linear)\n", slope,
              icept);

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
