// The listener's rules as values: --allow prefixes, the cap and its busy answer, which a
// client must tell from a plain reject, the per-session deadline and the metrics text.
#include "provision/verify/listen_policy.h"

#include <gtest/gtest.h>

#include "provision/verify/check.h"

namespace rp {
namespace {

using std::chrono::milliseconds;

IpPrefix prefix(const char* s) { return *IpPrefix::parse(s); }
IpAddress ip(const char* s) { return *IpAddress::parse(s); }

TEST(PrefixContains, Ipv4Ipv6AndBitsInsideAByte) {
  EXPECT_TRUE(prefix_contains(prefix("10.77.0.0/24"), ip("10.77.0.9")));
  EXPECT_FALSE(prefix_contains(prefix("10.77.0.0/24"), ip("10.77.1.9")));
  // /26 ends inside the last byte: .0-.63 in, .64 out. Host bits in the prefix are ignored.
  EXPECT_TRUE(prefix_contains(prefix("10.77.0.5/26"), ip("10.77.0.63")));
  EXPECT_FALSE(prefix_contains(prefix("10.77.0.5/26"), ip("10.77.0.64")));
  EXPECT_TRUE(prefix_contains(prefix("0.0.0.0/0"), ip("192.0.2.1")));
  EXPECT_TRUE(prefix_contains(prefix("10.77.0.2/32"), ip("10.77.0.2")));
  EXPECT_FALSE(prefix_contains(prefix("10.77.0.2/32"), ip("10.77.0.3")));
  EXPECT_TRUE(prefix_contains(prefix("fd00:77::/64"), ip("fd00:77::2")));
  EXPECT_FALSE(prefix_contains(prefix("fd00:77::/64"), ip("fd00:78::2")));
  // Another family never matches, not even ::/0 for an IPv4 source.
  EXPECT_FALSE(prefix_contains(prefix("::/0"), ip("10.77.0.2")));
  EXPECT_FALSE(prefix_contains(prefix("0.0.0.0/0"), ip("::1")));
}

TEST(Admit, AllowListFirstThenOurHelloThenTheCap) {
  ListenLimits l;
  l.max_sessions = 2;
  EXPECT_EQ(admit(l, ip("192.0.2.1"), true, 0), Admission::kAccept);  // no --allow: anyone
  EXPECT_EQ(admit(l, ip("10.77.0.2"), false, 0), Admission::kNotOurs);
  EXPECT_EQ(admit(l, ip("10.77.0.2"), true, 1), Admission::kAccept);
  EXPECT_EQ(admit(l, ip("10.77.0.2"), true, 2), Admission::kBusy);
  l.allow = {prefix("10.77.0.0/28"), prefix("fd00::/64")};
  EXPECT_EQ(admit(l, ip("10.77.0.2"), true, 0), Admission::kAccept);
  EXPECT_EQ(admit(l, ip("fd00::7"), true, 0), Admission::kAccept);
  // Outside the list: refused for good, even at the cap (a stranger is never told "busy").
  EXPECT_EQ(admit(l, ip("10.77.0.20"), true, 0), Admission::kNotAllowed);
  EXPECT_EQ(admit(l, ip("10.77.0.20"), true, 2), Admission::kNotAllowed);
  EXPECT_EQ(admit(l, std::nullopt, true, 0), Admission::kNotAllowed);
}

// What the kernel hands the client: 148 bytes whatever the listener sent, zero-padded
// (cma.c cma_ib_handler, IB_CM_REJ_RECEIVED), and reason 28 for rdma_reject.
std::array<uint8_t, 148> as_received(const uint8_t* data, size_t len) {
  std::array<uint8_t, 148> r{};
  std::copy(data, data + len, r.begin());
  return r;
}

TEST(BusyReject, TheClientRecognisesItAndOnlyIt) {
  const auto busy = busy_reject(milliseconds(1500));
  static_assert(kBusyRejectBytes <= 148, "IB CM REJ private data is at most 148 bytes");
  const auto got = as_received(busy.data(), busy.size());
  EXPECT_EQ(busy_retry_after(28, got.data(), got.size()), milliseconds(1500));
  // Another reason (8: no listener), no data, a plain reject (all zero), garbage, short data.
  EXPECT_FALSE(busy_retry_after(8, got.data(), got.size()));
  EXPECT_FALSE(busy_retry_after(28, nullptr, 0));
  const auto zero = as_received(nullptr, 0);
  EXPECT_FALSE(busy_retry_after(28, zero.data(), zero.size()));
  const uint8_t garbage[] = {'R', 'P', 'V', '1', 'B', 'U', 'S', 'X', 1, 0, 0, 0};
  EXPECT_FALSE(busy_retry_after(28, garbage, sizeof garbage));
  EXPECT_FALSE(busy_retry_after(28, busy.data(), 8));
  // A delay beyond 10 s is taken as 10 s: a garbled answer cannot stall a client.
  const auto long_wait = busy_reject(milliseconds(4000000));
  EXPECT_EQ(busy_retry_after(28, long_wait.data(), long_wait.size()), milliseconds(10000));
}

TEST(PeerRetryDelay, BusyIsRetriedWithinTheBudgetAPlainRejectIsFinal) {
  // Busy: wait as asked, as long as the wait and a try fit.
  EXPECT_EQ(peer_retry_delay(true, milliseconds(1000), milliseconds(20000)), milliseconds(1000));
  EXPECT_FALSE(peer_retry_delay(true, milliseconds(1000), milliseconds(1400)));
  // No answer: 250 ms.
  EXPECT_EQ(peer_retry_delay(true, std::nullopt, milliseconds(5000)), milliseconds(250));
  EXPECT_FALSE(peer_retry_delay(true, std::nullopt, milliseconds(700)));
  // A reject without the busy answer (no listener, outside --allow): final at once.
  EXPECT_FALSE(peer_retry_delay(false, std::nullopt, milliseconds(60000)));
}

TEST(SessionDeadlines, ExpiryAndThePollTimeout) {
  SessionDeadlines d(milliseconds(15000));
  const auto t0 = ListenClock::now();
  EXPECT_EQ(d.wait_ms(t0, 1000), 1000);  // nothing open: the stop flag's second
  d.start(1, t0);
  d.start(2, t0 + milliseconds(14500));
  EXPECT_TRUE(d.expired(t0 + milliseconds(14999)).empty());
  EXPECT_EQ(d.wait_ms(t0 + milliseconds(14800), 1000), 200);
  EXPECT_EQ(d.expired(t0 + milliseconds(15000)), std::vector<uintptr_t>{1});
  EXPECT_EQ(d.wait_ms(t0 + milliseconds(16000), 1000), 0);
  d.end(1);
  EXPECT_EQ(d.expired(t0 + milliseconds(29500)), std::vector<uintptr_t>{2});
  d.end(2);
  EXPECT_EQ(d.size(), 0u);
}

// verify --listen's counts across a start anew (the environment of the fresh process).
TEST(ListenResume, CountsRoundTripAndAnythingElseIsRefused) {
  // sessions, refused, busy, passed, failed, expired, relistens
  const ListenStats s{12, 1, 3, 10, 2, 1, 4};
  const std::string text = listen_resume_text(s);
  EXPECT_EQ(text, "12 1 3 10 2 1 4 ");
  auto back = parse_listen_resume(text.c_str());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->sessions, 12u);
  EXPECT_EQ(back->relistens, 4u);
  EXPECT_FALSE(parse_listen_resume(nullptr));
  EXPECT_FALSE(parse_listen_resume("1 2 3"));
  EXPECT_FALSE(parse_listen_resume("1 2 3 4 5 6 7 8"));
  EXPECT_FALSE(parse_listen_resume("1 2 x 4 5 6 7"));
}

}  // namespace
}  // namespace rp
