// One walk for text and JSON, as iproute2 prints (lib/json_print.c print_*(PRINT_ANY,
// key, fmt, value)): each value is given once, with its JSON key and its text, and the
// mode picks which is written, so the two forms of `status` and `plan` cannot drift
// apart. text() is iproute2's PRINT_FP (text only), json() its PRINT_JSON, any() both.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "provision/base/json.h"

namespace rp {

class Printer {
 public:
  enum class Mode { kText, kJson };
  explicit Printer(Mode m) : json_(m == Mode::kJson) {}
  bool json_mode() const { return json_; }

  Printer& text(std::string_view s) {
    if (!json_) text_ += s;
    return *this;
  }
  template <typename T>
  Printer& json(std::string_view key, const T& v) {
    if (json_) put(w_.key(key), v);
    return *this;
  }
  template <typename T>
  Printer& any(std::string_view key, const T& v, std::string_view text_form) {
    json(key, v);
    return text(text_form);
  }
  // An element of the JSON array open now.
  template <typename T>
  Printer& item(const T& v) {
    if (json_) put(w_, v);
    return *this;
  }
  // JSON containers (nothing in text): under `key`, or, without one, an array's element
  // or the top level.
  Printer& open_object(std::string_view key = {});
  Printer& close_object();
  Printer& open_array(std::string_view key);
  Printer& close_array();

  std::string str() const { return json_ ? w_.str() : text_; }

 private:
  template <typename T>
  static void put(JsonWriter& w, const std::optional<T>& v) {
    v ? put(w, *v) : (void)w.null();
  }
  template <typename T>
  static void put(JsonWriter& w, const T& v) {
    w.value(v);
  }
  bool json_;
  JsonWriter w_;
  std::string text_;
};

}  // namespace rp
