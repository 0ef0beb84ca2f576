#include "provision/apply/outcome.h"

namespace rp {

std::string_view to_string(OutcomeKind k) {
  switch (k) {
    case OutcomeKind::kDone:
      return "done";
    case OutcomeKind::kAlready:
      return "already";
    case OutcomeKind::kChecked:
      return "checked";
    case OutcomeKind::kSkipped:
      return "skipped";
    case OutcomeKind::kFailed:
      return "failed";
    case OutcomeKind::kTimedOut:
      return "timed-out";
  }
  return "?";
}

}  // namespace rp
