// A small streaming JSON writer: status, plan and the /run state file are printed as JSON
// from the same code that prints their text form. Output is deterministic (key order is
// the order of the calls) and always valid UTF-8-safe (control bytes escaped).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rp {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t n);
  JsonWriter& value(int n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(unsigned n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(uint64_t n);
  JsonWriter& value(bool b);
  JsonWriter& null();
  // key(k).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  const std::string& str() const { return out_; }

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool pretty_;
  bool after_key_ = false;
};

std::string json_escape(std::string_view s);

}  // namespace rp
