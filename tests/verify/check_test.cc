// What the verify checks decide without a device: which GID a RoCE loopback uses, how
// round trips are summarised, how GIDs are shown. The data path itself runs in QEMU
// (tests/e2e scenarios 16 and 17: Soft-RoCE on Debian's kernel).
#include "provision/verify/check.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace rp {
namespace {

std::array<uint8_t, 16> gid(std::initializer_list<uint8_t> tail, bool mapped = false) {
  std::array<uint8_t, 16> g{};
  if (mapped) g[10] = g[11] = 0xff;
  size_t i = 16 - tail.size();
  for (uint8_t b : tail) g[i++] = b;
  return g;
}

std::array<uint8_t, 16> link_local() {
  auto g = gid({0x50, 0x54, 0x00, 0xff, 0xfe, 0x77, 0x00, 0x02});
  g[0] = 0xfe;
  g[1] = 0x80;
  return g;
}

// A Soft-RoCE port's table once its interface has an IPv4 address: ib_core's
// roce_gid_mgmt.c adds each address as one entry per RoCE type (v1 first), the default
// link-local GID from the MAC at indices 0 and 1.
std::vector<GidEntry> rxe_table() {
  return {{0, link_local(), GidType::kRoceV1},
          {1, link_local(), GidType::kRoceV2},
          {2, gid({10, 77, 0, 2}, true), GidType::kRoceV1},
          {3, gid({10, 77, 0, 2}, true), GidType::kRoceV2}};
}

TEST(ChooseGid, TheIpv4MappedGidOfTheWantedType) {
  auto v2 = choose_gid(rxe_table(), GidType::kRoceV2);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->index, 3u);
  EXPECT_EQ(gid_text(v2->raw), "::ffff:10.77.0.2");
  auto v1 = choose_gid(rxe_table(), GidType::kRoceV1);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->index, 2u);
}

TEST(ChooseGid, TheLinkLocalGidBeforeAnAddressExists) {
  auto t = rxe_table();
  t.resize(2);
  auto g = choose_gid(t, GidType::kRoceV2);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->index, 1u);
  EXPECT_EQ(gid_text(g->raw), "fe80::5054:ff:fe77:2");
}

TEST(ChooseGid, NoneOfTheWantedTypeAndNeverAZeroGid) {
  std::vector<GidEntry> only_v1 = {{0, link_local(), GidType::kRoceV1}};
  EXPECT_FALSE(choose_gid(only_v1, GidType::kRoceV2));
  std::vector<GidEntry> zero = {{0, {}, GidType::kRoceV2}};
  EXPECT_FALSE(choose_gid(zero, GidType::kRoceV2));
  EXPECT_FALSE(choose_gid({}, GidType::kRoceV2));
}

// ipv6.disable=1: the kernel cannot resolve a RoCE v2 GID that is not IPv4-mapped
// (EAFNOSUPPORT from addr6_resolve), so only the IPv4 GID will do, and before the
// interface has an address there is none (the check then waits for the table to change).
// RoCE v1 to the link-local GID needs no IP stack (verbs.c rdma_get_ll_mac).
TEST(ChooseGid, WithoutIpv6OnlyAnIpv4MappedRoceV2Gid) {
  auto v2 = choose_gid(rxe_table(), GidType::kRoceV2, false);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->index, 3u);
  auto before_address = rxe_table();
  before_address.resize(2);
  EXPECT_FALSE(choose_gid(before_address, GidType::kRoceV2, false));
  auto v1 = choose_gid(before_address, GidType::kRoceV1, false);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->index, 0u);
  EXPECT_TRUE(gid_is_ipv4_mapped(rxe_table()[3].raw));
  EXPECT_FALSE(gid_is_ipv4_mapped(rxe_table()[1].raw));
}

TEST(Latency, MedianMinMax) {
  auto l = latency_of({30, 10, 20, 1000});
  EXPECT_EQ(l.rounds, 4u);
  EXPECT_DOUBLE_EQ(l.median_us, 25);
  EXPECT_DOUBLE_EQ(l.min_us, 10);
  EXPECT_DOUBLE_EQ(l.max_us, 1000);
  EXPECT_EQ(l.str(), "4 round trips, median 25 us (10..1000)");
  EXPECT_EQ(latency_of({7}).str(), "1 round trip, median 7 us (7..7)");
  EXPECT_EQ(latency_of({}).rounds, 0u);
}

// rdma_resolve_addr fails at once when no route leads to the peer yet (the interface
// that does is still being configured): a try to repeat within the check's time.
TEST(RouteMissing, NoRouteYetIsRetriedOtherErrorsAreNot) {
  for (int e : {ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, ENODEV})
    EXPECT_TRUE(route_missing(e)) << e;
  for (int e : {EINVAL, ENOMEM, EAFNOSUPPORT, 0}) EXPECT_FALSE(route_missing(e)) << e;
  EXPECT_TRUE(
      peer_retry_delay(route_missing(ENETUNREACH), std::nullopt, std::chrono::milliseconds(10000)));
}

// A target's reject carries its NVMe/RDMA reason (include/linux/nvme-rdma.h enum
// nvme_rdma_cm_status, 1..9); a code outside it is named by its number, never indexed.
TEST(NvmeRdmaReject, TheTargetsReasonInWords) {
  EXPECT_EQ(nvme_rdma_reject_text(1), "invalid length (NVMe/RDMA status 1)");
  EXPECT_EQ(nvme_rdma_reject_text(4), "invalid host send queue size (NVMe/RDMA status 4)");
  EXPECT_EQ(nvme_rdma_reject_text(6),
            "no resources (the target is at its limit of queues) (NVMe/RDMA status 6)");
  EXPECT_EQ(nvme_rdma_reject_text(9), "invalid controller ID (NVMe/RDMA status 9)");
  EXPECT_EQ(nvme_rdma_reject_text(0), "unrecognized reason (NVMe/RDMA status 0)");
  EXPECT_EQ(nvme_rdma_reject_text(10), "unrecognized reason (NVMe/RDMA status 10)");
}

}  // namespace
}  // namespace rp
