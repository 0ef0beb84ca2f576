// nvmf-connect (apply/nvmf.cc) on generated sysfs trees: a target connected already (an
// earlier run, or dracut's own connect-all) is left as it is and reported with its block
// devices, as the kernel names them (drivers/nvme/host: /sys/class/nvme/nvmeN with
// transport, address, subsysnqn, state; with native multipath the hidden path disk
// nvme<S>c<N>n<H> under the controller and the head nvme<S>n<H> in /sys/block); anything
// else acts on the running kernel only.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "provision/kernel/nvme_fabrics.h"
#include "tests/apply/test_run.h"

namespace rp {
namespace {

using testing::TestRun;

void controller(const TestRun& r, int n, const std::string& address, const std::string& nqn,
                const std::string& state, const std::string& disk) {
  const std::string dir = r.dir + "/sys/class/nvme/nvme" + std::to_string(n);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/transport") << "rdma\n";
  std::ofstream(dir + "/address") << address << "\n";
  std::ofstream(dir + "/subsysnqn") << nqn << "\n";
  std::ofstream(dir + "/state") << state << "\n";
  if (!disk.empty()) {
    std::filesystem::create_directories(dir + "/" + disk);
    const std::string head = disk.substr(0, disk.find('c')) + disk.substr(disk.find('n', 4));
    std::filesystem::create_directories(r.dir + "/sys/block/" + head);
  }
}

Action connect(const std::string& traddr, const std::string& trsvcid = "4420") {
  return Action(ConnectNvmf{traddr, trsvcid, "", "", ""}, "not connected", "test");
}

TEST(NvmfConnect, ATargetConnectedAlreadyIsLeftAsItIs) {
  TestRun r("rxe-virtio");
  controller(r, 1, "traddr=10.77.0.1,trsvcid=4420", "nqn.2026-11.io.rdma-provision:e2e-root",
             "live", "nvme0c1n1");
  Outcome o = execute(r.ctx, connect("10.77.0.1"));
  EXPECT_EQ(o.kind, OutcomeKind::kAlready) << o.error.str();
  EXPECT_EQ(o.detail, "nqn.2026-11.io.rdma-provision:e2e-root as /dev/nvme0n1 (nvme1)");
}

TEST(NvmfConnect, OtherControllersDoNotCount) {
  TestRun r("rxe-virtio");
  // Another port of the target (whose number the wanted one is a prefix of), another
  // address it is a prefix of, a discovery controller, one reconnecting: none is this
  // target's live I/O controller.
  controller(r, 0, "traddr=10.77.0.1,trsvcid=44201", "nqn.a", "live", "nvme0c0n1");
  controller(r, 1, "traddr=10.77.0.10,trsvcid=4420", "nqn.b", "live", "nvme1c1n1");
  controller(r, 2, "traddr=10.77.0.1,trsvcid=4420", kNvmfDiscoveryNqn, "live", "");
  controller(r, 3, "traddr=10.77.0.1,trsvcid=4420,host_traddr=10.77.0.2", "nqn.c", "connecting",
             "nvme3c3n1");
  Outcome o = execute(r.ctx, connect("10.77.0.1"));
  EXPECT_EQ(o.kind, OutcomeKind::kSkipped) << o.detail;
  EXPECT_NE(o.detail.find("running kernel only"), std::string::npos) << o.detail;
}

}  // namespace
}  // namespace rp
