#include "provision/base/modprobe.h"

#include "provision/base/strings.h"

namespace rp {

std::string modprobe_name(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

bool install_forbids(std::string_view command) {
  const auto words = split_ws(command);
  if (words.empty()) return false;
  for (std::string_view w : {"true", "false", "/bin/true", "/bin/false", "/usr/bin/true",
                             "/usr/bin/false", "/sbin/true", "/usr/sbin/true"}) {
    if (words[0] == w) return true;
  }
  return false;
}

}  // namespace rp
