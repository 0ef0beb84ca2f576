#include "provision/base/source.h"

namespace rp {

Source::Source(const Source&) = default;
Source::Source(Source&&) noexcept = default;
Source& Source::operator=(const Source&) = default;
Source& Source::operator=(Source&&) noexcept = default;
Source::~Source() = default;

bool Source::same_input(const Source& o) const {
  if (origin == Origin::kCmdline || o.origin == Origin::kCmdline) return origin == o.origin;
  return file == o.file && origin == o.origin;
}

bool Source::any_of(Origin o) const {
  if (origin == o) return true;
  for (const auto& a : also)
    if (a.any_of(o)) return true;
  return false;
}

std::string Source::str() const {
  std::string s;
  switch (origin) {
    case Origin::kDefault:
      s = "default";
      break;
    case Origin::kCmdline:
      s = "cmdline: " + file;
      break;
    default:
      s = line ? file + ":" + std::to_string(line) : file;
  }
  if (!via.empty()) s += " (" + via + ")";
  for (const auto& a : also) s += ", " + a.str();
  return s;
}

bool Source::operator==(const Source& o) const {
  return origin == o.origin && file == o.file && line == o.line && via == o.via && also == o.also;
}

std::string operator+(const std::string& a, const Source& b) { return a + b.str(); }
std::string operator+(const char* a, const Source& b) { return a + b.str(); }
std::string operator+(const Source& a, const std::string& b) { return a.str() + b; }
std::string operator+(const Source& a, const char* b) { return a.str() + b; }

}  // namespace rp
