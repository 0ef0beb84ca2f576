#include "provision/apply/registry.h"

#include <array>

#include "provision/apply/modules.h"

namespace rp {
namespace {

// Unpacks the action's parameters for an executor that takes them.
template <typename P, Outcome (*F)(ApplyContext&, const Action&, const P&)>
Outcome run(ApplyContext& ctx, const Action& a) {
  return F(ctx, a, a.get<P>());
}

constexpr std::array<ExecutorEntry, kActionKinds> kExecutors = {{
    {ActionKind::kLoadModule, run<LoadModule, exec_load_module>, exec_load_modules},
    {ActionKind::kReloadModule, run<ReloadModule, exec_reload_module>, nullptr},
    {ActionKind::kSetPortType, run<SetPortType, exec_port_type>, nullptr},
    {ActionKind::kSetPortMtu, run<SetPortMtu, exec_port_mtu>, nullptr},
    {ActionKind::kCreateSoftLink, run<CreateSoftLink, exec_soft_link>, nullptr},
    {ActionKind::kRename, run<Rename, exec_rename>, nullptr},
    {ActionKind::kSetRoceMode, run<SetRoceMode, exec_roce_mode>, nullptr},
    {ActionKind::kSetRoceTos, run<SetRoceTos, exec_roce_tos>, nullptr},
    {ActionKind::kCreatePkeyChild, run<CreatePkeyChild, exec_pkey_child>, nullptr},
    {ActionKind::kSetIpoibMode, run<SetIpoibMode, exec_ipoib_mode>, nullptr},
    {ActionKind::kSetMtu, run<SetMtu, exec_mtu>, nullptr},
    {ActionKind::kDcbEts, run<SetDcbEts, exec_dcb_ets>, nullptr},
    {ActionKind::kDcbPfc, run<SetDcbPfc, exec_dcb_pfc>, nullptr},
    {ActionKind::kDcbApps, run<SetDcbApps, exec_dcb_apps>, nullptr},
    {ActionKind::kLinkUp, run<LinkUp, exec_link_up>, nullptr},
    {ActionKind::kAddAddress, run<AddAddress, exec_address>, nullptr},
    {ActionKind::kAddRoute, run<AddRoute, exec_route>, nullptr},
    {ActionKind::kWaitPort, run<WaitPort, exec_wait_port>, nullptr},
    {ActionKind::kWaitLink, run<WaitLink, exec_wait_link>, nullptr},
    {ActionKind::kVerifyPort, run<VerifyPort, exec_verify_port>, nullptr},
    {ActionKind::kVerifyPeer, run<VerifyPeer, exec_verify_peer>, nullptr},
    {ActionKind::kRequire, run<Require, exec_require>, nullptr},
    {ActionKind::kCheckLink, run<CheckLink, exec_check_link>, nullptr},
    {ActionKind::kRenameRdmaDevice, run<RenameRdmaDevice, exec_rdma_rename>, nullptr},
    {ActionKind::kConnectNvmf, run<ConnectNvmf, exec_nvmf_connect>, nullptr},
    {ActionKind::kVerifyNvmf, run<VerifyNvmfTarget, exec_verify_nvmf>, nullptr},
}};

constexpr bool rows_in_kind_order() {
  for (size_t i = 0; i < kExecutors.size(); ++i) {
    if (static_cast<size_t>(kExecutors[i].kind) != i) return false;
  }
  return true;
}
static_assert(rows_in_kind_order(), "one row per ActionKind, in ActionKind order");

}  // namespace

const ExecutorEntry& executor_for(ActionKind k) { return kExecutors[static_cast<size_t>(k)]; }

}  // namespace rp
