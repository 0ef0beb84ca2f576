// The udev rules handed to udev (report/handoff.cc udev_rules): what they match on, as
// udev's own rules for IPoIB and Ethernet names do (rdma-core's 70-persistent-ipoib.rules
// matches the last 8 bytes of the 20-byte address; physical devices only: DRIVERS=="?*").
#include <gtest/gtest.h>

#include <string>

#include "provision/config/config.h"
#include "provision/report/handoff.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

TEST(UdevRules, MatchTheGuidSuffixOrTheMacOnPhysicalDevicesOnly) {
  Config cfg;
  cfg.names["ibstor0"] = {*HwKey::parse("0002:c903:0031:78f2"), src("cmdline: rd.rdma.name=x")};
  cfg.names["roce0"] = {*HwKey::parse("52:54:00:77:00:01"), src("/etc/x.conf:3")};
  const std::string rules = udev_rules(cfg);
  EXPECT_NE(rules.find("ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", "
                       "ATTR{type}==\"32\", TEST!=\"parent\", "
                       "ATTR{address}==\"?*00:02:c9:03:00:31:78:f2\", NAME:=\"ibstor0\""),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("ATTR{type}==\"1\", ATTR{address}==\"52:54:00:77:00:01\", "
                       "NAME:=\"roce0\""),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("# /etc/x.conf:3"), std::string::npos);
}

}  // namespace
}  // namespace rp
