// What rtnl.cc and link_watcher.cc share (private to provision/kernel).
#pragma once

#include <linux/netlink.h>

#include "provision/base/result.h"
#include "provision/kernel/nl_io.h"
#include "provision/kernel/rtnl.h"

namespace rp::rtnl_internal {

Result<nl::SockPtr> route_socket();

// An RTM_NEWLINK/RTM_DELLINK message as a LinkInfo; nullopt when it does not parse.
std::optional<LinkInfo> parse_link(const nlmsghdr* h);

}  // namespace rp::rtnl_internal
