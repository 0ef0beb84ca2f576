// How each action of a plan ended, for the report and the /run state file.
#pragma once

#include <chrono>
#include <string>

#include "provision/base/result.h"

namespace rp {

enum class OutcomeKind {
  kDone,     // changed the kernel as planned (verified by reading back where possible)
  kAlready,  // found in the wanted state when it came to it
  kChecked,  // a check (rd.rdma.verify) that passed: it looked, it changed nothing
  kSkipped,  // not attempted: `detail` says why (a failed dependency, --root, disabled)
  kFailed,   // attempted and refused: `error` names device, file, value, errno and hint
  kTimedOut  // the run's deadline passed while waiting
};
std::string_view to_string(OutcomeKind k);

struct Outcome {
  OutcomeKind kind = OutcomeKind::kDone;
  std::string detail;  // "after 2 retries", "port 1 became ACTIVE in 0.8 s"
  Error error;         // for kFailed / kTimedOut
  std::chrono::milliseconds took{0};

  static Outcome done(std::string detail = "") {
    return {OutcomeKind::kDone, std::move(detail), {}, {}};
  }
  static Outcome already(std::string detail = "") {
    return {OutcomeKind::kAlready, std::move(detail), {}, {}};
  }
  static Outcome checked(std::string detail) {
    return {OutcomeKind::kChecked, std::move(detail), {}, {}};
  }
  static Outcome skipped(std::string why) {
    return {OutcomeKind::kSkipped, std::move(why), {}, {}};
  }
  static Outcome failed(Error e, std::string hint = "") {
    return {OutcomeKind::kFailed, std::move(hint), std::move(e), {}};
  }
  static Outcome timed_out(Error e) { return {OutcomeKind::kTimedOut, "", std::move(e), {}}; }
};

}  // namespace rp
