#include "provision/base/types.h"

#include <gtest/gtest.h>

#include "provision/base/json.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

// The one join (base/strings.h): empty items leave no separator behind.
TEST(Strings, JoinSkipsEmptyItems) {
  EXPECT_EQ(join({"a", "", "b"}, "; "), "a; b");
  EXPECT_EQ(join({"", "a"}, ", "), "a");
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"x"}, ", "), "x");
}

TEST(PortGuid, AcceptsTheThreeSpellingsAdministratorsUse) {
  const uint64_t want = 0x0002c903003178f2ULL;
  EXPECT_EQ(PortGuid::parse("00:02:c9:03:00:31:78:f2")->value, want);
  EXPECT_EQ(PortGuid::parse("0002:c903:0031:78f2")->value, want);
  EXPECT_EQ(PortGuid::parse("0x0002c903003178f2")->value, want);
  EXPECT_EQ(PortGuid::parse("0002:C903:0031:78F2")->value, want);
}

TEST(PortGuid, RejectsWrongLengthsAndJunk) {
  for (const char* bad :
       {"", "0002:c903:0031", "00:02:c9:03:00:31:78", "0x2c903003178f2", "0002:c903:0031:78fg",
        "00:02:c9:03:00:31:78:f2:00", "0x", "0002:c903:0031:78f2 ", "00:02:c9:03:00:31:7:8f2"}) {
    EXPECT_FALSE(PortGuid::parse(bad).has_value()) << bad;
  }
}

TEST(PortGuid, PrintsLikeSysfsAndLikeUdev) {
  PortGuid g{0xf4521403007bcba1ULL};
  EXPECT_EQ(g.str(), "f452:1403:007b:cba1");
  EXPECT_EQ(g.colon_bytes(), "f4:52:14:03:00:7b:cb:a1");
}

TEST(HwAddress, IpoibGuidIsTheLastEightBytesOnly) {
  // Flags/QPN and subnet prefix differ; the GUID part is what identifies the port.
  auto a = HwAddress::parse("80:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1");
  auto b = HwAddress::parse("00:00:04:4a:fe:80:00:00:00:00:00:01:f4:52:14:03:00:7b:cb:a1");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->len, 20);
  EXPECT_EQ(a->ipoib_guid()->str(), "f452:1403:007b:cba1");
  EXPECT_EQ(a->ipoib_guid(), b->ipoib_guid());
  EXPECT_FALSE(a->mac().has_value());
}

TEST(HwAddress, IpoibBroadcastPkeyIsBytesEightAndNineHighFirst) {
  // ipoib_main.c ipoib_ndo_init: broadcast[8] = pkey >> 8, broadcast[9] = pkey & 0xff.
  auto child = HwAddress::parse("00:ff:ff:ff:ff:12:40:1b:80:10:00:00:00:00:00:00:ff:ff:ff:ff");
  auto parent = HwAddress::parse("00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff");
  ASSERT_TRUE(child && parent);
  EXPECT_EQ(child->ipoib_broadcast_pkey(), uint16_t{0x8010});
  EXPECT_EQ(parent->ipoib_broadcast_pkey(), uint16_t{0xffff});
  // Only a 20-byte IPoIB address has one.
  EXPECT_FALSE(HwAddress::parse("ff:ff:ff:ff:ff:ff")->ipoib_broadcast_pkey().has_value());
  EXPECT_FALSE(HwAddress{}.ipoib_broadcast_pkey().has_value());
}

TEST(HwAddress, SixBytesIsAMac) {
  auto a = HwAddress::parse("52:54:00:77:00:01");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->mac()->str(), "52:54:00:77:00:01");
  EXPECT_FALSE(a->ipoib_guid().has_value());
  EXPECT_FALSE(HwAddress::parse("52:54:00:77:00:0").has_value());
  EXPECT_FALSE(HwAddress::parse("52:54:00:77:00:0x1").has_value());
}

TEST(PciAddress, ParsesWithAndWithoutDomain) {
  EXPECT_EQ(PciAddress::parse("0000:81:00.0")->str(), "0000:81:00.0");
  EXPECT_EQ(PciAddress::parse("81:00.1")->str(), "0000:81:00.1");
  EXPECT_EQ(PciAddress::parse("0001:AF:1f.7")->str(), "0001:af:1f.7");
  // Intel VMD domains start at 0x10000 (drivers/pci/controller/vmd.c).
  EXPECT_EQ(PciAddress::parse("10000:e1:00.0")->str(), "10000:e1:00.0");
  EXPECT_TRUE(*PciAddress::parse("ffff:00:00.0") < *PciAddress::parse("10000:00:00.0"));
  for (const char* bad :
       {"81:00", "0000:81:00.8", "0000:81:20.0", "000:81:00.0", "123456789:81:00.0", "x", ""}) {
    EXPECT_FALSE(PciAddress::parse(bad).has_value()) << bad;
  }
}

TEST(PortState, ReadsTheNumberNotTheWord) {
  EXPECT_EQ(parse_port_state("4: ACTIVE"), PortState::kActive);
  EXPECT_EQ(parse_port_state("2: INIT"), PortState::kInit);
  EXPECT_EQ(parse_port_state("1: DOWN"), PortState::kDown);
  EXPECT_EQ(parse_port_state("garbage"), PortState::kUnknown);
  EXPECT_EQ(parse_port_state("9: WHAT"), PortState::kUnknown);
}

TEST(Strings, ParseUintAcceptsDecimalAndHexOnly) {
  EXPECT_EQ(parse_uint("106"), 106u);
  EXPECT_EQ(parse_uint("0x8001"), 0x8001u);
  EXPECT_FALSE(parse_uint("-1"));
  EXPECT_FALSE(parse_uint("12a"));
  EXPECT_FALSE(parse_uint(""));
  EXPECT_FALSE(parse_uint("99999999999999999999999"));
  EXPECT_EQ(parse_hex("ffff"), 0xffffu);
}

TEST(Json, EscapesControlCharactersAndQuotes) {
  JsonWriter w(false);
  w.begin_object().field("a\"b", "line\nnext\x01").field("n", 3).key("l").begin_array();
  w.value(true).null().end_array().end_object();
  EXPECT_EQ(w.str(), R"({"a\"b":"line\nnext\u0001","n":3,"l":[true,null]})");
}

}  // namespace
}  // namespace rp
