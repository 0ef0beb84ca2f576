// Test support: a fresh network namespace per test. The process (thread-free when SetUp
// runs) moves into a new network namespace and a private mount namespace with its own
// sysfs, so /sys/class/net shows the namespace's links. Nothing outside it is touched.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "provision/apply/context.h"
#include "provision/kernel/files.h"

namespace rp::testing {

struct NetnsEntry {
  bool entered = false;
  bool forbidden = false;  // unshare() failed with EPERM: the machine forbids namespaces
  bool own_sysfs = false;  // sysfs remounted for the namespace
  std::string why;
};

// unshare(CLONE_NEWNET | CLONE_NEWNS), then sysfs mounted afresh (best effort) and lo up.
// Call with no other thread running.
NetnsEntry enter_new_netns();

// Each test in its own namespace; skipped (with the reason) only when namespaces are
// forbidden.
class NetnsTest : public ::testing::Test {
 protected:
  void SetUp() override;
  NetnsEntry ns_;
};

// An ApplyContext on the live root for executors.
struct LiveContext {
  explicit LiveContext(std::chrono::milliseconds budget);
  RealFileOps files;
  std::vector<std::string> lines;
  Log log;
  ApplyContext ctx;
};

}  // namespace rp::testing
