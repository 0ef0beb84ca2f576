// Deadline and bounded waiting. Every wait in Apply ends by the run's deadline; waits are
// event-driven where the kernel offers an event (netlink), else exponentially backed off.
#pragma once

#include <chrono>
#include <functional>

namespace rp {

using Clock = std::chrono::steady_clock;

class Deadline {
 public:
  explicit Deadline(Clock::duration budget) : end_(Clock::now() + budget) {}
  static Deadline at(Clock::time_point end) { return Deadline(end); }
  Clock::time_point end() const { return end_; }
  bool expired() const { return Clock::now() >= end_; }
  Clock::duration left() const {
    auto d = end_ - Clock::now();
    return d < Clock::duration::zero() ? Clock::duration::zero() : d;
  }
  // The sooner of this deadline and now + d (a per-step bound inside the run's budget).
  Deadline sooner(Clock::duration d) const { return at(std::min(end_, Clock::now() + d)); }

 private:
  explicit Deadline(Clock::time_point end) : end_(end) {}
  Clock::time_point end_;
};

// Polls `done` with exponential backoff (first after `first`, doubling up to `cap`)
// until it returns true or the deadline passes. For kernel state that has no event
// (sysfs attributes such as an IB port's state). Returns whether `done` became true.
bool wait_backoff(const Deadline& deadline, const std::function<bool()>& done,
                  Clock::duration first = std::chrono::milliseconds(2),
                  Clock::duration cap = std::chrono::milliseconds(200));

}  // namespace rp
