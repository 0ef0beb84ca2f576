#include "provision/apply/registry.h"

#include <array>

namespace rp {
namespace {

// Unpacks the action's parameters for an executor that takes them.
template <typename P, Outcome (*F)(ApplyContext&, const Action&, const P&)>
Outcome run(ApplyContext& ctx, const Action& a) {
  return F(ctx, a, a.get<P>());
}

constexpr std::array<ExecutorEntry, kActionKinds> kExecutors = {{
    {ActionKind::kLoadModule, run<LoadModule, exec_load_module>, true},
    {ActionKind::kReloadModule, run<ReloadModule, exec_reload_module>, false},
    {ActionKind::kSetPortType, run<SetPortType, exec_port_type>, false},
    {ActionKind::kSetPortMtu, run<SetPortMtu, exec_port_mtu>, false},
    {ActionKind::kCreateSoftLink, run<CreateSoftLink, exec_soft_link>, false},
    {ActionKind::kRename, run<Rename, exec_rename>, false},
    {ActionKind::kSetRoceMode, run<SetRoceMode, exec_roce_mode>, false},
    {ActionKind::kSetRoceTos, run<SetRoceTos, exec_roce_tos>, false},
    {ActionKind::kCreatePkeyChild, run<CreatePkeyChild, exec_pkey_child>, false},
    {ActionKind::kSetIpoibMode, run<SetIpoibMode, exec_ipoib_mode>, false},
    {ActionKind::kSetMtu, run<SetMtu, exec_mtu>, false},
    {ActionKind::kLinkUp, run<LinkUp, exec_link_up>, false},
    {ActionKind::kAddAddress, run<AddAddress, exec_address>, false},
    {ActionKind::kAddRoute, run<AddRoute, exec_route>, false},
    {ActionKind::kWaitPort, run<WaitPort, exec_wait_port>, false},
    {ActionKind::kWaitLink, run<WaitLink, exec_wait_link>, false},
    {ActionKind::kVerifyPort, run<VerifyPort, exec_verify_port>, false},
    {ActionKind::kVerifyPeer, run<VerifyPeer, exec_verify_peer>, false},
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
