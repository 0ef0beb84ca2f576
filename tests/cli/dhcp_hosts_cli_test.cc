// `rdma-provision dhcp-hosts`: the node table as each DHCP server's host entries, and every
// output checked by that server's own configuration test, from Debian's packages
// (rules/bootstrap.sh installs them): `dhcpd -t` (isc-dhcp-server: server/dhcpd.c reads
// the file and exits before any interface or lease file), `kea-dhcp4 -t` (kea-dhcp4-server:
// check-only configuration, the generated part included as an administrator includes it)
// and `dnsmasq --test` (dnsmasq-base: option.c read_opts, "syntax check OK").
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/fixture.h"

namespace rp {
namespace {

using testing::has;
using testing::run;
using testing::tool;

// Three nodes of an InfiniBand cluster: two booting over IPoIB (one with its address in the
// table for the initramfs too), one service node on Ethernet; and a row with nothing to
// hand out.
constexpr const char* kTable = R"([nodes]
0002:c903:0031:78f2  name=fabric0 host=node01 lease=10.20.0.11
0002:c903:0031:7901  name=fabric0 host=node02 address=10.20.0.12/16 mode=connected
52:54:00:77:00:05    name=mgmt0 host=svc01 lease=10.20.0.5
0002:c903:0031:7a10  name=fabric0
)";

std::string root_with(const std::string& conf) {
  const std::string root = testing::temp_dir("dhcp-hosts");
  run("mkdir -p " + root + "/etc/rdma-provision");
  std::ofstream(root + "/etc/rdma-provision/rdma-provision.conf") << conf;
  return root;
}

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The output alone (the warnings go to stderr).
std::string entries(const std::string& root, const std::string& args) {
  int status = -1;
  const std::string out =
      run(testing::tool_binary() + " dhcp-hosts " + args + " --root " + root, &status);
  EXPECT_EQ(status, 0) << out;
  return out;
}

TEST(DhcpHostsCli, IscHostDeclarationsPassDhcpdsCheck) {
  const std::string root = root_with(kTable);
  const std::string out = entries(root, "--format isc");
  EXPECT_TRUE(has(out,
                  "# node 0002:c903:0031:78f2 (/etc/rdma-provision/rdma-provision.conf:2): "
                  "IPoIB, the OS's client identifier (type 32 and the port GUID)\n"
                  "host node01-fabric0 {\n"
                  "  option dhcp-client-identifier 20:00:02:c9:03:00:31:78:f2;\n"
                  "  fixed-address 10.20.0.11;\n"
                  "  option host-name \"node01\";\n"
                  "}\n"))
      << out;
  EXPECT_TRUE(has(out,
                  "host node01-fabric0-flexboot {\n"
                  "  option dhcp-client-identifier "
                  "ff:00:00:00:00:00:02:00:00:02:c9:00:00:02:c9:03:00:31:78:f2;\n"
                  "  fixed-address 10.20.0.11;\n"))
      << out;
  // address= of the initramfs is the DHCP server's address too when no lease= is given.
  EXPECT_TRUE(has(out,
                  "host node02-fabric0 {\n  option dhcp-client-identifier "
                  "20:00:02:c9:03:00:31:79:01;\n  fixed-address 10.20.0.12;\n"))
      << out;
  EXPECT_TRUE(has(out,
                  "host svc01-mgmt0 {\n  hardware ethernet 52:54:00:77:00:05;\n"
                  "  fixed-address 10.20.0.5;\n  option host-name \"svc01\";\n}\n"))
      << out;
  EXPECT_FALSE(has(out, "7a10")) << out;  // nothing to hand out
  EXPECT_TRUE(has(out, "# rdma-provision dhcp-hosts: 5 host entries")) << out;
  const std::string file = write(root, "dhcpd.conf", out);
  int status = -1;
  const std::string check = run("/usr/sbin/dhcpd -t -q -cf " + file + " 2>&1", &status);
  EXPECT_EQ(status, 0) << check << out;
}

TEST(DhcpHostsCli, KeaReservationsPassKeasCheck) {
  const std::string root = root_with(kTable);
  const std::string out = entries(root, "--format kea");
  EXPECT_TRUE(has(out,
                  "  { \"client-id\": \"20:00:02:c9:03:00:31:78:f2\", \"ip-address\": "
                  "\"10.20.0.11\", \"hostname\": \"node01\" }"))
      << out;
  EXPECT_TRUE(has(out,
                  "  { \"hw-address\": \"52:54:00:77:00:05\", \"ip-address\": "
                  "\"10.20.0.5\", \"hostname\": \"svc01\" }\n]"))
      << out;
  // Both forms of a port share its address: Kea refuses that unless told.
  EXPECT_TRUE(has(out, "\"ip-reservations-unique\": false,")) << out;
  // Included inside "Dhcp4" as an administrator includes it; no interface named (the
  // check opens none, but one named must exist on the checking machine).
  const std::string part = write(root, "hosts.json", out);
  const std::string conf = write(root, "kea-dhcp4.conf",
                                 "{ \"Dhcp4\": {\n"
                                 "  \"interfaces-config\": { \"interfaces\": [ ] },\n"
                                 "  \"subnet4\": [ { \"id\": 1, \"subnet\": \"10.20.0.0/16\" } ],\n"
                                 "  <?include \"" +
                                     part + "\"?>\n} }\n");
  int status = -1;
  const std::string check = run("/usr/sbin/kea-dhcp4 -t " + conf + " 2>&1", &status);
  EXPECT_EQ(status, 0) << check << out;
  // One form only: no shared address, and Kea's default (unique) kept.
  EXPECT_FALSE(has(entries(root, "--format kea --ib-client-id os"), "ip-reservations-unique"));
}

TEST(DhcpHostsCli, DnsmasqLinesPassDnsmasqsCheck) {
  const std::string root = root_with(kTable);
  int status = -1;
  const std::string all = run(
      testing::tool_binary() + " dhcp-hosts --format dnsmasq --root " + root + " 2>&1 >/dev/null",
      &status);
  EXPECT_TRUE(has(all, "warning: dnsmasq holds one client identifier per address")) << all;
  EXPECT_TRUE(has(all,
                  "warning: /etc/rdma-provision/rdma-provision.conf:5: node "
                  "0002:c903:0031:7a10: no lease=, IPv4 address= or host=: no host entry"))
      << all;
  const std::string out = entries(root, "--format dnsmasq");
  EXPECT_TRUE(has(out, "\ndhcp-host=id:20:00:02:c9:03:00:31:78:f2,10.20.0.11,node01\n")) << out;
  // The FlexBoot form: the host name only (dnsmasq refuses one address for two lines).
  EXPECT_TRUE(has(out,
                  "\ndhcp-host=id:ff:00:00:00:00:00:02:00:00:02:c9:00:00:02:c9:03:00:31:"
                  "78:f2,node01\n"))
      << out;
  EXPECT_TRUE(has(out, "\ndhcp-host=52:54:00:77:00:05,10.20.0.5,svc01\n")) << out;
  const std::string file = write(root, "dnsmasq.conf", out);
  const std::string check = run("/usr/sbin/dnsmasq --test --conf-file=" + file + " 2>&1", &status);
  EXPECT_EQ(status, 0) << check << out;
  EXPECT_TRUE(has(check, "syntax check OK")) << check;
  // --ib-client-id flexboot: that form gets the address.
  EXPECT_TRUE(has(entries(root, "--format dnsmasq --ib-client-id flexboot"),
                  "\ndhcp-host=id:ff:00:00:00:00:00:02:00:00:02:c9:00:00:02:c9:03:00:31:78:f2,"
                  "10.20.0.11,node01\n"));
}

// The servers' checks do catch what would break them: the same entries with the two
// forms of a port on one address, as dnsmasq would read them, are refused by it (so the
// checks above pass for what we write, not whatever they are given).
TEST(DhcpHostsCli, TheServersChecksRefuseAnAddressGivenTwice) {
  const std::string root = root_with(kTable);
  std::string out = entries(root, "--format dnsmasq");
  const std::string named = ",node01\n";
  const auto at = out.find("c9:00:00:02:c9:03:00:31:78:f2" + named);
  ASSERT_NE(at, std::string::npos) << out;
  out.replace(at + 29, named.size(), ",10.20.0.11" + named);
  const std::string file = write(root, "dnsmasq-twice.conf", out);
  int status = -1;
  const std::string check = run("/usr/sbin/dnsmasq --test --conf-file=" + file + " 2>&1", &status);
  EXPECT_NE(status, 0) << check;
  EXPECT_TRUE(has(check, "duplicate dhcp-host IP address 10.20.0.11")) << check;
}

// What the table itself must get right is refused when it is read, naming the row, before
// any server sees it: one address for two nodes (lease= or address=), a key of zeros, an
// IPv6 lease, a host name no server takes.
TEST(DhcpHostsCli, BadRowsAreErrorsNamingTheRow) {
  auto r = tool(root_with("[nodes]\n0002:c903:0031:78f2 host=node01 lease=10.20.0.11\n"
                          "52:54:00:77:00:05 host=svc01 address=10.20.0.11/16\n"),
                "dhcp-hosts --format isc");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out,
                  "rdma-provision.conf:3: node 52:54:00:77:00:05: address 10.20.0.11 is "
                  "also node 0002:c903:0031:78f2's"))
      << r.out;
  r = tool(root_with("[nodes]\n0000:0000:0000:0000 host=node01\n"), "dhcp-hosts --format isc");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out,
                  "rdma-provision.conf:2: node 0000:0000:0000:0000: a GUID of zeros is "
                  "no port's"))
      << r.out;
  r = tool(root_with("[nodes]\n0002:c903:0031:78f2 lease=fd00::11\n"), "dhcp-hosts --format isc");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "lease 'fd00::11' is an IPv6 address")) << r.out;
  r = tool(root_with("[nodes]\n0002:c903:0031:78f2 host=node_01\n"), "dhcp-hosts --format isc");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "host name 'node_01' has '_': letters, digits and '-' only")) << r.out;
  r = tool(root_with(kTable), "dhcp-hosts");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "dhcp-hosts needs --format isc|kea|dnsmasq")) << r.out;
  r = tool(root_with(kTable), "dhcp-hosts --format bind");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--format: 'bind' is not isc, kea or dnsmasq")) << r.out;
}

}  // namespace
}  // namespace rp
