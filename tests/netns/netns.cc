#include "tests/netns/netns.h"

#include <sched.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>

#include "provision/kernel/rtnl.h"

namespace rp::testing {

NetnsEntry enter_new_netns() {
  NetnsEntry e;
  if (::unshare(CLONE_NEWNET | CLONE_NEWNS) != 0) {
    const int err = errno;
    e.forbidden = err == EPERM;
    e.why = std::string("unshare(CLONE_NEWNET | CLONE_NEWNS): ") + std::strerror(err);
    if (e.forbidden) e.why += " (this machine forbids namespaces)";
    return e;
  }
  e.entered = true;
  // Our mounts stay ours; then a sysfs that belongs to the new network namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
      ::mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0) {
    e.own_sysfs = true;
  } else {
    e.why = std::string("sysfs not remounted: ") + std::strerror(errno);
  }
  if (auto st = rtnl_set_link_up("lo", true); !st) {
    e.entered = false;
    e.why = st.error().str();
  }
  return e;
}

void NetnsTest::SetUp() {
  ns_ = enter_new_netns();
  if (ns_.forbidden) GTEST_SKIP() << ns_.why;
  ASSERT_TRUE(ns_.entered) << ns_.why;
}

LiveContext::LiveContext(std::chrono::milliseconds budget)
    : files(Root("/")), log(vector_sink(&lines)), ctx{files, true, Deadline(budget), log} {}

}  // namespace rp::testing
