// Strong types for the values an administrator names: parsed once at the edge, so an
// unparsed string never reaches the plan or an executor.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace rp {

// 64-bit port or node GUID. Accepted as 00:02:c9:03:00:31:78:f2, 0002:c903:0031:78f2 or
// 0x0002c903003178f2; printed the way sysfs prints it (0002:c903:0031:78f2).
struct PortGuid {
  uint64_t value = 0;
  static std::optional<PortGuid> parse(std::string_view s);
  std::string str() const;
  std::string colon_bytes() const;  // 00:02:c9:03:00:31:78:f2 (udev ATTR{address} form)
  bool operator==(const PortGuid& o) const { return value == o.value; }
  bool operator<(const PortGuid& o) const { return value < o.value; }
};

// 48-bit Ethernet MAC, aa:bb:cc:dd:ee:ff (case-insensitive on input, lower on output).
struct MacAddress {
  std::array<uint8_t, 6> bytes{};
  static std::optional<MacAddress> parse(std::string_view s);
  // An iWARP port's GID as sysfs shows it ("3cfd:fea1:0000:0000:0000:0000:0000:0000"):
  // the netdev's MAC, then zeros (siw_verbs.c siw_query_gid; iw_cxgb4 and irdma alike).
  // nullopt for any other GID. How a port finds its interface where gid_attrs/ndevs has
  // none (iWARP GIDs carry their netdev only since Linux 6.10, cache.c
  // config_non_roce_gid_cache).
  static std::optional<MacAddress> of_iwarp_gid(std::string_view gid);
  std::string str() const;
  bool operator==(const MacAddress& o) const { return bytes == o.bytes; }
  bool operator<(const MacAddress& o) const { return bytes < o.bytes; }
};

// A link-layer address of any length up to 20 bytes (IPoIB), as /sys/class/net/X/address.
struct HwAddress {
  std::array<uint8_t, 20> bytes{};
  uint8_t len = 0;
  static std::optional<HwAddress> parse(std::string_view s);
  std::string str() const;
  // IPoIB: the port GUID is the last 8 bytes of the 20-byte address; the rest (flags, QPN,
  // subnet prefix) changes between boots and must never be matched on.
  std::optional<PortGuid> ipoib_guid() const;
  // IPoIB, of the 20-byte broadcast address: the P_Key, bytes 8 (high) and 9 (low), set
  // for a parent and for both kinds of P_Key child (ipoib_main.c ipoib_ndo_init).
  std::optional<uint16_t> ipoib_broadcast_pkey() const;
  std::optional<MacAddress> mac() const;
};

// PCI address DDDD:BB:DD.F; the domain may be omitted on input ("81:00.0"). Domains
// above 0xffff exist (Intel VMD puts its devices in 10000 and up) and print with five or
// more digits, as the kernel's "%04x:%02x:%02x.%d" does (drivers/pci/probe.c).
struct PciAddress {
  uint32_t domain = 0;
  uint8_t bus = 0, device = 0, function = 0;
  static std::optional<PciAddress> parse(std::string_view s);
  std::string str() const;
  bool operator==(const PciAddress& o) const {
    return domain == o.domain && bus == o.bus && device == o.device && function == o.function;
  }
  // The same slot (domain, bus, device): the functions of one card, a ConnectX's PFs.
  bool same_slot(const PciAddress& o) const {
    return domain == o.domain && bus == o.bus && device == o.device;
  }
  bool operator<(const PciAddress& o) const {
    return std::tie(domain, bus, device, function) <
           std::tie(o.domain, o.bus, o.device, o.function);
  }
};

// IB port state as /sys/class/infiniband/X/ports/N/state ("4: ACTIVE").
enum class PortState {
  kUnknown = 0,
  kDown = 1,
  kInit = 2,
  kArmed = 3,
  kActive = 4,
  kActiveDefer = 5
};
PortState parse_port_state(std::string_view sysfs_value);
std::string_view to_string(PortState s);

// The words of a port's physical state as core/sysfs.c phys_state_to_str names them
// (phys_state_show: "%u: %s", "5: LinkUp"), in the order of their numbers 1..7.
inline constexpr std::string_view kPhysStateWords[] = {
    "Sleep",  "Polling",           "Disabled", "PortConfigurationTraining",
    "LinkUp", "LinkErrorRecovery", "Phy Test"};

enum class LinkLayer { kUnknown, kInfiniBand, kEthernet };
LinkLayer parse_link_layer(std::string_view s);
std::string_view to_string(LinkLayer l);

// mlx4 port type written to mlx4_portN.
enum class PortType { kIb, kEth, kAuto };
std::optional<PortType> parse_port_type(std::string_view s);
std::string_view to_string(PortType t);

// An mlx4 port's type as its mlx4_portN file shows it (mlx4/main.c show_port_type): what
// it is configured as (ib, eth or auto) and what it runs as now (ib or eth; for an auto
// port, the type currently sensed). The inventory reads it (inventory/shown.h).
struct Mlx4PortType {
  PortType configured = PortType::kIb;
  PortType effective = PortType::kIb;  // never kAuto
  bool is_auto() const { return configured == PortType::kAuto; }
  LinkLayer link_layer() const;
  bool operator==(const Mlx4PortType& o) const {
    return configured == o.configured && effective == o.effective;
  }
  std::string str() const;  // as shown: "ib", "eth", "auto (eth)"
};

// IPoIB mode, with the values of IFLA_IPOIB_MODE (IPOIB_MODE_*, linux/if_link.h); the
// words are those of /sys/class/net/<if>/mode (ipoib_main.c show_mode / set_mode).
enum class IpoibMode : uint16_t { kDatagram = 0, kConnected = 1 };
std::optional<IpoibMode> parse_ipoib_mode(std::string_view s);  // "datagram" | "connected"
std::string_view to_string(IpoibMode m);

// IPv4 or IPv6 address, parsed once from text.
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};
  static std::optional<IpAddress> parse(std::string_view s);
  size_t size() const { return v6 ? 16 : 4; }
  std::string str() const;
};

// Address with prefix length: "10.77.0.1/24", "fd00::1/64"; without a length, a host
// (/32, /128). The length is decimal digits only: "fd00::1/0x40" is refused.
struct IpPrefix {
  IpAddress address;
  unsigned length = 0;
  static std::optional<IpPrefix> parse(std::string_view cidr);
  std::string str() const;
};
// `a` lies within `p` (same family, the first `p.length` bits equal): the listener's
// --allow, the interface an NVMe/RDMA target's subnet is on.
bool prefix_contains(const IpPrefix& p, const IpAddress& a);

// An interface's IEEE 802.1Qaz DCB state as DCB netlink shows it (kernel/dcbnl.h reads
// it; net/dcb/dcbnl.c dcbnl_ieee_fill): PFC, ETS, the APP table's DSCP entries and, where
// the driver has one (dcbnl_getapptrust, kernels 6.2 and later), the trust table.
enum class DcbTrust { kPcp, kDscp };
std::string_view to_string(DcbTrust t);  // "pcp" | "dscp"
struct DcbState {
  std::optional<uint8_t> pfc_en;  // bit i: priority i is lossless (struct ieee_pfc pfc_en)
  uint8_t pfc_cap = 0, pfc_mbc = 0;
  uint16_t pfc_delay = 0;
  // struct ieee_ets: bandwidth per traffic class, its transmission selection algorithm
  // (IEEE_8021QAZ_TSA_*) and each priority's class.
  bool has_ets = false;
  uint8_t ets_willing = 0, ets_cap = 0, ets_cbs = 0;
  std::array<uint8_t, 8> tc_bw{}, tc_tsa{}, prio_tc{};
  std::map<uint8_t, uint8_t> dscp_prio;       // the APP table's DSCP entries (selector 5)
  bool other_apps = false;                    // entries of other selectors
  std::optional<std::vector<uint8_t>> trust;  // selectors, most trusted first
  std::optional<uint8_t> dcbx;                // DCB_ATTR_DCBX (DCB_CAP_DCBX_*)
  // What the interface trusts: the trust table where the driver has one, else DSCP when
  // the APP table has DSCP entries (mlx5 en_dcbnl.c: the first DSCP entry switches the
  // port to DSCP trust, deleting the last one back to PCP).
  DcbTrust effective_trust() const;
  std::string pfc_text() const;  // "3,4", "none", "unknown"
  // The priority RoCE v2 traffic of ToS `tos` is sent at: trusting DSCP, its DSCP's
  // (ToS >> 2, mlx5_ib qp.c) in the APP table, nullopt when the table has none (the
  // device's own table decides, unseen); trusting PCP, the RDMA CM's service level, 0 on
  // an interface without a VLAN or traffic classes (cma.c iboe_tos_to_sl).
  std::optional<uint8_t> roce_priority(unsigned tos) const;
};

// ARPHRD values we care about (linux/if_arp.h); others are printed as numbers.
constexpr int kArphrdEther = 1;
constexpr int kArphrdInfiniband = 32;
constexpr int kArphrdLoopback = 772;
std::string arphrd_name(int type);

// RoCE's two modes, as rdma_cm's configfs names them (cma_configfs.c default_roce_mode:
// ib_cache_gid_type_str) and as our inputs write them.
enum class RoceMode { kV1, kV2 };
std::optional<RoceMode> parse_roce_mode(std::string_view s);  // "v1" | "v2"
std::string_view to_string(RoceMode m);                       // "v1" | "v2"
std::string_view configfs_value(RoceMode m);                  // "IB/RoCE v1" | "RoCE v2"

// The two soft RDMA devices the kernel makes on an interface (`rdma link add`).
enum class SoftKind { kRxe, kSiw };
std::string_view to_string(SoftKind k);  // "rxe" | "siw"
std::string_view module_of(SoftKind k);  // "rdma_rxe" | "siw"

}  // namespace rp
