// The plan's cross-checks of the inputs (plan/plan.cc validate), on a Config and an Inventory
// written out here: rules that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(Validate, DracutsIfnameAndOurNamesMustAgree) {
  const HwKey mac = *HwKey::parse("52:54:00:77:00:02"), other = *HwKey::parse("52:54:00:77:00:09");
  auto errors = [&](const std::string& dname, const HwKey& dkey) {
    Config cfg;
    cfg.names["fabric0"] = {mac, src("cmdline: rd.rdma.name=fabric0:52:54:00:77:00:02")};
    cfg.boot.dracut_ifnames[dname] = {dkey, src("cmdline: ifname=" + dname + ":" + dkey.str())};
    Diagnostics d;
    validate(cfg, d);
    std::vector<std::string> out;
    for (const auto& e : d.errors) out.push_back(e.str());
    return out;
  };
  EXPECT_TRUE(errors("fabric0", mac).empty());  // the same: no clash
  EXPECT_EQ(errors("net0", mac),
            std::vector<std::string>{
                "cmdline: rd.rdma.name=fabric0:52:54:00:77:00:02: clashes with dracut's "
                "ifname=net0:52:54:00:77:00:02: 52:54:00:77:00:02 is named 'net0' there and "
                "'fabric0' here"});
  EXPECT_EQ(errors("fabric0", other).size(), 1u);
  EXPECT_TRUE(errors("net0", other).empty());  // different interfaces, different names
}

TEST(Validate, ADefaultChildNameLongerThan15BytesIsInvalid) {
  Config cfg;
  PkeyChild c;
  c.parent = "storage-fab0";  // 12 bytes: "storage-fab0.8001" is 17
  c.pkey = 0x1;
  c.source = src("test:8");
  cfg.pkeys[{c.parent, c.pkey}] = c;
  Diagnostics d;
  validate(cfg, d);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].str(),
            "test:8: the default name of the P_Key child, 'storage-fab0.8001', is 17 bytes, "
            "longer than 15: give the child a name");
  cfg.pkeys.begin()->second.name = "stor.8001";
  Diagnostics named;
  validate(cfg, named);
  EXPECT_TRUE(named.ok());
}

}  // namespace
}  // namespace rp
