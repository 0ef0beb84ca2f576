// LinkWatcher against the real kernel, in a namespace of its own per test.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_testing.h"
#include "tests/netns/netns.h"

namespace rp {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using LinkWatcherTest = testing::NetnsTest;

TEST_F(LinkWatcherTest, InitialStateListsTheLinksThatExist) {
  ASSERT_TRUE(rtnl_add_veth("w0", "w1")) << "veth";
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  ASSERT_TRUE(w->find("w0"));
  ASSERT_TRUE(w->find("w1"));
  EXPECT_EQ(w->find("w0")->kind, "veth");
  EXPECT_EQ(w->find("w0")->iflink, w->find("w1")->ifindex);
  EXPECT_TRUE(w->find("lo"));
  EXPECT_EQ(w->events(), 0u);
}

TEST_F(LinkWatcherTest, LinkCreatedAfterSubscribingIsSeenWithoutReading) {
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  EXPECT_FALSE(w->find("w0"));
  // Created before anyone reads: the event waits in the socket.
  ASSERT_TRUE(rtnl_add_veth("w0", "w1"));
  auto l = w.value().wait_for(LinkWatcher::exists("w0"), Clock::now() + 2s);
  ASSERT_TRUE(l) << l.error().str();
  EXPECT_EQ(l->name, "w0");
  EXPECT_GT(w->events(), 0u);
}

TEST_F(LinkWatcherTest, WaitReturnsWhenAnotherThreadCreatesTheLink) {
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  const auto t0 = Clock::now();
  std::thread later([] {
    std::this_thread::sleep_for(80ms);
    (void)rtnl_add_veth("late0", "late1");
  });
  auto l = w.value().wait_for(LinkWatcher::exists("late1"), Clock::now() + 5s);
  const auto took = Clock::now() - t0;
  later.join();
  ASSERT_TRUE(l) << l.error().str();
  EXPECT_GE(took, 80ms);
  EXPECT_LT(took, 2s);
}

TEST_F(LinkWatcherTest, SeesARenameAsTheSameLink) {
  ASSERT_TRUE(rtnl_add_veth("w0", "w1"));
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  const int index = w->find("w0")->ifindex;
  ASSERT_TRUE(rtnl_rename_link("w0", "renamed0"));
  auto l = w.value().wait_for(LinkWatcher::exists("renamed0"), Clock::now() + 2s);
  ASSERT_TRUE(l) << l.error().str();
  EXPECT_EQ(l->ifindex, index);
  EXPECT_FALSE(w->find("w0"));
}

TEST_F(LinkWatcherTest, SeesCarrierWhenThePeerComesUp) {
  ASSERT_TRUE(rtnl_add_veth("w0", "w1"));
  ASSERT_TRUE(rtnl_set_link_up("w0", true));
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  EXPECT_FALSE(w->find("w0")->carrier);
  ASSERT_TRUE(rtnl_set_link_up("w1", true));
  auto l = w.value().wait_for(LinkWatcher::has_carrier("w0"), Clock::now() + 2s);
  ASSERT_TRUE(l) << l.error().str();
  EXPECT_TRUE(l->carrier);
  EXPECT_TRUE(l->admin_up);
}

TEST_F(LinkWatcherTest, DeadlineEndsTheWaitWithEtimedout) {
  ASSERT_TRUE(rtnl_add_veth("w0", "w1"));
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  const auto t0 = Clock::now();
  auto l = w.value().wait_for(LinkWatcher::has_carrier("w0"), t0 + 120ms);
  const auto took = Clock::now() - t0;
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().errnum, ETIMEDOUT);
  EXPECT_GE(took, 120ms);
  EXPECT_LT(took, 1s);
}

TEST_F(LinkWatcherTest, DeletedLinkIsForgotten) {
  ASSERT_TRUE(rtnl_add_veth("w0", "w1"));
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  ASSERT_TRUE(rtnl_delete_link("w0"));  // takes its peer with it
  ASSERT_TRUE(w.value().refresh());
  EXPECT_FALSE(w->find("w0"));
  EXPECT_FALSE(w->find("w1"));
}

TEST_F(LinkWatcherTest, ManyEventsBetweenReadsAreAllApplied) {
  auto w = LinkWatcher::open();
  ASSERT_TRUE(w) << w.error().str();
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(rtnl_add_veth("m" + std::to_string(i), "p" + std::to_string(i)));
  }
  ASSERT_TRUE(w.value().refresh());
  for (int i = 0; i < 40; ++i) {
    EXPECT_TRUE(w->find("m" + std::to_string(i))) << i;
    EXPECT_TRUE(w->find("p" + std::to_string(i))) << i;
  }
}

TEST_F(LinkWatcherTest, LinkCreatedWhileSubscribingIsNeverLost) {
  // The link appears at varying moments around open(): before the subscription, between
  // subscription and dump, during the dump, after it. Every time it must be found.
  for (int i = 0; i < 30; ++i) {
    std::thread creator([i] {
      std::this_thread::sleep_for(std::chrono::microseconds(50 * i));
      (void)rtnl_add_veth("race0", "race1");
    });
    auto w = LinkWatcher::open();
    ASSERT_TRUE(w) << w.error().str();
    auto l = w.value().wait_for(LinkWatcher::exists("race1"), Clock::now() + 2s);
    creator.join();
    ASSERT_TRUE(l) << "round " << i << ": " << l.error().str();
    ASSERT_TRUE(rtnl_delete_link("race0"));
  }
}

TEST_F(LinkWatcherTest, DroppedEventsAreRecoveredFromAFreshDump) {
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(rtnl_add_veth("old" + std::to_string(i), "oldp" + std::to_string(i)));
  }
  auto w = LinkWatcher::open(16 * 1024);
  ASSERT_TRUE(w) << w.error().str();
  // Far more events than the socket buffer holds, none read meanwhile: the kernel drops
  // some and reports ENOBUFS.
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(rtnl_delete_link("old" + std::to_string(i)));
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(rtnl_add_veth("new" + std::to_string(i), "newp" + std::to_string(i)));
  }
  ASSERT_TRUE(w.value().refresh());
  EXPECT_GE(w->resyncs(), 1u) << "the buffer never overflowed: the test proves nothing";
  for (int i = 0; i < 25; ++i) EXPECT_FALSE(w->find("old" + std::to_string(i))) << i;
  for (int i = 25; i < 50; ++i) EXPECT_TRUE(w->find("old" + std::to_string(i))) << i;
  for (int i = 0; i < 200; ++i) {
    EXPECT_TRUE(w->find("new" + std::to_string(i))) << i;
    EXPECT_TRUE(w->find("newp" + std::to_string(i))) << i;
  }
  EXPECT_EQ(w->links().size(), 1u + 50u + 2 * 200u);  // lo, the rest of old, the new pairs
}

}  // namespace
}  // namespace rp
