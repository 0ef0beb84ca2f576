// The built binary, run as an administrator would: status on fixtures and on this machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "tests/support/fixture.h"

namespace rp {
namespace {

TEST(StatusCli, PrintsVersion) {
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " --version", &st);
  EXPECT_EQ(st, 0);
  EXPECT_EQ(out.rfind("rdma-provision ", 0), 0u) << out;
}

TEST(StatusCli, TextOnAFixtureListsDevicesPortsAndNetdevs) {
  std::string root = testing::unpack_fixture("cx3-vpi");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " status --root " + root, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("mlx4_0  driver mlx4_core  pci 0000:81:00.0"), std::string::npos) << out;
  EXPECT_NE(out.find("port 1  ACTIVE/LinkUp  InfiniBand  56 Gb/sec (4X FDR)  guid "
                     "f452:1403:007b:cba1"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("==> ib0"), std::string::npos) << out;
  EXPECT_NE(out.find("0000:81:00.0  port 1 ib mtu 4096  port 2 eth"), std::string::npos) << out;
  EXPECT_NE(out.find("ib0  infiniband  80:00:02:08:fe:80"), std::string::npos) << out;
  EXPECT_NE(out.find("<== mlx4_0/1"), std::string::npos) << out;
}

TEST(StatusCli, JsonOnAFixtureIsValidAndMatchesTheText) {
  std::string root = testing::unpack_fixture("cx5-ib");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " status --json --root " + root, &st);
  ASSERT_EQ(st, 0) << out;
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["rdma_devices"].size(), 1u);
  EXPECT_EQ(j["rdma_devices"][0]["name"], "mlx5_0");
  EXPECT_EQ(j["rdma_devices"][0]["ports"][0]["state"], "ACTIVE");
  EXPECT_EQ(j["rdma_devices"][0]["ports"][0]["guid"], "0c42:a103:0016:b2c4");
  bool child = false;
  for (const auto& n : j["netdevs"]) {
    if (n["name"] == "ib0.8010") {
      child = true;
      EXPECT_EQ(n["pkey"], "0x8010");
      EXPECT_EQ(n["parent"], "ib0");
      EXPECT_EQ(n["type_name"], "infiniband");
    }
  }
  EXPECT_TRUE(child);
}

// The links against what the fabric expects: the node's own inputs (here on the command
// line), the port that trained at EDR on an NDR fabric named with what it found, the HCA's
// PCIe link as expected; the same in JSON.
TEST(StatusCli, ALinkBelowWhatTheFabricExpectsIsShownDegraded) {
  std::string root = testing::unpack_fixture("cx5-ib");
  const std::string args = " --root " + root +
                           " --cmdline-string 'rd.rdma.expect=*:rate=400,width=4x,sm=yes "
                           "rd.rdma.expect=mlx5_0:fw=16.35.2000,pcie_width=max'";
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " status" + args, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("    PCIe 8.0 GT/s PCIe x16 (of 8.0 GT/s PCIe x16)\n"
                     "    as expected: firmware 16.35.2000, PCIe max_link_width\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("==> ib0\n      degraded: rate 100 Gb/sec (4X EDR), expected 400 Gb/sec\n"),
            std::string::npos)
      << out;
  out = testing::run(testing::tool_binary() + " status --json" + args, &st);
  ASSERT_EQ(st, 0) << out;
  auto j = nlohmann::json::parse(out);
  const auto& port = j["rdma_devices"][0]["ports"][0]["expected"];
  EXPECT_EQ(port["as_expected"], false);
  EXPECT_EQ(port["differences"][0], "rate 100 Gb/sec (4X EDR), expected 400 Gb/sec");
  EXPECT_EQ(j["rdma_devices"][0]["expected"]["as_expected"], true);
  EXPECT_EQ(j["rdma_devices"][0]["pcie_max_width"], "16");
  // Without an expectation: nothing said, null in JSON.
  out = testing::run(testing::tool_binary() + " status --json --root " + root, &st);
  EXPECT_TRUE(nlohmann::json::parse(out)["rdma_devices"][0]["ports"][0]["expected"].is_null());
}

// Fixed device names (rd.rdma.devname): a device that has its name says so with the
// setting, one still to be renamed says to what (a swap by its final name, not the
// temporary one); the same in JSON, null for a device no setting names.
TEST(StatusCli, AFixedDeviceNameIsShownHeldOrToBeGiven) {
  std::string root = testing::unpack_fixture("cx5-roce");
  const std::string args = " --root " + root +
                           " --cmdline-string 'rd.rdma.devname=mlx5_1:pci-0000:af:00.0 "
                           "rd.rdma.devname=mlx5_0:pci-0000:af:00.1'";
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " status" + args, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("node_guid 9803:9b03:0046:8a10\n    to be renamed mlx5_1  [cmdline: "
                     "rd.rdma.devname=mlx5_1:pci-0000:af:00.0]\n"),
            std::string::npos)
      << out;
  out = testing::run(testing::tool_binary() + " status --json --root " + root +
                         " --cmdline-string 'rd.rdma.devname=mlx5_0:pci-0000:af:00.0'",
                     &st);
  ASSERT_EQ(st, 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["rdma_devices"][0]["fixed_name"]["wanted"], "mlx5_0");
  EXPECT_EQ(j["rdma_devices"][0]["fixed_name"]["held"], true);
  EXPECT_EQ(j["rdma_devices"][0]["fixed_name"]["source"],
            "cmdline: rd.rdma.devname=mlx5_0:pci-0000:af:00.0");
  EXPECT_TRUE(j["rdma_devices"][1]["fixed_name"].is_null());
}

// NVMe over Fabrics controllers (drivers/nvme/host/sysfs.c: transport, address, state,
// subsysnqn; the namespace's head disk nvme0n1 for the path disk nvme0c1n1 under nvme1, as
// native multipath names them), as a root on NVMe/RDMA leaves them; none, nothing said.
TEST(StatusCli, NvmeOverFabricsControllersAreListed) {
  std::string root = testing::unpack_fixture("rxe-virtio");
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " status --root " + root, &st);
  EXPECT_EQ(out.find("NVMe"), std::string::npos) << out;
  const std::string c = root + "/sys/class/nvme/nvme1";
  testing::run("mkdir -p " + c + "/nvme0c1n1 " + root + "/sys/block/nvme0n1 && echo rdma > " + c +
               "/transport && echo traddr=10.77.0.1,trsvcid=4420 > " + c +
               "/address && echo live > " + c + "/state && echo nqn.2026-11.io.example:root > " +
               c + "/subsysnqn");
  out = testing::run(testing::tool_binary() + " status --root " + root, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("NVMe controllers (1):\n  nvme1  rdma  traddr=10.77.0.1,trsvcid=4420  live  "
                     "nqn.2026-11.io.example:root  /dev/nvme0n1\n"),
            std::string::npos)
      << out;
  out = testing::run(testing::tool_binary() + " status --json --root " + root, &st);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["nvme"][0]["state"], "live");
  EXPECT_EQ(j["nvme"][0]["block_devices"][0], "/dev/nvme0n1");
}

TEST(StatusCli, EveryFixtureShowsItsDevicesPortsAndLinks) {
  struct Want {
    const char* fixture;
    std::vector<const char*> lines;
  };
  const Want wants[] = {
      {"cx3-sriov-eth",
       {"RDMA devices (1):",
        "0000:03:00.0  port 1 eth (read-only)  port 2 eth "
        "(read-only)",
        "port 2  DOWN/Disabled  Ethernet"}},
      {"cx5-ib",
       {"mlx5_0  driver mlx5_core  pci 0000:3b:00.0", "100 Gb/sec (4X EDR)", "ib0.8010  infiniband",
        "pkey 0x8010  parent ib0"}},
      {"cx5-roce", {"RDMA devices (2):", "==> ens1f0np0", "==> ens1f1np1"}},
      {"rxe-virtio",
       {"rxe0  driver -  on eth0", "eth0  ether  52:54:00:77:00:01", "driver virtio_net",
        "<== rxe0/1"}},
      {"siw",
       {"siw0  driver i40e  pci 0000:18:00.0  on ens785f0", "port 1  ACTIVE/LinkUp  Ethernet"}},
      {"four-hca",
       {"RDMA devices (4):", "mlx4_3  driver mlx4_core  pci 0000:82:00.0",
        "port 2  INIT/LinkUp  InfiniBand", "ib7  infiniband"}},
  };
  for (const auto& w : wants) {
    std::string root = testing::unpack_fixture(w.fixture);
    int st = -1;
    std::string out = testing::run(testing::tool_binary() + " status --root " + root, &st);
    EXPECT_EQ(st, 0) << w.fixture;
    for (const char* line : w.lines) {
      EXPECT_NE(out.find(line), std::string::npos) << w.fixture << ": no '" << line << "' in\n"
                                                   << out;
    }
  }
}

TEST(StatusCli, LiveMachineListsItsLinksThroughNetlink) {
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " status", &st);
  ASSERT_EQ(st, 0) << out;
  // This machine (and CI) has no RDMA hardware; lo always exists.
  EXPECT_NE(out.find("network links (netlink"), std::string::npos) << out;
  EXPECT_NE(out.find("  lo  loopback"), std::string::npos) << out;
}

TEST(StatusCli, UnknownOptionIsAUsageError) {
  int st = -1;
  std::string out = testing::run(testing::tool_binary() + " status --bogus 2>&1", &st);
  EXPECT_EQ(st, 2);
  EXPECT_NE(out.find("unknown option '--bogus'"), std::string::npos) << out;
}

TEST(StatusCli, MissingRootIsReported) {
  int st = -1;
  std::string out =
      testing::run(testing::tool_binary() + " status --root /nonexistent/x 2>&1", &st);
  EXPECT_EQ(st, 2);
  EXPECT_NE(out.find("/nonexistent/x is not a directory"), std::string::npos) << out;
}

}  // namespace
}  // namespace rp
