#include "provision/inputs/text.h"

#include <algorithm>

#include "provision/base/strings.h"

namespace rp {

std::vector<std::string_view> split_list(std::string_view s) {
  std::vector<std::string_view> out;
  for (auto part : split(s, ','))
    for (auto w : split_ws(part)) out.push_back(w);
  return out;
}

std::string_view strip_comment(std::string_view line) {
  auto hash = line.find('#');
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

std::string shown(std::string_view s) {
  constexpr size_t kShownMax = 64;
  if (s.size() <= kShownMax) return quote(s);
  return quote(s.substr(0, kShownMax)) + "... (" + std::to_string(s.size()) + " bytes)";
}

}  // namespace rp
