// The parsers' one way to refuse a value (values.cc, network_values.cc, rdma_values.cc).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "provision/config/config.h"

namespace rp {

// Reports `what` at `where` and gives nullopt, so a parser can `return bad<T>(...)`.
template <typename T>
std::optional<T> bad(const Source& where, Diagnostics& d, std::string what) {
  d.error(where, std::move(what));
  return std::nullopt;
}

}  // namespace rp
