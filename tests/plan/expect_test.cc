// The expected link (rd.rdma.expect, plan/expect.cc and plan/link_check.cc): the kernel's
// formats read as it prints them, what is planned for which port or HCA, the more
// specific setting winning key by key, and a device that is not there.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

// rate_show ("%d%s Gb/sec (%dX%s)", core/sysfs.c): each speed of the switch, widths 1X to
// 12X, SDR's ".5"; the XDR row of 6.8 and later.
TEST(LinkCheck, RateShowReadAsTheKernelPrintsIt) {
  const struct {
    const char* text;
    unsigned tenths, width;
    const char* speed;
  } kRates[] = {
      {"2.5 Gb/sec (1X SDR)", 25, 1, "SDR"},     {"10 Gb/sec (4X SDR)", 100, 4, "SDR"},
      {"20 Gb/sec (4X DDR)", 200, 4, "DDR"},     {"40 Gb/sec (4X QDR)", 400, 4, "QDR"},
      {"40 Gb/sec (4X FDR10)", 400, 4, "FDR10"}, {"56 Gb/sec (4X FDR)", 560, 4, "FDR"},
      {"100 Gb/sec (4X EDR)", 1000, 4, "EDR"},   {"200 Gb/sec (4X HDR)", 2000, 4, "HDR"},
      {"100 Gb/sec (2X HDR)", 1000, 2, "HDR"},   {"400 Gb/sec (4X NDR)", 4000, 4, "NDR"},
      {"800 Gb/sec (4X XDR)", 8000, 4, "XDR"},   {"300 Gb/sec (12X EDR)", 3000, 12, "EDR"},
      {"7.5 Gb/sec (3X SDR)", 75, 3, "SDR"},
  };
  for (const auto& r : kRates) {
    auto got = parse_rate_show(r.text);
    ASSERT_TRUE(got) << r.text;
    EXPECT_EQ(got->tenths, r.tenths) << r.text;
    EXPECT_EQ(got->width, r.width) << r.text;
    EXPECT_EQ(got->speed, r.speed) << r.text;
  }
  for (const char* bad : {"", "100 Gb/sec", "fast (4X EDR)", "100 Gb/sec (EDR)"})
    EXPECT_FALSE(parse_rate_show(bad)) << bad;
  // pci_speed_string (drivers/pci/probe.c): the PCIe rates; "Unknown" is no speed.
  EXPECT_EQ(parse_pcie_speed_show("2.5 GT/s PCIe"), 25u);
  EXPECT_EQ(parse_pcie_speed_show("16.0 GT/s PCIe\n"), 160u);
  EXPECT_EQ(parse_pcie_speed_show("64.0 GT/s PCIe"), 640u);
  EXPECT_FALSE(parse_pcie_speed_show("Unknown"));
  EXPECT_FALSE(parse_pcie_speed_show("33 MHz PCI"));
}

TEST(LinkCheck, EachDifferenceNamesWhatWasFoundAndWhatWasExpected) {
  ExpectedLink want;
  want.rate = 4000;
  want.width = 4;
  want.sm = true;
  FoundLink found;
  found.rate = "200 Gb/sec (4X HDR)";
  found.state = "4: ACTIVE";
  found.sm_lid = "0x1";
  EXPECT_EQ(link_mismatches(want, found),
            std::vector<std::string>{"rate 200 Gb/sec (4X HDR), expected 400 Gb/sec"});
  found.rate = "400 Gb/sec (4X NDR)";
  EXPECT_TRUE(link_mismatches(want, found).empty());
  EXPECT_EQ(found_text(want, found), "400 Gb/sec (4X NDR), SM LID 0x1");
  // No subnet manager: ACTIVE needs one on InfiniBand, and sm_lid 0x0 is none.
  found.state = "2: INIT";
  found.sm_lid = "0x0";
  EXPECT_EQ(link_mismatches(want, found),
            std::vector<std::string>{"subnet manager state INIT, sm_lid 0x0, expected configured "
                                     "by a subnet manager (ACTIVE, sm_lid set)"});
  // The HCA: trained at x8 in an x16 slot; max_link_width is what it could have.
  ExpectedLink hca;
  hca.pcie_width = 0;
  hca.pcie_speed = 160;
  FoundLink pci;
  pci.pcie_speed = "16.0 GT/s PCIe";
  pci.pcie_width = "8";
  pci.pcie_max_speed = "16.0 GT/s PCIe";
  pci.pcie_max_width = "16";
  EXPECT_EQ(link_mismatches(hca, pci),
            std::vector<std::string>{"PCIe width x8, expected x16 (max_link_width)"});
  // Unreadable is said so, never taken as a match.
  EXPECT_EQ(link_mismatches(hca, FoundLink{}),
            (std::vector<std::string>{
                "PCIe speed unknown (unreadable), expected 16.0 GT/s",
                "PCIe width unknown (unreadable), expected max_link_width, which is unknown"}));
}

std::vector<std::string> lines(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions) {
    out.push_back(std::string(to_string(a.kind())) + " " + a.object() + ": " + a.current + " -> " +
                  a.wanted() + "  [" + a.reason + "]");
  }
  return out;
}

Plan plan_on(const std::string& fixture, const std::string& cmdline, Diagnostics* diag = nullptr) {
  const std::string dir = testing::unpack_fixture(fixture);
  InputOptions opt;
  opt.cmdline_text = cmdline;
  Inputs in = load_inputs(Root(dir), opt);
  EXPECT_TRUE(in.diag.ok()) << in.diag.errors[0].str();
  Plan p = make_plan(in.config, discover(Root(dir), Detail::kPlan));
  if (diag) *diag = p.diag;
  return p;
}

// "*" for every port, a device's own keys for the HCA, one port refining "*": the most
// specific wins key by key; the port is checked after its wait, which rate asks for.
TEST(Expect, EveryPortAndTheHcaWithTheMostSpecificSettingWinning) {
  const Plan p = plan_on("cx3-vpi",
                         "rd.rdma.expect=*:rate=56,width=4x rd.rdma.expect=mlx4_0/2:rate=40 "
                         "rd.rdma.expect=mlx4_0:fw=2.42.5000,pcie_width=max");
  const auto l = lines(p);
  ASSERT_EQ(l.size(), 3u) << plan_text(p);
  EXPECT_EQ(l[0],
            "check-link mlx4_0: not checked -> firmware 2.42.5000, PCIe max_link_width  "
            "[cmdline: rd.rdma.expect=mlx4_0:fw=2.42.5000,pcie_width=max]");
  EXPECT_EQ(l[1],
            "check-link mlx4_0/1: not checked -> 56 Gb/sec, 4X  [cmdline: "
            "rd.rdma.expect=*:rate=56,width=4x]");
  EXPECT_EQ(l[2],
            "check-link mlx4_0/2: not checked -> 40 Gb/sec, 4X  [cmdline: "
            "rd.rdma.expect=mlx4_0/2:rate=40]");
  // A port that is not up yet (cx5-roce's mlx5_1/1, its link down) is brought up and
  // waited for, then checked: a rate is that of a port that is up.
  const Plan down = plan_on("cx5-roce", "rd.rdma.expect=mlx5_1/1:rate=100");
  ASSERT_FALSE(down.actions.empty());
  const Action& check = down.actions.back();
  EXPECT_EQ(check.kind(), ActionKind::kCheckLink) << plan_text(down);
  ASSERT_EQ(check.after.size(), 1u) << plan_text(down);
  EXPECT_EQ(down.actions[check.after[0]].kind(), ActionKind::kWaitPort) << plan_text(down);
}

// A Soft-RoCE device this plan creates: its port checked once it exists and is ACTIVE.
TEST(Expect, ASoftDeviceThisPlanCreatesIsCheckedOnceItIsUp) {
  const Plan p = plan_on("cx5-roce",
                         "rd.rdma.rxe=ens1f1np1:rxe7 rd.rdma.expect=rxe7:link_layer=Ethernet,"
                         "phys_state=LinkUp,rate=10");
  const Action& check = p.actions.back();
  ASSERT_EQ(check.kind(), ActionKind::kCheckLink) << plan_text(p);
  EXPECT_EQ(check.object(), "rxe7/1");
  EXPECT_EQ(check.current, "absent");
  EXPECT_EQ(check.waiting_for, "rxe7");
  bool after_wait = false;
  for (size_t d : check.after) after_wait |= p.actions[d].kind() == ActionKind::kWaitPort;
  EXPECT_TRUE(after_wait) << plan_text(p);
}

// "*" on a node with an InfiniBand and a RoCE port and a Soft-RoCE device (cx3-vpi's
// mlx4_0 has one of each, rxe made on its Ethernet port): the subnet manager is asked of
// the InfiniBand port only, the HCA keys of the HCA only.
TEST(Expect, EveryPortAsksASubnetManagerOfInfiniBandAndEveryHcaIsOnPci) {
  const Plan p = plan_on("cx3-vpi",
                         "rd.rdma.rxe=enp129s0d1:rxe0 "
                         "rd.rdma.expect=*:link_layer=InfiniBand,sm=yes,pcie_width=max");
  std::vector<std::string> checks;
  for (const auto& a : p.actions)
    if (a.kind() == ActionKind::kCheckLink) checks.push_back(a.object() + " -> " + a.wanted());
  EXPECT_EQ(checks, (std::vector<std::string>{
                        "mlx4_0 -> PCIe max_link_width",
                        "mlx4_0/1 -> InfiniBand, configured by a subnet manager",
                        "mlx4_0/2 -> InfiniBand",
                        "rxe0/1 -> InfiniBand",
                    }))
      << plan_text(p);
}

TEST(Expect, ADeviceThatIsNotThereIsSaidWithWhatIs) {
  Diagnostics d;
  const Plan p = plan_on("cx5-ib", "rd.rdma.expect=mlx5_3/1:rate=400", &d);
  EXPECT_TRUE(p.actions.empty()) << plan_text(p);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].str().find("expected link: no RDMA port mlx5_3/1 is present; present: "
                                     "mlx5_0/1"),
            std::string::npos)
      << d.warnings[0].str();
}

}  // namespace
}  // namespace rp
