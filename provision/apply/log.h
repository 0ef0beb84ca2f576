// Log: where Apply's lines go. In the initramfs (or with --log kmsg) to /dev/kmsg with a
// syslog level and the "rdma-provision: " prefix, so they show in dmesg, on the console
// and in the journal; elsewhere to stderr. Tests capture the lines.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rp {

enum class LogLevel { kError = 3, kWarning = 4, kNotice = 5, kInfo = 6, kDebug = 7 };

class Log {
 public:
  using Sink = std::function<void(LogLevel, const std::string&)>;
  explicit Log(Sink sink) : sink_(std::move(sink)) {}
  void error(const std::string& m) { sink_(LogLevel::kError, m); }
  void warn(const std::string& m) { sink_(LogLevel::kWarning, m); }
  void notice(const std::string& m) { sink_(LogLevel::kNotice, m); }
  void info(const std::string& m) { sink_(LogLevel::kInfo, m); }
  void debug(const std::string& m) { sink_(LogLevel::kDebug, m); }

 private:
  Sink sink_;
};

// Sinks: stderr ("rdma-provision: <line>"), /dev/kmsg under the root ("<N>rdma-provision:
// <line>", falling back to stderr when it cannot be opened), and both (kmsg + console
// are the same in an initramfs, so "both" is for interactive runs with --log kmsg).
Log::Sink stderr_sink(LogLevel max_level = LogLevel::kInfo);
Log::Sink kmsg_sink(const std::string& kmsg_path, LogLevel max_level = LogLevel::kInfo);
// Collects lines (for tests): "<level> <line>".
Log::Sink vector_sink(std::vector<std::string>* out);

}  // namespace rp
