// Error and Result<T>: expected failures travel as values that carry their source
// (file:line, a command-line token, a sysfs path) so every message can name it.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace rp {

struct Error {
  std::string where;  // "mlx4.conf:3", "cmdline: rd.rdma.mlx4=...", "/sys/.../mlx4_port1"
  std::string what;   // "port type 'ethernet' is not one of ib, eth, auto"
  int errnum = 0;     // errno when the kernel refused, else 0

  // "where: what" (plus the errno text when there is one).
  std::string str() const;
};

Error make_error(std::string where, std::string what, int errnum = 0);

// The text of an errno as administrators know it from glibc tools ("Operation not
// supported"), the same in the static musl binary, whose strerror words differ.
std::string errno_text(int errnum);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T value_or(T fallback) const& { return ok() ? std::get<0>(v_) : std::move(fallback); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// For operations that produce nothing but may fail.
struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace rp
