// RDMA-CM defaults of a RoCE port (the RoCE version and ToS that rdma_cm uses when an
// application does not choose), through the rdma_cm configfs: mount configfs if needed,
// create the device's directory (and keep it), write and read back.
#include <cerrno>
#include <functional>
#include <optional>
#include <string>

#include "provision/apply/context.h"
#include "provision/base/strings.h"
#include "provision/inventory/shown.h"

namespace rp {
namespace {

constexpr char kConfigfs[] = "/sys/kernel/config";
constexpr char kRdmaCm[] = "/sys/kernel/config/rdma_cm";

bool configfs_mounted(ApplyContext& ctx) {
  auto mounts = ctx.files.read("/proc/mounts");
  if (!mounts) return false;
  for (auto line : split(*mounts, '\n')) {
    auto f = split_ws(line);
    if (f.size() >= 3 && f[1] == kConfigfs && f[2] == "configfs") return true;
  }
  return false;
}

// The rdma_cm directory appears once configfs is mounted and rdma_cm is loaded. Returns
// the failure, or nothing when the directory is there.
std::optional<Outcome> ensure_rdma_cm(ApplyContext& ctx) {
  if (ctx.files.exists(kRdmaCm)) return std::nullopt;
  if (!configfs_mounted(ctx)) {
    Status st = ctx.files.mount("configfs", kConfigfs);
    if (!st) return Outcome::failed(st.error(), "configfs is needed for the RDMA-CM defaults");
    ctx.log.info(std::string("mounted configfs on ") + kConfigfs);
  }
  if (ctx.files.exists(kRdmaCm)) return std::nullopt;
  return Outcome::failed(make_error(kRdmaCm, "does not exist"),
                         "the rdma_cm module is not loaded (it must be, before RoCE defaults)");
}

// What one RoCE default is: the file under ports/<n>/, how to compare a read value with
// the wanted one, and what a refusal means.
struct CmValue {
  std::string device;
  unsigned port;
  std::string value;  // as written: "RoCE v2", "106"
  std::string file;   // default_roce_mode | default_roce_tos
  std::function<bool(const std::string& shown)> matches;
  std::function<std::string(int errnum)> hint;
};

// Creates rdma_cm/<dev> when absent (waiting for the device when the plan expects it),
// sets the value and reads it back. The directory is kept: the values live in the
// kernel's cma_device either way, the configfs group holds no reference on it
// (cma_configfs.c make_cma_dev drops the one it took; each show/store looks the device up
// by name again), and while it exists the next run reads the values (inventory) instead
// of making the group again, so a run with everything in place creates and writes nothing.
Outcome set_cm_value(ApplyContext& ctx, const Action& a, const CmValue& v) {
  if (auto failure = ensure_rdma_cm(ctx)) return *failure;
  const std::string dir = std::string(kRdmaCm) + "/" + v.device;
  if (!ctx.files.exists(dir)) {
    Status st = ctx.files.make_dir(dir);
    if (!st && st.error().errnum == ENODEV && !a.waiting_for.empty()) {
      // ENODEV: not (yet) an RDMA device of that name. Poll for it (no event for that
      // here), then try again.
      ctx.log.info(dir + ": waiting for " + a.waiting_for);
      const std::string cls = "/sys/class/infiniband/" + v.device;
      bool ended = wait_backoff(ctx.deadline, [&] {
        if (!ctx.files.exists(cls)) return false;
        st = ctx.files.make_dir(dir);
        return st.ok() || st.error().errnum != ENODEV;
      });
      if (!ended) {
        Outcome o =
            Outcome::timed_out(make_error(dir, "RDMA device " + v.device + " did not appear"));
        o.detail = "waited for " + a.waiting_for;
        return o;
      }
    }
    if (!st) {
      if (st.error().errnum == ENODEV) {
        return Outcome::failed(st.error(), v.device +
                                               " is not a current RDMA device name (renamed, or "
                                               "its driver is not loaded)");
      }
      return Outcome::failed(st.error());
    }
  }

  const std::string port_dir = dir + "/ports/" + std::to_string(v.port);
  if (!ctx.files.exists(port_dir)) {
    return Outcome::failed(
        make_error(port_dir, "does not exist"),
        "port " + std::to_string(v.port) + " of " + v.device + " does not exist");
  }
  const std::string path = port_dir + "/" + v.file;
  auto cur = ctx.files.read(path);
  if (!cur) return Outcome::failed(cur.error());
  if (v.matches(*cur)) return Outcome::already("reads " + quote(*cur));
  Status st = ctx.files.write(path, v.value + "\n");
  if (!st) return Outcome::failed(st.error(), v.hint(st.error().errnum));
  auto back = ctx.files.read(path);
  if (!back) return Outcome::failed(back.error());
  if (!v.matches(*back)) {
    return Outcome::failed(
        make_error(path, "reads back " + quote(*back) + " after writing " + quote(v.value)));
  }
  return Outcome::done();
}

}  // namespace

Outcome exec_roce_mode(ApplyContext& ctx, const Action& a, const SetRoceMode& p) {
  const std::string want(configfs_value(p.mode));
  CmValue v{p.device, p.port, want, "default_roce_mode", nullptr, nullptr};
  v.matches = [want](const std::string& shown) { return trim(shown) == want; };
  v.hint = [p, want](int errnum) -> std::string {
    if (errnum != EINVAL) return "";
    return "port " + std::to_string(p.port) + " of " + p.device + " does not support " + want +
           " (Soft-RoCE supports only RoCE v2)";
  };
  return set_cm_value(ctx, a, v);
}

Outcome exec_roce_tos(ApplyContext& ctx, const Action& a, const SetRoceTos& p) {
  CmValue v{p.device, p.port, std::to_string(p.tos), "default_roce_tos", nullptr, nullptr};
  const uint64_t want = p.tos;
  v.matches = [want](const std::string& shown) { return parse_roce_tos(shown) == want; };
  v.hint = [](int errnum) -> std::string {
    return errnum == ERANGE || errnum == EINVAL ? "the ToS is a number from 0 to 255" : "";
  };
  return set_cm_value(ctx, a, v);
}

}  // namespace rp
