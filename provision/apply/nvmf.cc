// nvmf-connect: an NVMe over Fabrics target over RDMA connected as `nvme connect-all` does
// for one discovery.conf line (nvme-cli fabrics.c nvmf_discover): a discovery controller,
// its log, a controller for each NVMe subsystem the log lists over RDMA, the discovery
// controller removed; then each controller's namespaces waited for as block devices (the
// kernel scans them after the connect returns: nvme_scan_work). Through the kernel's own
// interface (kernel/nvme_fabrics.h), no nvme-cli.
#include <cerrno>
#include <chrono>
#include <thread>

#include "provision/apply/context.h"
#include "provision/base/strings.h"
#include "provision/inventory/inventory.h"
#include "provision/kernel/nvme_fabrics.h"

namespace rp {
namespace {

constexpr const char* kNvmeClass = "/sys/class/nvme";

std::string ctrl_dir(int instance) {
  return std::string(kNvmeClass) + "/nvme" + std::to_string(instance);
}

// Controller nvme<instance>'s namespaces' block devices, as they are now.
std::vector<std::string> block_devices(ApplyContext& ctx, int instance) {
  for (const auto& c : discover_nvme_controllers(ctx.files.root()))
    if (c.instance == instance) return c.block_devices;
  return {};
}

// A connect the path may not be ready for yet (the target's listener starting, its GID
// or route resolving): tried again, within the deadline (as the peer check retries).
bool transient(int errnum) {
  return errnum == ECONNRESET || errnum == ETIMEDOUT || errnum == ENODEV || errnum == EAGAIN;
}

Result<NvmfController> connect_retrying(ApplyContext& ctx, const NvmfConnect& c) {
  auto delay = std::chrono::milliseconds(250);
  for (;;) {
    auto r = nvmf_create_controller(c);
    if (r || !transient(r.error().errnum) || ctx.deadline.left() <= delay) return r;
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(2000));
  }
}

}  // namespace

Outcome exec_nvmf_connect(ApplyContext& ctx, const Action& a, const ConnectNvmf& p) {
  const std::string target = "rdma " + p.shown();
  // Connected already (an earlier run, or dracut's own connect-all): live I/O controllers
  // to this target, with their namespaces.
  std::string there;
  for (const auto& c : discover_nvme_controllers(ctx.files.root())) {
    if (c.transport != "rdma" || !c.reaches(p.traddr, p.trsvcid)) continue;
    if (c.subsysnqn == kNvmfDiscoveryNqn || c.state != "live") continue;
    there += (there.empty() ? "" : "; ") + c.subsysnqn + " as " + join(c.block_devices, ", ") +
             " (nvme" + std::to_string(c.instance) + ")";
  }
  if (!there.empty()) return Outcome::already(there);
  if (auto skip = live_only(ctx)) return *skip;

  NvmfConnect disc;
  disc.traddr = p.traddr;
  disc.trsvcid = p.trsvcid;
  disc.host_traddr = p.host_traddr;
  disc.hostnqn = p.hostnqn;
  disc.hostid = p.hostid;
  auto dc = connect_retrying(ctx, disc);
  if (!dc)
    return Outcome::failed(make_error(target, "discovery: " + dc.error().what, dc.error().errnum));
  auto log = nvmf_discovery_log(dc->instance);
  // nvme-cli removes a discovery controller it made once the log is read.
  (void)ctx.files.write(ctrl_dir(dc->instance) + "/delete_controller", "1\n");
  if (!log) return Outcome::failed(make_error(target, "discovery: " + log.error().str()));

  std::vector<NvmfController> made;
  std::vector<std::string> nqns;
  size_t listed = 0;
  for (const auto& e : *log) {
    if (e.subtype != kNvmfSubtypeNvme || e.trtype != kNvmfTrtypeRdma) continue;
    ++listed;
    NvmfConnect c = disc;
    c.nqn = e.subnqn;
    c.traddr = e.traddr;
    c.trsvcid = e.trsvcid;
    auto ctrl = nvmf_create_controller(c);
    if (!ctrl && ctrl.error().errnum == EALREADY) continue;
    if (!ctrl) return Outcome::failed(make_error(target, ctrl.error().what, ctrl.error().errnum));
    made.push_back(*ctrl);
    nqns.push_back(e.subnqn);
  }
  if (listed > 0 && made.empty())
    return Outcome::already("every NVMe subsystem its log lists is connected already");
  if (listed == 0) {
    return Outcome::failed(make_error(
        target, "the discovery log lists no NVMe subsystem over RDMA for this host (" +
                    std::to_string(log->size()) + " entries): the target exports none to it"));
  }
  // The namespaces, scanned by the kernel after each connect returned.
  const auto all_present = [&] {
    for (const auto& c : made)
      if (block_devices(ctx, c.instance).empty()) return false;
    return true;
  };
  const bool present = wait_backoff(ctx.deadline.sooner(std::chrono::seconds(10)), all_present,
                                    std::chrono::milliseconds(10), std::chrono::milliseconds(200));
  std::string detail;
  for (size_t i = 0; i < made.size(); ++i) {
    const auto devs = block_devices(ctx, made[i].instance);
    detail += (detail.empty() ? "" : "; ") + nqns[i] + " as " +
              (devs.empty() ? std::string("(no namespace)") : join(devs, ", ")) + " (nvme" +
              std::to_string(made[i].instance) + ")";
  }
  if (!present) {
    return Outcome::failed(
        make_error(target, "connected, but no namespace appeared within 10 s: " + detail +
                               " (does the subsystem have one enabled?)"));
  }
  (void)a;
  return Outcome::done("connected " + detail);
}

}  // namespace rp
