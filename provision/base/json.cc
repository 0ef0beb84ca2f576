#include "provision/base/json.h"

#include "provision/base/strings.h"

namespace rp {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, at most U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char u = b(0);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
  if (u >= 0xc2 && u <= 0xdf) {
    n = 2;
  } else if (u >= 0xe0 && u <= 0xef) {
    n = 3;
    if (u == 0xe0) lo = 0xa0;  // overlong
    if (u == 0xed) hi = 0x9f;  // surrogates
  } else if (u >= 0xf0 && u <= 0xf4) {
    n = 4;
    if (u == 0xf0) lo = 0x90;  // overlong
    if (u == 0xf4) hi = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(k) < 0x80 || b(k) > 0xbf) return 0;
  return n;
}

}  // namespace

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  size_t plain = 0;  // start of the run of characters copied as they are
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u < 0x7f && u != '"' && u != '\\') continue;
    if (u >= 0x80) {
      // Well-formed UTF-8 is copied; a byte that is not part of it (a value read from a
      // file or the command line may hold any byte) becomes \u00XX, so the state file is
      // always valid JSON, which parsers (jq, Python, nlohmann) refuse otherwise.
      if (const size_t n = utf8_sequence(s, i)) {
        i += n - 1;
        continue;
      }
    }
    out.append(s, plain, i - plain);
    plain = i + 1;
    switch (u) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += "\\u00" + hex(u, 2);
    }
  }
  out.append(s, plain, s.size() - plain);
  out += '"';
  return out;
}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += '}';
  if (first_.empty() && pretty_) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += ']';
  if (first_.empty() && pretty_) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  out_ += json_escape(k);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += json_escape(s);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  before_value();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  before_value();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

}  // namespace rp
