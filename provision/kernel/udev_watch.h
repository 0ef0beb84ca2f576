// UdevWatch: wakes a waiter when udev has handled another device, or when udev has
// settled. The dracut module's apply uses it instead of a `udevadm settle` before the
// program (cli/coldplug.cc): it starts once the coldplug trigger has been sent and goes
// on as soon as what it needs is there, or when udev has handled every event.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "provision/base/result.h"
#include "provision/base/root.h"

namespace rp {

class UdevWatch {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  enum class Wake {
    kChanged,   // udev wrote the database file of an interface, RDMA or PCI device
    kSettled,   // udev has handled every queued event (or there is no udev to wait for)
    kDeadline,  // neither before the deadline
  };

  // Watches <root>/run/udev/data with inotify: udev replaces a device's database file
  // (a temporary file renamed over it, systemd tmpfile-util.c fopen_temporary) once its
  // rules have run. Until settle() is called, or when udevadm cannot be run, the removal
  // of /run/udev/queue (udevd's "events are queued" flag) is kSettled.
  static Result<UdevWatch> open(const Root& root);
  // Runs `udevadm settle --timeout=<seconds>` in the background (the live system), whose
  // end is kSettled from then on: udevadm first makes sure udevd has queued every event the
  // kernel sent (its ping over the control socket), which /run/udev/queue alone cannot
  // tell. Once; a udevadm that cannot be run is said by settle_how().
  void settle(unsigned seconds);
  UdevWatch(UdevWatch&&) noexcept;
  UdevWatch& operator=(UdevWatch&&) noexcept;
  ~UdevWatch();  // a settle still running is killed and reaped

  // Blocks in poll() until one of the wakes. Events that arrive together are one wake.
  Wake wait(TimePoint deadline);
  // How udev's end is known: "udevadm settle --timeout=60", "/run/udev/queue".
  const std::string& settle_how() const;

 private:
  struct Impl;
  explicit UdevWatch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rp
