// The values of the settings asked for, each with its source where it is one setting
// (Sourced<T>): what a key in rdma-provision.conf, a rd.rdma.* parameter or a row of the
// node table means once read. Config (config.h) holds them by what they apply to.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/source.h"
#include "provision/base/types.h"

namespace rp {

template <typename T>
struct Sourced {
  T value{};
  Source source;
};

// What a persistent name matches on: an IPoIB port GUID or an Ethernet MAC (one node's
// hardware), or, the same on every node of a uniform fleet, a PCI function with the port
// under it ("pci-0000:af:00.0", "pci-0000:81:00.0/2") or an RDMA device's port
// ("mlx5_0/1": the netdev of that port). inputs/values.cc parse_hw_key reads them all.
struct HwKey {
  enum class By { kGuid, kMac, kPci, kRdmaPort };
  By by = By::kGuid;
  uint64_t value = 0;  // kGuid: the GUID; kMac: the MAC in the low 48 bits
  PciAddress pci{};    // kPci
  std::string device;  // kRdmaPort: the RDMA device's name as it is when the plan is made
  // kPci: the port under the function, dev_port + 1 (0: none given, the function's one
  // interface); kRdmaPort: the RDMA port.
  unsigned port = 0;
  static std::optional<HwKey> parse(std::string_view s);  // GUID forms or a 6-byte MAC only
  static HwKey of_guid(PortGuid g) { return {By::kGuid, g.value, {}, {}, 0}; }
  static HwKey of_mac(const MacAddress& m);
  static HwKey of_pci(PciAddress a, unsigned port) { return {By::kPci, 0, a, {}, port}; }
  static HwKey of_rdma_port(std::string dev, unsigned port) {
    return {By::kRdmaPort, 0, {}, std::move(dev), port};
  }
  bool is_guid() const { return by == By::kGuid; }
  bool is_mac() const { return by == By::kMac; }
  // A GUID or a MAC: one node's hardware, which the node table is keyed by.
  bool is_address() const { return by == By::kGuid || by == By::kMac; }
  std::string str() const;  // as written: "0002:c903:0031:78f2", "pci-0000:af:00.0", ...
  bool operator==(const HwKey& o) const {
    return std::tie(by, value, pci, device, port) ==
           std::tie(o.by, o.value, o.pci, o.device, o.port);
  }
  bool operator<(const HwKey& o) const {
    return std::tie(by, value, pci, device, port) <
           std::tie(o.by, o.value, o.pci, o.device, o.port);
  }
};
std::string_view to_string(HwKey::By b);  // "port_guid" | "mac" | "pci" | "rdma_port"

struct Mlx4Setting {
  std::optional<Sourced<PortType>> type[2];  // ports 1 and 2
  std::optional<Sourced<unsigned>> mtu[2];   // mlx4_port<N>_mtu (IB ports only)
};

struct IpoibSetting {
  std::optional<Sourced<IpoibMode>> mode;
  std::optional<Sourced<unsigned>> mtu;
};

// Lossless RoCE on an interface (rd.rdma.dcb, [dcb <ifname>]): IEEE 802.1Qaz settings the
// plan writes over DCB netlink (plan/dcb.cc), each optional; what is not given is left as
// the interface has it.
struct DcbSetting {
  std::optional<Sourced<DcbTrust>> trust;
  std::optional<Sourced<uint8_t>> pfc;  // bit i: priority i lossless
  // ETS: every traffic class ETS, with these bandwidths (percent, summing to 100), and
  // the class of each priority (the rest kept as the interface has them).
  std::optional<Sourced<std::array<uint8_t, 8>>> tc_bw;
  std::optional<Sourced<std::map<uint8_t, uint8_t>>> prio_tc;
  std::optional<Sourced<std::map<uint8_t, uint8_t>>> dscp_prio;  // DSCP -> priority
  const Source& source() const;                                  // of the first setting given
};

struct PkeyChild {
  std::string parent;
  uint16_t pkey = 0;  // as given; full_pkey() is what the kernel gets
  std::string name;   // empty: the default, child_name()
  std::optional<IpoibMode> mode;
  Source source;
  // NetworkManager's ib.pkey= for this partition, when given (its token and the child name
  // it writes, which nm-initrd-generator gives the interface as is): in an image with
  // NetworkManager that child is NM's (inputs/load.cc leave_ib_pkey_to_networkmanager).
  std::optional<Source> nm_source;
  std::string nm_name;
  bool nm_after_ip = false;  // an ip= for nm_name came before the ib.pkey=

  // Policy: children are full members. Kernels differ on whether they OR in 0x8000 on
  // create (ipoib_vlan_add); we always do, so ib0.000a here is never ib0.800a elsewhere.
  uint16_t full_pkey() const { return static_cast<uint16_t>(pkey | 0x8000); }
  // The name given, else <parent>.<full pkey %04x>, as `ip link add ... type ipoib pkey`
  // users and rdma-core's docs name them (ib0.8001).
  std::string child_name() const;
};

// Which RDMA device a RoCE default or a wait means. By name ("mlx5_0"), or by what survives
// a rename: rdma-core's 60-rdma-persistent-naming.rules (kernel-boot/rdma_rename.c, policy
// NAME_FALLBACK) renames mlx5_0 to rocep175s0f0 where it is installed, so a name true in
// one root may be absent in the other. "pci-0000:af:00.0" (the PCI function),
// "guid-9803:9b03:0046:8a10" (node_guid) and "netdev-ens1f0np0" (the port under that
// interface) name the same hardware in both; "*" is every device.
struct RdmaSelector {
  enum class By { kAll, kName, kPci, kNodeGuid, kNetdev };
  By by = By::kName;
  std::string name;  // kName: the device; kNetdev: the interface
  PciAddress pci{};
  PortGuid guid{};
  static RdmaSelector all() { return {By::kAll, "*", {}, {}}; }
  static RdmaSelector named(std::string n) { return {By::kName, std::move(n), {}, {}}; }
  std::string str() const;  // as written back: "*", "mlx5_0", "pci-0000:af:00.0", ...
  bool operator<(const RdmaSelector& o) const { return str() < o.str(); }
  bool operator==(const RdmaSelector& o) const { return str() == o.str(); }
};

// One rd.rdma.wait entry: "all", "none", "<device>/<port>" or an interface (carrier).
struct WaitItem {
  enum class Kind { kAll, kNone, kPort, kLink };
  Kind kind = Kind::kAll;
  RdmaSelector device;  // kPort
  unsigned port = 0;    // kPort; 0 with a netdev- selector (its port)
  std::string ifname;   // kLink
  std::string str() const;
};

// rd.rdma.verify: try the RDMA data path before the root is mounted (libibverbs,
// librdmacm; verify/check.h). ports: a loopback check on each port the configuration
// involves (in apply); peer: that and a connection to a peer's `verify --listen` once the
// network is up (the address given, else the NFS server of root=/netroot=).
struct VerifySetting {
  enum class Mode { kOff, kPorts, kPeer };
  Mode mode = Mode::kOff;
  std::optional<IpAddress> peer;       // kPeer; nullopt: the NFS server of root=
  uint16_t port = 7472;                // kPeer: the listener's port (verify/check.h kVerifyPort)
  std::string str() const;             // "0", "ports", "peer", "peer:10.0.0.1:7472"
  std::string_view mode_name() const;  // "0", "ports", "peer"
};

struct RoceSetting {
  std::optional<Sourced<RoceMode>> mode;
  std::optional<Sourced<unsigned>> tos;
};

// The link the fabric expects of a port, or of an HCA (rd.rdma.expect, [expect
// <device>[/<port>]]): checked once the ports are up (plan/expect.cc); each optional,
// what is not given is not checked. Values as the kernel shows them: rate in tenths of
// Gb/s and width in lanes (core/sysfs.c rate_show), the PCIe link in tenths of GT/s and
// lanes (pci-sysfs.c current_link_speed_show, current_link_width_show).
struct ExpectSetting {
  std::optional<Sourced<unsigned>> rate;   // 4000: "400 Gb/sec"
  std::optional<Sourced<unsigned>> width;  // 1, 2, 4, 8, 12
  std::optional<Sourced<LinkLayer>> link_layer;
  std::optional<Sourced<std::string>> phys_state;  // phys_state_to_str's word: "LinkUp"
  std::optional<Sourced<bool>> sm;                 // a subnet manager configured the port
  std::optional<Sourced<std::string>> fw;          // fw_ver, exactly
  // The PCIe link: a value, or 0 for "max" (what the device and the slot allow:
  // max_link_speed, max_link_width).
  std::optional<Sourced<unsigned>> pcie_speed;  // 160: "16.0 GT/s PCIe"
  std::optional<Sourced<unsigned>> pcie_width;  // 16: "x16"
  bool port_keys() const { return rate || width || link_layer || phys_state || sm; }
  bool device_keys() const { return fw || pcie_speed || pcie_width; }
  const Source& source() const;  // of the first setting given
};

struct SoftLink {
  SoftKind kind = SoftKind::kRxe;
  std::string name;  // empty: <kind><N> chosen by the plan
  Source source;
};

struct AddressSetting {
  IpPrefix prefix;  // 10.1.0.17/16 or an IPv6 prefix
  Source source;
};

struct RouteSetting {
  std::optional<IpPrefix> destination;  // nullopt: the default route
  IpAddress gateway;
  Source source;
};

// One row of the per-node table: settings for the port (GUID) or netdev (MAC) that has
// this address. Only rows whose key exists on this node take effect.
struct NodeEntry {
  HwKey key;
  std::string name;
  std::vector<IpPrefix> addresses;
  std::vector<uint16_t> pkeys;
  std::optional<IpoibMode> mode;
  std::optional<unsigned> mtu;
  // rxe=NAME / siw=NAME: a Soft-RoCE / Soft-iWARP device on the row's interface (one image
  // for a cluster of Soft-RoCE nodes, each told apart by its NIC's MAC).
  std::optional<SoftLink> soft;
  // devname=NAME: the RDMA device under the row's interface is given this fixed name (as
  // [devname NAME] match = netdev-<interface>).
  std::string devname;
  // lease=IPV4 / host=NAME: what the DHCP server's host entry for this port hands out
  // (`rdma-provision dhcp-hosts`): its fixed address (else the row's first IPv4 address=)
  // and host name. The node does not set either itself.
  std::optional<IpAddress> lease;
  std::string host;
  Source source;
};

}  // namespace rp
