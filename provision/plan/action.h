// Typed plan actions: one parameter struct per kind of change, in a variant beside a
// small common header (current state, reason, what it waits for, prerequisites). Values
// are parsed once at the input edge into the types of base/ and config/; executors take
// their struct and never parse again; the object and wanted texts of plan and report are
// derived from the struct. Adding a kind: a struct here (and in ActionParams, same place
// in ActionKind), a planner beside its executor, and one row in apply/registry.cc.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "provision/base/types.h"
#include "provision/config/config.h"
#include "provision/plan/link_check.h"

namespace rp {

// mlx4_en's PFC masks (module options pfctx/pfcrx: drivers/net/ethernet/mellanox/mlx4/
// en_main.c, read only at load).
struct PfcMasks {
  unsigned tx = 0, rx = 0;
  std::string str() const;  // "pfctx=0x08 pfcrx=0x08"
  bool operator==(const PfcMasks& o) const { return tx == o.tx && rx == o.rx; }
};

struct LoadModule {
  std::string module;   // normalised (ib_ipoib, never ib-ipoib)
  std::string options;  // from our own inputs; modprobe.d's options libkmod applies itself
  std::optional<PfcMasks> pfc;
  std::string all_options() const;  // options and PFC masks, as given to the module
};
struct ReloadModule {
  std::string module;  // mlx4_en: its parameters are read-only once loaded
  PfcMasks pfc;
};
struct SetPortType {
  PciAddress pci;
  unsigned port = 1;  // 1 or 2
  PortType type = PortType::kIb;
  // When this plan sets both ports of the card: the other port's wanted type, and whether
  // it is written before this one. A card without MLX4_DEV_CAP_FLAG_DPDP takes one type
  // for both ports; it refuses a write that would mix them (EOPNOTSUPP) but keeps it staged
  // and applies both with the other port's write (mlx4/main.c __set_port_type).
  std::optional<PortType> other;
  bool other_first = false;
};
struct SetPortMtu {
  PciAddress pci;
  unsigned port = 1;
  unsigned mtu = 0;  // IB MTU in bytes: 256..4096
};
struct CreateSoftLink {
  std::string netdev;  // the Ethernet interface under it
  std::string name;    // the RDMA device to create
  SoftKind kind = SoftKind::kRxe;
};
struct Rename {
  std::string from;  // empty: the IPoIB netdev of `guid`, which appears during apply
  std::string to;
  std::optional<HwAddress> expected;  // the address the plan saw (a guard against races)
  std::optional<PortGuid> guid;       // for an interface that does not exist yet
};
struct SetRoceMode {
  std::string device;
  unsigned port = 1;
  RoceMode mode = RoceMode::kV2;
};
struct SetRoceTos {
  std::string device;
  unsigned port = 1;
  unsigned tos = 0;
};
struct CreatePkeyChild {
  std::string parent;
  std::string name;
  uint16_t pkey = 0;  // as sent to the kernel (the full-membership bit included)
  std::optional<IpoibMode> mode;
};
struct SetIpoibMode {
  std::string ifname;
  IpoibMode mode = IpoibMode::kDatagram;
};
struct SetMtu {
  std::string ifname;
  unsigned mtu = 0;
};
// DCB (IEEE 802.1Qaz) of an interface over DCB netlink (kernel/dcbnl.h, plan/dcb.cc):
// ETS, then PFC, then the DSCP priorities and trust; each written as a whole struct built
// from what the interface shows with the wanted fields changed.
struct SetDcbEts {
  std::string ifname;
  std::optional<std::array<uint8_t, 8>> tc_bw;  // every class ETS, with these shares
  std::map<uint8_t, uint8_t> prio_tc;           // the priorities moved; the rest as they are
};
struct SetDcbPfc {
  std::string ifname;
  uint8_t pfc_en = 0;
};
struct SetDcbApps {
  std::string ifname;
  std::optional<DcbTrust> trust;
  std::map<uint8_t, uint8_t> dscp_prio;  // wanted DSCP priorities (trust pcp: none at all)
};
struct LinkUp {
  std::string ifname;
};
struct AddAddress {
  std::string ifname;
  IpPrefix prefix;
};
struct AddRoute {
  std::string ifname;
  std::optional<IpPrefix> destination;  // nullopt: default
  std::optional<IpAddress> gateway;     // nullopt: on-link
  std::string shown() const;            // "default via 10.0.0.1"
};
struct WaitPort {
  std::string device;
  unsigned port = 1;
  // A port the boot's network does not use, waited for only so that rd.rdma.verify=ports
  // can check it (the unplugged second port of a dual-port card): while its interface is
  // up without carrier it gets kCarrierGraceS, then is skipped ("no carrier: not
  // checked") instead of holding the boot to the deadline.
  bool carrier_grace = false;
};
// dracut bounds its own wait for a carrier the same way (net-lib.sh iface_has_carrier,
// rd.net.timeout.carrier): link training of a cabled port takes a few seconds.
inline constexpr unsigned kCarrierGraceS = 10;
struct WaitLink {
  std::string ifname;
};
// rd.rdma.verify: the data path of a port tried with a loopback RC QP pair (the RoCE type
// of the port's configured mode, v2 by default), or a connection to a peer's listener.
struct VerifyPort {
  std::string device;
  unsigned port = 1;
  std::optional<RoceMode> mode;  // the port's configured RoCE mode (RoCE ports)
  // Its interface has IPv6 off (NetDev::ipv6_off): RoCE v2 over an IPv4-mapped GID only
  // (verify/check.h choose_gid).
  bool ipv4_only = false;
};
struct VerifyPeer {
  IpAddress address;
  uint16_t port = 7472;
  // Apply on the real root (rdma-provision.service) runs before the network: with no route
  // to the peer yet (a local-disk node), the check is skipped with a note instead of
  // failed, and rdma-provision-verify.service checks it after network-online.target.
  bool only_with_route = false;
  std::string shown() const;  // "10.0.0.1:7472", "[fd00::1]:7472"
};

// Under rd.rdma.required=1, an object the configuration asks for that is absent after
// udev's coldplug and that nothing in the plan makes appear (PlanBuilder::absent): an
// action that fails at once (Action::never), so the boot's record, the metrics and
// `explain` show it and the failure policy stops the boot there, not later in dracut.
struct Require {
  std::string what;    // the setting that needs it: "mlx4 port types", "ip="
  std::string noun;    // "mlx4 PCI function", "interface"
  std::string wanted;  // "0000:04:00.0", "fabric0"
};

// The order of the alternatives is the order of ActionKind (checked in action.cc).
// The link of a port (port != 0) or of an HCA (port 0: firmware, PCIe link) against what
// the fabric expects (rd.rdma.expect, plan/expect.cc), read once the ports are up.
struct CheckLink {
  std::string device;
  unsigned port = 0;
  ExpectedLink want;
};

// An RDMA device renamed over RDMA netlink (rd.rdma.devname, plan/rdma_names.cc).
struct RenameRdmaDevice {
  std::string from, to;
};

// An NVMe over Fabrics target over RDMA connected (rd.nvmf.discover=rdma,..., plan/nvmf.cc):
// its discovery controller, each NVMe subsystem its log lists over RDMA, and their
// namespaces' block devices waited for. At the network-online point (`nvmf --boot`).
struct ConnectNvmf {
  std::string traddr, trsvcid;
  std::string host_traddr;      // "" when dracut's is "none"
  std::string hostnqn, hostid;  // both or neither
  std::string shown() const;    // "10.77.0.1:4420", "[fd00::1]:4420"
};

// An NVMe over Fabrics target over RDMA checked before its connect (rd.rdma.verify with
// rd.nvmf.discover=rdma,...): an rdma_cm connection to its port as the kernel's host opens
// its admin queue, accepted or refused with the target's reason (verify/check.h).
struct VerifyNvmfTarget {
  IpAddress address;
  uint16_t port = 4420;
  std::string shown() const;  // "10.77.0.1:4420", "[fd00::1]:4420"
};

using ActionParams = std::variant<LoadModule, ReloadModule, SetPortType, SetPortMtu, CreateSoftLink,
                                  Rename, SetRoceMode, SetRoceTos, CreatePkeyChild, SetIpoibMode,
                                  SetMtu, SetDcbEts, SetDcbPfc, SetDcbApps, LinkUp, AddAddress,
                                  AddRoute, WaitPort, WaitLink, VerifyPort, VerifyPeer, Require,
                                  CheckLink, RenameRdmaDevice, ConnectNvmf, VerifyNvmfTarget>;

enum class ActionKind {
  kLoadModule,
  kReloadModule,
  kSetPortType,
  kSetPortMtu,
  kCreateSoftLink,
  kRename,
  kSetRoceMode,
  kSetRoceTos,
  kCreatePkeyChild,
  kSetIpoibMode,
  kSetMtu,
  kDcbEts,
  kDcbPfc,
  kDcbApps,
  kLinkUp,
  kAddAddress,
  kAddRoute,
  kWaitPort,
  kWaitLink,
  kVerifyPort,
  kVerifyPeer,
  kRequire,
  kCheckLink,
  kRenameRdmaDevice,
  kConnectNvmf,
  kVerifyNvmf,
};
constexpr size_t kActionKinds = std::variant_size_v<ActionParams>;
std::string_view to_string(ActionKind k);  // "load-module", "port-type", ...

struct Action {
  Action(ActionParams p, std::string cur, std::string why)
      : params(std::move(p)), current(std::move(cur)), reason(std::move(why)) {}

  ActionParams params;
  std::string current;  // "ib", "absent", "unknown": what the inventory showed
  std::string reason;   // the input that asked: "/etc/rdma/mlx4.conf:1", "cmdline: rd.rdma...."
  // The object does not exist yet but is expected to appear during apply (after a module
  // load, a soft link, a rename); apply waits for it within the deadline.
  std::string waiting_for;
  // Why it can never happen (a wait for what is absent and nothing makes appear): apply
  // fails it at once with this, instead of waiting to the deadline or passing in silence.
  std::string never;
  // Indices of earlier actions this one needs: when one of them fails, this is skipped.
  std::vector<size_t> after;

  ActionKind kind() const { return static_cast<ActionKind>(params.index()); }
  // What an administrator calls the object: "0000:81:00.0 port 2", "mlx5_0/1", "ib0".
  std::string object() const;
  // The wanted state, as text: "eth", "loaded with pfctx=0x08 pfcrx=0x08", "RoCE v2".
  std::string wanted() const;

  template <typename P>
  const P& get() const {
    return std::get<P>(params);
  }
};

}  // namespace rp
