// What udev's coldplug has yet to finish for the interfaces discovered: the dracut
// module's apply starts as soon as the coldplug trigger has been sent (no `udevadm
// settle`), and must not act on an interface udev is still naming.
#pragma once

#include <string>
#include <vector>

#include "provision/base/root.h"
#include "provision/inventory/inventory.h"

namespace rp {

// Whether udevd runs (or is about to: systemd's socket units make its control socket
// before it starts): /run/udev/control exists. Without it nothing is pending.
bool udev_running(const Root& root);

// The interfaces of `inv` on a device (not under /sys/devices/virtual) that udev has not
// handled yet, as "eth0 (ifindex 2)". udev writes /run/udev/data/n<ifindex> for every
// network interface once its rules have run, the rename included, and before its RUN
// programs (systemd sd-device/device-private.c device_update_db: a device with an
// ifindex always gets its file; udev-event.c udev_event_execute_rules renames first).
// Empty when udev does not run.
std::vector<std::string> udev_pending_interfaces(const Root& root, const Inventory& inv);

// udev's ids (sd-device.c device_get_device_id) of the interfaces and RDMA devices of
// `inv`, one a line: "n2", "+infiniband:mlx5_0". apply writes them to kColdplugSeenPath
// (report/handoff.h), so the dracut module's udev rule queues no run for a device apply
// has seen (its RUN program runs after udev wrote the database file apply waited for).
std::string udev_ids(const Inventory& inv);

}  // namespace rp
