// Inventory: what the machine has, as discovered under one Root. Value types only;
// discovery lives in sysfs.cc (every root) and discover.cc (netlink links and libibverbs
// port details on the live system, and the order of the stages).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "provision/base/root.h"
#include "provision/base/types.h"

namespace rp {

class DcbOps;  // kernel/dcbnl.h

struct RdmaPort {
  unsigned num = 0;
  PortState state = PortState::kUnknown;
  std::string phys_state;  // "5: LinkUp"
  LinkLayer link_layer = LinkLayer::kUnknown;
  std::string rate;              // "56 Gb/sec (4X FDR)"
  std::optional<PortGuid> guid;  // low 64 bits of GID 0
  // nullopt when the file is absent or unreadable (never LID 0, which means "no LID
  // assigned": core/sysfs.c shows lid and sm_lid on every port, but a driver that fails
  // ib_query_port makes the read fail, and older layouts differ).
  std::optional<unsigned> lid, sm_lid;
  std::string netdev;  // RoCE: gid_attrs/ndevs/0; IB: the IPoIB parent netdev, if any
  // RoCE GID types present in the port's GID table (gid_attrs/types/*): Soft-RoCE has
  // only v2, ConnectX has both.
  bool roce_v1 = false, roce_v2 = false;
  // iWARP: the MAC in the first 6 bytes of GID 0, the rest zero (siw_verbs.c
  // siw_query_gid; iw_cxgb4 and irdma likewise): how a port finds its netdev where
  // gid_attrs/ndevs has none (iWARP GIDs carry their netdev only since Linux 6.10,
  // cache.c config_non_roce_gid_cache).
  std::optional<MacAddress> gid_mac;
  // rdma_cm defaults when the configfs directory exists ("" and nullopt when unknown).
  std::string cm_roce_mode;            // "RoCE v2", "IB/RoCE v1"
  std::optional<uint8_t> cm_roce_tos;  // shown.h parse_roce_tos
  // From libibverbs on the live system (0 = unknown): IB MTU enum values 1..5 -> bytes.
  unsigned active_mtu = 0, max_mtu = 0;
};

struct RdmaDevice {
  std::string name;       // mlx4_0
  std::string driver;     // kernel driver of the parent device: mlx4_core, mlx5_core, virtio_net...
  std::string node_type;  // "1: CA", "4: RNIC" (core/sysfs.c node_type_show)
  std::optional<PortGuid> node_guid, sys_image_guid;
  std::string fw_ver, board_id, hca_type;
  // The PCI function's link as pci-sysfs.c shows it ("8.0 GT/s PCIe", "16"): what it
  // trained at and the most the device and slot allow; "" where absent (status only).
  std::string pcie_speed, pcie_width, pcie_max_speed, pcie_max_width;
  std::optional<PciAddress> pci;
  // Soft devices (rxe, siw): the netdev they sit on. rxe says so in its `parent` file; siw
  // has none, and is known by its node_desc (SIW_NODE_DESC_COMMON, rdma/siw-abi.h) and
  // its port's GID (the netdev's MAC).
  std::string parent_netdev;
  bool soft_iwarp = false;
  // The names rdma-core's rdma_rename gives this device, without the protocol prefix
  // (kernel-boot/rdma_rename.c, NAME_FALLBACK: by_onboard "o1", else by_pci "p175s0f0",
  // "P2p3s0f1", a VF's "p3s0f0v1", an ARI function's "p3s0f10"); empty for a device not on
  // PCI. Where the PCI header (multi-function bit) cannot be read, function 0 is given
  // both ways ("p24s0", "p24s0f0").
  std::vector<std::string> persistent_names;
  std::vector<RdmaPort> ports;
  bool seen_by_verbs = false;
  // An iWARP device: node type RNIC (RDMA_NODE_RNIC, core/sysfs.c node_type_show prints
  // "4: RNIC" for siw, iw_cxgb4 and irdma in iWARP mode); where the node type is unknown,
  // a driver that has iWARP only, or, for a driver not in base/drivers.h's table, an
  // Ethernet port whose GID table has no RoCE type. Its ports have no RoCE modes.
  bool iwarp() const;
  const RdmaPort* port(unsigned num) const;  // nullptr when the device has no such port
};

// An mlx4 port-type file of a PCI function: /sys/bus/pci/devices/<bdf>/mlx4_port<N>.
struct Mlx4PortFile {
  unsigned port = 0;
  std::optional<Mlx4PortType> type;  // shown "ib", "eth", "auto (eth)"; nullopt: unreadable
  bool writable = false;             // 0444 on SR-IOV (multi-function) devices
  std::optional<unsigned> mtu;       // mlx4_port<N>_mtu, read for IB ports only (2048)
};

struct PciFunction {
  PciAddress address;
  std::string driver;
  std::string vendor, device;  // "0x15b3", "0x1007"
  std::vector<Mlx4PortFile> mlx4_ports;
};

struct NetDev {
  std::string name;
  int ifindex = 0;
  // The link it sits on: its own ifindex for a link that stands alone, the parent's for
  // an IPoIB P_Key child (ipoib_main.c ipoib_get_iflink), the peer of a veth.
  int iflink = 0;
  int type = 0;  // ARPHRD_*
  // What kind of virtual link it is ("vlan", "veth", "bond", "ipoib"; "" for a physical
  // device): rtnetlink's IFLA_INFO_KIND, or from sysfs the DEVTYPE of an Ethernet
  // interface's uevent (net-sysfs.c netdev_uevent; vlan_dev.c sets "vlan").
  std::string kind;
  HwAddress address;
  HwAddress broadcast;          // IPoIB: the P_Key is in bytes 8-9
  std::optional<unsigned> mtu;  // nullopt: unreadable (Inventory::unreadable says why)
  std::string operstate;        // "up", "down", "unknown"...
  bool admin_up = false;
  bool carrier = false;
  std::string driver;
  std::optional<PciAddress> pci;
  // RDMA association: the device and port behind this netdev, if any.
  std::string rdma_device;
  unsigned rdma_port = 0;
  // IPoIB only. A child made over rtnetlink (`ip link add ... type ipoib`) has no mode,
  // pkey or parent files (ipoib_vlan.c __ipoib_vlan_add adds them for create_child
  // children only): its parent comes from iflink, its P_Key from the broadcast address.
  std::optional<IpoibMode> ipoib_mode;  // nullopt when there is no (readable) mode file
  std::optional<unsigned> pkey;
  std::string parent;  // P_Key child: the parent interface
  unsigned dev_port = 0;
  // Bonding (drivers/net/bonding): the bond a slave is enslaved to (its `master` link,
  // core/dev.c netdev_upper_dev_link -> netdev_adjacent_sysfs_add), and a bond's slaves,
  // mode ("active-backup", bond_sysfs.c bonding_show_mode's first word) and active slave.
  std::string master;
  std::vector<std::string> bond_slaves;
  std::string bond_mode, bond_active_slave;
  // IPv6 is off for it: its disable_ipv6 reads 1 (net/ipv6/addrconf.c), or the kernel
  // has no IPv6 at all (ipv6.disable=1: af_inet6.c inet6_init stops before
  // ipv6_sysctl_register, so /proc/sys/net/ipv6 is absent). A RoCE v2 GID that is not
  // IPv4-mapped cannot be resolved then.
  bool ipv6_off = false;
  // DCB as DCB netlink shows it, where it was asked (discover_dcb): nullopt when not read
  // or not readable; dcb_errno says why (EOPNOTSUPP: the driver has no DCB support).
  std::optional<DcbState> dcb;
  int dcb_errno = 0;
};

// An NVMe controller (drivers/nvme/host/sysfs.c, /sys/class/nvme/nvmeN): over fabrics its
// transport ("rdma", "tcp"), address ("traddr=%s,trsvcid=%s[,host_traddr=%s]"), the
// subsystem's NQN and its state ("live", "connecting", ...); and the block devices of its
// namespaces once the kernel's scan added them: with native multipath the hidden path disk
// nvme<S>c<N>n<H> under the controller and the head nvme<S>n<H> (multipath.c
// nvme_mpath_alloc_disk), without it nvme<N>n<H> (core.c nvme_alloc_ns).
struct NvmeController {
  int instance = -1;  // nvme<instance>
  std::string transport, address, subsysnqn, state;
  std::vector<std::string> block_devices;  // "/dev/nvme0n1", present in /sys/block
  // Whether its address is "traddr=<traddr>,trsvcid=<trsvcid>" (and maybe more).
  bool reaches(const std::string& traddr, const std::string& trsvcid) const;
};
// Read now, for status and for nvmf-connect (which looks again while it waits).
std::vector<NvmeController> discover_nvme_controllers(const Root& root);

struct Inventory {
  std::vector<RdmaDevice> rdma;
  std::vector<NvmeController> nvme;     // NVMe over Fabrics controllers (status)
  std::vector<PciFunction> pci;         // functions with an RDMA-capable driver
  std::vector<PciAddress> pci_present;  // every PCI function, whatever drives it
  std::vector<NetDev> netdevs;
  std::string kernel_release;        // /proc/sys/kernel/osrelease
  std::vector<std::string> modules;  // loaded (/proc/modules) or built in (modules.builtin)
  // Modules the machine shows present without a /proc/modules line (a built-in driver, a
  // kernel without modules.builtin in the image): module -> the evidence ("bound to
  // 0000:af:00.0", "RDMA device mlx5_0", "/sys/module/ib_core"). Sorted by name.
  std::map<std::string, std::string> shown_present;
  // Parameters of loaded modules that the plan compares (/sys/module/<m>/parameters).
  std::map<std::string, std::string> module_params;  // "mlx4_en.pfctx" -> "8"
  // The modules behind the crypto API's "crc32" in this kernel's tree (modules.alias lines
  // "alias crypto-crc32 <module>", depmod's from MODULE_ALIAS_CRYPTO; what the kernel's
  // request_module("crypto-crc32") loads, crypto/api.c crypto_larval_lookup): crc32_generic
  // and crc32_pclmul in 6.1 and 6.12; other kernels name others, or none. And whether the
  // CPU has PCLMULQDQ (/proc/cpuinfo's flags): crc32_pclmul loads only then
  // (arch/x86/crypto/crc32-pclmul_glue.c: ENODEV without X86_FEATURE_PCLMULQDQ). Read by
  // discover_crc32() for preload alone.
  std::vector<std::string> crc32_modules;
  bool cpu_pclmulqdq = false;
  bool configfs_mounted = false;
  bool rdma_cm_configfs = false;  // /sys/kernel/config/rdma_cm exists
  // Running in an initramfs: systemd's and dracut's marker /etc/initrd-release (systemd's
  // initrd detection, src/basic/initrd-util.c in_initrd) is there.
  bool initramfs = false;
  std::string netdev_source;       // "netlink" (live) or "sysfs" (a fixture root)
  std::vector<std::string> notes;  // discovery problems worth telling, not fatal
  // Attributes that exist but could not be read, kernel path -> why ("Permission denied":
  // a file only root may read; "Input/output error": a driver whose query failed). Their
  // values are unknown, shown as such with the path, never as "" or 0.
  std::map<std::string, std::string> unreadable;

  const RdmaDevice* find_rdma(const std::string& name) const;
  const NetDev* find_netdev(const std::string& name) const;
  // The RoCE LAG `d` is, if it is one. Once both PFs' interfaces of a ConnectX-4 Lx or
  // later are the only slaves of one bond in active-backup, balance-xor or 802.3ad mode,
  // mlx5 unregisters the PFs' RDMA devices and registers one on the first PF (lag/lag.c
  // mlx5_handle_changeupper_event, mlx5_do_bond: mlx5_lag_remove_devices, then the IB
  // device of PF0 alone), named "mlx5_bond_%d" (mlx5_ib main.c). Its port's interface is
  // the bond (a bond slave's default GIDs go to its master: roce_gid_mgmt.c
  // is_ndev_for_default_gid_filter), whose slaves are interfaces of PCI functions in the
  // device's own slot.
  struct RoceLag {
    const NetDev* bond = nullptr;
    std::vector<const NetDev*> slaves;  // the PFs' interfaces, by PCI function
  };
  std::optional<RoceLag> roce_lag(const RdmaDevice& d) const;
  // Loaded, built in, or shown present by the devices it drives (shown_present).
  bool module_loaded(const std::string& name) const;
};

// How much discover() reads. kPlan leaves out what only `status` shows (device firmware,
// board and type, node type, system image GUID, PCI IDs, port rate, phys_state, LIDs,
// a fixture's netdev operstate):
// check, plan and apply need none of it, and on a node with many ports the sysfs reads
// are most of their time.
enum class Detail { kFull, kPlan };

// Discover everything under the root. On the live system links come from netlink and
// port details are completed through libibverbs when /dev/infiniband is usable.
Inventory discover(const Root& root, Detail detail = Detail::kFull);

// The stages of discover(), exposed for tests.
void discover_sysfs(const Root& root, Inventory& inv, Detail detail = Detail::kFull);
// Links from rtnetlink (live system). Returns false with a note when netlink is unusable.
bool discover_netlink_links(Inventory& inv);
// Links from /sys/class/net (under a root other than the live system's, or without netlink).
void discover_sysfs_netdevs(const Root& root, Inventory& inv, Detail detail);
// Fills in sysfs-only attributes (IPoIB mode, pkey, parent, RDMA association) of netdevs.
void enrich_netdevs(const Root& root, Inventory& inv);
// Modules the machine shows present without a /proc/modules line (Inventory::shown_present):
// /sys/module, bound PCI drivers, registered RDMA devices, IPoIB interfaces. After the
// netdevs are known.
void discover_presence(const Root& root, Inventory& inv);
// The DCB state of the interfaces named, through `ops` (the running kernel's DCB netlink,
// or a stand-in in tests): the ones a configuration sets and, for status, those under
// RoCE ports. Absent names are skipped.
void discover_dcb(Inventory& inv, const DcbOps& ops, const std::vector<std::string>& names);

// What the preload's crc32 asks about: Inventory::crc32_modules from the running kernel's
// modules.alias (its release from /proc/sys/kernel/osrelease), cpu_pclmulqdq from the first
// "flags" line of /proc/cpuinfo (x86: every CPU of a machine lists the same).
void discover_crc32(const Root& root, Inventory& inv);

// Port MTUs and state from libibverbs; a note when /dev/infiniband is not usable.
void discover_verbs(const Root& root, Inventory& inv);

}  // namespace rp
