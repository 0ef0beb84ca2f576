// Shared setup of the executor tests: a fresh fixture tree, the fake kernel over it, a
// context with a deadline, and the actions an executor takes.
#pragma once

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "provision/apply/context.h"
#include "provision/base/result.h"
#include "tests/support/fake_kernel.h"
#include "tests/support/fixture.h"

namespace rp::testing {

struct TestRun {
  explicit TestRun(const std::string& fixture, Clock::duration budget = std::chrono::seconds(10))
      : dir(unpack_fixture(fixture)),
        kernel(dir),
        log(vector_sink(&lines)),
        ctx{kernel, false, Deadline(budget), log},
        start(Clock::now()) {}

  // The raw bytes of a file in the tree (with the newline the kernel prints).
  std::string raw(const std::string& kernel_path) const {
    std::ifstream in(dir + kernel_path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // The node as its initramfs sees it: configfs not mounted, no rdma_cm directories. (The
  // fixtures describe running systems, where configfs is mounted and an earlier run of the
  // manual procedure may have left rdma_cm/<dev> behind.)
  void unmount_configfs() {
    std::filesystem::remove_all(dir + "/sys/kernel/config");
    std::string mounts, line;
    std::ifstream in(dir + "/proc/mounts");
    while (std::getline(in, line)) {
      if (line.find(" configfs ") == std::string::npos) mounts += line + "\n";
    }
    std::ofstream(dir + "/proc/mounts", std::ios::trunc) << mounts;
  }
  long long elapsed_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  }

  std::string dir;
  FakeKernel kernel;
  std::vector<std::string> lines;
  Log log;
  ApplyContext ctx;
  Clock::time_point start;
};

// "(<errno text>)" as Error::str() prints it; the C library's words (glibc and musl differ).
inline std::string errno_text(int errnum) { return "(" + rp::errno_text(errnum) + ")"; }

inline Action port_type_action(const std::string& bdf, unsigned port, const std::string& type) {
  Action a(ActionKind::kSetPortType, bdf + " port " + std::to_string(port), "unknown", type,
           "test");
  a.device = bdf;
  a.port = port;
  a.value = type;
  return a;
}

inline Action port_mtu_action(const std::string& bdf, unsigned port, const std::string& bytes) {
  Action a(ActionKind::kSetPortMtu, bdf + " port " + std::to_string(port) + " MTU", "unknown",
           bytes, "test");
  a.device = bdf;
  a.port = port;
  a.value = bytes;
  return a;
}

inline Action roce_action(ActionKind kind, const std::string& dev, unsigned port,
                          const std::string& value) {
  Action a(kind, dev + "/" + std::to_string(port), "unknown", value, "test");
  a.device = dev;
  a.port = port;
  a.value = value;
  return a;
}

inline Action wait_port_action(const std::string& dev, unsigned port) {
  Action a(ActionKind::kWaitPort, dev + "/" + std::to_string(port), "unknown", "ACTIVE", "test");
  a.device = dev;
  a.port = port;
  return a;
}

}  // namespace rp::testing
