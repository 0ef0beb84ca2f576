// The rename executor's guard against acting on another device than the plan saw, on the
// addresses a kernel with IPoIB reports (none here): an IPoIB interface is the same port
// while its port GUID is (ipoib_main.c ipoib_add_port: the first 4 bytes are flags and the
// QPN, the next 8 the subnet prefix, the last 8 the GUID), whatever its QPN.
#include <gtest/gtest.h>

#include "provision/apply/links.h"

namespace rp {
namespace {

LinkInfo with_address(const std::string& address) {
  LinkInfo l;
  l.name = "ib0";
  l.address = *HwAddress::parse(address);
  return l;
}

TEST(RenameGuard, AnIpoibPortIsTheSameWhileItsGuidIsWhateverItsQpn) {
  const auto seen = HwAddress::parse("80:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:d0:01");
  // The QPN (bytes 1-3) changed since: the same port.
  EXPECT_TRUE(same_hardware(
      with_address("80:00:04:48:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:d0:01"), seen));
  // Another port GUID: another port.
  EXPECT_FALSE(same_hardware(
      with_address("80:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:d0:02"), seen));
  // An Ethernet interface: all 6 bytes.
  EXPECT_TRUE(
      same_hardware(with_address("52:54:00:77:00:02"), HwAddress::parse("52:54:00:77:00:02")));
  EXPECT_FALSE(
      same_hardware(with_address("52:54:00:77:00:03"), HwAddress::parse("52:54:00:77:00:02")));
  // Nothing seen: nothing to compare.
  EXPECT_TRUE(same_hardware(with_address("52:54:00:77:00:03"), std::nullopt));
}

}  // namespace
}  // namespace rp
