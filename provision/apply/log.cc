#include "provision/apply/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

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
// One line, one write(2): whole lines even when loader threads log at once (stdio on the
// unbuffered stderr may split a line into several writes).
void write_stderr_line(LogLevel l, const std::string& m) {
  const std::string line = std::string("rdma-provision: ") + level_word(l) + m + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to report it
    off += static_cast<size_t>(n);
  }
}
}  // namespace

Log::Sink stderr_sink(LogLevel max_level) {
  return [max_level](LogLevel l, const std::string& m) {
    if (static_cast<int>(l) > static_cast<int>(max_level)) return;
    write_stderr_line(l, m);
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
    if (fd < 0 || ::write(fd, rec.data(), rec.size()) < 0) write_stderr_line(l, m);
    if (fd >= 0) ::close(fd);
  };
}

Log::Sink vector_sink(std::vector<std::string>* out) {
  return [out](LogLevel l, const std::string& m) {
    out->push_back(std::to_string(static_cast<int>(l)) + " " + m);
  };
}

}  // namespace rp
