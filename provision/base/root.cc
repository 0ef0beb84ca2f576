#include "provision/base/root.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace rp {

Root::Root(std::string dir) : dir_(std::move(dir)) {
  while (!dir_.empty() && dir_.back() == '/') dir_.pop_back();
}

std::string Root::path(std::string_view kernel_path) const {
  return dir_ + std::string(kernel_path);
}

bool Root::exists(std::string_view p) const {
  struct stat st;
  return ::stat(path(p).c_str(), &st) == 0;
}

bool Root::is_dir(std::string_view p) const {
  struct stat st;
  return ::stat(path(p).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::string> Root::read(std::string_view p) const {
  std::string real = path(p);
  // O_CLOEXEC through the raw syscall: musl's open() adds an fcntl() per call for old
  // kernels, which doubles the syscalls of a sysfs walk. The program never execs.
  int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, real.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd < 0) return make_error(std::string(p), "cannot open", errno);
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return make_error(std::string(p), "cannot read", e);
    }
    out.append(buf, static_cast<size_t>(n));
    // A sysfs attribute comes whole in one read, and a regular file returns less than
    // asked only at its end: a short read ends the file without a second call.
    if (static_cast<size_t>(n) < sizeof buf) break;
  }
  ::close(fd);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string Root::read_or(std::string_view p, std::string fallback) const {
  auto r = read(p);
  return r ? std::move(r).value() : fallback;
}

std::vector<std::string> Root::list(std::string_view p) const {
  std::vector<std::string> out;
  DIR* d = ::opendir(path(p).c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> Root::link_basename(std::string_view p) const {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(path(p).c_str(), buf, sizeof buf - 1);
  if (n < 0) return make_error(std::string(p), "cannot read link", errno);
  std::string target(buf, static_cast<size_t>(n));
  auto slash = target.rfind('/');
  return slash == std::string::npos ? target : target.substr(slash + 1);
}

Result<std::string> Root::resolve(std::string_view p) const {
  char buf[PATH_MAX];
  if (!::realpath(path(p).c_str(), buf)) return make_error(std::string(p), "cannot resolve", errno);
  std::string real = buf;
  if (!dir_.empty()) {
    if (real.compare(0, dir_.size(), dir_) != 0) {
      return make_error(std::string(p), "link leaves the root " + dir_);
    }
    real = real.substr(dir_.size());
    if (real.empty()) real = "/";
  }
  return real;
}

bool Root::is_writable(std::string_view p) const {
  struct stat st;
  if (::stat(path(p).c_str(), &st) != 0) return false;
  return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0;
}

}  // namespace rp
