#include "provision/inputs/udev_rules.h"

#include <fnmatch.h>

#include <cctype>
#include <optional>

#include "provision/base/strings.h"
#include "provision/inputs/text.h"

namespace rp {
namespace {

// C escapes of e"..." (udev_rule_parse_value through cunescape): false for an invalid one.
bool unescape(std::string& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '\\') {
      out += v[i];
      continue;
    }
    if (++i == v.size()) return false;
    switch (v[i]) {
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      case '\'':
        out += '\'';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x': {
        if (i + 2 >= v.size() || !std::isxdigit(static_cast<unsigned char>(v[i + 1])) ||
            !std::isxdigit(static_cast<unsigned char>(v[i + 2])))
          return false;
        out += static_cast<char>(std::stoi(v.substr(i + 1, 2), nullptr, 16));
        i += 2;
        break;
      }
      default:
        return false;
    }
  }
  v = out;
  return true;
}

// The keys udev knows (udev-rules.c parse_token); any other makes it ignore the line.
bool known_key(const std::string& k) {
  for (const char* known :
       {"ACTION",    "DEVPATH",  "KERNEL",  "SYMLINK", "NAME",    "ENV",        "CONST",   "TAG",
        "SUBSYSTEM", "DRIVER",   "ATTR",    "SYSCTL",  "KERNELS", "SUBSYSTEMS", "DRIVERS", "ATTRS",
        "TAGS",      "TEST",     "PROGRAM", "IMPORT",  "RESULT",  "OPTIONS",    "OWNER",   "GROUP",
        "MODE",      "SECLABEL", "RUN",     "GOTO",    "LABEL"})
    if (k == known) return true;
  return false;
}

}  // namespace

// Logical lines as udev_rules_parse_file joins them: leading whitespace dropped from every
// physical line; a line starting with '#' skipped, inside a continuation too; a trailing
// '\' joins the next line with no separator; an empty line ends a continuation. Numbered
// by the last physical line, as udev's messages are.
std::vector<Line> udev_lines(std::string_view text, const std::string& file, Diagnostics& diag) {
  std::vector<Line> out;
  std::optional<Line> pending;
  for_each_line(text, [&](size_t n, std::string_view raw) {
    size_t start = raw.find_first_not_of(" \t\n\r");
    std::string_view line = start == std::string_view::npos ? "" : raw.substr(start);
    if (!line.empty() && line.front() == '#') return;
    Line cur{n, pending ? pending->text + std::string(line) : std::string(line)};
    pending.reset();
    if (!cur.text.empty() && cur.text.back() == '\\') {
      cur.text.pop_back();
      pending = std::move(cur);
      return;
    }
    if (!trim(cur.text).empty()) out.push_back(std::move(cur));
  });
  if (pending) {
    diag.warn(Source::at(Source::Origin::kUdevRules, file, pending->number),
              "unexpected end of file after a line continuation: udev ignores the line "
              "(udev_rules_parse_file), and so does rdma-provision");
  }
  return out;
}

std::string UdevKey::pair() const {
  const std::string all = text() + "\"" + value + "\"";
  return all.size() <= 80 ? all
                          : all.substr(0, 80) + "... (" + std::to_string(all.size()) + " bytes)";
}

// The key/value pairs of a rule line as parse_line reads them: whitespace and commas
// between pairs (a missing comma is accepted); a key up to whitespace, '=', '{' or an
// operator; {attr}; the operator; an optional e/i prefix; a double-quoted value in which
// only \" is an escape (e"..." takes C escapes). On a pair udev cannot read, false with
// the reason: udev ignores the whole line ("Invalid key/value pair, ignoring.").
bool read_udev_rule(std::string_view s, std::vector<UdevKey>& out, std::string& why) {
  size_t i = 0;
  auto fail = [&](size_t from, const char* reason) {
    why = "cannot read " + shown(s.substr(from)) + ": " + reason;
    return false;
  };
  for (;;) {
    while (i < s.size() && (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == ',')) ++i;
    if (i == s.size()) return true;
    const size_t start = i;
    while (i < s.size()) {
      const char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c)) || c == '=' || c == '{') break;
      if ((c == '+' || c == '-' || c == '!' || c == ':') && i + 1 < s.size() && s[i + 1] == '=')
        break;
      ++i;
    }
    if (i == s.size()) return fail(start, "a key without an operator");
    UdevKey k;
    k.key = std::string(s.substr(start, i - start));
    if (s[i] == '{') {
      size_t close = s.find('}', i);
      if (close == std::string_view::npos) return fail(start, "'{' has no closing '}'");
      k.attr = std::string(s.substr(i + 1, close - i - 1));
      k.has_attr = true;
      i = close + 1;
    }
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    for (const char* op : {"==", "!=", "+=", "-=", ":=", "="}) {
      std::string_view o(op);
      if (s.substr(i, o.size()) == o) {
        k.op = std::string(o);
        i += o.size();
        break;
      }
    }
    if (k.op.empty()) return fail(start, "no operator (==, !=, =, +=, -=, :=)");
    if (k.key.empty()) return fail(start, "no key before the operator");
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    bool escaped = false;
    for (int n = 0; n < 2 && i < s.size() && (s[i] == 'e' || s[i] == 'i'); ++n, ++i) {
      bool& flag = s[i] == 'e' ? escaped : k.fold;
      if (flag) return fail(start, "a value prefix given twice");
      flag = true;
    }
    if (i == s.size() || s[i] != '"') return fail(start, "the value is not in double quotes");
    ++i;
    bool closed = false;
    while (i < s.size()) {
      char c = s[i++];
      if (c == '"') {
        closed = true;
        break;
      }
      if (c == '\\' && i < s.size() && s[i] == '"' && !escaped) c = s[i++];
      if (c == '\\' && i < s.size() && escaped) {
        k.value += c;
        c = s[i++];
      }
      k.value += c;
    }
    if (!closed) return fail(start, "the value has no closing '\"'");
    if (escaped && !unescape(k.value)) return fail(start, "an invalid escape in e\"...\"");
    out.push_back(std::move(k));
  }
}

// What parse_token refuses of the keys read here ("" when it takes the pair); NAME+= and
// ATTR{}:= are taken as '=' with udev's own warning, said in `note`.
std::string udev_token_error(UdevKey& k, std::string& note) {
  const bool match = k.op == "==" || k.op == "!=";
  if (!known_key(k.key)) return "invalid key " + shown(k.key);
  if (k.fold && !match) {
    return "the 'i' prefix is only for '==' or '!=' (" + shown(k.text()) + ")";
  }
  if (k.key == "ACTION" || k.key == "KERNEL" || k.key == "SUBSYSTEM" || k.key == "DRIVERS") {
    if (k.has_attr) return "invalid attribute for " + k.key;
    if (!match) return "invalid operator for " + k.key + " (" + k.op + ": only == and !=)";
  }
  if (k.key == "ATTR") {
    if (k.attr.empty()) return "invalid attribute for ATTR";
    if (k.op == "-=") return "invalid operator for ATTR (-=)";
    if (k.op == "+=" || k.op == ":=") {
      note = "ATTR key takes '==', '!=', or '=' operator, assuming '=' (" + shown(k.text()) + ")";
      k.op = "=";
    }
  }
  if (k.key == "NAME") {
    if (k.has_attr) return "invalid attribute for NAME";
    if (k.op == "-=") return "invalid operator for NAME (-=)";
    if (k.op == "+=") {
      note = "NAME key takes '==', '!=', '=', or ':=' operator, assuming '='";
      k.op = "=";
    }
    if (!match && k.value.empty()) return "NAME=\"\": udev will not delete any network interfaces";
    if (!match && k.value == "%k") return "NAME=\"%k\": it would take no effect";
  }
  return "";
}

// token_match_string: "?*" is "not empty"; '|' separates alternatives (an empty one
// matches the empty string); with *, ? or [ the alternatives are fnmatch patterns; i"..."
// folds case. The operator != inverts.
bool udev_matches(const UdevKey& k, const std::string& s) {
  bool match = false;
  if (k.value == "?*") {
    match = !s.empty();
  } else if (k.value.empty()) {
    match = s.empty();
  } else {
    const bool glob = k.value.find_first_of("*?[") != std::string::npos;
    for (auto alt : split(k.value, '|')) {
      const std::string a(alt);
      if (a.empty()) {
        match |= s.empty();
      } else if (glob) {
        match |= ::fnmatch(a.c_str(), s.c_str(), k.fold ? FNM_CASEFOLD : 0) == 0;
      } else {
        match |= k.fold ? to_lower(a) == to_lower(s) : a == s;
      }
    }
  }
  return (k.op == "==") == match;
}

}  // namespace rp
