// What rtnl.cc, rtnl_addr.cc, link_watcher.cc and the tests' rtnl_testing.cc share (private to
// provision/kernel).
#pragma once

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <string>

#include "provision/base/result.h"
#include "provision/kernel/nl_io.h"
#include "provision/kernel/rtnl.h"

namespace rp::rtnl_internal {

Result<nl::SockPtr> route_socket();

// An interface name the kernel accepts (1 to IFNAMSIZ-1 characters, no '/', ':' or
// white space); else EINVAL naming it.
Status check_name(const std::string& name);

// The ifinfomsg that opens a link request (ifindex 0: the kernel finds it by IFLA_IFNAME).
ifinfomsg link_header(int ifindex);

// Sends a request that changes something; the error names `where` and says `what` failed.
Status change(nl::MsgBuilder& b, const std::string& where, const std::string& what);

// The same for a finished message.
Status send_change(nl_msg* msg, const std::string& where, const std::string& what);

// The RTM_NEWADDR request that adds `address` to the link `ifindex` (rtnl_addr.cc).
Result<nl::MsgPtr> build_add_address(int ifindex, const IpPrefix& address);

// The RTM_NEWLINK request of an IPoIB P_Key child of the link `parent_ifindex`.
Result<nl::MsgPtr> build_pkey_child(const PkeyChildSpec& spec, int parent_ifindex);

// The RTM_NEWLINK request that sets the IPoIB mode of the link `ifindex`.
Result<nl::MsgPtr> build_ipoib_mode(int ifindex, IpoibMode mode);

// An RTM_NEWLINK/RTM_DELLINK message as a LinkInfo; nullopt when it does not parse.
std::optional<LinkInfo> parse_link(const nlmsghdr* h);

}  // namespace rp::rtnl_internal
