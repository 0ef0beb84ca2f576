// The mlx4 port-type planner (plan/mlx4.cc), on a Config and an Inventory written out here: rules
// that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(Mlx4Planner, BothPortsOfACardAreWrittenAsAPair) {
  Inventory inv = cx3_with_port1("ib");  // ib,ib
  Config cfg;
  for (int i = 0; i < 2; ++i) {
    cfg.mlx4[inv.pci[0].address].type[i] = Sourced<PortType>{PortType::kEth, src("test:9")};
  }
  const Plan p = make_plan(cfg, inv);
  std::vector<SetPortType> writes;
  for (const auto& a : p.actions)
    if (a.kind() == ActionKind::kSetPortType) writes.push_back(a.get<SetPortType>());
  ASSERT_EQ(writes.size(), 2u) << plan_text(p);
  // eth,eth: port 2 first (mlx4_check_port_params), then port 1, which applies the pair.
  EXPECT_EQ(writes[0].port, 2u);
  EXPECT_EQ(writes[0].other, PortType::kEth);
  EXPECT_FALSE(writes[0].other_first);
  EXPECT_EQ(writes[1].port, 1u);
  EXPECT_TRUE(writes[1].other_first);
}

TEST(Mlx4Planner, Mlx4ConfLinesAreReadAgainstTheCardAsMlx4SetupDoes) {
  // A dual-port card and a line with one type: mlx4-setup.sh skips it.
  Inventory dual = cx3_with_port1("ib");
  Config one;
  one.mlx4[dual.pci[0].address].type[0] =
      Sourced<PortType>{PortType::kEth, src("/etc/rdma/mlx4.conf:4")};
  const Plan skipped = make_plan(one, dual);
  for (const auto& a : skipped.actions) EXPECT_NE(a.kind(), ActionKind::kSetPortType);
  ASSERT_EQ(skipped.diag.warnings.size(), 1u) << plan_text(skipped);
  EXPECT_EQ(skipped.diag.warnings[0].where, "/etc/rdma/mlx4.conf:4");
  // The same from our own command line means port 1 alone.
  one.mlx4.begin()->second.type[0]->source = src("cmdline: rd.rdma.mlx4=0000:81:00.0/eth");
  const Plan ours = make_plan(one, dual);
  EXPECT_TRUE(ours.diag.warnings.empty()) << plan_text(ours);
  // A single-port card (no mlx4_port2) gets port 1 only.
  Inventory single = cx3_with_port1("ib");
  single.pci[0].mlx4_ports.pop_back();
  Config both;
  for (int i = 0; i < 2; ++i) {
    both.mlx4[single.pci[0].address].type[i] =
        Sourced<PortType>{PortType::kEth, src("/etc/rdma/mlx4.conf:5")};
  }
  const Plan p1 = make_plan(both, single);
  std::vector<unsigned> ports;
  for (const auto& a : p1.actions)
    if (a.kind() == ActionKind::kSetPortType) ports.push_back(a.get<SetPortType>().port);
  EXPECT_EQ(ports, std::vector<unsigned>{1}) << plan_text(p1);
  EXPECT_FALSE(p1.actions.empty() || p1.notes.empty()) << plan_text(p1);
}

TEST(Mlx4Planner, AnAutoPortThatReadsAsSensedIsAlreadyAuto) {
  // show_port_type prints "auto (eth)" for a port set to auto and sensed as Ethernet.
  Config cfg;
  cfg.mlx4[*PciAddress::parse("0000:81:00.0")].type[0] =
      Sourced<PortType>{PortType::kAuto, src("cmdline: rd.rdma.mlx4=0000:81:00.0/auto")};
  for (const char* shown : {"auto (eth)", "auto (ib)"}) {
    const Plan p = make_plan(cfg, cx3_with_port1(shown));
    for (const auto& a : p.actions) EXPECT_NE(a.kind(), ActionKind::kSetPortType) << shown;
  }
  // A port that reads eth is set to auto.
  const Plan eth = make_plan(cfg, cx3_with_port1("eth"));
  std::vector<std::string> writes;
  for (const auto& a : eth.actions)
    if (a.kind() == ActionKind::kSetPortType) writes.push_back(a.object() + " " + a.wanted());
  EXPECT_EQ(writes, std::vector<std::string>{"0000:81:00.0 port 1 auto"}) << plan_text(eth);
}

}  // namespace
}  // namespace rp
