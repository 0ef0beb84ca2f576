// Names and display texts of the action kinds, derived from each kind's parameters.
#include "provision/plan/action.h"

#include <array>
#include <type_traits>

#include "provision/base/strings.h"

namespace rp {
namespace {

template <ActionKind K, typename P>
constexpr bool kAt = std::is_same_v<std::variant_alternative_t<size_t(K), ActionParams>, P>;
static_assert(
    kAt<ActionKind::kLoadModule, LoadModule> && kAt<ActionKind::kReloadModule, ReloadModule> &&
        kAt<ActionKind::kSetPortType, SetPortType> && kAt<ActionKind::kSetPortMtu, SetPortMtu> &&
        kAt<ActionKind::kCreateSoftLink, CreateSoftLink> && kAt<ActionKind::kRename, Rename> &&
        kAt<ActionKind::kSetRoceMode, SetRoceMode> && kAt<ActionKind::kSetRoceTos, SetRoceTos> &&
        kAt<ActionKind::kCreatePkeyChild, CreatePkeyChild> &&
        kAt<ActionKind::kSetIpoibMode, SetIpoibMode> && kAt<ActionKind::kSetMtu, SetMtu> &&
        kAt<ActionKind::kDcbEts, SetDcbEts> && kAt<ActionKind::kDcbPfc, SetDcbPfc> &&
        kAt<ActionKind::kDcbApps, SetDcbApps> && kAt<ActionKind::kLinkUp, LinkUp> &&
        kAt<ActionKind::kAddAddress, AddAddress> && kAt<ActionKind::kAddRoute, AddRoute> &&
        kAt<ActionKind::kWaitPort, WaitPort> && kAt<ActionKind::kWaitLink, WaitLink> &&
        kAt<ActionKind::kVerifyPort, VerifyPort> && kAt<ActionKind::kVerifyPeer, VerifyPeer> &&
        kAt<ActionKind::kRequire, Require> && kAt<ActionKind::kCheckLink, CheckLink> &&
        kAt<ActionKind::kRenameRdmaDevice, RenameRdmaDevice> &&
        kAt<ActionKind::kConnectNvmf, ConnectNvmf> &&
        kAt<ActionKind::kVerifyNvmf, VerifyNvmfTarget>,
    "ActionKind and ActionParams list the kinds in the same order");

// The names plan, report, state file and logs use, indexed by ActionKind.
constexpr std::array<std::string_view, kActionKinds> kNames = {
    "load-module",  "reload-module", "port-type",   "port-mtu",   "soft-link",  "rename",
    "roce-mode",    "roce-tos",      "pkey-child",  "ipoib-mode", "mtu",        "dcb-ets",
    "dcb-pfc",      "dcb-app",       "link-up",     "address",    "route",      "wait-port",
    "wait-link",    "verify-port",   "verify-peer", "require",    "check-link", "rdma-rename",
    "nvmf-connect", "verify-nvmf",
};

struct Text {
  std::string object, wanted;
};

std::string port_of(const std::string& dev, unsigned port) {
  return dev + "/" + std::to_string(port);
}
std::string pci_port(const PciAddress& pci, unsigned port) {
  return pci.str() + " port " + std::to_string(port);
}

Text text(const LoadModule& p) {
  return {p.module, p.pfc ? "loaded with " + p.pfc->str() : "loaded"};
}
Text text(const ReloadModule& p) { return {p.module, p.pfc.str()}; }
Text text(const SetPortType& p) {
  return {pci_port(p.pci, p.port), std::string(to_string(p.type))};
}
Text text(const SetPortMtu& p) { return {pci_port(p.pci, p.port) + " MTU", std::to_string(p.mtu)}; }
Text text(const CreateSoftLink& p) {
  return {p.name, std::string(to_string(p.kind)) + " on " + p.netdev};
}
Text text(const Rename& p) { return {p.from.empty() ? p.to : p.from, p.to}; }
Text text(const SetRoceMode& p) {
  return {port_of(p.device, p.port), std::string(configfs_value(p.mode))};
}
Text text(const SetRoceTos& p) { return {port_of(p.device, p.port), std::to_string(p.tos)}; }
Text text(const CreatePkeyChild& p) {
  return {p.name, "P_Key 0x" + hex(p.pkey, 4) + " on " + p.parent};
}
Text text(const SetIpoibMode& p) { return {p.ifname, std::string(to_string(p.mode))}; }
Text text(const SetMtu& p) { return {p.ifname, std::to_string(p.mtu)}; }
std::string pairs_text(const std::map<uint8_t, uint8_t>& m) {
  std::string out;
  for (const auto& [a, b] : m)
    out += (out.empty() ? "" : ",") + std::to_string(a) + ":" + std::to_string(b);
  return out;
}
Text text(const SetDcbEts& p) {
  std::string w;
  if (p.tc_bw) {
    std::map<uint8_t, uint8_t> bw;
    for (uint8_t tc = 0; tc < 8; ++tc)
      if ((*p.tc_bw)[tc]) bw[tc] = (*p.tc_bw)[tc];
    w = "ETS tc_bw " + pairs_text(bw);
  }
  if (!p.prio_tc.empty())
    w += (w.empty() ? "" : ", ") + std::string("prio_tc ") + pairs_text(p.prio_tc);
  return {p.ifname, w};
}
Text text(const SetDcbPfc& p) {
  DcbState s;
  s.pfc_en = p.pfc_en;
  return {p.ifname, "PFC on " + s.pfc_text()};
}
Text text(const SetDcbApps& p) {
  std::string w;
  if (p.trust) w = "trust " + std::string(to_string(*p.trust));
  if (!p.dscp_prio.empty())
    w += (w.empty() ? "" : ", ") + std::string("dscp_prio ") + pairs_text(p.dscp_prio);
  return {p.ifname, w};
}
Text text(const LinkUp& p) { return {p.ifname, "up"}; }
Text text(const AddAddress& p) { return {p.ifname, p.prefix.str()}; }
Text text(const AddRoute& p) { return {p.ifname, p.shown()}; }
Text text(const WaitPort& p) { return {port_of(p.device, p.port), "ACTIVE"}; }
Text text(const WaitLink& p) { return {p.ifname, "carrier"}; }
Text text(const VerifyPort& p) {
  std::string how;
  if (p.mode)
    how = " (RoCE " + std::string(to_string(*p.mode)) + (p.ipv4_only ? " over IPv4)" : ")");
  return {port_of(p.device, p.port), "RC loopback" + how};
}
Text text(const VerifyPeer& p) { return {p.shown(), "RDMA connection, write and round trips"}; }
Text text(const CheckLink& p) {
  return {p.port ? port_of(p.device, p.port) : p.device, p.want.str()};
}
Text text(const RenameRdmaDevice& p) { return {p.from, p.to}; }
Text text(const ConnectNvmf& p) { return {"nvmf " + p.shown(), "connected, namespaces present"}; }
Text text(const VerifyNvmfTarget& p) {
  return {"nvmf " + p.shown(), "accepts an NVMe/RDMA admin queue"};
}
Text text(const Require& p) { return {p.noun + " " + p.wanted, "present (" + p.what + ")"}; }

Text text_of(const ActionParams& params) {
  return std::visit([](const auto& p) { return text(p); }, params);
}

}  // namespace

std::string VerifyPeer::shown() const {
  return (address.v6 ? "[" + address.str() + "]" : address.str()) + ":" + std::to_string(port);
}

std::string VerifyNvmfTarget::shown() const {
  return (address.v6 ? "[" + address.str() + "]" : address.str()) + ":" + std::to_string(port);
}

std::string ConnectNvmf::shown() const {
  return (traddr.find(':') != std::string::npos ? "[" + traddr + "]" : traddr) + ":" + trsvcid;
}

std::string PfcMasks::str() const { return "pfctx=0x" + hex(tx, 2) + " pfcrx=0x" + hex(rx, 2); }

std::string LoadModule::all_options() const {
  if (!pfc) return options;
  return options + (options.empty() ? "" : " ") + pfc->str();
}

std::string AddRoute::shown() const {
  return (destination ? destination->str() : "default") + (gateway ? " via " + gateway->str() : "");
}

std::string_view to_string(ActionKind k) {
  const auto i = static_cast<size_t>(k);
  return i < kNames.size() ? kNames[i] : "?";
}

std::string Action::object() const { return text_of(params).object; }
std::string Action::wanted() const { return text_of(params).wanted; }

}  // namespace rp
