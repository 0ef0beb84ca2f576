#include "provision/base/strings.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace rp {

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool ends_with(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

static std::optional<uint64_t> parse_digits(std::string_view s, int base) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return v;
}

std::optional<uint64_t> parse_uint(std::string_view s) {
  if (starts_with(s, "0x") || starts_with(s, "0X")) return parse_digits(s.substr(2), 16);
  return parse_digits(s, 10);
}

std::optional<uint64_t> parse_hex(std::string_view s) {
  if (starts_with(s, "0x") || starts_with(s, "0X")) s = s.substr(2);
  return parse_digits(s, 16);
}

std::string hex(uint64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llx", width, static_cast<unsigned long long>(v));
  return buf;
}

std::string quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u >= 0x7f)  // control bytes, and bytes that may not be UTF-8
      out += "\\x" + hex(u, 2);
    else
      out += c;
  }
  return out + "'";
}

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

size_t edit_distance(std::string_view s, std::string_view t, size_t limit) {
  if ((s.size() > t.size() ? s.size() - t.size() : t.size() - s.size()) > limit) return limit + 1;
  std::vector<size_t> prev(t.size() + 1);
  std::vector<size_t> cur(t.size() + 1);
  for (size_t j = 0; j <= t.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= s.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= t.size(); ++j) {
      size_t subst = prev[j - 1] + (s[i - 1] == t[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[t.size()];
}

std::string_view closest_word(std::string_view word, const std::vector<std::string_view>& known) {
  std::string_view best;
  size_t best_d = 3;
  bool tie = false;
  for (auto k : known) {
    // Never the very word given: "no X (did you mean 'X'?)" helps nobody.
    if (k == word) continue;
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

std::string count_of(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string cat(std::initializer_list<std::string_view> parts) {
  size_t n = 0;
  for (auto p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (auto p : parts) out += p;
  return out;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) {
    if (s.empty()) continue;
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

}  // namespace rp
