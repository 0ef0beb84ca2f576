// rd.rdma.verify=peer with root=dhcp: the NFS server dracut took from DHCP, read from
// /tmp/dhclient.<iface>.dhcpopts in the forms its three writers give it (dracut-ng 106):
// 35network-legacy/dhclient-script.sh `set` (dash: always single-quoted; bash: bare unless
// needed), 35network-manager/nm-run.sh dhcpopts_create (kf_parse: bash printf %q),
// 01systemd-networkd/networkd-run.sh (sed over the lease: single-quoted). Reading the
// files, and what check says: tests/inputs/load_test.cc.
#include "provision/inputs/dhcp_root.h"

#include <gtest/gtest.h>

namespace rp {
namespace {

std::string server(std::string_view text) {
  DhcpRootServer s = dhcp_root_server(text);
  return s.address        ? s.address->str() + " from " + s.from
         : s.name.empty() ? "none"
                          : "name " + s.name + " from " + s.from;
}

// One record per writer: its text, the server read from it, and one more value decoded.
struct Written {
  const char* writer;
  const char* text;
  const char* server;
  const char* key;
  const char* value;
};

TEST(DhcpRoot, EachWritersFormIsDecodedAsTheShellWould) {
  const Written cases[] = {
      // dhclient-script.sh BOUND, under dash: `set` single-quotes every value.
      {"network-legacy (dash)",
       "new_dhcp_server_identifier='10.77.0.3'\nnew_domain_name_servers='10.77.0.3 10.77.0.4'\n"
       "new_next_server='10.77.0.9'\nnew_root_path='10.77.0.1:/export/root'\n"
       "new_x='it'\"'\"'s'\n",
       "10.77.0.1 from new_root_path", "new_x", "it's"},
      // The same under bash: bare unless a character needs quoting.
      {"network-legacy (bash)",
       "new_ip_address=10.77.0.2\nnew_root_path=nfs4:10.77.0.1:/export/root:rdma,port=20049\n"
       "new_x='it'\\''s a'\n",
       "10.77.0.1 from new_root_path", "new_x", "it's a"},
      // nm-run.sh dhcpopts_create: kf_parse's printf %q escapes with backslashes.
      {"network-manager",
       "new_root_path=nfs:10.77.0.1:/export/root:rdma\\,port=20049\nnew_next_server=10.77.0.9\n"
       "filename=''\n",
       "10.77.0.1 from new_root_path", "new_root_path",
       "nfs:10.77.0.1:/export/root:rdma,port=20049"},
      {"network-manager (space)", "new_root_path=10.77.0.1:/srv/my\\ root\n",
       "10.77.0.1 from new_root_path", "new_root_path", "10.77.0.1:/srv/my root"},
      // networkd-run.sh: the lease's NEXT_SERVER and ROOT_PATH, single-quoted by sed.
      {"systemd-networkd", "new_next_server='10.77.0.9'\nnew_root_path='/export/root'\n",
       "10.77.0.9 from new_next_server", "new_root_path", "/export/root"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(server(c.text), c.server) << c.writer;
    EXPECT_EQ(sourced_value(c.text, c.key), c.value) << c.writer;
  }
  // $'...' (control characters) is not decoded: no value rather than a wrong one.
  EXPECT_EQ(sourced_value("new_root_path=$'\\001'\n", "new_root_path"), std::nullopt);
}

TEST(DhcpRoot, TheServerAsNfsLibFillsItIn) {
  EXPECT_EQ(server("new_root_path='nfs:[fd00::1]:/export/root'\n"), "fd00::1 from new_root_path");
  EXPECT_EQ(server("new_root_path='nfs://10.77.0.1:2049/export/root'\n"),
            "10.77.0.1 from new_root_path");
  EXPECT_EQ(server("new_dhcp_server_identifier='10.77.0.3'\n"),
            "10.77.0.3 from new_dhcp_server_identifier");
  // nfsroot_from_dhcp's order: next-server before the DHCP server.
  EXPECT_EQ(server("new_dhcp_server_identifier='10.77.0.3'\nnew_next_server='10.77.0.9'\n"),
            "10.77.0.9 from new_next_server");
  EXPECT_EQ(server("new_root_path='nfs.example:/export/root'\n"),
            "name nfs.example from new_root_path");
  EXPECT_EQ(server("new_ip_address='10.77.0.2'\n"), "none");
  EXPECT_EQ(server(""), "none");
  // Sourced: the last assignment wins; a longer name with the same start is another.
  EXPECT_EQ(server("new_root_path='10.77.0.1:/a'\nnew_root_path='10.77.0.5:/b'\n"
                   "new_root_path_x='10.77.0.7:/c'\n"),
            "10.77.0.5 from new_root_path");
}

}  // namespace
}  // namespace rp
