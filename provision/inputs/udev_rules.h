// The grammar of udev rules files and udev's string matching, as systemd-udevd has them
// (src/udev/udev-rules.c udev_rules_parse_file, parse_line, udev_rule_parse_value,
// parse_token, token_match_string): shared by the readers of udev's files (ipoib_rules.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "provision/config/config.h"
#include "provision/inputs/file_lines.h"

namespace rp {

// Logical lines as udev_rules_parse_file joins them: leading whitespace dropped from every
// physical line; a line starting with '#' skipped, inside a continuation too; a trailing
// '\' joins the next line with no separator; an empty line ends a continuation. Numbered
// by the last physical line, as udev's messages are. A continuation open at the end of
// the file is dropped, said in `diag`.
std::vector<Line> udev_lines(std::string_view text, const std::string& file, Diagnostics& diag);

struct UdevKey {
  std::string key;   // "NAME", "ATTR"
  std::string attr;  // "address" of ATTR{address}
  bool has_attr = false;
  std::string op;  // ==, !=, =, +=, -=, :=
  std::string value;
  bool fold = false;  // i"...": matched case-insensitively
  std::string text() const { return key + (has_attr ? "{" + attr + "}" : "") + op; }
  // The pair as written, cut short like shown(): "KERNEL==\"eth*\"".
  std::string pair() const;
};

// The key/value pairs of a rule line as parse_line reads them: whitespace and commas
// between pairs (a missing comma is accepted); a key up to whitespace, '=', '{' or an
// operator; {attr}; the operator; an optional e/i prefix; a double-quoted value in which
// only \" is an escape (e"..." takes C escapes). On a pair udev cannot read, false with
// the reason: udev ignores the whole line ("Invalid key/value pair, ignoring.").
bool read_udev_rule(std::string_view s, std::vector<UdevKey>& out, std::string& why);

// What parse_token refuses of a pair ("" when it takes it); NAME+= and ATTR{}:= are taken
// as '=' (k.op changed) with udev's own warning, said in `note`.
std::string udev_token_error(UdevKey& k, std::string& note);

// token_match_string: "?*" is "not empty"; '|' separates alternatives (an empty one
// matches the empty string); with *, ? or [ the alternatives are fnmatch patterns; i"..."
// folds case. The operator != inverts.
bool udev_matches(const UdevKey& k, const std::string& s);

}  // namespace rp
