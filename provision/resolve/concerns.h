// Which interfaces a question concerns on this machine, answered once for every caller.
#pragma once

#include <string>
#include <vector>

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"

namespace rp {

// The interfaces whose DCB state a plan needs read (over DCB netlink): those the
// configuration sets ([dcb <ifname>], rd.rdma.dcb). A setting names an interface by its
// final name; where a name (rd.rdma.name, [names], a node-table row) gives that name to
// an interface present under another, that one is read too, by its name now, as the
// plan (PlanBuilder::iface) finds it.
std::vector<std::string> dcb_interfaces(const Config& cfg, const Inventory& inv);

// The interfaces `status` shows DCB for: the netdev of every RoCE port (an Ethernet port
// of a device that is not iWARP).
std::vector<std::string> roce_interfaces(const Inventory& inv);

}  // namespace rp
