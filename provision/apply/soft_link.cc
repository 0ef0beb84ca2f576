// Executor for Soft-RoCE (rxe) and Soft-iWARP (siw) links: RDMA netlink NEWLINK, in
// process, then the device is checked in sysfs.
#include <cerrno>
#include <chrono>
#include <string>

#include "provision/apply/context.h"
#include "provision/base/strings.h"
#include "provision/kernel/rdma_nl.h"
#include "provision/kernel/rtnl.h"

namespace rp {
namespace {

std::string ib_dir(const std::string& dev) { return "/sys/class/infiniband/" + dev; }

// The RDMA device that sits on `netdev`, if any: rxe names it in its `parent` file; siw
// has none, and RDMA netlink reports every port's netdev (what `rdma link show` prints).
std::string device_on(ApplyContext& ctx, const std::string& netdev) {
  for (const auto& dev : ctx.files.root().list("/sys/class/infiniband")) {
    auto parent = ctx.files.read(ib_dir(dev) + "/parent");
    if (parent && trim(*parent) == netdev) return dev;
  }
  if (auto ports = rdma_port_netdevs()) {
    for (const auto& p : *ports)
      if (p.netdev == netdev) return p.device;
  }
  return "";
}

std::string hint_for(ApplyContext& ctx, const SoftLinkRequest& req, int errnum) {
  const std::string module = soft_link_module(req.type);
  const bool loaded = ctx.files.exists("/sys/module/" + module);
  switch (errnum) {
    case EINVAL:
    case EOPNOTSUPP:
    case ENOENT:
      return loaded ? module + " is loaded: check the device name"
                    : "load " + module + " first (it is not loaded; add it to the modules to load)";
    case EPROTONOSUPPORT:
      return "RDMA netlink needs ib_core: load " + module + " (it pulls ib_core in)";
    case ENODEV:
      return "the interface must exist, in this network namespace, before the link is added";
    default:
      return "";
  }
}

}  // namespace

Outcome exec_soft_link(ApplyContext& ctx, const Action& a, const CreateSoftLink& p) {
  if (auto skip = live_only(ctx)) return *skip;
  const SoftLinkRequest req{std::string(to_string(p.kind)), p.name, p.netdev};
  const std::string what = req.type + " device " + req.name + " on " + req.netdev;
  const std::string dir = ib_dir(req.name);
  if (ctx.files.exists(dir)) {
    auto parent = ctx.files.read(dir + "/parent");
    if ((parent && trim(*parent) == req.netdev) || device_on(ctx, req.netdev) == req.name) {
      return Outcome::already(what);
    }
    return Outcome::failed(make_error(dir, "an RDMA device named " + req.name + " exists" +
                                               (parent ? " on " + std::string(trim(*parent)) : "") +
                                               ", not on " + req.netdev),
                           "give the " + req.type + " link another name");
  }
  if (!a.waiting_for.empty()) {
    // The netdev is created or renamed earlier in this run.
    auto watcher = LinkWatcher::open();
    if (!watcher) return Outcome::failed(watcher.error());
    auto link = watcher.value().wait_for(LinkWatcher::exists(req.netdev), ctx.deadline.end());
    if (!link && link.error().errnum == ETIMEDOUT) {
      return Outcome::timed_out(
          make_error(req.netdev, "did not appear (waiting for " + a.waiting_for + ")", ETIMEDOUT));
    }
    if (!link) return Outcome::failed(link.error());
  }
  if (auto st = rdma_add_soft_link(req); !st) {
    if (st.error().errnum == EEXIST) {
      const std::string other = device_on(ctx, req.netdev);
      return Outcome::failed(
          st.error(), other.empty()
                          ? ""
                          : req.netdev + " carries " + other + " already: name the link " + other +
                                " or delete it (rdma link delete " + other + ")");
    }
    return Outcome::failed(st.error(), hint_for(ctx, req, st.error().errnum));
  }
  // NEWLINK answers after the device is registered: sysfs has it, unless udev renamed it
  // in between. A short bounded look covers a slow sysfs.
  const bool present = wait_backoff(ctx.deadline.sooner(std::chrono::seconds(1)),
                                    [&] { return ctx.files.exists(dir); });
  if (!present) {
    return Outcome::failed(
        make_error(dir, "the kernel accepted " + what + ", but the device is not in sysfs"),
        "something renamed it (see rdma link show)");
  }
  return Outcome::done(what);
}

}  // namespace rp
