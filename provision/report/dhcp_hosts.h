// The DHCP server's half of the node table (`rdma-provision dhcp-hosts`): one host entry per
// row, for ISC dhcpd, Kea or dnsmasq, so the table that names a node's ports also gives it
// its address at PXE and in the initramfs. Ethernet rows are keyed by MAC; IPoIB rows by
// the client identifiers their DHCP clients send (RFC 4390: an IPoIB client sends no
// hardware address, hlen 0), which differ between the firmware and the OS:
//   os        20:<port GUID>, option 61 of type 32 (ARPHRD_INFINIBAND) and the GUID:
//             NetworkManager's internal client (nm-core-utils.c nm_utils_dhcp_client_id_mac,
//             forced on for InfiniBand by nm-dhcp-nettools.c), Red Hat's dhclient with
//             dracut's `send dhcp-client-identifier = hardware;` (35network-legacy's
//             dhclient.conf; the lpf-ib patch's hardware is type 32 and the GUID),
//             systemd-networkd's ClientIdentifier=mac, FlexBoot's "Client-Id HW Type IB".
//   flexboot  ff:00:00:00:00:00:02:00:00:02:c9:00:<port GUID>, the 20 bytes NVIDIA's FlexBoot
//             sends by default (vendor-mellanox-flexboot src/drivers/net/ipoib.c
//             mellanox_general_client_id, the GUID at offset 12).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "provision/config/config.h"

namespace rp {

enum class DhcpServer { kIsc, kKea, kDnsmasq };
enum class IbClientIds { kOs, kFlexboot, kBoth };

std::optional<DhcpServer> parse_dhcp_server(std::string_view s);     // "isc", "kea", "dnsmasq"
std::optional<IbClientIds> parse_ib_client_ids(std::string_view s);  // "os", "flexboot", "both"

// The client identifier (option 61, type byte first) as the three servers write it:
// lowercase hex bytes joined by ':'.
std::string ib_client_id(uint64_t guid, bool flexboot);

struct DhcpHosts {
  std::string text;                   // the entries, in the server's own syntax
  std::vector<std::string> warnings;  // rows left out, forms a server cannot hold
  size_t entries = 0;
};

// Every row of the table (every node's), in file order: its fixed address (lease=, else
// its first IPv4 address=) and host name (host=). A row with neither is left out with a
// warning. IPoIB rows get the identifiers `ib` asks for; dnsmasq holds one identifier per
// address (option.c refuses a second dhcp-host line with the same address: "duplicate
// dhcp-host IP address"), so with both there the flexboot form names the host without an
// address (the firmware takes one from the range).
DhcpHosts make_dhcp_hosts(const Config& cfg, DhcpServer server, IbClientIds ib);

}  // namespace rp
