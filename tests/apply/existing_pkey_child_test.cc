// The P_Key executor's verdict on a link that already has the child's name. There is no
// IPoIB where tests run, so the links are the ones the kernel reports for IPoIB: a child's
// iflink is its parent's ifindex (ipoib_main.c ipoib_get_iflink), and its broadcast address
// carries its P_Key in bytes 8 (high) and 9 (low), the full-membership bit set
// (ipoib_main.c ipoib_ndo_init), whether it was made through create_child or rtnetlink.
#include <gtest/gtest.h>

#include <string>

#include "provision/apply/links.h"

namespace rp {
namespace {

LinkInfo ipoib_link(const std::string& name, int ifindex, int iflink,
                    const std::string& broadcast) {
  LinkInfo l;
  l.name = name;
  l.ifindex = ifindex;
  l.iflink = iflink;
  l.type = kArphrdInfiniband;
  l.broadcast = *HwAddress::parse(broadcast);
  return l;
}

const LinkInfo kParent =
    ipoib_link("ib0", 4, 4, "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff");

// ib0.8010 as the request names it: P_Key 0x8010 (bytes 80, 10: high then low).
const CreatePkeyChild kWanted{"ib0", "ib0.8010", 0x8010, std::nullopt};

TEST(ExistingPkeyChild, TheChildOnItsParentWithItsPkeyIsAlreadyThere) {
  const LinkInfo child =
      ipoib_link("ib0.8010", 7, 4, "00:ff:ff:ff:ff:12:40:1b:80:10:00:00:00:00:00:00:ff:ff:ff:ff");
  Outcome o = existing_pkey_child(kWanted, kParent, child);
  EXPECT_EQ(o.kind, OutcomeKind::kAlready) << o.error.str();
  EXPECT_EQ(o.detail, "P_Key 0x8010 on ib0");
}

TEST(ExistingPkeyChild, AChildWithAnotherPkeyIsNotTakenForIt) {
  // The same two bytes the other way round: P_Key 0x1080, another partition.
  const LinkInfo other =
      ipoib_link("ib0.8010", 7, 4, "00:ff:ff:ff:ff:12:40:1b:10:80:00:00:00:00:00:00:ff:ff:ff:ff");
  Outcome o = existing_pkey_child(kWanted, kParent, other);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            "ib0.8010: exists, but is not the child with P_Key 0x8010 on ib0 (P_Key 0x1080)");
  EXPECT_EQ(o.detail, "give the P_Key child another name");
}

TEST(ExistingPkeyChild, TheRightPkeyOnAnotherParentIsNotTakenForIt) {
  const LinkInfo on_ib1 =
      ipoib_link("ib0.8010", 8, 5, "00:ff:ff:ff:ff:12:40:1b:80:10:00:00:00:00:00:00:ff:ff:ff:ff");
  Outcome o = existing_pkey_child(kWanted, kParent, on_ib1);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            "ib0.8010: exists, but is not the child with P_Key 0x8010 on ib0 (P_Key 0x8010, not "
            "on ib0)");
}

TEST(ExistingPkeyChild, AnEthernetLinkOfThatNameHasNoPkey) {
  LinkInfo veth;
  veth.name = "ib0.8010";
  veth.ifindex = 9;
  veth.iflink = 4;
  veth.type = kArphrdEther;
  veth.broadcast = *HwAddress::parse("ff:ff:ff:ff:ff:ff");
  Outcome o = existing_pkey_child(kWanted, kParent, veth);
  ASSERT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            "ib0.8010: exists, but is not the child with P_Key 0x8010 on ib0 (no P_Key)");
}

}  // namespace
}  // namespace rp
