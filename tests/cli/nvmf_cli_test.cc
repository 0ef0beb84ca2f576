// `rdma-provision nvmf` on fixture trees (no NVMe over Fabrics here: what it would connect
// is planned and skipped as acting on the running kernel only): which targets it takes
// (dracut's rd.nvmf.discover=rdma,... only, none under rd.nonvmf), the host's identity it
// sends (both or neither), and its usage.
#include <gtest/gtest.h>

#include "tests/support/fixture.h"

namespace rp {
namespace {

using testing::has;
using testing::tool;

TEST(NvmfCli, NothingAskedIsQuiet) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  auto r = tool(root, "nvmf --cmdline-string 'rd.rdma.rxe=eth0'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
  // A target over tcp is dracut's own, and rd.nonvmf turns every target off.
  r = tool(root, "nvmf --cmdline-string 'rd.nvmf.discover=tcp,10.77.0.1'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
  r = tool(root, "nvmf --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1 rd.nonvmf'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(has(r.out, "nvmf-connect")) << r.out;
}

TEST(NvmfCli, ATargetOverRdmaIsOneConnectWithTheHostsIdentity) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  const std::string id = "5e7c1d2a-8b4f-4e6a-9c3d-1f2e3a4b5c6d";
  auto r = tool(root,
                "nvmf --log stderr --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1,,4421 "
                "rd.nvmf.hostnqn=nqn.2014-08.org.nvmexpress:uuid:" +
                    id + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "skipped  nvmf-connect nvmf 10.77.0.1:4421: not connected -> connected, "
                  "namespaces present (acts on the running kernel only (--root DIR))  "
                  "[cmdline: rd.nvmf.discover=rdma,10.77.0.1,,4421; host "
                  "nqn.2014-08.org.nvmexpress:uuid:" +
                      id + " (cmdline: rd.nvmf.hostnqn="))
      << r.out;
  EXPECT_TRUE(has(r.out, "ID from its NQN)]")) << r.out;
  // An NQN of another form without an ID: neither is sent, and that is said.
  r = tool(root,
           "nvmf --log stderr --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1 "
           "rd.nvmf.hostnqn=nqn.2026-11.io.example:node17'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "nvmf: the host's NQN (cmdline: rd.nvmf.hostnqn=nqn.2026-11.io.example:"
                  "node17) without its ID: the kernel pairs them, so neither is sent"))
      << r.out;
  EXPECT_FALSE(has(r.out, "; host nqn")) << r.out;
}

// rd.rdma.verify: the target is tried through rdma_cm before the connect, which needs it
// (a connect whose target does not answer is not written to /dev/nvme-fabrics).
TEST(NvmfCli, UnderVerifyTheTargetIsCheckedBeforeTheConnect) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  const std::string cmdline = "rd.nvmf.discover=rdma,10.77.0.1,,4421";
  auto r = tool(root, "nvmf --log stderr --cmdline-string '" + cmdline + " rd.rdma.verify=ports'");
  EXPECT_EQ(r.status, 0) << r.out;
  const auto check = r.out.find(
      "skipped  verify-nvmf nvmf 10.77.0.1:4421: not verified -> accepts an NVMe/RDMA admin "
      "queue (needs the running kernel (--root is not /))  [cmdline: rd.rdma.verify=ports; "
      "cmdline: " +
      cmdline + "]");
  const auto connect = r.out.find("nvmf-connect nvmf 10.77.0.1:4421");
  ASSERT_NE(check, std::string::npos) << r.out;
  ASSERT_NE(connect, std::string::npos) << r.out;
  EXPECT_LT(check, connect) << r.out;
  // Without rd.rdma.verify, the connect alone.
  r = tool(root, "nvmf --log stderr --cmdline-string '" + cmdline + "'");
  EXPECT_FALSE(has(r.out, "verify-nvmf")) << r.out;
}

// Without rd.nvmf.hostnqn/hostid the files nvme-cli reads (and dracut's 95nvmf carries):
// read only where a target over RDMA is connected, and carried into the image then.
TEST(NvmfCli, TheHostsIdentityFromEtcNvme) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("mkdir -p " + root + "/etc/nvme && echo nqn.2026-11.io.example:node17 > " + root +
               "/etc/nvme/hostnqn && echo 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 > " + root +
               "/etc/nvme/hostid");
  const std::string cmdline = " --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1'";
  auto r = tool(root, "nvmf --log stderr" + cmdline);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "; host nqn.2026-11.io.example:node17 (/etc/nvme/hostnqn, ID from "
                  "/etc/nvme/hostid)]"))
      << r.out;
  r = tool(root, "image-needs" + cmdline);
  EXPECT_TRUE(has(r.out, "file /etc/nvme/hostnqn  #")) << r.out;
  EXPECT_TRUE(has(r.out, "file /etc/nvme/hostid  #")) << r.out;
  // Nothing over RDMA: neither read nor carried.
  r = tool(root, "image-needs --cmdline-string 'rd.nvmf.discover=tcp,10.77.0.1'");
  EXPECT_FALSE(has(r.out, "/etc/nvme/")) << r.out;
}

// A target over RDMA on a node with no RDMA device and no soft link configured: said at
// check (the connect could only fail at the online point), a failing require action under
// rd.rdma.required=1; a soft link configured is a path.
TEST(NvmfCli, ATargetWithoutAnyRdmaPortIsSaidAtCheck) {
  // rxe-virtio without its rxe0: a virtio NIC, eth0, and no RDMA device.
  const std::string root = testing::unpack_fixture("rxe-virtio");
  testing::run("rm -rf " + root + "/sys/class/infiniband");
  auto r = tool(root, "check --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: rd.nvmf.discover=rdma,10.77.0.1: NVMe over Fabrics "
                  "over RDMA to 10.77.0.1: no RDMA device (an HCA, or a link of "
                  "rd.rdma.rxe= or rd.rdma.siw=) is present; none is present"))
      << r.out;
  r = tool(root, "plan --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1 rd.rdma.required=1'");
  EXPECT_TRUE(has(r.out, "require      RDMA device (an HCA")) << r.out;
  r = tool(root, "check --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1 rd.rdma.rxe=eth0'");
  EXPECT_FALSE(has(r.out, "NVMe over Fabrics over RDMA to")) << r.out;
}

// The interface the configuration puts on the target's subnet (ip='s static form: address
// and netmask or prefix length; [address] and the node table's addresses) without an RDMA
// port under it: the connect could only fail there. opa-bnxt: ens2f0np0 (bnxt_en, no
// bnxt_re) beside an OPA HCA; a soft link made on it, a target in another subnet (a route
// known only at boot), an interface not present (said by ip= itself) say nothing here.
TEST(NvmfCli, ATargetThroughAnInterfaceWithoutAnRdmaPortIsSaidAtCheck) {
  const std::string root = testing::unpack_fixture("opa-bnxt");
  const std::string ip = "ip=10.77.0.2:::255.255.255.0:n1:ens2f0np0:none ";
  auto r = tool(root, "check --cmdline-string '" + ip + "rd.nvmf.discover=rdma,10.77.0.1'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: rd.nvmf.discover=rdma,10.77.0.1: NVMe over Fabrics over "
                  "RDMA to 10.77.0.1 goes through ens2f0np0 (cmdline: " +
                      ip.substr(0, ip.size() - 1) +
                      " puts its subnet there; no rd.rdma.rxe= or rd.rdma.siw= link on it): no "
                      "RDMA port under interface ens2f0np0 is present"))
      << r.out;
  // A prefix length instead of a netmask; our own [address] alike.
  r = tool(root,
           "check --cmdline-string 'ip=10.77.0.2:::16:n1:ens2f0np0:none "
           "rd.nvmf.discover=rdma,10.77.200.1'");
  EXPECT_TRUE(has(r.out, "NVMe over Fabrics over RDMA to 10.77.200.1 goes through ens2f0np0"))
      << r.out;
  testing::run("mkdir -p " + root +
               "/etc/rdma-provision && printf '[address ens2f0np0]\\naddress = "
               "10.77.0.2/24\\n' > " +
               root + "/etc/rdma-provision/rdma-provision.conf");
  r = tool(root, "check --cmdline-string 'rd.nvmf.discover=rdma,10.77.0.1'");
  EXPECT_TRUE(has(r.out, "goes through ens2f0np0 (/etc/rdma-provision/rdma-provision.conf:2 puts"))
      << r.out;
  testing::run("rm " + root + "/etc/rdma-provision/rdma-provision.conf");
  for (const std::string quiet : {ip + "rd.nvmf.discover=rdma,10.77.0.1 rd.rdma.rxe=ens2f0np0",
                                  ip + "rd.nvmf.discover=rdma,10.88.0.1",
                                  std::string("ip=10.77.0.2:::255.255.255.0:n1:ens9:none "
                                              "rd.nvmf.discover=rdma,10.77.0.1")}) {
    r = tool(root, "check --cmdline-string '" + quiet + "'");
    EXPECT_FALSE(has(r.out, "NVMe over Fabrics over RDMA to")) << quiet << "\n" << r.out;
  }
  // A RoCE NIC's interface (cx5-roce: mlx5_0 under ens1f0np0) is a path.
  r = tool(testing::unpack_fixture("cx5-roce"),
           "check --cmdline-string 'ip=10.77.0.2:::255.255.255.0:n1:ens1f0np0:none "
           "rd.nvmf.discover=rdma,10.77.0.1'");
  EXPECT_FALSE(has(r.out, "NVMe over Fabrics over RDMA to")) << r.out;
}

TEST(NvmfCli, Usage) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  auto r = tool(root, "nvmf --online eth0");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--online goes with --boot")) << r.out;
  r = tool(root, "nvmf --cmdline-string 'rd.rdma.roce=rxe0:v9'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "invalid input: nothing connected")) << r.out;
}

}  // namespace
}  // namespace rp
