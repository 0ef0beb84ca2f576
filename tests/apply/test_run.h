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
#include "provision/apply/registry.h"
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
  return Action(SetPortType{*PciAddress::parse(bdf), port, *parse_port_type(type)}, "unknown",
                "test");
}

inline Action port_mtu_action(const std::string& bdf, unsigned port, unsigned bytes) {
  return Action(SetPortMtu{*PciAddress::parse(bdf), port, bytes}, "unknown", "test");
}

inline Action roce_mode_action(const std::string& dev, unsigned port, RoceMode mode) {
  return Action(SetRoceMode{dev, port, mode}, "unknown", "test");
}

inline Action roce_tos_action(const std::string& dev, unsigned port, unsigned tos) {
  return Action(SetRoceTos{dev, port, tos}, "unknown", "test");
}

inline Action wait_port_action(const std::string& dev, unsigned port) {
  return Action(WaitPort{dev, port}, "unknown", "test");
}

}  // namespace rp::testing
