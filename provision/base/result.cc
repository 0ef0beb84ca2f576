#include "provision/base/result.h"

#include <cstring>

namespace rp {

std::string Error::str() const {
  std::string s = where.empty() ? what : where + ": " + what;
  if (errnum != 0) s += std::string(" (") + std::strerror(errnum) + ")";
  return s;
}

Error make_error(std::string where, std::string what, int errnum) {
  return Error{std::move(where), std::move(what), errnum};
}

}  // namespace rp
