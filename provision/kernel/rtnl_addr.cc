// Route netlink: IP addresses and routes of a link (RTM_NEWADDR, RTM_GETADDR,
// RTM_GETROUTE, RTM_NEWROUTE), beside rtnl.cc's links.
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "provision/kernel/nl_io.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_internal.h"

namespace rp {

using rtnl_internal::change;

namespace rtnl_internal {

Result<nl::MsgPtr> build_add_address(int ifindex, const IpPrefix& address) {
  ifaddrmsg ifa{};
  ifa.ifa_family = address.address.v6 ? AF_INET6 : AF_INET;
  ifa.ifa_prefixlen = static_cast<uint8_t>(address.length);
  ifa.ifa_scope = RT_SCOPE_UNIVERSE;
  ifa.ifa_index = static_cast<uint32_t>(ifindex);
  const auto& a = address.address;
  nl::MsgBuilder b(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
  b.header(ifa).put(IFA_LOCAL, a.bytes.data(), a.size()).put(IFA_ADDRESS, a.bytes.data(), a.size());
  if (!a.v6 && address.length <= 30) {
    // The broadcast address, as NetworkManager and dracut's ifup set it (`ip addr add ...
    // brd +`): the host bits set, computed in host order, sent in network order.
    uint32_t host;
    std::memcpy(&host, a.bytes.data(), 4);
    host = ntohl(host) | (address.length == 0 ? ~0u : (~0u >> address.length));
    const uint32_t brd = htonl(host);
    b.put(IFA_BROADCAST, &brd, sizeof brd);
  }
  return b.finish("cannot add address " + address.str());
}

}  // namespace rtnl_internal

Status rtnl_add_address(const std::string& ifname, const IpPrefix& address) {
  auto link = rtnl_get_link(ifname);
  if (!link) return link.error();
  auto msg = rtnl_internal::build_add_address(link->ifindex, address);
  if (!msg) return msg.error();
  return rtnl_internal::send_change(msg->get(), ifname, "cannot add address " + address.str());
}

Result<std::vector<IpPrefix>> rtnl_global_addresses(int ifindex) {
  ifaddrmsg ifa{};
  ifa.ifa_family = AF_UNSPEC;
  nl::MsgBuilder b(RTM_GETADDR, NLM_F_DUMP);
  b.header(ifa);
  auto msg = b.finish("list addresses");
  if (!msg) return msg.error();
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  std::vector<IpPrefix> out;
  nl::Answer a = nl::exchange(sock->get(), msg->get(), [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWADDR || h->nlmsg_len < NLMSG_LENGTH(sizeof(ifaddrmsg))) return;
    const auto* m = static_cast<const ifaddrmsg*>(NLMSG_DATA(h));
    if (static_cast<int>(m->ifa_index) != ifindex || m->ifa_scope != RT_SCOPE_UNIVERSE) return;
    const size_t size = m->ifa_family == AF_INET6 ? 16 : m->ifa_family == AF_INET ? 4 : 0;
    if (size == 0) return;
    // IFA_LOCAL is the address itself on IPv4 point-to-point links; IFA_ADDRESS otherwise.
    const rtattr* local = nullptr;
    const rtattr* address = nullptr;
    int len = static_cast<int>(IFA_PAYLOAD(h));
    for (const rtattr* r = IFA_RTA(m); RTA_OK(r, len); r = RTA_NEXT(r, len)) {
      if (r->rta_type == IFA_LOCAL) local = r;
      if (r->rta_type == IFA_ADDRESS) address = r;
    }
    const rtattr* use = local ? local : address;
    if (!use || RTA_PAYLOAD(use) != size) return;
    IpPrefix p;
    p.address.v6 = size == 16;
    std::memcpy(p.address.bytes.data(), RTA_DATA(use), size);
    p.length = m->ifa_prefixlen;
    out.push_back(p);
  });
  if (a.errnum != 0) {
    return make_error("ifindex " + std::to_string(ifindex),
                      nl::with_kernel_msg("cannot list addresses", a), a.errnum);
  }
  return out;
}

Result<int> rtnl_route_interface(const IpAddress& destination) {
  rtmsg rt{};
  rt.rtm_family = destination.v6 ? AF_INET6 : AF_INET;
  rt.rtm_dst_len = static_cast<uint8_t>(destination.size() * 8);
  nl::MsgBuilder b(RTM_GETROUTE, 0);
  b.header(rt);
  b.put(RTA_DST, destination.bytes.data(), destination.size());
  auto msg = b.finish("route get " + destination.str());
  if (!msg) return msg.error();
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  int oif = 0;
  nl::Answer a = nl::exchange(sock->get(), msg->get(), [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWROUTE || h->nlmsg_len < NLMSG_LENGTH(sizeof(rtmsg))) return;
    const auto* m = static_cast<const rtmsg*>(NLMSG_DATA(h));
    int len = static_cast<int>(RTM_PAYLOAD(h));
    for (const rtattr* r = RTM_RTA(m); RTA_OK(r, len); r = RTA_NEXT(r, len)) {
      if (r->rta_type == RTA_OIF && RTA_PAYLOAD(r) == sizeof(uint32_t)) {
        oif = static_cast<int>(*static_cast<const uint32_t*>(RTA_DATA(r)));
      }
    }
  });
  if (a.errnum != 0) {
    return make_error(destination.str(), nl::with_kernel_msg("no route", a), a.errnum);
  }
  if (oif == 0) return make_error(destination.str(), "the route has no interface", ENETUNREACH);
  return oif;
}

std::string rtnl_route_via(const IpAddress& destination) {
  auto oif = rtnl_route_interface(destination);
  if (!oif) return "";
  if (auto links = rtnl_list_links())
    for (const auto& l : *links)
      if (l.ifindex == *oif) return l.name;
  return "ifindex " + std::to_string(*oif);
}

Status rtnl_add_route(const std::string& ifname, const std::optional<IpPrefix>& destination,
                      const std::optional<IpAddress>& gateway) {
  const std::string shown = (destination ? destination->str() : std::string("default")) +
                            (gateway ? " via " + gateway->str() : std::string(""));
  if (!destination && !gateway) {
    return make_error(ifname, "cannot add route default: a default route needs a gateway", EINVAL);
  }
  const bool v6 = destination ? destination->address.v6 : gateway->v6;
  if (gateway && gateway->v6 != v6) {
    return make_error(ifname, "cannot add route " + shown + ": the gateway's family differs",
                      EINVAL);
  }
  auto link = rtnl_get_link(ifname);
  if (!link) return link.error();
  rtmsg rt{};
  rt.rtm_family = v6 ? AF_INET6 : AF_INET;
  rt.rtm_dst_len = static_cast<uint8_t>(destination ? destination->length : 0);
  rt.rtm_table = RT_TABLE_MAIN;
  rt.rtm_protocol = RTPROT_BOOT;
  rt.rtm_scope = gateway ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
  rt.rtm_type = RTN_UNICAST;
  nl::MsgBuilder b(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL);
  b.header(rt);
  if (destination && destination->length > 0) {
    b.put(RTA_DST, destination->address.bytes.data(), destination->address.size());
  }
  if (gateway) b.put(RTA_GATEWAY, gateway->bytes.data(), gateway->size());
  b.put_u32(RTA_OIF, static_cast<uint32_t>(link->ifindex));
  return change(b, ifname, "cannot add route " + shown);
}

}  // namespace rp
