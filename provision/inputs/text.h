// Text helpers shared by the input readers: lists, comments, values quoted for messages,
// and the "did you mean" of every unknown-name message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "provision/base/strings.h"  // closest_word, did_you_mean

namespace rp {

// "a, b c" -> {"a", "b", "c"} (commas and/or whitespace).
std::vector<std::string_view> split_list(std::string_view s);
// Drops a '#' comment (and everything after it).
std::string_view strip_comment(std::string_view line);
// quote(), cut short: one absurd line must not turn into an absurd message.
std::string shown(std::string_view s);

}  // namespace rp
