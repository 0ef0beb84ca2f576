// ApplyContext: what an executor may use to change the machine. Files go through
// FileOps (under the root); netlink and module loading act on the running kernel and
// are allowed only when `live` (the root is "/"). Nothing else reaches the kernel.
#pragma once

#include <optional>

#include "provision/apply/deadline.h"
#include "provision/apply/log.h"
#include "provision/apply/outcome.h"
#include "provision/kernel/files.h"
#include "provision/plan/plan.h"

namespace rp {

struct ModuleLoading;  // apply/modules.h
class DcbOps;          // kernel/dcbnl.h

struct ApplyContext {
  FileOps& files;
  bool live;  // netlink, RDMA netlink and module loading are available
  Deadline deadline;
  Log& log;
  // How module actions reach libkmod (apply/modules.h); null: the running kernel. Tests
  // give a scripted kernel under the real libkmod.
  const ModuleLoading* modules = nullptr;
  // How DCB actions reach DCB netlink (kernel/dcbnl.h); null: the running kernel. Tests
  // give a stand-in that answers as a driver does.
  const DcbOps* dcb = nullptr;
};

// The one "live only" rule: an executor that acts on the running kernel (netlink, module
// loading) skips on a fixture root (--root DIR) unless it only looks (`dry_run`). nullopt
// when it may act.
inline std::optional<Outcome> live_only(const ApplyContext& ctx, bool dry_run = false) {
  if (ctx.live || dry_run) return std::nullopt;
  return Outcome::skipped("acts on the running kernel only (--root DIR)");
}

// One function per action kind, taking that kind's parameters (a table of operations, as
// systemd-networkd has per link kind; the rows are in apply/registry.cc). Each returns how
// the action ended; none waits past ctx.deadline. `a` gives the common header
// (waiting_for, object(), reason).

// sysfs / configfs (apply/mlx4.cc, apply/roce.cc, apply/wait_port.cc)
Outcome exec_port_type(ApplyContext& ctx, const Action& a, const SetPortType& p);
Outcome exec_port_mtu(ApplyContext& ctx, const Action& a, const SetPortMtu& p);
Outcome exec_roce_mode(ApplyContext& ctx, const Action& a, const SetRoceMode& p);
Outcome exec_roce_tos(ApplyContext& ctx, const Action& a, const SetRoceTos& p);
Outcome exec_wait_port(ApplyContext& ctx, const Action& a, const WaitPort& p);

// modules (apply/modules.cc)
Outcome exec_load_module(ApplyContext& ctx, const Action& a, const LoadModule& p);
Outcome exec_reload_module(ApplyContext& ctx, const Action& a, const ReloadModule& p);

// RDMA netlink (apply/soft_link.cc)
Outcome exec_soft_link(ApplyContext& ctx, const Action& a, const CreateSoftLink& p);

// route netlink and netdev attributes (apply/links.cc)
Outcome exec_rename(ApplyContext& ctx, const Action& a, const Rename& p);
Outcome exec_pkey_child(ApplyContext& ctx, const Action& a, const CreatePkeyChild& p);
Outcome exec_ipoib_mode(ApplyContext& ctx, const Action& a, const SetIpoibMode& p);
Outcome exec_mtu(ApplyContext& ctx, const Action& a, const SetMtu& p);
Outcome exec_link_up(ApplyContext& ctx, const Action& a, const LinkUp& p);
Outcome exec_address(ApplyContext& ctx, const Action& a, const AddAddress& p);
Outcome exec_route(ApplyContext& ctx, const Action& a, const AddRoute& p);
Outcome exec_wait_link(ApplyContext& ctx, const Action& a, const WaitLink& p);

// DCB netlink (apply/dcb.cc)
Outcome exec_dcb_ets(ApplyContext& ctx, const Action& a, const SetDcbEts& p);
Outcome exec_dcb_pfc(ApplyContext& ctx, const Action& a, const SetDcbPfc& p);
Outcome exec_dcb_apps(ApplyContext& ctx, const Action& a, const SetDcbApps& p);

// What keeps a RoCE port's link down (apply/wait_port.cc), or "" when nothing known does
// (an InfiniBand port; its interface unknown or up with carrier): "ens1f1np1 under it is
// administratively down (...)" or "... is up but has no carrier: no link (...)".
std::string roce_link_down(FileOps& files, const std::string& device, unsigned port);

// NVMe over Fabrics over RDMA through /dev/nvme-fabrics (apply/nvmf.cc)
Outcome exec_nvmf_connect(ApplyContext& ctx, const Action& a, const ConnectNvmf& p);

// libibverbs and librdmacm: the data path tried (apply/verify.cc)
Outcome exec_verify_port(ApplyContext& ctx, const Action& a, const VerifyPort& p);
Outcome exec_verify_peer(ApplyContext& ctx, const Action& a, const VerifyPeer& p);
Outcome exec_verify_nvmf(ApplyContext& ctx, const Action& a, const VerifyNvmfTarget& p);

// An object rd.rdma.required=1 needs (apply/require.cc)
Outcome exec_require(ApplyContext& ctx, const Action& a, const Require& p);
// sysfs (apply/check_link.cc): the link against what the fabric expects
Outcome exec_check_link(ApplyContext& ctx, const Action& a, const CheckLink& p);
// RDMA netlink (apply/rdma_rename.cc): a fixed RDMA device name
Outcome exec_rdma_rename(ApplyContext& ctx, const Action& a, const RenameRdmaDevice& p);

}  // namespace rp
