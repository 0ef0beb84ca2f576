// The waits planner (plan/waits.cc), on a Config and an Inventory written out here: rules
// that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(WaitsPlanner, AllLeavesOutAnInfinibandPortThatIsDisabled) {
  // A configured card's mlx4_0: port 1 ACTIVE, port 2 shut off (phys_state Disabled: by
  // the subnet manager or ibportstate). rd.rdma.wait=all would wait for it until the
  // deadline: it is left out with a note, and waited for only when named.
  Inventory inv = cx3_with_port1("ib");
  RdmaDevice d;
  d.name = "mlx4_0";
  d.driver = "mlx4_core";
  d.pci = inv.pci[0].address;
  RdmaPort up;
  up.num = 1;
  up.state = PortState::kActive;
  up.link_layer = LinkLayer::kInfiniBand;
  up.phys_state = "5: LinkUp";
  RdmaPort off = up;
  off.num = 2;
  off.state = PortState::kDown;
  off.phys_state = "3: Disabled";
  d.ports = {up, off};
  inv.rdma.push_back(d);
  Config cfg;
  for (int i = 0; i < 2; ++i) {
    cfg.mlx4[d.pci.value()].type[i] = Sourced<PortType>{PortType::kIb, src("test:50")};  // as it is
  }
  cfg.wait = {{WaitItem{WaitItem::Kind::kAll, {}, 0, ""}, src("cmdline: rd.rdma.wait=all")}};
  const Plan all = make_plan(cfg, inv);
  EXPECT_TRUE(all.actions.empty()) << plan_text(all);
  EXPECT_NE(std::find(all.notes.begin(), all.notes.end(),
                      "wait for mlx4_0/2 (cmdline: rd.rdma.wait=all): the port is Disabled; "
                      "name it to wait for it anyway"),
            all.notes.end())
      << plan_text(all);
  cfg.wait.push_back({port_wait("mlx4_0", 2), src("cmdline: rd.rdma.wait=mlx4_0/2")});
  const Plan named = make_plan(cfg, inv);
  ASSERT_EQ(named.actions.size(), 1u) << plan_text(named);
  EXPECT_EQ(named.actions[0].kind(), ActionKind::kWaitPort);
  EXPECT_EQ(named.actions[0].object(), "mlx4_0/2");
}

TEST(NamesPlanner, OnlyAPortGuidOfThisNodeWaitsForItsIpoibInterface) {
  // One configuration for the cluster names every node's IPoIB ports; ib_ipoib is not
  // loaded yet. This node's port gets its interface renamed once ib_ipoib makes it;
  // another node's GUID gets a note, not a rename that waits until the deadline.
  Inventory inv;
  RdmaDevice d;
  d.name = "mlx5_0";
  d.driver = "mlx5_core";
  RdmaPort p;
  p.num = 1;
  p.state = PortState::kActive;
  p.link_layer = LinkLayer::kInfiniBand;
  p.guid = PortGuid::parse("0c42:a103:0016:b2c4");
  d.ports.push_back(p);
  inv.rdma.push_back(d);
  inv.modules = {"ib_core", "mlx5_core", "mlx5_ib"};
  Config cfg;
  cfg.names["fabric0"] = {*HwKey::parse("0c42:a103:0016:b2c4"), src("test:60")};
  cfg.names["fabric1"] = {*HwKey::parse("0c42:a103:0016:b2c5"), src("test:61")};
  const Plan plan = make_plan(cfg, inv);
  std::vector<std::string> renames;
  for (const auto& a : plan.actions)
    if (a.kind() == ActionKind::kRename) renames.push_back(a.get<Rename>().to);
  EXPECT_EQ(renames, std::vector<std::string>{"fabric0"}) << plan_text(plan);
  EXPECT_TRUE(loads(plan, "ib_ipoib")) << plan_text(plan);
  // A GUID that matches nothing is a warning naming the GUIDs there are, and the typo.
  ASSERT_EQ(plan.diag.warnings.size(), 1u) << plan_text(plan);
  EXPECT_EQ(plan.diag.warnings[0].str(),
            "test:61: name fabric1: no interface with port GUID 0c42:a103:0016:b2c5 is present; "
            "present: mlx5_0/1 0c42:a103:0016:b2c4 (did you mean '0c42:a103:0016:b2c4'?)")
      << plan_text(plan);
}

TEST(WaitsPlanner, NoneCancelsTheWaitsBeforeIt) {
  Inventory inv = roce_port(true, true);
  inv.rdma[0].ports[0].state = PortState::kInit;
  Config cfg;
  cfg.wait = {{port_wait("mlx4_0", 2), src("/etc/rdma-provision/rdma-provision.conf:3")},
              {WaitItem{WaitItem::Kind::kNone, {}, 0, ""}, src("cmdline: rd.rdma.wait=none")}};
  EXPECT_TRUE(make_plan(cfg, inv).actions.empty()) << plan_text(make_plan(cfg, inv));
  cfg.wait.push_back({port_wait("mlx4_0", 2), src("cmdline: rd.rdma.wait=mlx4_0/2")});
  const Plan p = make_plan(cfg, inv);
  ASSERT_EQ(p.actions.size(), 1u) << plan_text(p);
  EXPECT_EQ(p.actions[0].reason, "cmdline: rd.rdma.wait=mlx4_0/2");
}

}  // namespace
}  // namespace rp
