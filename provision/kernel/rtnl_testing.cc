#include "provision/kernel/rtnl_testing.h"

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "provision/base/strings.h"
#include "provision/kernel/nl_io.h"
#include "provision/kernel/rtnl_internal.h"

namespace rp {

using rtnl_internal::change;
using rtnl_internal::check_name;
using rtnl_internal::link_header;

Status rtnl_add_veth(const std::string& name, const std::string& peer) {
  if (auto st = check_name(name); !st) return st.error();
  if (auto st = check_name(peer); !st) return st.error();
  nl::MsgBuilder b(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  b.header(link_header(0))
      .put_string(IFLA_IFNAME, name)
      .begin_nest(IFLA_LINKINFO)
      .put_string(IFLA_INFO_KIND, "veth")
      .begin_nest(IFLA_INFO_DATA)
      .begin_nest(VETH_INFO_PEER)
      .header(link_header(0))  // the peer's own ifinfomsg opens VETH_INFO_PEER
      .put_string(IFLA_IFNAME, peer)
      .end_nest()
      .end_nest()
      .end_nest();
  return change(b, name, "cannot create a veth pair with peer " + quote(peer));
}

Status rtnl_delete_link(const std::string& name) {
  auto link = rtnl_get_link(name);
  if (!link) return link.error();
  nl::MsgBuilder b(RTM_DELLINK, 0);
  b.header(link_header(link->ifindex));
  return change(b, name, "cannot delete the link");
}

Result<std::vector<uint8_t>> rtnl_pkey_child_request(const PkeyChildSpec& spec,
                                                     int parent_ifindex) {
  auto msg = rtnl_internal::build_pkey_child(spec, parent_ifindex);
  if (!msg) return msg.error();
  return nl::bytes_of(msg->get());
}

Result<std::vector<uint8_t>> rtnl_add_address_request(int ifindex, const IpPrefix& address) {
  auto msg = rtnl_internal::build_add_address(ifindex, address);
  if (!msg) return msg.error();
  return nl::bytes_of(msg->get());
}

Result<std::vector<uint8_t>> rtnl_ipoib_mode_request(int ifindex, IpoibMode mode) {
  auto msg = rtnl_internal::build_ipoib_mode(ifindex, mode);
  if (!msg) return msg.error();
  return nl::bytes_of(msg->get());
}

std::optional<LinkInfo> rtnl_parse_link_reply(const uint8_t* msg, size_t len) {
  if (len < NLMSG_HDRLEN) return std::nullopt;
  const auto* h = reinterpret_cast<const nlmsghdr*>(msg);
  if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > len) return std::nullopt;
  return rtnl_internal::parse_link(h);
}

}  // namespace rp
