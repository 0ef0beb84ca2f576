// The NFS server dracut took from DHCP, for rd.rdma.verify=peer with root=dhcp (or an NFS
// root that names no server): what dracut's DHCP handlers record per interface in
// /tmp/dhclient.<iface>.dhcpopts, read as dracut's nfs-lib.sh reads it. A pure function
// from the file's text; load.h's read_dhcp_root reads the files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "provision/base/types.h"

namespace rp {

// The value of the last `NAME=value` line of a file that dracut sources as sh, decoded as
// the shell would: the three writers' forms are 'single-quoted' (network-legacy's
// dhclient-script.sh `set` under dash, 01systemd-networkd's networkd-run.sh sed), bare with
// backslash escapes (bash's `set`, 35network-manager's nm-run.sh `printf %q`), and
// "double-quoted". nullopt when absent or in a form not decoded here ($'...').
std::optional<std::string> sourced_value(std::string_view text, std::string_view name);

struct DhcpRootServer {
  std::optional<IpAddress> address;
  std::string from;  // the option it came from: "new_root_path", "new_next_server", ...
  std::string name;  // the server as written when it is no address (a host name)
};

// 95nfs/nfs-lib.sh nfsroot_from_dhcp: the server of the root-path (new_root_path, as
// netroot.sh hands it to parse-nfsroot.sh: "nfs[4]:SERVER:/path[:opts]", or
// "SERVER:/path" and "/path", taken as nfs:), else new_next_server, else
// new_dhcp_server_identifier.
DhcpRootServer dhcp_root_server(std::string_view dhcpopts);

}  // namespace rp
