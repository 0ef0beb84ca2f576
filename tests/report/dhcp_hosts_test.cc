// The client identifiers of an IPoIB port, as each DHCP client builds them from the port's
// 20-byte hardware address (flags and QPN, the subnet prefix, the port GUID: only the GUID
// is stable), turned into rows: the identifier dhcp-hosts writes for a row keyed by that
// GUID must be the bytes the client puts in option 61.
#include "provision/report/dhcp_hosts.h"

#include <gtest/gtest.h>

#include "provision/base/types.h"

namespace rp {
namespace {

// Two IPoIB addresses of one port (another queue pair, another flags byte): one GUID.
constexpr const char* kAddrs[] = {
    "00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:16:b2:c4",
    "80:00:02:48:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:16:b2:c4",
};

TEST(IbClientId, WhatEachClientSendsForOnePort) {
  for (const char* text : kAddrs) {
    const auto addr = HwAddress::parse(text);
    ASSERT_TRUE(addr) << text;
    const auto guid = addr->ipoib_guid();
    ASSERT_TRUE(guid) << text;
    // NetworkManager's internal client (src/core/nm-core-utils.c nm_utils_dhcp_client_id_mac:
    // the ARP type, then nm_utils_arp_type_get_hwaddr_relevant_part, the last 8 bytes of an
    // InfiniBand address); Red Hat's dhclient with dracut's `send dhcp-client-identifier =
    // hardware;` (the lpf-ib patch's hardware: type 32 and the last 8 bytes); networkd's
    // ClientIdentifier=mac: all one form.
    EXPECT_EQ(ib_client_id(guid->value, false), "20:0c:42:a1:03:00:16:b2:c4") << text;
    // FlexBoot (vendor-mellanox-flexboot src/drivers/net/ipoib.c: mellanox_general_client_id
    // = {255,0,0,0,0,0,2,0,0,2,0xC9,0,...}, the GUID written at CLIENT_ID_GUID_OFFSET 12,
    // IPOIB_ALEN bytes sent as they are).
    EXPECT_EQ(ib_client_id(guid->value, true),
              "ff:00:00:00:00:00:02:00:00:02:c9:00:0c:42:a1:03:00:16:b2:c4")
        << text;
  }
}

TEST(IbClientId, FormatsAndChoicesByName) {
  EXPECT_EQ(parse_dhcp_server("isc"), DhcpServer::kIsc);
  EXPECT_EQ(parse_dhcp_server("kea"), DhcpServer::kKea);
  EXPECT_EQ(parse_dhcp_server("dnsmasq"), DhcpServer::kDnsmasq);
  EXPECT_FALSE(parse_dhcp_server("ISC"));
  EXPECT_EQ(parse_ib_client_ids("os"), IbClientIds::kOs);
  EXPECT_EQ(parse_ib_client_ids("flexboot"), IbClientIds::kFlexboot);
  EXPECT_EQ(parse_ib_client_ids("both"), IbClientIds::kBoth);
  EXPECT_FALSE(parse_ib_client_ids(""));
}

}  // namespace
}  // namespace rp
