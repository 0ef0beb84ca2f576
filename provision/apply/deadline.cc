#include "provision/apply/deadline.h"

#include <algorithm>
#include <thread>

namespace rp {

bool wait_backoff(const Deadline& deadline, const std::function<bool()>& done,
                  Clock::duration first, Clock::duration cap) {
  Clock::duration step = first;
  for (;;) {
    if (done()) return true;
    if (deadline.expired()) return false;
    std::this_thread::sleep_for(std::min(step, deadline.left()));
    step = std::min(step * 2, cap);
  }
}

}  // namespace rp
