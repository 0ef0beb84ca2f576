// Text helpers shared by the input readers: lists, comments, values quoted for messages,
// and the "did you mean" of every unknown-name message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rp {

// "a, b c" -> {"a", "b", "c"} (commas and/or whitespace).
std::vector<std::string_view> split_list(std::string_view s);
// Drops a '#' comment (and everything after it).
std::string_view strip_comment(std::string_view line);
// quote(), cut short: one absurd line must not turn into an absurd message.
std::string shown(std::string_view s);
// The one word of `known` within two edits of `word` (a typo), or "" (none, or a tie).
std::string_view closest_word(std::string_view word, const std::vector<std::string_view>& known);
// The end of an "unknown <thing> 'word'" message: "(did you mean 'x'?)" for a typo of one
// known word, else "(known: a, b, c)".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& known);

}  // namespace rp
