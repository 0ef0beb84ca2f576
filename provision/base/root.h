// Root: the one door to kernel files. Every /sys, /proc, /dev, /run, /etc and
// /lib/modules path resolves under the root directory, so the same code runs on the live
// system ("/"), on a fixture tree in a test, and in the initramfs.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "provision/base/result.h"

namespace rp {

// A directory opened once (O_PATH), its entries read relative to it: the kernel walks the
// directory's path once instead of on every attribute (a sysfs attribute's path has 6 to
// 9 components and crosses class symlinks; the walk was most of discovery's cost). When
// the directory cannot be opened, every read fails with that open's errno. Errors name
// the kernel path of the entry. Movable, not copyable.
class DirHandle {
 public:
  DirHandle(int fd, std::string kernel_path, int open_errno);
  DirHandle(DirHandle&& o) noexcept;
  DirHandle& operator=(DirHandle&&) = delete;
  DirHandle(const DirHandle&) = delete;
  ~DirHandle();

  bool ok() const { return fd_ >= 0; }
  const std::string& kernel_path() const { return path_; }
  // As Root's, for `name` below this directory ("state", "gid_attrs/types/0").
  Result<std::string> read(std::string_view name) const;
  std::string read_or(std::string_view name, std::string fallback) const;
  Result<std::string> link_basename(std::string_view name) const;
  bool exists(std::string_view name) const;
  bool is_writable(std::string_view name) const;

 private:
  int fd_;
  std::string path_;
  int open_errno_;
};

// What the program looked at, for `capture` (cli/capture.cc): every kernel path a Root
// or a DirHandle read, tested or followed, and every directory it listed. Off (nullptr)
// unless a capture runs.
struct ReadLog {
  std::set<std::string> paths;
  std::set<std::string> listed;
};

class Root {
 public:
  // The most read() returns (see root.cc read_fd); larger files are an error (EFBIG).
  static constexpr size_t kMaxFileBytes = size_t{8} << 20;

  explicit Root(std::string dir);
  // The running system read through its files only, as --root reads a tree (no netlink,
  // no verbs): what `capture` records, so that the bundle reads back the same.
  static Root live_files();
  // Records every path looked at through any Root into `log` from now on (nullptr: stop).
  static void record_reads(ReadLog* log);

  // The real path for a kernel path: "/sys/class/net" -> "<dir>/sys/class/net".
  std::string path(std::string_view kernel_path) const;
  const std::string& dir() const { return dir_; }
  // True for the running system ("/"): only then do netlink and verbs describe it.
  bool is_live() const { return dir_.empty() && !files_only_; }

  bool exists(std::string_view kernel_path) const;
  bool is_dir(std::string_view kernel_path) const;
  // A named pipe: reads as empty (never blocks), which for an input file must be an error.
  bool is_fifo(std::string_view kernel_path) const;
  // The file's contents without the trailing newline (sysfs prints one). Never blocks on a
  // FIFO; at most kMaxFileBytes.
  Result<std::string> read(std::string_view kernel_path) const;
  // read(), or `fallback` when the file is missing or unreadable.
  std::string read_or(std::string_view kernel_path, std::string fallback) const;
  // Entry names, sorted, without "." and "..". Empty when the directory is missing.
  std::vector<std::string> list(std::string_view kernel_path) const;
  // The last path component of a symlink's target ("../../mlx4_core" -> "mlx4_core").
  Result<std::string> link_basename(std::string_view kernel_path) const;
  // The symlink target resolved to a kernel path (without the root prefix).
  Result<std::string> resolve(std::string_view kernel_path) const;
  // Whether anyone may write the file (sysfs: 0644 vs 0444 for SR-IOV mlx4_port files).
  bool is_writable(std::string_view kernel_path) const;
  // The directory, opened for reading its entries (see DirHandle).
  DirHandle open_dir(std::string_view kernel_path) const;

  // Where the program may change anything under this root: kernel attributes under /sys
  // (configfs is mounted at /sys/kernel/config), its own files under /run. Absolute,
  // without "." or ".." components and without doubled slashes; else EPERM naming the
  // path. (The files an administrator names on the command line, --output and
  // --state-env, are written where asked; /dev/kmsg is opened for the log.)
  static Status check_write(std::string_view kernel_path);

  // Writes one of our own files (state, metrics, rules; never a kernel attribute) so that
  // a reader sees the old text or the new, never part of it, and the new survives a crash:
  // missing directories made (0755), a temporary file of a unique name beside it, every
  // byte written, fsync, rename over the file. Errors name the path and the step.
  Status write_file_atomic(std::string_view kernel_path, const std::string& text) const;

 private:
  std::string dir_;  // "" for the live system, else without trailing slash
  bool files_only_ = false;
};

}  // namespace rp
