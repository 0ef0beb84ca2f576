// dhcp-hosts: the DHCP server's host entries from the node table (report/dhcp_hosts.h), for
// the server that hands out the nodes' addresses at PXE and in the initramfs.
#include "provision/report/dhcp_hosts.h"

#include <cstdio>

#include "provision/cli/commands.h"

namespace rp {

int cmd_dhcp_hosts(const Options& o) {
  if (!o.dhcp_server) {
    std::fprintf(stderr, "rdma-provision: dhcp-hosts needs --format isc|kea|dnsmasq\n");
    return kExitUsage;
  }
  // The inputs alone (the table is every node's; this machine's hardware plays no part).
  auto p = prepare(o, "dhcp-hosts", false);
  if (!p) return kExitUsage;
  const Inputs& in = p->in;
  print_diagnostics(in.diag);
  if (!in.diag.ok()) return kExitInvalid;
  const DhcpServer server = *o.dhcp_server;
  const DhcpHosts hosts =
      make_dhcp_hosts(in.config, server, o.ib_client_ids.value_or(IbClientIds::kBoth));
  for (const auto& w : hosts.warnings)
    std::fprintf(stderr, "rdma-provision: warning: %s\n", w.c_str());
  const char* how = server == DhcpServer::kIsc ? "# include \"FILE\"; in dhcpd.conf"
                    : server == DhcpServer::kKea
                        ? "// <?include \"FILE\"?> inside \"Dhcp4\": { ... } of kea-dhcp4.conf"
                        : "# conf-file=FILE in dnsmasq.conf, or a file of /etc/dnsmasq.d";
  const std::string mark = server == DhcpServer::kKea ? "//" : "#";
  std::string text = mark + " rdma-provision dhcp-hosts: " + std::to_string(hosts.entries) +
                     " host entries from the node table; generated, do not edit\n" + how + "\n" +
                     hosts.text;
  if (o.output.empty()) {
    print(text);
    return kExitOk;
  }
  std::string err;
  if (!write_own_file(Root("/"), o.output, text, err)) {
    std::fprintf(stderr, "rdma-provision: %s\n", err.c_str());
    return 1;
  }
  return kExitOk;
}

}  // namespace rp
