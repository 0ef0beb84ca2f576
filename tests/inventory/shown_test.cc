// The parsers of what kernel attribute files show, as tables of the kernel's own texts.
#include "provision/inventory/shown.h"

#include <gtest/gtest.h>

namespace rp {
namespace {

TEST(ShownMlx4PortType, TheFormsShowPortTypePrints) {
  // mlx4/main.c show_port_type: "%s\n" or, for a port whose possible type is auto,
  // "auto (%s)\n" with the type currently sensed.
  struct Row {
    const char* shown;
    PortType configured, effective;
    LinkLayer link_layer;
  };
  const Row rows[] = {
      {"ib\n", PortType::kIb, PortType::kIb, LinkLayer::kInfiniBand},
      {"eth\n", PortType::kEth, PortType::kEth, LinkLayer::kEthernet},
      {"auto (ib)\n", PortType::kAuto, PortType::kIb, LinkLayer::kInfiniBand},
      {"auto (eth)", PortType::kAuto, PortType::kEth, LinkLayer::kEthernet},
  };
  for (const Row& r : rows) {
    auto t = parse_mlx4_port_type(r.shown);
    ASSERT_TRUE(t) << r.shown;
    EXPECT_EQ(t->configured, r.configured) << r.shown;
    EXPECT_EQ(t->effective, r.effective) << r.shown;
    EXPECT_EQ(t->is_auto(), r.configured == PortType::kAuto) << r.shown;
    EXPECT_EQ(t->link_layer(), r.link_layer) << r.shown;
    std::string as_shown(r.shown);
    if (as_shown.back() == '\n') as_shown.pop_back();
    EXPECT_EQ(t->str(), as_shown);
  }
}

TEST(ShownMlx4PortType, AnythingElseIsUnknown) {
  for (const char* s : {"", "auto", "auto ()", "auto (auto)", "IB", "ib eth", "(eth)"}) {
    EXPECT_EQ(parse_mlx4_port_type(s), std::nullopt) << s;
  }
}

TEST(ShownIpoibMode, TheTwoWordsShowModePrints) {
  // ipoib_main.c show_mode.
  EXPECT_EQ(parse_shown_ipoib_mode("connected\n"), IpoibMode::kConnected);
  EXPECT_EQ(parse_shown_ipoib_mode("datagram\n"), IpoibMode::kDatagram);
  EXPECT_EQ(parse_shown_ipoib_mode(""), std::nullopt);
  EXPECT_EQ(parse_shown_ipoib_mode("Connected"), std::nullopt);
}

TEST(ShownRoceTos, ANumberFromZeroTo255) {
  // cma_configfs.c default_roce_tos_show: "%u\n" of a u8.
  EXPECT_EQ(parse_roce_tos("106\n"), 106);
  EXPECT_EQ(parse_roce_tos("0"), 0);
  EXPECT_EQ(parse_roce_tos("255"), 255);
  EXPECT_EQ(parse_roce_tos("256"), std::nullopt);
  EXPECT_EQ(parse_roce_tos(""), std::nullopt);
  EXPECT_EQ(parse_roce_tos("RoCE v2"), std::nullopt);
}

}  // namespace
}  // namespace rp
