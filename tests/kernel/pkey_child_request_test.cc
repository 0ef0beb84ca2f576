// The IPoIB P_Key child request, checked byte by byte without sending it (there is no
// IPoIB where tests run), and the messages kernel refusals turn into.
#include <gtest/gtest.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"

namespace rp {
namespace {

using Attrs = std::map<uint16_t, std::vector<uint8_t>>;

// Attributes of one level (rtattr walk, as the kernel does it).
Attrs attrs(const uint8_t* p, size_t len) {
  Attrs out;
  auto* a = reinterpret_cast<const rtattr*>(p);
  int rem = static_cast<int>(len);
  for (; RTA_OK(a, rem); a = RTA_NEXT(a, rem)) {
    const auto* d = static_cast<const uint8_t*>(RTA_DATA(a));
    // libnl marks nests with NLA_F_NESTED; the kernel masks it off as well.
    const uint16_t type = a->rta_type & NLA_TYPE_MASK;
    EXPECT_FALSE(out.count(type)) << "attribute " << type << " twice";
    out[type] = std::vector<uint8_t>(d, d + RTA_PAYLOAD(a));
  }
  EXPECT_EQ(rem, 0) << "trailing bytes";
  return out;
}
Attrs attrs(const std::vector<uint8_t>& v) { return attrs(v.data(), v.size()); }

std::string str(const std::vector<uint8_t>& v) {
  EXPECT_FALSE(v.empty());
  EXPECT_EQ(v.back(), 0) << "strings are NUL-terminated";
  return std::string(v.begin(), v.end() - 1);
}

template <typename T>
T num(const std::vector<uint8_t>& v) {
  EXPECT_EQ(v.size(), sizeof(T));
  T x{};
  std::memcpy(&x, v.data(), std::min(sizeof x, v.size()));
  return x;
}

struct Request {
  nlmsghdr header;
  ifinfomsg ifi;
  Attrs top;
};

Request decode(const std::vector<uint8_t>& bytes) {
  Request r{};
  EXPECT_GE(bytes.size(), NLMSG_LENGTH(sizeof(ifinfomsg)));
  std::memcpy(&r.header, bytes.data(), sizeof r.header);
  std::memcpy(&r.ifi, bytes.data() + NLMSG_HDRLEN, sizeof r.ifi);
  EXPECT_EQ(r.header.nlmsg_len, bytes.size());
  const size_t off = NLMSG_LENGTH(sizeof(ifinfomsg));
  r.top = attrs(bytes.data() + NLMSG_ALIGN(off), bytes.size() - NLMSG_ALIGN(off));
  return r;
}

TEST(IpoibModeRequest, IsAnRtmNewlinkOfTheLinkWithIpoibModeData) {
  // ipoib_netlink.c ipoib_changelink reads IFLA_IPOIB_MODE (u16, IPOIB_MODE_CONNECTED 1)
  // from the ipoib link data; rtnl_newlink finds the link by ifi_index.
  auto bytes = rtnl_ipoib_mode_request(9, IpoibMode::kConnected);
  ASSERT_TRUE(bytes) << bytes.error().str();
  Request r = decode(*bytes);
  EXPECT_EQ(r.header.nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(r.header.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);  // no CREATE: change only
  EXPECT_EQ(r.ifi.ifi_index, 9);
  EXPECT_EQ(r.top.size(), 1u);
  Attrs info = attrs(r.top.at(IFLA_LINKINFO));
  EXPECT_EQ(str(info.at(IFLA_INFO_KIND)), "ipoib");
  Attrs data = attrs(info.at(IFLA_INFO_DATA));
  EXPECT_EQ(data.size(), 1u);
  EXPECT_EQ(num<uint16_t>(data.at(IFLA_IPOIB_MODE)), 1);
  auto datagram = rtnl_ipoib_mode_request(9, IpoibMode::kDatagram);
  ASSERT_TRUE(datagram);
  EXPECT_EQ(num<uint16_t>(attrs(attrs(decode(*datagram).top.at(IFLA_LINKINFO)).at(IFLA_INFO_DATA))
                              .at(IFLA_IPOIB_MODE)),
            0);
}

TEST(PkeyChildRequest, IsAnExclusiveRtmNewlinkOfKindIpoib) {
  PkeyChildSpec spec{"ib0", "ib0.8001", 0x8001, IpoibMode::kConnected, std::nullopt};
  auto bytes = rtnl_pkey_child_request(spec, 7);
  ASSERT_TRUE(bytes) << bytes.error().str();
  Request r = decode(*bytes);
  EXPECT_EQ(r.header.nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(r.header.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
  EXPECT_EQ(r.ifi.ifi_family, AF_UNSPEC);
  EXPECT_EQ(r.ifi.ifi_index, 0);
  EXPECT_EQ(str(r.top.at(IFLA_IFNAME)), "ib0.8001");
  EXPECT_EQ(num<uint32_t>(r.top.at(IFLA_LINK)), 7u);
  Attrs info = attrs(r.top.at(IFLA_LINKINFO));
  EXPECT_EQ(str(info.at(IFLA_INFO_KIND)), "ipoib");
  Attrs data = attrs(info.at(IFLA_INFO_DATA));
  EXPECT_EQ(num<uint16_t>(data.at(IFLA_IPOIB_PKEY)), 0x8001);
  EXPECT_EQ(num<uint16_t>(data.at(IFLA_IPOIB_MODE)), IPOIB_MODE_CONNECTED);
  EXPECT_FALSE(data.count(IFLA_IPOIB_UMCAST)) << "unset: the kernel's default";
  EXPECT_EQ(r.top.size(), 3u);
}

TEST(PkeyChildRequest, LeavesUnsetModeToTheKernelAndSendsUmcastWhenGiven) {
  PkeyChildSpec spec{"ib1", "storage", 0x000a, std::nullopt, true};
  auto bytes = rtnl_pkey_child_request(spec, 12);
  ASSERT_TRUE(bytes) << bytes.error().str();
  Request r = decode(*bytes);
  EXPECT_EQ(str(r.top.at(IFLA_IFNAME)), "storage");
  Attrs data = attrs(attrs(r.top.at(IFLA_LINKINFO)).at(IFLA_INFO_DATA));
  EXPECT_EQ(num<uint16_t>(data.at(IFLA_IPOIB_PKEY)), 0x000a) << "the P_Key as given";
  EXPECT_FALSE(data.count(IFLA_IPOIB_MODE));
  EXPECT_EQ(num<uint16_t>(data.at(IFLA_IPOIB_UMCAST)), 1);
}

TEST(PkeyChildRequest, DatagramModeIsZero) {
  PkeyChildSpec spec{"ib0", "ib0.8002", 0x8002, IpoibMode::kDatagram, false};
  auto bytes = rtnl_pkey_child_request(spec, 3);
  ASSERT_TRUE(bytes);
  Attrs data = attrs(attrs(decode(*bytes).top.at(IFLA_LINKINFO)).at(IFLA_INFO_DATA));
  EXPECT_EQ(num<uint16_t>(data.at(IFLA_IPOIB_MODE)), IPOIB_MODE_DATAGRAM);
  EXPECT_EQ(num<uint16_t>(data.at(IFLA_IPOIB_UMCAST)), 0);
}

TEST(PkeyChildErrors, NameChildParentPkeyAndErrno) {
  PkeyChildSpec spec{"ib0", "ib0.8001", 0x8001, std::nullopt, std::nullopt};
  Error e = pkey_child_error(spec, EEXIST, "");
  EXPECT_EQ(e.where, "ib0.8001");
  EXPECT_EQ(e.errnum, EEXIST);
  EXPECT_EQ(e.str(),
            "ib0.8001: cannot create P_Key 0x8001 child 'ib0.8001' of ib0: an interface named "
            "ib0.8001 exists (File exists)");
}

TEST(PkeyChildErrors, EachRefusalSaysWhatItMeans) {
  PkeyChildSpec spec{"ib0", "ib0.8001", 0x8001, IpoibMode::kConnected, std::nullopt};
  const std::map<int, std::string> expect = {
      {ENOTUNIQ, "created through sysfs (create_child)"},
      {ENODEV, "ib0 is not an IPoIB interface"},
      {EOPNOTSUPP, "ib_ipoib is not loaded"},
      {EINVAL, "connected mode needs CM support"},
  };
  for (const auto& [errnum, text] : expect) {
    Error e = pkey_child_error(spec, errnum, "");
    EXPECT_NE(e.what.find(text), std::string::npos) << errnum << ": " << e.what;
    EXPECT_NE(e.str().find(rp::errno_text(errnum)), std::string::npos) << e.str();
  }
}

TEST(PkeyChildErrors, KernelExplanationIsKept) {
  PkeyChildSpec spec{"ib0", "ib0.8001", 0x8001, std::nullopt, std::nullopt};
  Error e = pkey_child_error(spec, EOPNOTSUPP, "Unknown device type");
  EXPECT_NE(e.what.find("; kernel: Unknown device type"), std::string::npos) << e.what;
}

TEST(IpPrefix, ParsesIpv4AndIpv6WithAndWithoutLength) {
  auto a = IpPrefix::parse("10.77.0.1/24");
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->address.v6);
  EXPECT_EQ(a->length, 24u);
  EXPECT_EQ(a->str(), "10.77.0.1/24");
  auto b = IpPrefix::parse("fd00::1/64");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->address.v6);
  EXPECT_EQ(b->str(), "fd00::1/64");
  EXPECT_EQ(IpPrefix::parse("10.77.0.9")->length, 32u);
  EXPECT_EQ(IpPrefix::parse("fd00::9")->length, 128u);
  for (const char* bad : {"", "10.77.0.1/", "10.77.0.1/33", "fd00::1/129", "10.77.0.256/24",
                          "10.77.0.1/2x", "10.77.0.1/-1", "host/24", "10.77.0.1/0x10"}) {
    EXPECT_FALSE(IpPrefix::parse(bad)) << bad;
  }
}

}  // namespace
}  // namespace rp
