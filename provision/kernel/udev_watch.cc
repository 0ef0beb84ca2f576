#include "provision/kernel/udev_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace rp {

namespace {

// The database files that can change what apply sees: an interface's ("n<ifindex>"), an
// RDMA device's and a PCI function's ("+infiniband:mlx5_0", "+pci:0000:af:00.0"; written
// when udev stored properties for them). The id scheme: sd-device.c device_get_device_id.
bool relevant(const char* name) {
  return (name[0] == 'n' && name[1] >= '0' && name[1] <= '9') ||
         std::strncmp(name, "+infiniband:", 12) == 0 || std::strncmp(name, "+pci:", 5) == 0;
}

// Where dracut's udev module and the distributions put udevadm.
constexpr const char* kUdevadm[] = {"/usr/bin/udevadm", "/bin/udevadm", "/usr/sbin/udevadm",
                                    "/sbin/udevadm"};

}  // namespace

struct UdevWatch::Impl {
  int inotify = -1;
  int run_watch = -1;   // /run/udev: "data" made, "queue" removed
  int data_watch = -1;  // /run/udev/data, once it exists
  std::string data_dir;
  Root root{"/"};
  bool settle_tried = false;  // settle() was called: once
  pid_t settle_pid = -1;
  int settle_fd = -1;  // read end of a pipe whose write end only the settle holds
  bool settled = false;
  std::string how;

  ~Impl() {
    if (settle_pid > 0) {
      ::kill(settle_pid, SIGKILL);
      while (::waitpid(settle_pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    if (settle_fd >= 0) ::close(settle_fd);
    if (inotify >= 0) ::close(inotify);
  }

  void watch_data() {
    if (data_watch < 0) {
      data_watch = ::inotify_add_watch(inotify, data_dir.c_str(), IN_MOVED_TO | IN_CREATE);
    }
  }

  Status spawn_settle(unsigned seconds) {
    const char* path = nullptr;
    for (const char* p : kUdevadm) {
      if (::access(root.path(p).c_str(), X_OK) == 0) {
        path = p;
        break;
      }
    }
    if (!path) return make_error("udevadm", "not found", ENOENT);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return make_error("udevadm settle", "pipe", errno);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    // The write end as the settle's fd 3 (dup2 clears close-on-exec); its output, which
    // is only ever a timeout message we report ourselves, goes nowhere.
    posix_spawn_file_actions_adddup2(&fa, fds[1], 3);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    const std::string timeout = "--timeout=" + std::to_string(seconds);
    char* argv[] = {const_cast<char*>("udevadm"), const_cast<char*>("settle"),
                    const_cast<char*>(timeout.c_str()), nullptr};
    const int rc = ::posix_spawn(&settle_pid, path, &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fds[0]);
      settle_pid = -1;
      return make_error(path, "cannot run it", rc);
    }
    settle_fd = fds[0];
    how = std::string(path) + " settle " + timeout;
    return ok_status();
  }

  // Reads every queued inotify event; true when one of them matters.
  bool drain() {
    alignas(inotify_event) char buf[4096];
    bool changed = false;
    for (;;) {
      ssize_t n = ::read(inotify, buf, sizeof buf);
      if (n <= 0) break;
      for (char* p = buf; p < buf + n;) {
        auto* e = reinterpret_cast<inotify_event*>(p);
        p += sizeof(inotify_event) + e->len;
        if (e->wd == run_watch && e->len > 0) {
          if ((e->mask & IN_CREATE) && std::strcmp(e->name, "data") == 0) watch_data();
          if ((e->mask & IN_DELETE) && std::strcmp(e->name, "queue") == 0 && settle_pid < 0 &&
              settle_fd < 0) {
            settled = true;
          }
        } else if (e->wd == data_watch && e->len > 0 && relevant(e->name)) {
          changed = true;
        }
      }
    }
    return changed;
  }
};

UdevWatch::UdevWatch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UdevWatch::UdevWatch(UdevWatch&&) noexcept = default;
UdevWatch& UdevWatch::operator=(UdevWatch&&) noexcept = default;
UdevWatch::~UdevWatch() = default;

Result<UdevWatch> UdevWatch::open(const Root& root) {
  auto impl = std::make_unique<Impl>();
  impl->root = root;
  impl->inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (impl->inotify < 0) return make_error("inotify", "cannot watch /run/udev", errno);
  const std::string run = root.path("/run/udev");
  impl->data_dir = root.path("/run/udev/data");
  impl->run_watch = ::inotify_add_watch(impl->inotify, run.c_str(), IN_CREATE | IN_DELETE);
  if (impl->run_watch < 0) return make_error(run, "cannot watch", errno);
  impl->watch_data();  // after the watch on /run/udev: a "data" made in between is seen
  impl->how = "the removal of /run/udev/queue";
  return UdevWatch(std::move(impl));
}

void UdevWatch::settle(unsigned seconds) {
  Impl& s = *impl_;
  if (s.settle_tried || s.settled) return;
  s.settle_tried = true;
  if (auto st = s.spawn_settle(seconds); !st) s.how += " (" + st.error().str() + ")";
}

const std::string& UdevWatch::settle_how() const { return impl_->how; }

UdevWatch::Wake UdevWatch::wait(TimePoint deadline) {
  Impl& s = *impl_;
  for (;;) {
    if (s.settled) return Wake::kSettled;
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Wake::kDeadline;
    pollfd fds[2] = {{s.inotify, POLLIN, 0}, {s.settle_fd, POLLIN, 0}};
    const int n = ::poll(fds, s.settle_fd >= 0 ? 2 : 1,
                         static_cast<int>(std::min<long long>(left.count(), 60'000)));
    if (n < 0 && errno != EINTR) return Wake::kDeadline;
    if (n <= 0) continue;
    if (s.settle_fd >= 0 && (fds[1].revents & (POLLHUP | POLLIN | POLLERR))) {
      // The settle has ended (its end of the pipe closed with it): reaped here.
      while (::waitpid(s.settle_pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      s.settle_pid = -1;
      ::close(s.settle_fd);
      s.settle_fd = -1;
      s.settled = true;
    }
    if (fds[0].revents & POLLIN) {
      if (s.drain()) return Wake::kChanged;
    }
  }
}

}  // namespace rp
