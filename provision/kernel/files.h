// FileOps: attribute files (sysfs, configfs, procfs) under the root, as Apply changes
// them. The real implementation writes each value with one write(2), as the kernel's
// store handlers expect, and counts the changes it makes. Tests wrap it to make the
// fake tree behave like the kernel (refused writes, re-registration, EBUSY, EIO...).
#pragma once

#include <string>

#include "provision/base/result.h"
#include "provision/base/root.h"

namespace rp {

class FileOps {
 public:
  virtual ~FileOps() = default;
  virtual const Root& root() const = 0;
  virtual Result<std::string> read(const std::string& path) = 0;  // without trailing '\n'
  // Writes `value` exactly as given (callers add the '\n' sysfs wants) in one write(2).
  // The error carries the errno and names the file and the value.
  virtual Status write(const std::string& path, const std::string& value) = 0;
  virtual Status make_dir(const std::string& path) = 0;
  virtual Status remove_dir(const std::string& path) = 0;
  virtual bool exists(const std::string& path) = 0;
  virtual bool writable(const std::string& path) = 0;
  // mount -t <fstype> none <path> (configfs); a fixture root gets a directory instead.
  virtual Status mount(const std::string& fstype, const std::string& path) = 0;
  // Changes made so far (writes, mkdir, rmdir, mount): idempotence tests count them.
  virtual unsigned changes() const = 0;
};

class RealFileOps : public FileOps {
 public:
  explicit RealFileOps(Root root) : root_(std::move(root)) {}
  const Root& root() const override { return root_; }
  Result<std::string> read(const std::string& path) override;
  Status write(const std::string& path, const std::string& value) override;
  Status make_dir(const std::string& path) override;
  Status remove_dir(const std::string& path) override;
  bool exists(const std::string& path) override;
  bool writable(const std::string& path) override;
  Status mount(const std::string& fstype, const std::string& path) override;
  unsigned changes() const override { return changes_; }

 private:
  Root root_;
  unsigned changes_ = 0;
};

}  // namespace rp
