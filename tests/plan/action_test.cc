// The actions' texts (plan/action.cc), on a Config and an Inventory written out here: rules
// that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

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
