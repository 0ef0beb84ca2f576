#include "provision/base/print.h"

namespace rp {

Printer& Printer::open_object(std::string_view key) {
  if (!json_) return *this;
  if (!key.empty()) w_.key(key);
  w_.begin_object();
  return *this;
}

Printer& Printer::close_object() {
  if (json_) w_.end_object();
  return *this;
}

Printer& Printer::open_array(std::string_view key) {
  if (json_) w_.key(key).begin_array();
  return *this;
}

Printer& Printer::close_array() {
  if (json_) w_.end_array();
  return *this;
}

}  // namespace rp
