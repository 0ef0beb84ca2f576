// Waiting for an RDMA port to become ACTIVE, against fixture trees.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>

#include "provision/apply/context.h"
#include "tests/apply/test_run.h"

namespace rp {
namespace {

using testing::TestRun;
using testing::wait_port_action;
using namespace std::chrono_literals;

TEST(WaitPort, ActivePortIsAlreadyThere) {
  TestRun r("cx5-ib");
  Outcome o = execute(r.ctx, wait_port_action("mlx5_0", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kAlready);
  EXPECT_EQ(o.detail, "ACTIVE");
  EXPECT_EQ(r.kernel.changes(), 0u);
}

TEST(WaitPort, InitIbPortTimesOutWithTheSubnetManagerMessage) {
  TestRun r("four-hca", 200ms);
  Outcome o = execute(r.ctx, wait_port_action("mlx4_0", 2));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(), "port 2 of mlx4_0 is INIT: no subnet manager has configured it");
  EXPECT_TRUE(std::regex_match(o.detail, std::regex(R"(waited 0\.[12]\d s; phys_state 5: LinkUp)")))
      << o.detail;
  EXPECT_LT(r.elapsed_ms(), 1000);
}

TEST(WaitPort, DownPortTimesOutNamingTheLink) {
  TestRun r("four-hca", 100ms);
  r.kernel.set_port_state_after("mlx4_0", 2, "1: DOWN", 0);
  Outcome o = execute(r.ctx, wait_port_action("mlx4_0", 2));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(),
            "port 2 of mlx4_0 is DOWN: no link (cable, switch port, or the peer is down)");
  EXPECT_LT(r.elapsed_ms(), 1000);
}

// A ConnectX RoCE port follows its interface (mlx5_query_port_roce): DOWN/Disabled while
// ens1f1np1 is down, whether a cable is in or not. The wait says which of the two it is.
TEST(WaitPort, HardwareRocePortOnAnInterfaceThatStaysDownSaysSo) {
  TestRun r("cx5-roce", 100ms);
  r.kernel.roce_port_follows("mlx5_1", 1, "ens1f1np1", testing::FakeKernel::RoceModel::kHardware);
  Outcome o = execute(r.ctx, wait_port_action("mlx5_1", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(),
            "port 1 of mlx5_1 is DOWN: ens1f1np1 under it is administratively down (a RoCE port "
            "is ACTIVE only while its interface is up with carrier)");
  EXPECT_TRUE(std::regex_match(o.detail, std::regex(R"(waited 0\.\d\d s; phys_state 3: Disabled)")))
      << o.detail;
}

TEST(WaitPort, HardwareRocePortBecomesActiveOnceItsInterfaceIsUpWithCarrier) {
  TestRun r("cx5-roce");
  r.kernel.roce_port_follows("mlx5_1", 1, "ens1f1np1", testing::FakeKernel::RoceModel::kHardware);
  r.kernel.set_link_up_after("ens1f1np1", "1", 4);
  Outcome o = execute(r.ctx, wait_port_action("mlx5_1", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_TRUE(std::regex_match(o.detail, std::regex(R"(ACTIVE after \d+\.\d\d s)"))) << o.detail;
}

// A RoCE LAG forms while the wait lasts (the fake kernel's mlx5_form_lag, lag/lag.c
// mlx5_do_bond): mlx5_1, DOWN, is unregistered with mlx5_0 and mlx5_bond_0 registered on
// 0000:af:00.0 with its port on bond0, ACTIVE. The wait for mlx5_1/1 follows it to the
// device that exists now (its PF's interface, ens1f1np1, is a slave of that bond), says
// so, and ends ACTIVE instead of waiting out the deadline for a device that is gone.
TEST(WaitPort, AWaitFollowsItsDeviceIntoARoceLag) {
  TestRun r("cx5-roce", 2s);
  r.kernel.mlx5_form_lag({"mlx5_0", "mlx5_1"}, "bond0", "802.3ad 4", "mlx5_bond_0", 3);
  Outcome o = execute(r.ctx, wait_port_action("mlx5_1", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_TRUE(std::regex_match(
      o.detail, std::regex(R"(ACTIVE after \d+\.\d\d s \(mlx5_1 \(0000:af:00\.1\) is gone: the )"
                           R"(RoCE LAG mlx5_bond_0 took it over \(mlx5 lag/lag\.c mlx5_do_bond\); )"
                           R"(waited for mlx5_bond_0/1\))")))
      << o.detail;
  EXPECT_LT(r.elapsed_ms(), 1500);
  // The kernel's state after it: the PFs' devices gone, the LAG device on PF0's function.
  EXPECT_FALSE(r.kernel.exists("/sys/class/infiniband/mlx5_0"));
  EXPECT_FALSE(r.kernel.exists("/sys/class/infiniband/mlx5_1"));
  EXPECT_EQ(r.kernel.root().link_basename("/sys/class/infiniband/mlx5_bond_0/device").value_or(""),
            "0000:af:00.0");
  EXPECT_EQ(r.kernel.root().link_basename("/sys/class/net/ens1f1np1/master").value_or(""), "bond0");
}

// A device that is gone with no LAG in its place is still a wait that times out, naming it.
TEST(WaitPort, AGoneDeviceWithoutALagTimesOutNamingIt) {
  TestRun r("cx5-roce", 100ms);
  r.kernel.unplug_after("0000:af:00.1", 1);
  Outcome o = execute(r.ctx, wait_port_action("mlx5_1", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(), "port 1 of mlx5_1 does not exist: there is no RDMA device mlx5_1");
}

// Unplugged: the interface is up, the carrier never comes. Bounded, and named as such.
TEST(WaitPort, HardwareRocePortWithoutCarrierIsNamedUnplugged) {
  TestRun r("cx5-roce", 150ms);
  r.kernel.roce_port_follows("mlx5_1", 1, "ens1f1np1", testing::FakeKernel::RoceModel::kHardware);
  r.kernel.set_link_up_after("ens1f1np1", "0", 2);
  Outcome o = execute(r.ctx, wait_port_action("mlx5_1", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(),
            "port 1 of mlx5_1 is DOWN: ens1f1np1 under it is up but has no carrier: no link "
            "(cable, switch port, or the peer is down)");
  EXPECT_LT(r.elapsed_ms(), 1000);
}

// A port the boot does not use (only rd.rdma.verify=ports waits for it) and whose
// interface stays up without carrier: skipped after the grace, never the whole deadline.
TEST(WaitPort, APortTheBootDoesNotUseWithoutCarrierIsSkippedAfterTheGrace) {
  TestRun r("cx5-roce", 30s);
  r.kernel.roce_port_follows("mlx5_1", 1, "ens1f1np1", testing::FakeKernel::RoceModel::kHardware);
  r.kernel.set_link_up_after("ens1f1np1", "0", 1);
  Action a = wait_port_action("mlx5_1", 1);
  std::get<WaitPort>(a.params).carrier_grace = true;
  Outcome o = execute(r.ctx, a);
  EXPECT_EQ(o.kind, OutcomeKind::kSkipped) << o.error.str();
  EXPECT_EQ(o.detail,
            "no carrier on ens1f1np1 after 10 s: not checked (the boot's network does not "
            "use it)");
  EXPECT_GE(r.elapsed_ms(), 10000);
  EXPECT_LT(r.elapsed_ms(), 15000);
}

// While a wait lasts, it says so: after its first second and every 5 s, with the port's
// state and why it is not ready (as systemd's "A start job is running for ...").
TEST(WaitPort, ALongWaitSaysWhatItWaitsForWhileItWaits) {
  TestRun r("four-hca", 7900ms);  // room for a slow machine between the two lines
  Outcome o = execute(r.ctx, wait_port_action("mlx4_0", 2));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  std::vector<std::string> waiting;
  for (const auto& l : r.lines)
    if (l.find("waiting for mlx4_0/2") != std::string::npos) waiting.push_back(l);
  ASSERT_EQ(waiting.size(), 2u) << ::testing::PrintToString(r.lines);
  EXPECT_TRUE(std::regex_search(
      waiting[0], std::regex(R"(waiting for mlx4_0/2 to become ACTIVE \([12] s / 7 s\): port 2 )"
                             R"(of mlx4_0 is INIT: no subnet manager has configured it$)")))
      << waiting[0];
  EXPECT_TRUE(std::regex_search(waiting[1], std::regex(R"(\([67] s / 7 s\))"))) << waiting[1];
  // A port that is ready at once says nothing of the kind.
  TestRun ready("cx5-ib");
  execute(ready.ctx, wait_port_action("mlx5_0", 1));
  for (const auto& l : ready.lines) EXPECT_EQ(l.find("waiting for"), std::string::npos) << l;
}

// Soft-RoCE is not hardware: the same interface up without carrier makes its port ACTIVE
// (rxe_notify, NETDEV_UP), and only the carrier check keeps the wait honest.
TEST(WaitPort, SoftRoceGoesActiveWithoutCarrierWhereHardwareStaysDown) {
  TestRun r("rxe-virtio", 150ms);
  std::remove((r.dir + "/sys/class/net/eth0/carrier").c_str());
  std::ofstream(r.dir + "/sys/class/net/eth0/flags") << "0x1002\n";  // down
  r.kernel.roce_port_follows("rxe0", 1, "eth0", testing::FakeKernel::RoceModel::kRxe);
  EXPECT_EQ(r.raw("/sys/class/infiniband/rxe0/ports/1/state"), "1: DOWN\n");
  r.kernel.set_link_up_after("eth0", "0", 2);
  Outcome o = execute(r.ctx, wait_port_action("rxe0", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(r.raw("/sys/class/infiniband/rxe0/ports/1/state"), "4: ACTIVE\n");
  EXPECT_EQ(o.error.str(),
            "port 1 of rxe0 is ACTIVE but eth0 under it has no carrier: no link (cable, switch "
            "port, or the peer is down)");
}

TEST(WaitPort, MissingPortOrDeviceIsNamed) {
  TestRun r("cx5-ib", 50ms);
  Outcome port = execute(r.ctx, wait_port_action("mlx5_0", 2));
  EXPECT_EQ(port.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(port.error.str(), "port 2 of mlx5_0 does not exist");

  TestRun r2("cx5-ib", 50ms);
  Outcome dev = execute(r2.ctx, wait_port_action("mlx5_9", 1));
  EXPECT_EQ(dev.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(dev.error.str(), "port 1 of mlx5_9 does not exist: there is no RDMA device mlx5_9");
}

TEST(WaitPort, PortThatBecomesActiveReportsHowLongItTook) {
  TestRun r("four-hca");
  r.kernel.set_port_state_after("mlx4_0", 2, "4: ACTIVE", 5);
  Outcome o = execute(r.ctx, wait_port_action("mlx4_0", 2));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_TRUE(std::regex_match(o.detail, std::regex(R"(ACTIVE after \d+\.\d\d s)"))) << o.detail;
  // Five reads of the state, then the link layer (InfiniBand: no carrier to look at).
  EXPECT_EQ(r.kernel.calls(), 6u);
}

TEST(WaitPort, DeviceVanishingWhileWaitingIsNamed) {
  TestRun r("four-hca", 200ms);
  r.kernel.unplug_after("0000:04:00.0", 3);
  Outcome o = execute(r.ctx, wait_port_action("mlx4_0", 2));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(), "port 2 of mlx4_0 does not exist: there is no RDMA device mlx4_0");
}

// Soft-RoCE on 6.1 shows ACTIVE on an interface without carrier (wait_port.cc): the wait
// goes on until the carrier comes, and names the interface if it never does.
TEST(WaitPort, RoceActiveWithoutCarrierIsNotReady) {
  TestRun r("rxe-virtio", 200ms);
  std::ofstream(r.dir + "/sys/class/net/eth0/carrier") << "0\n";
  Outcome o = execute(r.ctx, wait_port_action("rxe0", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(),
            "port 1 of rxe0 is ACTIVE but eth0 under it has no carrier: no link (cable, switch "
            "port, or the peer is down)");

  TestRun r2("rxe-virtio");
  std::ofstream(r2.dir + "/sys/class/net/eth0/carrier") << "0\n";
  r2.kernel.set_carrier_after("eth0", "1", 6);
  Outcome o2 = execute(r2.ctx, wait_port_action("rxe0", 1));
  EXPECT_EQ(o2.kind, OutcomeKind::kDone) << o2.error.str();
  EXPECT_TRUE(std::regex_match(o2.detail, std::regex(R"(ACTIVE after \d+\.\d\d s)"))) << o2.detail;
}

TEST(WaitPort, RoceActiveOnAnInterfaceThatIsDownIsDecidedByThePortState) {
  TestRun r("rxe-virtio");
  std::remove((r.dir + "/sys/class/net/eth0/carrier").c_str());  // EINVAL when down
  Outcome o = execute(r.ctx, wait_port_action("rxe0", 1));
  EXPECT_EQ(o.kind, OutcomeKind::kAlready) << o.error.str();
}

// Soft-iWARP's port on 6.1 keeps the state siw_netdev_event gave it at NETDEV_UP (carrier
// ignored), on 6.12 siw_query_port computes it from the netdev on every query: the same
// interface, up without carrier, reads ACTIVE on one kernel and DOWN on the other. The
// wait ends alike on both: bounded, naming the interface and "no carrier"; and done once
// the carrier comes.
TEST(WaitPort, SoftIwarpWithoutCarrierWaitsAlikeOnBothKernels) {
  using Model = testing::FakeKernel::RoceModel;
  for (Model m : {Model::kSiw61, Model::kSiw612}) {
    const bool k61 = m == Model::kSiw61;
    TestRun r("siw", 150ms);
    std::ofstream(r.dir + "/sys/class/net/ens785f0/flags") << "0x1002\n";  // down
    std::remove((r.dir + "/sys/class/net/ens785f0/carrier").c_str());      // EINVAL when down
    r.kernel.roce_port_follows("siw0", 1, "ens785f0", m);
    r.kernel.set_link_up_after("ens785f0", "0", 1);  // up, no carrier
    Outcome o = execute(r.ctx, wait_port_action("siw0", 1));
    EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
    EXPECT_EQ(r.raw("/sys/class/infiniband/siw0/ports/1/state"), k61 ? "4: ACTIVE\n" : "1: DOWN\n");
    EXPECT_NE(o.error.str().find("ens785f0 under it"), std::string::npos) << o.error.str();
    EXPECT_NE(o.error.str().find("no carrier"), std::string::npos) << o.error.str();

    TestRun r2("siw", 200ms);
    std::ofstream(r2.dir + "/sys/class/net/ens785f0/carrier") << "0\n";
    r2.kernel.roce_port_follows("siw0", 1, "ens785f0", m);
    r2.kernel.set_carrier_after("ens785f0", "1", 4);
    Outcome o2 = execute(r2.ctx, wait_port_action("siw0", 1));
    if (!k61) {
      EXPECT_EQ(o2.kind, OutcomeKind::kDone) << o2.error.str();
      EXPECT_EQ(r2.raw("/sys/class/infiniband/siw0/ports/1/state"), "4: ACTIVE\n");
      continue;
    }
    // 6.1: the link was made while the interface had no carrier, and the carrier's coming
    // is a NETDEV_CHANGE siw ignores: the port stays DOWN, and the wait says why.
    EXPECT_EQ(o2.kind, OutcomeKind::kTimedOut);
    EXPECT_EQ(o2.error.str(),
              "port 1 of siw0 is DOWN although ens785f0 under it is up with carrier: "
              "Soft-iWARP before Linux 6.12 sees a carrier that came after its link was made "
              "only when the interface is set up again");
  }
}

}  // namespace
}  // namespace rp
