// Route netlink requests only tests make: veth pairs that stand in for NICs inside a test's
// network namespace, deleting links, and the bytes of a P_Key child request (there is no
// IPoIB hardware where tests run). A testonly target: the program never links it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "provision/base/result.h"
#include "provision/kernel/rtnl.h"

namespace rp {

// A veth pair, both ends in this namespace.
Status rtnl_add_veth(const std::string& name, const std::string& peer);

Status rtnl_delete_link(const std::string& name);

// The RTM_NEWLINK request rtnl_add_pkey_child() sends for a parent with `parent_ifindex`.
Result<std::vector<uint8_t>> rtnl_pkey_child_request(const PkeyChildSpec& spec, int parent_ifindex);

// The request rtnl_add_address() sends for the link with `ifindex`.
Result<std::vector<uint8_t>> rtnl_add_address_request(int ifindex, const IpPrefix& address);

// The request rtnl_set_ipoib_mode() sends for the link with `ifindex`.
Result<std::vector<uint8_t>> rtnl_ipoib_mode_request(int ifindex, IpoibMode mode);

// What rtnl_list_links() and rtnl_get_link() make of one reply message of `len` bytes
// (RTM_NEWLINK); nullopt when it does not parse. For the fuzz target.
std::optional<LinkInfo> rtnl_parse_link_reply(const uint8_t* msg, size_t len);

}  // namespace rp
