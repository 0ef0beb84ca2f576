// mlx4 port type and port MTU executors against fixture trees, the fake kernel beneath.
#include <gtest/gtest.h>

#include <cerrno>
#include <regex>

#include "provision/apply/context.h"
#include "provision/kernel/files.h"
#include "tests/apply/test_run.h"

namespace rp {
namespace {

using testing::errno_text;
using testing::FakeKernel;
using testing::port_mtu_action;
using testing::port_type_action;
using testing::TestRun;
using namespace std::chrono_literals;

const std::string kVpi = "0000:81:00.0";
const std::string kVpiDir = "/sys/bus/pci/devices/0000:81:00.0";
const std::string kVpiPort1 = kVpiDir + "/mlx4_port1";
const std::string kVpiPort2 = kVpiDir + "/mlx4_port2";

std::string retries(unsigned writes) {
  const unsigned n = writes - 1;
  return "after " + std::to_string(n) + (n == 1 ? " retry" : " retries");
}

TEST(PortType, EthEthOnVpiCardWritesPort1WithNewlineAndWaitsForTheCard) {
  TestRun r("cx3-vpi");
  const std::string ifindex_before = r.raw(kVpiDir + "/net/ib0/ifindex");

  Outcome o2 = execute(r.ctx, port_type_action(kVpi, 2, "eth"));
  EXPECT_EQ(o2.kind, OutcomeKind::kAlready);
  EXPECT_EQ(o2.detail, "reads 'eth'");

  Outcome o1 = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o1.kind, OutcomeKind::kDone) << o1.error.str();
  EXPECT_EQ(o1.detail, "card re-registered");
  EXPECT_EQ(r.raw(kVpiPort1), "eth\n");
  ASSERT_EQ(r.kernel.writes().size(), 1u);
  EXPECT_EQ(r.kernel.writes()[0].path, kVpiPort1);
  EXPECT_EQ(r.kernel.writes()[0].bytes, "eth\n");
  EXPECT_EQ(r.raw(kVpiPort2), "eth\n");
  // The card came back as an Ethernet,Ethernet card before the executor returned.
  EXPECT_EQ(r.kernel.reregistrations(kVpi), 1u);
  EXPECT_FALSE(r.kernel.reregistering(kVpi));
  EXPECT_EQ(r.raw("/sys/class/infiniband/mlx4_0/ports/1/link_layer"), "Ethernet\n");
  EXPECT_NE(r.raw(kVpiDir + "/net/ib0/ifindex"), ifindex_before);
}

TEST(PortType, ReRegistrationIsWaitedForBeforeReturning) {
  TestRun r("cx3-vpi");
  r.kernel.mlx4_reregistration(kVpi, 40);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "card re-registered");
  EXPECT_FALSE(r.kernel.reregistering(kVpi));
  EXPECT_TRUE(r.kernel.root().exists("/sys/class/infiniband/mlx4_0"));
  EXPECT_TRUE(r.kernel.root().exists("/sys/class/net/ib0"));
  EXPECT_TRUE(r.kernel.root().exists("/sys/class/net/enp129s0d1"));
}

TEST(PortType, ReRegistrationInsideTheWriteIsSeenAtOnce) {
  TestRun r("cx3-vpi");
  r.kernel.mlx4_reregistration(kVpi, 0);  // current kernels: done before write(2) returns
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "card re-registered");
  EXPECT_LT(r.elapsed_ms(), 1000);
}

TEST(PortType, TreeThatNeverReRegistersIsWaitedForABoundedTime) {
  // A plain fixture tree: the file changes, nothing else does.
  TestRun r("cx3-vpi", 300ms);
  RealFileOps plain(Root(r.dir));
  ApplyContext ctx{plain, false, Deadline(300ms), r.log};
  Outcome o = execute(ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  std::smatch m;
  ASSERT_TRUE(std::regex_match(o.detail, m, std::regex("no re-registration seen within (\\d+) ms")))
      << o.detail;
  EXPECT_GE(std::stoi(m[1]), 150);
  EXPECT_LT(r.elapsed_ms(), 2000);
  EXPECT_EQ(r.raw(kVpiPort1), "eth\n");
}

TEST(PortType, RefusedSwitchIsRetriedUntilTheOtherPortSettles) {
  TestRun r("cx3-vpi");
  // Port 2 has just been switched: the card is unregistered for a while and refuses.
  r.kernel.mlx4_reregistration(kVpi, 12);
  r.kernel.mlx4_refuse_while_reregistering(kVpi, EOPNOTSUPP);
  r.kernel.mlx4_start_reregistration(kVpi);

  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  ASSERT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  const unsigned writes = r.kernel.writes_to(kVpiPort1);
  EXPECT_GT(writes, 4u);  // beyond the grace retries: it waited for the card
  for (unsigned i = 0; i + 1 < writes; ++i) EXPECT_EQ(r.kernel.writes()[i].errnum, EOPNOTSUPP);
  EXPECT_EQ(r.kernel.writes().back().errnum, 0);
  EXPECT_EQ(o.detail, retries(writes) + "; card re-registered");
  EXPECT_EQ(r.raw(kVpiPort1), "eth\n");
}

TEST(PortType, PersistentEopnotsuppIsReportedWithTheReasonAndNotRetriedForever) {
  TestRun r("cx3-vpi");
  r.kernel.mlx4_unsupported(kVpi, 2, "ib");
  Outcome o = execute(r.ctx, port_type_action(kVpi, 2, "ib"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), "/sys/bus/pci/devices/0000:81:00.0/mlx4_port2: writing 'ib' failed " +
                               errno_text(EOPNOTSUPP));
  EXPECT_EQ(o.detail,
            "the HCA does not support ib on port 2, or both ports must be the same type on this "
            "HCA; after 3 retries");
  EXPECT_EQ(r.kernel.writes_to(kVpiPort2), 4u);
  EXPECT_EQ(r.raw(kVpiPort2), "eth\n");
  EXPECT_EQ(r.kernel.changes(), 0u);
  EXPECT_LT(r.elapsed_ms(), 1000);
}

TEST(PortType, SriovPortFilesAreReadOnlyAndReportedWithTheReason) {
  TestRun r("cx3-sriov-eth");
  Outcome o = execute(r.ctx, port_type_action("0000:03:00.0", 1, "ib"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            "/sys/bus/pci/devices/0000:03:00.0/mlx4_port1: writing 'ib' refused: the file is "
            "read-only");
  EXPECT_EQ(o.detail,
            "port types of SR-IOV (multi-function) mlx4 devices are fixed by the firmware/module "
            "options (mlx4_core port_type_array)");
  EXPECT_TRUE(r.kernel.writes().empty());
  EXPECT_EQ(r.kernel.changes(), 0u);

  // Already in the wanted state: nothing to write, nothing to refuse.
  Outcome same = execute(r.ctx, port_type_action("0000:03:00.0", 1, "eth"));
  EXPECT_EQ(same.kind, OutcomeKind::kAlready);
}

TEST(PortType, PermissionDeniedOnWriteIsReportedAsReadOnly) {
  TestRun r("cx3-vpi");
  r.kernel.fail_writes(kVpiPort1, EACCES);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kVpiPort1 + ": cannot open for writing 'eth' " + errno_text(EACCES));
  EXPECT_EQ(o.detail,
            "port types of SR-IOV (multi-function) mlx4 devices are fixed by the firmware/module "
            "options (mlx4_core port_type_array)");
  EXPECT_EQ(r.kernel.writes_to(kVpiPort1), 1u);
}

TEST(PortType, EioIsReportedWithoutRetrying) {
  TestRun r("cx3-vpi");
  r.kernel.fail_writes(kVpiPort1, EIO);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kVpiPort1 + ": writing 'eth' failed " + errno_text(EIO));
  EXPECT_EQ(o.detail,
            "the firmware failed to change the port type (see the mlx4_core lines in dmesg)");
  EXPECT_EQ(r.kernel.writes_to(kVpiPort1), 1u);
  EXPECT_EQ(r.raw(kVpiPort1), "ib\n");
}

TEST(PortType, EbusyIsRetriedWithBackoffUntilTheCardIsFree) {
  TestRun r("cx3-vpi");
  r.kernel.fail_writes(kVpiPort1, EBUSY, 3);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "after 3 retries; card re-registered");
  EXPECT_EQ(r.kernel.writes_to(kVpiPort1), 4u);
  EXPECT_EQ(r.raw(kVpiPort1), "eth\n");
}

TEST(PortType, EbusyThatNeverClearsEndsAtTheDeadline) {
  TestRun r("cx3-vpi", 200ms);
  r.kernel.fail_writes(kVpiPort1, EBUSY);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(), kVpiPort1 + ": writing 'eth' failed " + errno_text(EBUSY));
  const unsigned writes = r.kernel.writes_to(kVpiPort1);
  EXPECT_EQ(o.detail, retries(writes) + "; the run's deadline passed while retrying");
  // Exponential backoff from 5 ms: a handful of writes in 200 ms, not a busy loop.
  EXPECT_GE(writes, 3u);
  EXPECT_LE(writes, 10u);
  EXPECT_LT(r.elapsed_ms(), 1000);
}

TEST(PortType, DeviceVanishingMidRunIsReportedAsGone) {
  TestRun r("cx3-vpi");
  r.kernel.fail_writes(kVpiPort1, EBUSY);
  r.kernel.unplug_after(kVpi, 12);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kVpiPort1 + ": cannot open for writing 'eth' " + errno_text(ENOENT));
  const unsigned writes = r.kernel.writes_to(kVpiPort1);
  EXPECT_GT(writes, 1u);
  EXPECT_EQ(o.detail, "0000:81:00.0 is gone (hot-unplugged, or mlx4_core was unbound from it); " +
                          retries(writes));
  EXPECT_LT(r.elapsed_ms(), 1000);
}

TEST(PortType, DeviceVanishingWhileReRegisteringIsReported) {
  TestRun r("cx3-vpi");
  r.kernel.mlx4_reregistration(kVpi, 30);
  r.kernel.unplug_after(kVpi, 12);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), kVpiDir + ": vanished after writing 'eth' to " + kVpiPort1);
  EXPECT_EQ(o.detail,
            "the device disappeared instead of re-registering (hot-unplug or driver unbind)");
}

TEST(PortType, SlowSwitchCompletesWithinTheDeadlineWithoutRewriting) {
  TestRun r("cx3-vpi", 5s);
  r.kernel.mlx4_slow_readback(kVpi, 8);
  r.kernel.mlx4_reregistration(kVpi, 25);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "card re-registered");
  EXPECT_EQ(r.kernel.writes_to(kVpiPort1), 1u);  // the kernel took it; only reading lagged
  EXPECT_EQ(r.raw(kVpiPort1), "eth\n");
  EXPECT_FALSE(r.ctx.deadline.expired());
}

TEST(PortType, ReadBackThatNeverShowsTheValueEndsAtTheDeadline) {
  TestRun r("cx3-vpi", 200ms);
  r.kernel.mlx4_slow_readback(kVpi, 1000000);
  Outcome o = execute(r.ctx, port_type_action(kVpi, 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kTimedOut);
  EXPECT_EQ(o.error.str(), kVpiPort1 + ": reads back 'ib' after writing 'eth'");
  EXPECT_EQ(o.detail, "the run's deadline passed while retrying");
  EXPECT_EQ(r.kernel.writes_to(kVpiPort1), 1u);
  EXPECT_LT(r.elapsed_ms(), 1000);
}

TEST(PortType, AutoThatSensesTheSameTypeDoesNotWaitForTheCard) {
  TestRun r("cx3-vpi");
  Outcome o = execute(r.ctx, port_type_action(kVpi, 2, "auto"));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "the card keeps its port types: nothing re-registers");
  EXPECT_EQ(r.raw(kVpiPort2), "auto (eth)\n");
  EXPECT_EQ(r.kernel.reregistrations(kVpi), 0u);

  Outcome again = execute(r.ctx, port_type_action(kVpi, 2, "auto"));
  EXPECT_EQ(again.kind, OutcomeKind::kAlready);
  EXPECT_EQ(again.detail, "reads 'auto (eth)'");
}

TEST(PortType, MissingPortFileIsReported) {
  TestRun r("cx5-roce");
  Outcome o = execute(r.ctx, port_type_action("0000:af:00.0", 1, "eth"));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), "/sys/bus/pci/devices/0000:af:00.0/mlx4_port1: does not exist");
  EXPECT_EQ(o.detail, "0000:af:00.0 is gone or not driven by mlx4_core");
}

TEST(PortMtu, IbPortMtuIsWrittenAndReadBack) {
  TestRun r("cx3-vpi");
  Outcome o = execute(r.ctx, port_mtu_action(kVpi, 1, 2048));
  EXPECT_EQ(o.kind, OutcomeKind::kDone) << o.error.str();
  EXPECT_EQ(o.detail, "card re-registered");
  EXPECT_EQ(r.raw(kVpiDir + "/mlx4_port1_mtu"), "2048\n");
  ASSERT_EQ(r.kernel.writes().size(), 1u);
  EXPECT_EQ(r.kernel.writes()[0].bytes, "2048\n");

  Outcome again = execute(r.ctx, port_mtu_action(kVpi, 1, 2048));
  EXPECT_EQ(again.kind, OutcomeKind::kAlready);
  EXPECT_EQ(again.detail, "reads '2048'");
}

// A card that stays busy (mlx4_core answers EBUSY while a port switch or a reset holds it)
// is retried for the switch bound, then given up with what kept it busy.
TEST(PortMtu, ACardThatStaysBusyIsGivenUpAfterTheBoundSayingWhy) {
  TestRun r("cx3-vpi", std::chrono::seconds(14));
  const std::string mtu = kVpiDir + "/mlx4_port1_mtu";
  r.kernel.fail_writes(mtu, EBUSY);
  Outcome o = execute(r.ctx, port_mtu_action(kVpi, 1, 2048));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(), mtu + ": writing '2048' failed " + errno_text(EBUSY));
  EXPECT_EQ(o.detail.rfind("the card stayed busy (another port switch or a reset in progress); "
                           "gave up after 10000 ms and ",
                           0),
            0u)
      << o.detail;
  EXPECT_GT(r.kernel.writes_to(mtu), 3u);
}

TEST(PortMtu, EthernetPortRejectsTheMtuWithTheKernelsReason) {
  TestRun r("cx3-vpi");
  Outcome o = execute(r.ctx, port_mtu_action(kVpi, 2, 2048));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.str(),
            kVpiDir + "/mlx4_port2_mtu: writing '2048' failed " + errno_text(EINVAL));
  EXPECT_EQ(o.detail,
            "port 2 of 0000:81:00.0 is an Ethernet port: the kernel sets a port MTU on "
            "InfiniBand ports only");
  EXPECT_EQ(r.kernel.writes_to(kVpiDir + "/mlx4_port2_mtu"), 1u);
}

}  // namespace
}  // namespace rp

namespace rp {
namespace {

// One port of a pair the plan sets together (SetPortType::other).
Action pair_action(const std::string& bdf, unsigned port, PortType type, PortType other,
                   bool other_first) {
  return Action(SetPortType{*PciAddress::parse(bdf), port, type, other, other_first}, "ib", "test");
}

TEST(PortType, ACardWithoutDpdpTakesAPairStagedThroughTheFirstRefusal) {
  // four-hca's ConnectX-3 cards run ib,ib; this one takes one type for both ports.
  const std::string card = "0000:04:00.0";
  const std::string dir = "/sys/bus/pci/devices/" + card;
  testing::TestRun r("four-hca");
  r.kernel.mlx4_same_type_only(card);
  Outcome o2 = execute(r.ctx, pair_action(card, 2, PortType::kEth, PortType::kEth, false));
  EXPECT_EQ(o2.kind, OutcomeKind::kDone) << o2.error.str();
  EXPECT_EQ(o2.detail,
            "staged: this HCA takes one type for both ports (no DPDP); the write of port 1 "
            "applies both");
  EXPECT_EQ(r.raw(dir + "/mlx4_port2"), "ib\n");  // refused, staged: still shows ib
  Outcome o1 = execute(r.ctx, pair_action(card, 1, PortType::kEth, PortType::kEth, true));
  EXPECT_EQ(o1.kind, OutcomeKind::kDone) << o1.error.str();
  EXPECT_NE(o1.detail.find("port 2 reads 'eth'"), std::string::npos) << o1.detail;
  EXPECT_EQ(r.raw(dir + "/mlx4_port1"), "eth\n");
  EXPECT_EQ(r.raw(dir + "/mlx4_port2"), "eth\n");
  // One refused write, one accepted: no retry storm on the staged port.
  ASSERT_EQ(r.kernel.writes().size(), 2u);
  EXPECT_EQ(r.kernel.writes()[0].errnum, EOPNOTSUPP);
}

TEST(PortType, APairTheCardDidNotTakeFailsOnTheLastWrite) {
  // A card with DPDP whose port 2 cannot be Ethernet (mlx4/main.c __set_port_type: a type
  // outside caps.supported_type is EOPNOTSUPP). Port 2's refusal reads like the staging of
  // a card without DPDP, port 1 then switches alone: only the pair check, after the last
  // write, sees that port 2 still reads ib.
  const std::string card = "0000:04:00.0";
  const std::string dir = "/sys/bus/pci/devices/" + card;
  testing::TestRun r("four-hca");
  r.kernel.mlx4_unsupported(card, 2, "eth");
  Outcome o2 = execute(r.ctx, pair_action(card, 2, PortType::kEth, PortType::kEth, false));
  EXPECT_EQ(o2.kind, OutcomeKind::kDone) << o2.error.str();
  Outcome o1 = execute(r.ctx, pair_action(card, 1, PortType::kEth, PortType::kEth, true));
  EXPECT_EQ(o1.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o1.error.str(), dir + "/mlx4_port2: reads 'ib' after both ports of " + card +
                                " were written (wanted "
                                "eth)");
  EXPECT_EQ(o1.detail, "the card did not take the pair eth,eth (see the mlx4_core lines in dmesg)");
  EXPECT_EQ(r.raw(dir + "/mlx4_port1"), "eth\n");
  EXPECT_EQ(r.raw(dir + "/mlx4_port2"), "ib\n");
}

TEST(PortType, ARefusedFirstWriteOfAMixedPairIsAFailureNotStaging) {
  // auto on port 1 and ib on port 2 of the VPI card (ib,eth now), port 1 first, on an HCA
  // that cannot sense port types (EOPNOTSUPP for auto: mlx4/main.c __set_port_type). A
  // card without DPDP stages only a pair of one type for the other port's write: the
  // refusal of a mixed pair is the answer, reported after the grace retries.
  TestRun r("cx3-vpi");
  r.kernel.mlx4_unsupported(kVpi, 1, "auto");
  Outcome o = execute(r.ctx, pair_action(kVpi, 1, PortType::kAuto, PortType::kIb, false));
  EXPECT_EQ(o.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o.error.errnum, EOPNOTSUPP);
  EXPECT_EQ(o.detail,
            "the HCA cannot sense the port type (auto) on port 1; set ib or eth; after 3 retries");
  EXPECT_EQ(r.kernel.writes_to(kVpiPort1), 4u);
  EXPECT_EQ(r.raw(kVpiPort1), "ib\n");
}

TEST(PortType, WithoutTheOtherPortsWriteAPairCannotChange) {
  // Port 2 was never written (its action failed or was skipped): the card still reads
  // ib there, and mixing is refused, so port 1 cannot change either: failed, not staged.
  const std::string card = "0000:04:00.0";
  testing::TestRun r("four-hca");
  r.kernel.mlx4_same_type_only(card);
  Outcome o1 = execute(r.ctx, pair_action(card, 1, PortType::kEth, PortType::kEth, true));
  EXPECT_EQ(o1.kind, OutcomeKind::kFailed);
  EXPECT_EQ(o1.error.errnum, EOPNOTSUPP);
  EXPECT_EQ(r.raw("/sys/bus/pci/devices/" + card + "/mlx4_port1"), "ib\n");
}

}  // namespace
}  // namespace rp
