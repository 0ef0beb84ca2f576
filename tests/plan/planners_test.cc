// Capability planners on a Config and an Inventory written out here: rules that no
// fixture shows, each checked on the smallest machine that has it.
#include <gtest/gtest.h>

#include <string>

#include "provision/plan/plan.h"

namespace rp {
namespace {

// A ConnectX-3 driven by mlx4_core, mlx4_core loaded, mlx4_en not; port 1's type file
// reads `port1` (show_port_type in drivers/net/ethernet/mellanox/mlx4/main.c prints
// "auto (eth)" / "auto (ib)" for a sensed auto port).
Inventory cx3_with_port1(const std::string& port1) {
  Inventory inv;
  PciFunction f;
  f.address = *PciAddress::parse("0000:81:00.0");
  f.driver = "mlx4_core";
  f.mlx4_ports = {{1, port1, true, ""}, {2, "ib", true, "4096"}};
  inv.pci.push_back(f);
  inv.modules = {"mlx4_core", "mlx4_ib", "ib_core"};
  return inv;
}

bool loads(const Plan& p, const std::string& module) {
  for (const auto& a : p.actions) {
    if (const auto* l = std::get_if<LoadModule>(&a.params); l && l->module == module) return true;
  }
  return false;
}

TEST(ModulesPlanner, AnAutoPortSensedAsEthernetNeedsMlx4En) {
  const Plan p = make_plan(Config{}, cx3_with_port1("auto (eth)"));
  EXPECT_TRUE(loads(p, "mlx4_en")) << plan_text(p);
}

TEST(ModulesPlanner, AnAutoPortSensedAsInfinibandDoesNot) {
  const Plan p = make_plan(Config{}, cx3_with_port1("auto (ib)"));
  EXPECT_FALSE(loads(p, "mlx4_en")) << plan_text(p);
}

TEST(ModulesPlanner, TheRdmaDriverOfEachNicDriverIsLoaded) {
  Inventory inv;
  for (const char* driver : {"be2net", "mana", "mlx5_core"}) {
    PciFunction f;
    f.address =
        *PciAddress::parse(std::string("0000:0") + std::to_string(inv.pci.size()) + ":00.0");
    f.driver = driver;
    inv.pci.push_back(f);
  }
  const Plan p = make_plan(Config{}, inv);
  EXPECT_TRUE(loads(p, "ocrdma")) << plan_text(p);
  EXPECT_TRUE(loads(p, "mana_ib")) << plan_text(p);
  EXPECT_TRUE(loads(p, "mlx5_ib")) << plan_text(p);
}

TEST(Actions, TextsComeFromTheParameters) {
  const Action a(SetPortType{*PciAddress::parse("81:00.0"), 2, PortType::kEth}, "ib", "test");
  EXPECT_EQ(to_string(a.kind()), "port-type");
  EXPECT_EQ(a.object(), "0000:81:00.0 port 2");
  EXPECT_EQ(a.wanted(), "eth");
  const Action r(AddRoute{"ib0", std::nullopt, IpAddress::parse("10.0.0.1")}, "", "test");
  EXPECT_EQ(r.wanted(), "default via 10.0.0.1");
  const Action m(LoadModule{"mlx4_en", "", PfcMasks{8, 8}}, "not loaded", "test");
  EXPECT_EQ(m.wanted(), "loaded with pfctx=0x08 pfcrx=0x08");
  EXPECT_EQ(m.get<LoadModule>().all_options(), "pfctx=0x08 pfcrx=0x08");
}

}  // namespace
}  // namespace rp
