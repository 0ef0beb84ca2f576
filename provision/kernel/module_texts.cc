// The words of the module loader: state and status names, and what init_module(2)'s
// errnos mean (kmod's modprobe words them alike, tools/modprobe.c insmod errors).
#include <cerrno>
#include <string>

#include "provision/base/result.h"
#include "provision/kernel/modules.h"

namespace rp {

std::string_view to_string(ModuleState s) {
  switch (s) {
    case ModuleState::kNotLoaded:
      return "not loaded";
    case ModuleState::kBuiltin:
      return "built in";
    case ModuleState::kLive:
      return "live";
    case ModuleState::kComing:
      return "coming";
    case ModuleState::kGoing:
      return "going";
  }
  return "?";
}

std::string_view to_string(LoadStatus s) {
  switch (s) {
    case LoadStatus::kInserted:
      return "inserted";
    case LoadStatus::kWouldInsert:
      return "would insert";
    case LoadStatus::kAlreadyLoaded:
      return "already loaded";
    case LoadStatus::kBuiltin:
      return "built in";
    case LoadStatus::kFailed:
      return "failed";
    case LoadStatus::kTimedOut:
      return "timed out";
  }
  return "?";
}

std::string insert_error_text(int errnum) {
  switch (errnum) {
    case ENOENT:
      return "Unknown symbol in module or unknown parameter";
    case EINVAL:
      return "Invalid parameters";
    case ENOEXEC:
      return "Invalid module format (built for another kernel?)";
    case EPERM:
      return "Operation not permitted (module loading disabled or not allowed)";
    case EKEYREJECTED:
      return "Module signature rejected";
    case ENOKEY:
      return "Module not signed with a key the kernel trusts";
    case EEXIST:
      return "Module already loaded";
    default:
      return errno_text(errnum);
  }
}

}  // namespace rp
