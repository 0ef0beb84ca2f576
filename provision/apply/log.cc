#include "provision/apply/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace rp {

namespace {
const char* level_word(LogLevel l) {
  switch (l) {
    case LogLevel::kError:
      return "error: ";
    case LogLevel::kWarning:
      return "warning: ";
    default:
      return "";
  }
}
}  // namespace

Log::Sink stderr_sink(LogLevel max_level) {
  return [max_level](LogLevel l, const std::string& m) {
    if (static_cast<int>(l) > static_cast<int>(max_level)) return;
    std::fprintf(stderr, "rdma-provision: %s%s\n", level_word(l), m.c_str());
  };
}

Log::Sink kmsg_sink(const std::string& kmsg_path, LogLevel max_level) {
  if (::access(kmsg_path.c_str(), W_OK) != 0) return stderr_sink(max_level);
  return [kmsg_path, max_level](LogLevel l, const std::string& m) {
    if (static_cast<int>(l) > static_cast<int>(max_level)) return;
    // One record per write(2); the kernel caps a record near 1 KiB. The file is opened
    // per record: the kernel rate-limits each open /dev/kmsg to 10 records per 5 s
    // (printk_devkmsg=ratelimit), which would drop the summary of a longer run.
    std::string rec = "<" + std::to_string(static_cast<int>(l)) +
                      ">rdma-provision: " + level_word(l) + m.substr(0, 900) + "\n";
    int fd = ::open(kmsg_path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, rec.data(), rec.size()) < 0) {
      std::fprintf(stderr, "rdma-provision: %s%s\n", level_word(l), m.c_str());
    }
    if (fd >= 0) ::close(fd);
  };
}

Log::Sink vector_sink(std::vector<std::string>* out) {
  return [out](LogLevel l, const std::string& m) {
    out->push_back(std::to_string(static_cast<int>(l)) + " " + m);
  };
}

}  // namespace rp
