// Small string helpers shared by the parsers and the sysfs readers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
// Split at whitespace runs, dropping empty fields.
std::vector<std::string_view> split_ws(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
std::string to_lower(std::string_view s);

// Unsigned integer in decimal or 0x-hex; nothing else (no sign, no spaces, no suffix).
std::optional<uint64_t> parse_uint(std::string_view s);
// Same, but hex without the 0x prefix as well (sysfs prints pkeys as "0xffff" or "ffff").
std::optional<uint64_t> parse_hex(std::string_view s);

// "1 action", "2 actions": a count with its noun, singular for one.
// The non-empty items of `v`, `sep` between them ("a", "", "b" with ", ": "a, b").
std::string join(const std::vector<std::string>& v, std::string_view sep);
std::string count_of(size_t n, std::string_view noun);
// The parts one after the other: one call instead of a chain of operator+ (each of which
// libc++ inlines, a few hundred bytes of the static binary per message).
std::string cat(std::initializer_list<std::string_view> parts);

std::string hex(uint64_t v, int width);  // zero-padded lower-case hex, no prefix
std::string quote(std::string_view s);   // 'value'; control and non-ASCII bytes as \xNN

// 'value' for a POSIX shell: single quotes keep every byte as it is (newlines, $, `, \),
// and an embedded ' becomes '\'' (close, escaped quote, reopen).
std::string shell_quote(std::string_view s);

// Levenshtein distance, or limit+1 once it is certainly above `limit` (for "did you mean").
size_t edit_distance(std::string_view s, std::string_view t, size_t limit);
// The one word of `known` within two edits of `word` (a typo), or "" (none, or a tie).
std::string_view closest_word(std::string_view word, const std::vector<std::string_view>& known);
// The end of an "unknown <thing> 'word'" message: "(did you mean 'x'?)" for a typo of one
// known word, else "(known: a, b, c)".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& known);

}  // namespace rp
