#include "provision/base/root.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "provision/base/sort.h"
#include "provision/base/strings.h"
namespace rp {

Root::Root(std::string dir) : dir_(std::move(dir)) {
  while (!dir_.empty() && dir_.back() == '/') dir_.pop_back();
}

Root Root::live_files() {
  Root r("/");
  r.files_only_ = true;
  return r;
}

namespace {

ReadLog* g_read_log = nullptr;

void note_path(std::string_view p) {
  if (g_read_log) g_read_log->paths.emplace(p);
}
void note_entry(const std::string& dir, std::string_view name) {
  if (g_read_log) g_read_log->paths.insert(dir + "/" + std::string(name));
}

}  // namespace

void Root::record_reads(ReadLog* log) { g_read_log = log; }

std::string Root::path(std::string_view kernel_path) const {
  return dir_ + std::string(kernel_path);
}

bool Root::exists(std::string_view p) const {
  note_path(p);
  struct stat st;
  return ::stat(path(p).c_str(), &st) == 0;
}

bool Root::is_fifo(std::string_view p) const {
  note_path(p);
  struct stat st;
  return ::stat(path(p).c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

bool Root::is_dir(std::string_view p) const {
  note_path(p);
  struct stat st;
  return ::stat(path(p).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

namespace {

// Reads an open file to its end (closing it); `where` names it in errors. At most
// Root::kMaxFileBytes: a kernel attribute is one page, the largest file the program reads
// (modules.builtin, a 10,000-row node table) well under a megabyte; something larger, or
// endless (a character device where a file was expected), is an error, not a hang or an
// ever-growing buffer.
Result<std::string> read_fd(int fd, std::string_view where) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return make_error(std::string(where), "cannot read", e);
    }
    if (out.size() + static_cast<size_t>(n) > Root::kMaxFileBytes) {
      ::close(fd);
      return make_error(std::string(where),
                        "is larger than " + std::to_string(Root::kMaxFileBytes >> 20) +
                            " MiB: not an attribute or configuration file",
                        EFBIG);
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

// openat() through the raw syscall: musl's open() adds an fcntl() per call for old kernels
// to set O_CLOEXEC, which doubles the syscalls of a sysfs walk. The program never execs.
int open_at(int dirfd, const char* path, int flags) {
  return static_cast<int>(::syscall(SYS_openat, dirfd, path, flags | O_CLOEXEC));
}

// Files are opened non-blocking: a FIFO where a file was expected (a hostile --root tree)
// opens at once and reads as empty instead of waiting for a writer forever. sysfs,
// configfs, procfs and regular files ignore the flag.
constexpr int kReadFlags = O_RDONLY | O_NONBLOCK;

Result<std::string> link_base(int dirfd, const char* path, std::string_view where) {
  char buf[PATH_MAX];
  ssize_t n = ::readlinkat(dirfd, path, buf, sizeof buf - 1);
  if (n < 0) return make_error(std::string(where), "cannot read link", errno);
  std::string target(buf, static_cast<size_t>(n));
  auto slash = target.rfind('/');
  return slash == std::string::npos ? target : target.substr(slash + 1);
}

}  // namespace

DirHandle::DirHandle(int fd, std::string kernel_path, int open_errno)
    : fd_(fd), path_(std::move(kernel_path)), open_errno_(open_errno) {}

DirHandle::DirHandle(DirHandle&& o) noexcept
    : fd_(o.fd_), path_(std::move(o.path_)), open_errno_(o.open_errno_) {
  o.fd_ = -1;
}

DirHandle::~DirHandle() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// `name` as a C string without a heap allocation for the usual short sysfs names (a
// string built and freed per attribute makes musl's malloc map and unmap memory).
class CName {
 public:
  explicit CName(std::string_view name) {
    if (name.size() < sizeof small_) {
      std::memcpy(small_, name.data(), name.size());
      small_[name.size()] = '\0';
      p_ = small_;
    } else {
      big_ = std::string(name);
      p_ = big_.c_str();
    }
  }
  const char* c_str() const { return p_; }

 private:
  char small_[128];
  std::string big_;
  const char* p_;
};

}  // namespace

Result<std::string> DirHandle::read(std::string_view name) const {
  note_entry(path_, name);
  // The path for an error message is made only when there is an error.
  auto where = [&] { return path_ + "/" + std::string(name); };
  if (fd_ < 0) return make_error(where(), "cannot open", open_errno_);
  int fd = open_at(fd_, CName(name).c_str(), kReadFlags);
  if (fd < 0) return make_error(where(), "cannot open", errno);
  auto r = read_fd(fd, {});
  if (!r) return make_error(where(), r.error().what, r.error().errnum);
  return r;
}

std::string DirHandle::read_or(std::string_view name, std::string fallback) const {
  note_entry(path_, name);
  // No error to report, so none is made (absent attributes are common: a port without
  // rdma_cm values, a device without a parent).
  int fd = fd_ < 0 ? -1 : open_at(fd_, CName(name).c_str(), kReadFlags);
  if (fd < 0) return fallback;
  auto r = read_fd(fd, {});
  return r ? std::move(r).value() : fallback;
}

Result<std::string> DirHandle::link_basename(std::string_view name) const {
  note_entry(path_, name);
  if (fd_ < 0) {
    return make_error(path_ + "/" + std::string(name), "cannot read link", open_errno_);
  }
  auto r = link_base(fd_, CName(name).c_str(), {});
  if (!r) return make_error(path_ + "/" + std::string(name), r.error().what, r.error().errnum);
  return r;
}

bool DirHandle::exists(std::string_view name) const {
  note_entry(path_, name);
  struct stat st;
  return fd_ >= 0 && ::fstatat(fd_, CName(name).c_str(), &st, 0) == 0;
}

bool DirHandle::is_writable(std::string_view name) const {
  note_entry(path_, name);
  struct stat st;
  if (fd_ < 0 || ::fstatat(fd_, CName(name).c_str(), &st, 0) != 0) return false;
  return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0;
}

DirHandle Root::open_dir(std::string_view p) const {
  note_path(p);
  int fd = open_at(AT_FDCWD, path(p).c_str(), O_PATH | O_DIRECTORY);
  return DirHandle(fd, std::string(p), fd < 0 ? errno : 0);
}

Result<std::string> Root::read(std::string_view p) const {
  note_path(p);
  int fd = open_at(AT_FDCWD, path(p).c_str(), kReadFlags);
  if (fd < 0) return make_error(std::string(p), "cannot open", errno);
  return read_fd(fd, p);
}

std::string Root::read_or(std::string_view p, std::string fallback) const {
  auto r = read(p);
  return r ? std::move(r).value() : fallback;
}

std::vector<std::string> Root::list(std::string_view p) const {
  if (g_read_log) g_read_log->listed.emplace(p);
  std::vector<std::string> out;
  // getdents64 into a buffer on the stack rather than opendir(): musl's DIR carries a
  // 2 KiB buffer on the heap, and its malloc maps and unmaps memory for it on every
  // directory of a sysfs walk (two syscalls each).
  int fd = open_at(AT_FDCWD, path(p).c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return out;
  alignas(8) char buf[8192];
  for (;;) {
    long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      // struct linux_dirent64 (include/linux/dirent.h, fs/readdir.c filldir64): u64 d_ino,
      // s64 d_off, u16 d_reclen, u8 d_type, char d_name[] (NUL-terminated)
      unsigned short reclen;
      std::memcpy(&reclen, buf + off + 16, sizeof reclen);
      const char* name = buf + off + 19;
      if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) out.emplace_back(name);
      off += reclen;
    }
  }
  ::close(fd);
  sort_by(out);
  return out;
}

Result<std::string> Root::link_basename(std::string_view p) const {
  note_path(p);
  return link_base(AT_FDCWD, path(p).c_str(), p);
}

Result<std::string> Root::resolve(std::string_view p) const {
  note_path(p);
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
  note_path(p);
  struct stat st;
  if (::stat(path(p).c_str(), &st) != 0) return false;
  return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0;
}

Status Root::check_write(std::string_view p) {
  auto refuse = [&](const char* why) {
    return make_error(std::string(p), std::string("refusing to write: ") + why, EPERM);
  };
  if (p.empty() || p.front() != '/') return refuse("not an absolute path");
  for (const auto& part : split(p.substr(1), '/')) {
    if (part.empty() || part == "." || part == "..") {
      return refuse("a path with an empty, '.' or '..' component");
    }
  }
  for (std::string_view area : {"/sys/", "/run/"}) {
    if (p.size() > area.size() && p.substr(0, area.size()) == area) return ok_status();
  }
  return refuse("only /sys (with configfs at /sys/kernel/config) and /run are written");
}

Status Root::write_file_atomic(std::string_view kernel_path, const std::string& text) const {
  const std::string shown(kernel_path);
  const std::string real = path(kernel_path);
  for (size_t slash = real.find('/', 1); slash != std::string::npos;
       slash = real.find('/', slash + 1)) {
    const std::string dir = real.substr(0, slash);
    if (::mkdir(dir.c_str(), 0755) == 0) continue;
    struct stat st {};
    if (errno != EEXIST) return make_error(shown, "cannot create the directory " + dir, errno);
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return make_error(shown, "cannot create the directory " + dir + ": something else is there",
                        ENOTDIR);
    }
  }
  const size_t slash = real.rfind('/');
  std::string tmp = real.substr(0, slash + 1) + "." + real.substr(slash + 1) + ".XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return make_error(shown, "cannot create a temporary file beside it", errno);
  auto fail = [&](const char* step) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return make_error(shown, step, e);
  };
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("cannot write");
    done += static_cast<size_t>(n);
  }
  // mkstemp makes 0600; our files are read by the hooks, tools and node_exporter.
  if (::fchmod(fd, 0644) != 0) return fail("cannot set the mode of the temporary file");
  if (::fsync(fd) != 0) return fail("cannot sync");
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return make_error(shown, "cannot close", e);
  }
  if (::rename(tmp.c_str(), real.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return make_error(shown, "cannot rename into place", e);
  }
  return ok_status();
}

}  // namespace rp
