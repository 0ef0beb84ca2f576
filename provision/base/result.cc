#include "provision/base/result.h"

#include <cerrno>
#include <cstring>

namespace rp {

std::string errno_text(int errnum) {
  switch (errnum) {
    case EPERM:
      return "Operation not permitted";
    case ENOENT:
      return "No such file or directory";
    case EINTR:
      return "Interrupted system call";
    case EIO:
      return "Input/output error";
    case ENXIO:
      return "No such device or address";
    case E2BIG:
      return "Argument list too long";
    case EAGAIN:
      return "Resource temporarily unavailable";
    case ENOMEM:
      return "Cannot allocate memory";
    case EACCES:
      return "Permission denied";
    case EBUSY:
      return "Device or resource busy";
    case EEXIST:
      return "File exists";
    case ENODEV:
      return "No such device";
    case ENOTDIR:
      return "Not a directory";
    case EISDIR:
      return "Is a directory";
    case EINVAL:
      return "Invalid argument";
    case ENOSPC:
      return "No space left on device";
    case EROFS:
      return "Read-only file system";
    case ERANGE:
      return "Numerical result out of range";
    case ENOSYS:
      return "Function not implemented";
    case ENOTEMPTY:
      return "Directory not empty";
    case ENODATA:
      return "No data available";
    case ETIME:
      return "Timer expired";
    case EPROTO:
      return "Protocol error";
    case EBADMSG:
      return "Bad message";
    case EOVERFLOW:
      return "Value too large for defined data type";
    case EPROTONOSUPPORT:
      return "Protocol not supported";
    case EOPNOTSUPP:
      return "Operation not supported";
    case EAFNOSUPPORT:
      return "Address family not supported by protocol";
    case EADDRINUSE:
      return "Address already in use";
    case EADDRNOTAVAIL:
      return "Cannot assign requested address";
    case ENETDOWN:
      return "Network is down";
    case ENETUNREACH:
      return "Network is unreachable";
    case ENOBUFS:
      return "No buffer space available";
    case ETIMEDOUT:
      return "Connection timed out";
    case ECONNREFUSED:
      return "Connection refused";
    case EHOSTUNREACH:
      return "No route to host";
    case ENOKEY:
      return "Required key not available";
    case EKEYREJECTED:
      return "Key was rejected by service";
    case ENOEXEC:
      return "Exec format error";
    default:
      return std::strerror(errnum);
  }
}

std::string Error::str() const {
  std::string s = where.empty() ? what : where + ": " + what;
  if (errnum != 0) s += " (" + errno_text(errnum) + ")";
  return s;
}

Error make_error(std::string where, std::string what, int errnum) {
  return Error{std::move(where), std::move(what), errnum};
}

}  // namespace rp
