// The RTM_NEWADDR request apply sends for an address, checked byte by byte without sending
// it: the broadcast above all, which no kernel reply shows back to the tests.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"

namespace rp {
namespace {

struct Request {
  nlmsghdr header{};
  ifaddrmsg ifa{};
  std::map<uint16_t, std::string> attrs;  // type -> address text (inet_ntop)
};

Request decode(const std::vector<uint8_t>& bytes) {
  Request r;
  EXPECT_GE(bytes.size(), NLMSG_LENGTH(sizeof(ifaddrmsg)));
  std::memcpy(&r.header, bytes.data(), sizeof r.header);
  std::memcpy(&r.ifa, bytes.data() + NLMSG_HDRLEN, sizeof r.ifa);
  EXPECT_EQ(r.header.nlmsg_len, bytes.size());
  const size_t off = NLMSG_ALIGN(NLMSG_LENGTH(sizeof(ifaddrmsg)));
  auto* a = reinterpret_cast<const rtattr*>(bytes.data() + off);
  int rem = static_cast<int>(bytes.size() - off);
  for (; RTA_OK(a, rem); a = RTA_NEXT(a, rem)) {
    char text[INET6_ADDRSTRLEN] = "";
    const int family = RTA_PAYLOAD(a) == 16 ? AF_INET6 : AF_INET;
    inet_ntop(family, RTA_DATA(a), text, sizeof text);
    EXPECT_FALSE(r.attrs.count(a->rta_type)) << "attribute " << a->rta_type << " twice";
    r.attrs[a->rta_type] = text;
  }
  EXPECT_EQ(rem, 0) << "trailing bytes";
  return r;
}

IpPrefix prefix(const std::string& text) {
  auto p = IpPrefix::parse(text);
  EXPECT_TRUE(p) << text;
  return p ? *p : IpPrefix{};
}

// As `ip addr add 10.77.0.5/24 brd + dev X` (iproute2 ipaddress.c: brd + sets the host
// bits) and dracut's ifup: IFA_LOCAL and IFA_ADDRESS the address, IFA_BROADCAST the
// subnet's last address, in network order.
TEST(AddressRequest, AnIpv4AddressCarriesItsSubnetsBroadcast) {
  auto bytes = rtnl_add_address_request(4, prefix("10.77.0.5/24"));
  ASSERT_TRUE(bytes) << bytes.error().str();
  Request r = decode(*bytes);
  EXPECT_EQ(r.header.nlmsg_type, RTM_NEWADDR);
  // NLM_F_REQUEST and NLM_F_ACK are added as it is sent (libnl nl_complete_msg).
  EXPECT_EQ(r.header.nlmsg_flags, NLM_F_CREATE | NLM_F_EXCL);
  EXPECT_EQ(r.ifa.ifa_family, AF_INET);
  EXPECT_EQ(r.ifa.ifa_prefixlen, 24);
  EXPECT_EQ(r.ifa.ifa_index, 4u);
  EXPECT_EQ(r.attrs.at(IFA_LOCAL), "10.77.0.5");
  EXPECT_EQ(r.attrs.at(IFA_ADDRESS), "10.77.0.5");
  EXPECT_EQ(r.attrs.at(IFA_BROADCAST), "10.77.0.255");
  EXPECT_EQ(decode(*rtnl_add_address_request(4, prefix("172.16.5.9/12"))).attrs.at(IFA_BROADCAST),
            "172.31.255.255");
  EXPECT_EQ(decode(*rtnl_add_address_request(4, prefix("192.168.7.1/30"))).attrs.at(IFA_BROADCAST),
            "192.168.7.3");
}

// /31 and /32 have no broadcast (RFC 3021: both addresses are hosts), nor has IPv6.
TEST(AddressRequest, PointToPointPrefixesAndIpv6HaveNoBroadcast) {
  EXPECT_FALSE(
      decode(*rtnl_add_address_request(4, prefix("10.0.0.0/31"))).attrs.count(IFA_BROADCAST));
  EXPECT_FALSE(
      decode(*rtnl_add_address_request(4, prefix("10.0.0.7/32"))).attrs.count(IFA_BROADCAST));
  Request v6 = decode(*rtnl_add_address_request(4, prefix("fd00:77::5/64")));
  EXPECT_EQ(v6.ifa.ifa_family, AF_INET6);
  EXPECT_EQ(v6.attrs.at(IFA_LOCAL), "fd00:77::5");
  EXPECT_FALSE(v6.attrs.count(IFA_BROADCAST));
}

}  // namespace
}  // namespace rp
