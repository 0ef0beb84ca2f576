#include "provision/kernel/files.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "provision/base/strings.h"

namespace rp {

Result<std::string> RealFileOps::read(const std::string& path) { return root_.read(path); }

Status RealFileOps::write(const std::string& path, const std::string& value) {
  if (auto st = Root::check_write(path); !st) return st;
  const std::string shown = quote(std::string(trim(value)));
  // The raw syscall, as Root::read: musl's open() adds an fcntl() for O_CLOEXEC.
  int fd = static_cast<int>(
      ::syscall(SYS_openat, AT_FDCWD, root_.path(path).c_str(), O_WRONLY | O_CLOEXEC | O_TRUNC));
  if (fd < 0) return make_error(path, "cannot open for writing " + shown, errno);
  ssize_t n;
  do {
    n = ::write(fd, value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  int err = errno;
  ::close(fd);
  if (n < 0) return make_error(path, "writing " + shown + " failed", err);
  if (static_cast<size_t>(n) != value.size()) return make_error(path, "short write of " + shown);
  ++changes_;
  return ok_status();
}

Status RealFileOps::make_dir(const std::string& path) {
  if (auto st = Root::check_write(path); !st) return st;
  if (::mkdir(root_.path(path).c_str(), 0755) != 0) {
    return make_error(path, "cannot create directory", errno);
  }
  ++changes_;
  return ok_status();
}

Status RealFileOps::remove_dir(const std::string& path) {
  if (auto st = Root::check_write(path); !st) return st;
  if (::rmdir(root_.path(path).c_str()) != 0)
    return make_error(path, "cannot remove directory", errno);
  ++changes_;
  return ok_status();
}

bool RealFileOps::exists(const std::string& path) { return root_.exists(path); }

bool RealFileOps::writable(const std::string& path) { return root_.is_writable(path); }

Status RealFileOps::mount(const std::string& fstype, const std::string& path) {
  if (auto st = Root::check_write(path); !st) return st;
  if (!root_.is_live()) {
    // A fixture root has no kernel to mount anything: the directory stands in for it.
    const std::string real = root_.path(path);
    for (size_t slash = real.find('/', root_.dir().size() + 1); slash != std::string::npos;
         slash = real.find('/', slash + 1)) {
      ::mkdir(real.substr(0, slash).c_str(), 0755);
    }
    if (root_.is_dir(path)) return ok_status();  // already "mounted": no change
    if (::mkdir(real.c_str(), 0755) != 0) {
      return make_error(path, "cannot create the mount point of " + fstype, errno);
    }
    ++changes_;
    return ok_status();
  }
  if (::mount("none", path.c_str(), fstype.c_str(), 0, nullptr) != 0) {
    return make_error(path, "cannot mount " + fstype, errno);
  }
  ++changes_;
  return ok_status();
}

}  // namespace rp
