// rdma-rename: an RDMA device renamed over RDMA netlink (kernel/rdma_nl.h
// rdma_rename_device, what `rdma dev set <dev> name <new>` sends), then looked for under
// its new name in sysfs (ib_device_rename renames the class device: device_rename).
#include "provision/apply/context.h"
#include "provision/kernel/rdma_nl.h"

namespace rp {

Outcome exec_rdma_rename(ApplyContext& ctx, const Action& a, const RenameRdmaDevice& p) {
  const std::string to = "/sys/class/infiniband/" + p.to;
  const bool from_here = ctx.files.exists("/sys/class/infiniband/" + p.from);
  // Already so: the device has the name (a second run, or one before this boot's).
  if (!from_here && ctx.files.exists(to)) return Outcome::already(p.to);
  if (auto skip = live_only(ctx)) return *skip;
  if (auto st = rdma_rename_device({p.from, p.to}); !st) return Outcome::failed(st.error());
  if (!ctx.files.exists(to))
    return Outcome::failed(make_error(a.object(), "renamed, but " + to + " is not there"));
  return Outcome::done(p.to);
}

}  // namespace rp
