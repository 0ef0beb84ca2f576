// Config: the validated, merged model of what the node should look like. Every value
// carries its source ("/etc/rdma/mlx4.conf:3", "cmdline: rd.rdma.mlx4=...") so errors and
// plan reasons can name it. Inputs are merged in order (rdma-core files, native config,
// kernel command line); a later source overrides an earlier one field by field.
#pragma once

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
  Source source;
};

// rdma-core's RDMA device naming rules (kernel-boot/rdma-persistent-naming.rules), and the
// first line of the copy rdma-provision writes over it in /run (report/handoff.h).
inline constexpr const char* kRdmaRenameRules = "60-rdma-persistent-naming.rules";
inline constexpr const char* kRdmaRenameGuardMarker = "# rdma-provision: rdma-core's rule";

struct Config {
  Sourced<bool> enabled{true, {}};
  Sourced<unsigned> timeout_s{60, {}};    // hard deadline for a whole run
  Sourced<bool> required{false, {}};      // a failure stops the boot (dracut)
  Sourced<bool> allow_reload{false, {}};  // may reload mlx4_en to change PFC
  // May rename an interface that is not RDMA/IPoIB hardware out of the way of a wanted
  // name (a management NIC must not move unless the administrator says so).
  Sourced<bool> allow_rename_other{false, {}};

  std::vector<Sourced<std::string>> modules;  // in order of first request, no duplicates
  // In the initramfs, leave the modules of rdma-core's lists (/etc/rdma/modules/*.conf)
  // to the real root, where rdma-provision.service or rdma-core's own
  // rdma-load-modules@ units load them: the boot needs only what its devices, settings
  // and root transport need ([modules] defer, rd.rdma.modules.defer).
  Sourced<bool> defer_lists{true, {}};                         // Source::Origin::kRdmaCoreList
  std::map<std::string, Sourced<std::string>> module_options;  // module -> "a=1 b=2"
  std::vector<Sourced<std::string>> blacklist;
  // Modules modprobe.d forbids with `install <module> /bin/true` (or false): never loaded.
  std::map<std::string, Sourced<std::string>> forbidden;  // module -> the install command

  std::map<PciAddress, Mlx4Setting> mlx4;
  std::optional<Sourced<unsigned>> pfc_tx, pfc_rx;

  std::map<std::string, Sourced<HwKey>> names;  // wanted ifname -> what it matches
  // dracut's own ifname=<name>:<MAC> (40network's ifname-genrules.sh): read to find clashes.
  std::map<std::string, Sourced<HwKey>> dracut_ifnames;
  // Interfaces dracut's bond=, team=, bridge= and vlan= make: name -> the token.
  std::map<std::string, Source> dracut_virtual;
  std::map<std::string, IpoibSetting> ipoib;                    // ifname -> mode/MTU
  std::map<std::pair<std::string, uint16_t>, PkeyChild> pkeys;  // (parent, pkey)
  // (device, port or 0 for every port) -> RoCE defaults.
  std::map<std::pair<RdmaSelector, unsigned>, RoceSetting> roce;
  std::map<std::string, SoftLink> soft_links;  // netdev -> rxe/siw link
  std::map<std::string, DcbSetting> dcb;       // interface (its final name) -> DCB
  // rdma-core's 60-rdma-persistent-naming.rules as udev would read it (text; source: its
  // path), when installed: its rdma_rename renames RDMA devices on "add".
  std::optional<Sourced<std::string>> rdma_rename_rules;
  std::map<std::string, std::vector<AddressSetting>> addresses;  // ifname -> addresses
  std::map<std::string, std::vector<RouteSetting>> routes;       // ifname -> routes

  // dracut's network on the command line, read to know whether the boot's network may be
  // IPoIB (plan/modules.cc loads ib_ipoib then): the interfaces ip= and bootdev= name, and
  // the first parameter that asks for a network at all (ip=, bootdev=, rd.neednet=1, an
  // NFS or DHCP root).
  std::vector<Sourced<std::string>> boot_ifaces;
  std::optional<Source> boot_network;  // the source of that parameter
  // NetworkManager configures the boot's network: nm-initrd-generator is in this
  // initramfs (its path), or the image is built with dracut's network-manager module
  // (--network-manager). Its reading of ip=, bootdev= and ib.pkey= is checked then
  // (inputs/networkmanager.h).
  std::optional<Source> network_manager;
  // ib.pkey= partitions left to NetworkManager in such an image (inputs/load.cc): the plan
  // checks their parents against its renames.
  std::vector<PkeyChild> nm_pkeys;

  Sourced<VerifySetting> verify{};
  // The NFS server of root=/netroot= (dracut's nfs forms: nfs[4]:SERVER:/path[:options]):
  // the peer rd.rdma.verify=peer checks when it names none.
  std::optional<Sourced<IpAddress>> nfs_server;
  // When root= gives no address: the host name it names ("" when the server comes from
  // DHCP's root-path: root=dhcp, dhcp6, nfs:/path; 95nfs/nfs-lib.sh nfsroot_from_dhcp).
  // rd.rdma.verify=peer takes DHCP's at boot (inputs/dhcp_root.h); a name it cannot know.
  std::optional<Sourced<std::string>> nfs_server_unknown;

  // dracut's NVMe over Fabrics parameters (modules.d/95nvmf parse-nvmf-boot-connections.sh
  // parse_nvmf_discover): each rd.nvmf.discover= it accepts, in order; the host's NQN and
  // ID when given; rd.nonvmf, which makes dracut ignore them all.
  struct NvmfTarget {
    std::string transport;         // "rdma", "tcp", "fc"
    std::string traddr;            // as written (dracut strips nothing)
    std::string host_traddr;       // "none" when not given
    std::string trsvcid;           // "4420" when not given (fc: none)
    std::optional<uint16_t> port;  // trsvcid as a TCP/RDMA-CM port, when it is one
    Source source;
  };
  std::vector<NvmfTarget> nvmf;
  std::optional<Sourced<std::string>> nvmf_hostnqn, nvmf_hostid;
  std::optional<Source> nonvmf;
  // The targets dracut would connect over RDMA (none under rd.nonvmf).
  std::vector<const NvmfTarget*> nvmf_rdma() const;

  // rd.rdma.wait, in input order.
  std::vector<Sourced<WaitItem>> wait;
  // The waits that count: those after the last "none" ("none" cancels earlier waits).
  std::vector<Sourced<WaitItem>> effective_waits() const;

  // Per-node table: key -> row. Hash lookup keeps a 10,000-node table cheap.
  std::unordered_map<uint64_t, NodeEntry> nodes_by_guid;
  std::unordered_map<uint64_t, NodeEntry> nodes_by_mac;
  // Set by resolve_node_table when the table has rows but none is this node's: the plan
  // says so once (the defaults apply).
  std::string node_table_unmatched;

  const NodeEntry* node_entry(const HwKey& k) const;
  // The name a node-table row gives its interface, or "": none when an explicit name
  // (files or command line) names that interface otherwise, or gives the row's name to
  // another interface. The one answer for the plan (resolve/node_table.cc) and udev-name
  // (report/handoff.cc).
  std::string row_name(const NodeEntry& e) const;
};

// Problems found while reading inputs. Errors make the whole input invalid (nothing is
// applied); warnings are reported and do not stop anything.
struct Diagnostics {
  std::vector<Error> errors;
  std::vector<Error> warnings;
  // Out of line: a source is shown as text in one place, not at every call.
  void error(const Source& where, std::string what);
  void warn(const Source& where, std::string what);
  void error(std::string where, std::string what);
  void warn(std::string where, std::string what);
  bool ok() const { return errors.empty(); }
};

// Adds a module request once (keeps the first source).
void add_module(Config& cfg, std::string name, Source source);

// Rows whose name an explicit name gives to another interface: a warning naming both
// (two interfaces would be asked for one name; the explicit name wins).
void check_node_table_names(const Config& cfg, Diagnostics& diag);

// Every row of the node table on its own, whichever node is being built or booted: IPoIB
// fields on a MAC row, siw= on a GUID row, one address in two rows (errors at the row).
// Names may repeat across rows: every node of a fleet may call its port fab0.
void check_node_rows(const Config& cfg, Diagnostics& diag);

}  // namespace rp
