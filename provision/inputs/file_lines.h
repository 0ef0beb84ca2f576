// Lines of the plain-text files rdma-core, modprobe and udev keep, shared by their readers
// (mlx4_conf.cc, modules_conf.cc, modprobe_conf.cc, ipoib_rules.cc): physical lines as the
// tools split them, and the "file:line" every value and message carries.
#pragma once

#include <string>
#include <string_view>

namespace rp {

// A logical line: continuations joined, numbered by its first physical line.
struct Line {
  size_t number = 0;
  std::string text;
};

// Calls f(number, line) for each physical line; the '\r' of CRLF files is dropped.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  size_t number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(++number, line);
    pos = end + 1;
  }
}

}  // namespace rp
