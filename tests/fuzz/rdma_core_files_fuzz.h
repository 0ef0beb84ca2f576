// Invariants shared by the fuzz targets of rdma-core's file readers: every message names
// "file:<line>" of a line that exists and says something; every value kept names its line.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "provision/config/config.h"
#include "provision/inputs/values.h"

namespace rp::fuzz {

inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "invariant broken: %s: %s\n", what, detail.substr(0, 200).c_str());
  std::abort();
}

// "file:N" (N a line of `text`), optionally followed by ", file:M" for joined sources.
inline void check_where(std::string_view text, const std::string& file, const std::string& where) {
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  std::string_view rest = where;
  for (;;) {
    if (rest.substr(0, file.size() + 1) != file + ":") fail("where without the file", where);
    rest.remove_prefix(file.size() + 1);
    size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0) fail("where without a line number", where);
    std::string number(rest.substr(0, digits));
    if (number.size() > 9 || std::stoul(number) < 1 || std::stoul(number) > lines) {
      fail("where names a line the text does not have", where);
    }
    if (digits == std::string_view::npos) return;
    rest.remove_prefix(digits);
    if (rest.substr(0, 2) != ", ") fail("junk after the line number", where);
    rest.remove_prefix(2);
  }
}

// Whether the one parser of the value takes it as it was kept (its messages go nowhere).
inline bool module_ok(const std::string& name) {
  Diagnostics scratch;
  return parse_module_name(name, rp::Source{}, scratch) == name;  // valid and normalised
}
inline bool new_ifname_ok(const std::string& name) {
  Diagnostics scratch;
  return parse_new_ifname(name, rp::Source{}, scratch).has_value();
}

inline void check_diagnostics(std::string_view text, const std::string& file,
                              const Diagnostics& diag) {
  for (const auto* list : {&diag.errors, &diag.warnings}) {
    for (const Error& e : *list) {
      check_where(text, file, e.where);
      if (e.what.empty()) fail("message without text", e.where);
      if (e.what.size() > 1000) fail("message too long", e.what);
    }
  }
}

}  // namespace rp::fuzz
