// The per-node table resolved against the machine: a row gives what nothing explicit gives.
#include "provision/resolve/node_table.h"

#include <gtest/gtest.h>

#include "provision/plan/plan.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

Inventory one_nic(const std::string& name, const std::string& mac) {
  Inventory inv;
  NetDev n;
  n.name = name;
  n.type = kArphrdEther;
  n.address = *HwAddress::parse(mac);
  inv.netdevs.push_back(n);
  return inv;
}

NodeEntry row(const std::string& mac, const std::string& name) {
  NodeEntry e;
  e.key = *HwKey::parse(mac);
  e.name = name;
  e.addresses = {*IpPrefix::parse("10.77.0.2/24")};
  e.source = src("/etc/rdma-provision/rdma-provision.conf:9");
  return e;
}

TEST(NodeTable, AnEthernetRowGivesANameAndAnAddressButNoIpoibSettings) {
  Config cfg;
  const NodeEntry e = row("52:54:00:77:00:02", "fabric0");
  cfg.nodes_by_mac[e.key.value] = e;
  cfg = resolve_node_table(one_nic("eth0", "52:54:00:77:00:02"), cfg);
  ASSERT_EQ(cfg.names.count("fabric0"), 1u);
  EXPECT_EQ(cfg.names.at("fabric0").source.str(), e.source + " (node table)");
  EXPECT_EQ(cfg.addresses.at("fabric0").size(), 1u);
  EXPECT_TRUE(cfg.ipoib.empty()) << "an Ethernet row has no IPoIB settings to give";
}

TEST(NodeTable, AnExplicitNameWinsOverTheRow) {
  Config cfg;
  const NodeEntry e = row("52:54:00:77:00:02", "fabric0");
  cfg.nodes_by_mac[e.key.value] = e;
  // The command line gives fabric0 to another interface: the row's name is not taken from it.
  cfg.names["fabric0"] = {*HwKey::parse("52:54:00:77:00:09"), src("cmdline: rd.rdma.name=...")};
  cfg = resolve_node_table(one_nic("eth0", "52:54:00:77:00:02"), cfg);
  EXPECT_EQ(cfg.names.at("fabric0").value.str(), "52:54:00:77:00:09");
  EXPECT_EQ(cfg.names.size(), 1u);
  // The row's address goes to the interface by the name it has.
  EXPECT_EQ(cfg.addresses.count("eth0"), 1u);
}

TEST(NodeTable, NoRowForThisNodeChangesNothing) {
  Config cfg;
  const NodeEntry e = row("52:54:00:77:00:07", "fabric0");
  cfg.nodes_by_mac[e.key.value] = e;
  cfg = resolve_node_table(one_nic("eth0", "52:54:00:77:00:02"), cfg);
  EXPECT_TRUE(cfg.names.empty());
  EXPECT_TRUE(cfg.addresses.empty());
  // ... and says so, once, as a warning against the table's file, naming the row that is
  // a typo of this node's MAC (two digits off).
  EXPECT_EQ(cfg.node_table_unmatched,
            "the node table (1 row) has no row for this node (52:54:00:77:00:02): the defaults "
            "apply (did you mean the row 52:54:00:77:00:07 at " +
                e.source.str() + "?)");
  const Plan plan = make_plan(cfg, one_nic("eth0", "52:54:00:77:00:02"));
  EXPECT_TRUE(plan.notes.empty());
  ASSERT_EQ(plan.diag.warnings.size(), 1u);
  EXPECT_EQ(plan.diag.warnings[0].what, cfg.node_table_unmatched);
  // A row far from every key of this node is no typo: no guess.
  Config far;
  const NodeEntry other = row("52:54:00:aa:bb:cc", "fabric0");
  far.nodes_by_mac[other.key.value] = other;
  far = resolve_node_table(one_nic("eth0", "52:54:00:77:00:02"), far);
  EXPECT_EQ(far.node_table_unmatched.find("did you mean"), std::string::npos);
  // Two rows as near (a cluster's MACs in sequence, and a stranger): no guess either.
  Config two;
  for (const char* mac : {"52:54:00:77:00:03", "52:54:00:77:00:04"}) {
    const NodeEntry r = row(mac, "fabric0");
    two.nodes_by_mac[r.key.value] = r;
  }
  two = resolve_node_table(one_nic("eth0", "52:54:00:77:00:02"), two);
  EXPECT_NE(two.node_table_unmatched, "");
  EXPECT_EQ(two.node_table_unmatched.find("did you mean"), std::string::npos);
  Config matched;
  matched.nodes_by_mac[e.key.value] = e;
  matched = resolve_node_table(one_nic("eth1", "52:54:00:77:00:07"), matched);
  EXPECT_EQ(matched.node_table_unmatched, "");
}

TEST(NodeTable, ARowsSoftRoceDeviceGoesOnItsInterfaceByItsNewName) {
  Config cfg;
  NodeEntry e = row("52:54:00:77:00:03", "nodeb0");
  e.soft = SoftLink{SoftKind::kRxe, "rxe0", e.source};
  cfg.nodes_by_mac[e.key.value] = e;
  cfg = resolve_node_table(one_nic("eth0", "52:54:00:77:00:03"), cfg);
  ASSERT_EQ(cfg.soft_links.count("nodeb0"), 1u);
  EXPECT_EQ(cfg.soft_links.at("nodeb0").name, "rxe0");
  EXPECT_EQ(cfg.soft_links.at("nodeb0").kind, SoftKind::kRxe);
  EXPECT_EQ(cfg.soft_links.at("nodeb0").source.str(), e.source + " (node table)");
  // One asked for explicitly on that interface wins.
  Config cfg2;
  cfg2.nodes_by_mac[e.key.value] = e;
  cfg2.soft_links["nodeb0"] =
      SoftLink{SoftKind::kSiw, "siw9", src("cmdline: rd.rdma.siw=nodeb0:siw9")};
  cfg2 = resolve_node_table(one_nic("eth0", "52:54:00:77:00:03"), cfg2);
  EXPECT_EQ(cfg2.soft_links.at("nodeb0").name, "siw9");
}

}  // namespace
}  // namespace rp
