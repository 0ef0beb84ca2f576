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

std::string_view closest_word(std::string_view word, const std::vector<std::string_view>& known) {
  std::string_view best;
  size_t best_d = 3;
  bool tie = false;
  for (auto k : known) {
    size_t d = edit_distance(word, k, 2);
    if (d < best_d) {
      best = k, best_d = d, tie = false;
    } else if (d == best_d && k != best) {
      tie = true;
    }
  }
  return tie ? std::string_view() : best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& known) {
  if (auto near = closest_word(word, known); !near.empty()) {
    return "(did you mean " + quote(near) + "?)";
  }
  std::string list;
  for (auto k : known) list += std::string(list.empty() ? "" : ", ") + std::string(k);
  return "(known: " + list + ")";
}

}  // namespace rp
