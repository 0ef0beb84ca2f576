// RoCE LAG (#42) through the binary, on fixtures: h100-lag, a node whose BlueField-3 PFs
// (0000:9a:00.0 ens3f0np0, 0000:9a:00.1 ens3f1np1) are the slaves of bond0 (802.3ad) and
// whose mlx5_bond_0 replaced their RDMA devices (mlx5 lag/lag.c mlx5_do_bond; from a real
// capture, see the fixture); cx5-roce, a dual-port ConnectX-5 before any bond.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/fixture.h"

namespace rp {
namespace {

using testing::has;
using testing::Ran;
using testing::tool;

// status shows the LAG device with its bond, its mode and both PFs, and each slave's bond.
TEST(RoceLag, StatusShowsTheLagDeviceWithItsBondAndBothPfs) {
  const std::string root = testing::unpack_fixture("h100-lag");
  const Ran r = tool(root, "status");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "  mlx5_bond_0  driver mlx5_core  pci 0000:9a:00.0  fw 32.38.3056  board "
                  "MT_0000000884  node_guid 58a2:e103:0076:0398\n"
                  "    RoCE LAG of bond0 (802.3ad): PF 0000:9a:00.0 ens3f0np0, PF 0000:9a:00.1 "
                  "ens3f1np1\n"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "  ens3f1np1  ether  20:1d:97:00:56:cf  mtu 9000  up/up  carrier  driver "
                  "mlx5_core  slave of bond0"))
      << r.out;
  // The native InfiniBand ports beside it are no LAG.
  EXPECT_EQ(r.out.find("RoCE LAG of", r.out.find("RoCE LAG of") + 1), std::string::npos) << r.out;
  const Ran j = tool(root, "status --json");
  EXPECT_TRUE(has(j.out,
                  "\"roce_lag\": {\n        \"bond\": \"bond0\",\n        \"mode\": "
                  "\"802.3ad\",\n        \"slaves\": [\n"))
      << j.out;
  EXPECT_TRUE(has(j.out, "\"pci\": \"0000:9a:00.1\",\n            \"netdev\": \"ens3f1np1\""))
      << j.out;
}

// Either PF, by PCI function or by interface, means the LAG device; a kernel name of the
// PFs' (mlx5_2, gone) is a warning that names the LAG and how to select it.
TEST(RoceLag, PfSelectorsFollowTheLagDeviceAndAGoneNameSaysWhy) {
  const std::string root = testing::unpack_fixture("h100-lag");
  Ran r = tool(root, "plan --cmdline-string 'rd.rdma.roce=pci-0000:9a:00.1:v2:106'");
  EXPECT_TRUE(has(r.out, "roce-mode    mlx5_bond_0/1: unknown -> RoCE v2")) << r.out;
  EXPECT_TRUE(has(r.out,
                  "means mlx5_bond_0, the RoCE LAG of bond0 (802.3ad: 0000:9a:00.0 "
                  "ens3f0np0, 0000:9a:00.1 ens3f1np1), which ens3f1np1 on 0000:9a:00.1 is "
                  "a slave of"))
      << r.out;
  r = tool(root, "plan --cmdline-string 'rd.rdma.roce=netdev-ens3f0np0:v2'");
  EXPECT_TRUE(has(r.out, "roce-mode    mlx5_bond_0/1: unknown -> RoCE v2")) << r.out;
  r = tool(root, "check --cmdline-string 'rd.rdma.wait=mlx5_2/1'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: rd.rdma.wait=mlx5_2/1: wait for mlx5_2/1: no such "
                  "device; mlx5_bond_0 is the RoCE LAG of bond0 (802.3ad: 0000:9a:00.0 "
                  "ens3f0np0, 0000:9a:00.1 ens3f1np1): mlx5 unregistered its PFs' RDMA "
                  "devices when it formed (lag/lag.c mlx5_do_bond), so a kernel name of "
                  "theirs is gone; select by pci-<PF> or netdev-<slave>, which follow it"))
      << r.out;
  // A native port is itself.
  r = tool(root, "plan --cmdline-string 'rd.rdma.wait=pci-0000:18:00.0'");
  EXPECT_EQ(r.out.find("means"), std::string::npos) << r.out;
}

// Before the bond: a bond= that takes both PFs of one mlx5 card in a mode LAG takes is
// said, with what the boot names of the two devices that will be gone.
TEST(RoceLag, ABondOfBothPfsSaysWhatTheLagWillRemove) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  for (const std::string mode : {"802.3ad", "active-backup", "2"}) {
    const Ran r = tool(root, "check --cmdline-string 'bond=bond0:ens1f0np0,ens1f1np1:mode=" + mode +
                                 " ip=bond0:dhcp rd.rdma.roce=mlx5_0:v2:106 "
                                 "rd.rdma.wait=mlx5_1/1 rd.rdma.wait=mlx4_0/1'");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out,
                    "warning: cmdline: rd.rdma.roce=mlx5_0:v2:106: RoCE defaults for mlx5_0: "
                    "bond bond0 (ens1f0np0, ens1f1np1, mode " +
                        mode +
                        ") takes both PFs of the mlx5 card at 0000:af:00.0: once dracut "
                        "makes it, mlx5 forms a RoCE LAG, unregisters mlx5_0 and mlx5_1 "
                        "and registers one device, mlx5_bond_<n>, on 0000:af:00.0"))
        << mode << r.out;
    EXPECT_TRUE(
        has(r.out, "warning: cmdline: rd.rdma.wait=mlx5_1/1: wait for mlx5_1/1: bond bond0"))
        << mode << r.out;
  }
  // Not a LAG: balance-rr (bond='s default), one PF alone, a mode without a LAG tx type.
  for (const std::string bond : {"bond=bond0:ens1f0np0,ens1f1np1", "bond=bond0:ens1f0np0:mode=4",
                                 "bond=bond0:ens1f0np0,ens1f1np1:mode=balance-alb"}) {
    const Ran r = tool(root, "plan --cmdline-string '" + bond + " rd.rdma.roce=mlx5_0:v2:106'");
    EXPECT_EQ(r.out.find("RoCE LAG"), std::string::npos) << bond << r.out;
    EXPECT_EQ(r.out.find("warning"), std::string::npos) << bond << r.out;
  }
}

}  // namespace
}  // namespace rp
