// apply --udev-settle: the dracut module starts apply as soon as udev's coldplug trigger
// has been sent, instead of after a `udevadm settle` (which waits for every device of the
// machine: disks, input, drivers the node does not need). Apply looks at the machine, and
// looks again each time udev has handled another device, until everything its plan names
// is present and udev has handled every interface (renamed it by the naming rules), or
// until udev has handled every event: then what is absent is absent, and said so.
#include "provision/inventory/coldplug.h"

#include <chrono>
#include <cstdio>

#include "provision/cli/commands.h"
#include "provision/kernel/udev_watch.h"
#include "provision/plan/plan.h"
#include "provision/report/handoff.h"

namespace rp {

namespace {

using Clock = std::chrono::steady_clock;

// What keeps apply waiting: what the plan names and the machine does not show, and the
// interfaces udev has yet to handle. Empty when the inputs are invalid or disabled (their
// errors are said at once, whatever udev does).
struct Missing {
  std::vector<std::string> absent;     // said by the plan, when it is made for good
  std::vector<std::string> unhandled;  // "ens1f0np0 (ifindex 2)"
  bool empty() const { return absent.empty() && unhandled.empty(); }
};
Missing waiting_for(const Prepared& p) {
  Missing out;
  if (!p.in.diag.ok()) return out;
  const Plan plan = make_plan(p.in.config, p.inv);
  if (!plan.enabled || !plan.diag.ok()) return out;
  out.absent = plan.absent;
  out.unhandled = udev_pending_interfaces(p.root, p.inv);
  return out;
}

std::string seconds_since(Clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%02lld s", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000 / 10));
  return buf;
}

}  // namespace

std::optional<Prepared> prepare_after_coldplug(const Options& o, Prepared p, Log& log) {
  const auto start = Clock::now();
  std::string how;  // how udev's end is known
  std::string outcome;
  if (udev_running(p.root)) {
    const unsigned limit = o.udev_settle.value_or(60);
    auto watch = UdevWatch::open(p.root);
    if (!watch) {
      // Without a way to know when udev is done, waiting would be guessing: go on now, and
      // let the queued runs (61-rdma-provision.rules) see what appears later.
      log.warn("udev's coldplug: cannot follow it (" + watch.error().str() +
               "); applying to what is there now");
    } else {
      const auto deadline = start + std::chrono::seconds(limit);
      for (;;) {
        const auto missing = waiting_for(p);
        if (missing.empty()) {
          outcome = "everything this plan names is here and udev has handled it";
          break;
        }
        // Something to wait for: from now on udev's end counts too (no process for the
        // common boot, where the first look finds everything).
        if (p.root.is_live()) watch.value().settle(limit);
        how = watch->settle_how();
        const auto wake = watch.value().wait(deadline);
        if (wake == UdevWatch::Wake::kDeadline) {
          // What is absent the plan says below, once; what udev never got to, here.
          std::string list;
          for (const auto& i : missing.unhandled) list += (list.empty() ? "" : ", ") + i;
          log.warn("udev's coldplug did not end within " + std::to_string(limit) +
                   " s; applying anyway" +
                   (list.empty() ? "" : " (interfaces udev has not handled: " + list + ")"));
          break;
        }
        if (wake == UdevWatch::Wake::kSettled) {
          outcome = "udev has handled every event (" + how + ")";
          break;
        }
        auto again = prepare(o, "apply");
        if (!again) return std::nullopt;
        p = std::move(*again);
      }
    }
  }
  // From here on a device udev adds is another run's (kColdplugSeenPath), unless it was
  // seen already: the mark lists those of the look before it, which the last look, after
  // the mark, sees too; so no device falls between the two.
  std::string err;
  if (!write_run_file(p.root, kColdplugSeenPath, udev_ids(p.inv), err)) log.warn(err);
  auto last = prepare(o, "apply");
  if (!last) return std::nullopt;
  if (!outcome.empty()) {
    log.info("udev's coldplug: went on after " + seconds_since(start) + ": " + outcome);
  }
  return last;
}

}  // namespace rp
