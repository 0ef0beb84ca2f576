// The data-path check planner (plan/verify.cc), on a Config and an Inventory written out here:
// rules that no fixture shows, each checked on the smallest machine that has it.
#include "tests/plan/planners_test.h"

namespace rp {
namespace {

using namespace rp::planners_test;

TEST(VerifyPlanner, PortsAreCheckedLastWithTheirRoceModeAndIbUverbs) {
  const Plan p = make_plan(verify_config(VerifySetting::Mode::kPorts), rxe_node());
  ASSERT_FALSE(p.actions.empty()) << plan_text(p);
  const Action& last = p.actions.back();
  ASSERT_EQ(last.kind(), ActionKind::kVerifyPort) << plan_text(p);
  EXPECT_EQ(last.object(), "rxe0/1");
  EXPECT_EQ(last.wanted(), "RC loopback (RoCE v2)");
  EXPECT_TRUE(loads(p, "ib_uverbs")) << plan_text(p);
  EXPECT_FALSE(loads(p, "rdma_ucm")) << plan_text(p);
  // It needs the ib_uverbs load (libibverbs opens /dev/infiniband/uverbsN).
  bool after_uverbs = false;
  for (size_t d : last.after) {
    const auto* l = std::get_if<LoadModule>(&p.actions[d].params);
    after_uverbs |= l && l->module == "ib_uverbs";
  }
  EXPECT_TRUE(after_uverbs) << plan_text(p);
}

TEST(VerifyPlanner, PeerLeavesTheChecksToTheNetworkOnlinePoint) {
  Config cfg = verify_config(VerifySetting::Mode::kPeer);
  Inventory initramfs = rxe_node();
  initramfs.initramfs = true;
  const Plan p = make_plan(cfg, initramfs);
  for (const auto& k : kinds(p)) EXPECT_EQ(k.find("verify"), std::string::npos) << k;
  EXPECT_TRUE(loads(p, "rdma_ucm")) << plan_text(p);
  // verify --boot: the configured ports, then the peer.
  VerifyRequest r;
  r.boot = true;
  r.peer = VerifyPeer{*IpAddress::parse("10.77.0.1"), 7472};
  r.reason = "cmdline: rd.rdma.verify";
  const Plan v = make_verify_plan(cfg, rxe_node(), r);
  EXPECT_EQ(kinds(v),
            (std::vector<std::string>{"verify-port rxe0/1", "verify-peer 10.77.0.1:7472"}));
}

TEST(VerifyPlanner, OnTheRealRootApplyChecksThePortsThenTheNfsServer) {
  Config cfg = verify_config(VerifySetting::Mode::kPeer);
  cfg.boot.nfs_server =
      Sourced<IpAddress>{*IpAddress::parse("10.77.0.1"), src("cmdline: root=nfs4:...")};
  const Plan p = make_plan(cfg, rxe_node());  // not an initramfs: rdma-provision.service
  const auto k = kinds(p);
  ASSERT_GE(k.size(), 2u) << plan_text(p);
  EXPECT_EQ(k[k.size() - 2], "verify-port rxe0/1");
  EXPECT_EQ(k.back(), "verify-peer 10.77.0.1:7472");
  EXPECT_EQ(p.actions.back().reason,
            "cmdline: rd.rdma.verify (the NFS server of cmdline: root=nfs4:...)");
  EXPECT_EQ(p.actions.back().after, std::vector<size_t>{k.size() - 2});
  // Without an address and without an NFS root: a note, no peer check.
  cfg.boot.nfs_server.reset();
  const Plan none = make_plan(cfg, rxe_node());
  EXPECT_EQ(kinds(none).back(), "verify-port rxe0/1");
  EXPECT_EQ(none.notes.back(),
            "verify (cmdline: rd.rdma.verify): no peer to check: no address given and root= "
            "names no NFS server by address");
  // The real root's check of the peer skips it while no route leads there (item 5).
  EXPECT_TRUE(p.actions.back().get<VerifyPeer>().only_with_route);
  // root=dhcp: the server was DHCP's, known in the initramfs only.
  cfg.boot.nfs_server_unknown = Sourced<std::string>{"", src("cmdline: root=dhcp")};
  EXPECT_EQ(make_plan(cfg, rxe_node()).notes.back(),
            "verify (cmdline: rd.rdma.verify): no peer to check: cmdline: root=dhcp takes the NFS "
            "server from DHCP, which only the initramfs knows (its verify --boot checked it)");
}

TEST(VerifyPlanner, TheVerifyCommandChecksEveryPortWhenTheConfigurationNamesNone) {
  VerifyRequest r;
  r.reason = "verify";
  EXPECT_EQ(kinds(make_verify_plan(Config{}, rxe_node(), r)),
            std::vector<std::string>{"verify-port rxe0/1"});
  // verify --boot never checks a port nobody configured.
  r.boot = true;
  const Plan none = make_verify_plan(Config{}, rxe_node(), r);
  EXPECT_TRUE(none.actions.empty());
  EXPECT_EQ(none.notes, std::vector<std::string>{"verify (verify): no RDMA port to check"});
}

// A plain ConnectX-3's RoCE port has no RoCE v2 GIDs (mlx4 lists them only with
// MLX4_DEV_CAP_FLAG2_ROCE_V1_V2): its check uses v1, and the plan says so.
TEST(VerifyPlanner, AV1OnlyPortIsCheckedWithRoceV1) {
  Inventory inv = rxe_node();
  inv.rdma[0].name = "mlx4_0";
  inv.rdma[0].parent_netdev.clear();
  inv.rdma[0].ports[0].roce_v2 = false;
  inv.rdma[0].ports[0].roce_v1 = true;
  inv.netdevs[0].rdma_device = "mlx4_0";
  Config cfg = verify_config(VerifySetting::Mode::kPorts);
  cfg.wait.push_back({WaitItem{WaitItem::Kind::kPort, RdmaSelector::named("mlx4_0"), 1, ""},
                      src("cmdline: rd.rdma.wait=mlx4_0/1")});
  const Plan p = make_plan(cfg, inv);
  ASSERT_FALSE(p.actions.empty());
  EXPECT_EQ(p.actions.back().wanted(), "RC loopback (RoCE v1)") << plan_text(p);
  // Soft-RoCE (v2 only), unconfigured: v2, shown.
  const Plan rxe = make_plan(verify_config(VerifySetting::Mode::kPorts), rxe_node());
  EXPECT_EQ(rxe.actions.back().wanted(), "RC loopback (RoCE v2)") << plan_text(rxe);
}

// An iWARP port has no RC loopback: iw_cm connects its QPs (siw_qp.c refuses RTS without
// the socket it hands over). A note, no check that could only fail.
TEST(VerifyPlanner, AnIwarpPortIsNotLoopbackChecked) {
  Inventory inv = rxe_node();
  inv.rdma[0].name = "siw0";
  inv.rdma[0].parent_netdev.clear();
  inv.rdma[0].soft_iwarp = true;
  inv.rdma[0].node_type = "4: RNIC";
  inv.rdma[0].ports[0].roce_v2 = false;
  inv.netdevs[0].rdma_device = "siw0";
  Config cfg = verify_config(VerifySetting::Mode::kPorts);
  cfg.wait.push_back({WaitItem{WaitItem::Kind::kPort, RdmaSelector::named("siw0"), 1, ""},
                      src("cmdline: rd.rdma.wait=siw0/1")});
  const Plan p = make_plan(cfg, inv);
  for (const auto& k : kinds(p)) EXPECT_EQ(k.find("verify-port"), std::string::npos) << k;
  EXPECT_NE(plan_text(p).find("note: verify siw0/1 (cmdline: rd.rdma.verify): an iWARP port has "
                              "no RC loopback check"),
            std::string::npos)
      << plan_text(p);
}

// A RoCE port whose interface is down now (the initramfs moment on hardware) is brought up
// and waited for before its check; the check never runs on a port nobody brought up.
TEST(VerifyPlanner, ARocePortOnADownInterfaceIsBroughtUpAndWaitedForFirst) {
  Inventory inv = rxe_node();
  inv.netdevs[0].admin_up = inv.netdevs[0].carrier = false;
  inv.rdma[0].ports[0].state = PortState::kDown;
  const Plan p = make_plan(verify_config(VerifySetting::Mode::kPorts), inv);
  EXPECT_EQ(kinds(p), (std::vector<std::string>{"load-module rdma_cm", "load-module ib_uverbs",
                                                "roce-mode rxe0/1", "link-up eth0",
                                                "wait-port rxe0/1", "verify-port rxe0/1"}))
      << plan_text(p);
  EXPECT_EQ(p.actions[5].after, (std::vector<size_t>{4, 1}));
  EXPECT_EQ(p.actions[4].after, (std::vector<size_t>{3}));
}

// An interface with IPv6 off (ipv6.disable=1, disable_ipv6): a RoCE v2 check can use only
// an IPv4-mapped GID (the kernel resolves RoCE v2 through the IP stack), which comes with
// dracut's address; in the initramfs verify=ports runs before that, and check says so.
// Once the network is up (verify --boot) it is no warning; RoCE v1 needs no IP at all.
TEST(VerifyPlanner, ARoceV2CheckWithoutIpv6NeedsAnIpv4AddressAndSaysSoBeforeTheNetwork) {
  Inventory inv = rxe_node();
  inv.netdevs[0].ipv6_off = true;
  inv.initramfs = true;
  const Plan p = make_plan(verify_config(VerifySetting::Mode::kPorts), inv);
  ASSERT_EQ(p.actions.back().kind(), ActionKind::kVerifyPort) << plan_text(p);
  EXPECT_TRUE(p.actions.back().get<VerifyPort>().ipv4_only);
  EXPECT_EQ(p.actions.back().wanted(), "RC loopback (RoCE v2 over IPv4)");
  ASSERT_EQ(p.diag.warnings.size(), 1u) << plan_text(p);
  EXPECT_NE(p.diag.warnings[0].str().find(
                "the RoCE v2 check of rxe0/1 needs an IPv4 address on eth0, whose IPv6 is off"),
            std::string::npos)
      << p.diag.warnings[0].str();
  VerifyRequest r;
  r.ports = r.boot = true;
  r.reason = "rd.rdma.verify=ports";
  const Plan online = make_verify_plan(verify_config(VerifySetting::Mode::kPorts), inv, r);
  EXPECT_TRUE(online.diag.warnings.empty()) << plan_text(online);
  EXPECT_TRUE(online.actions.back().get<VerifyPort>().ipv4_only);
  inv.netdevs[0].ipv6_off = false;
  const Plan with_ipv6 = make_plan(verify_config(VerifySetting::Mode::kPorts), inv);
  EXPECT_FALSE(with_ipv6.actions.back().get<VerifyPort>().ipv4_only);
  EXPECT_TRUE(with_ipv6.diag.warnings.empty()) << plan_text(with_ipv6);
}

}  // namespace
}  // namespace rp
