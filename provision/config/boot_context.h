// BootContext: what the rest of the boot asks for, read so that the plan works with it
// rather than against it: dracut's ifname= and virtual interfaces, the interfaces and
// root its network and root parameters name (ip=, bootdev=, root=, netroot=,
// rd.nvmf.discover=), whether NetworkManager configures the network, and rdma-core's
// RDMA device renaming. rdma-provision applies none of it; Config (config.h) carries it
// beside the settings it does apply.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "provision/base/source.h"
#include "provision/base/types.h"
#include "provision/config/settings.h"

namespace rp {

// rdma-core's RDMA device naming rules (kernel-boot/rdma-persistent-naming.rules), and the
// first line of the copy rdma-provision writes over it in /run (report/handoff.h).
inline constexpr const char* kRdmaRenameRules = "60-rdma-persistent-naming.rules";
inline constexpr const char* kRdmaRenameGuardMarker = "# rdma-provision: rdma-core's rule";

struct BootContext {
  // dracut's own ifname=<name>:<MAC> (40network's ifname-genrules.sh): read to find clashes.
  std::map<std::string, Sourced<HwKey>> dracut_ifnames;
  // Interfaces dracut's bond=, team=, bridge= and vlan= make: name -> the token.
  std::map<std::string, Source> dracut_virtual;
  // dracut's bond=<name>[:<slaves>[:<options>[:<mtu>]]] (35network-legacy parse-bond.sh;
  // nm-initrd-generator reads the same form): its slaves (eth0 and eth1 when none are
  // given, as parse-bond.sh sets) and its mode= option ("" when not given: the bonding
  // driver's default, balance-rr).
  struct Bond {
    std::string name;
    std::vector<std::string> slaves;
    std::string mode;
    Source source;
  };
  std::vector<Bond> bonds;

  // rdma-core's 60-rdma-persistent-naming.rules as udev would read it (text; source: its
  // path), when installed: its rdma_rename renames RDMA devices on "add".
  std::optional<Sourced<std::string>> rdma_rename_rules;

  // dracut's network on the command line, read to know whether the boot's network may be
  // IPoIB (plan/modules.cc loads ib_ipoib then): the interfaces ip= and bootdev= name, and
  // the first parameter that asks for a network at all (ip=, bootdev=, rd.neednet=1, an
  // NFS or DHCP root).
  std::vector<Sourced<std::string>> ifaces;
  // How many ip= ask for a network (not ip=off/none), and how many of those name no
  // interface (ip=dhcp, on, any...: every interface): the BOOTIF hand-over (plan/bootif.cc
  // bootif_handoff) adds an ip= only where dracut's parse-ip-opts.sh takes one more.
  unsigned ip_count = 0, ip_without_iface = 0;
  // ip='s static form's address and netmask on its interface (net-lib.sh ip_to_var:
  // <client-ip>::<gw>:<netmask>:<hostname>:<interface>:<autoconf>), for what reaches an
  // NVMe over Fabrics target (plan/nvmf.cc).
  struct StaticAddress {
    std::string iface;
    IpPrefix prefix;
    Source source;
  };
  std::vector<StaticAddress> static_addresses;
  std::optional<Source> network;  // the source of that parameter
  // NetworkManager configures the boot's network: nm-initrd-generator is in this
  // initramfs (its path), or the image is built with dracut's network-manager module
  // (--network-manager). Its reading of ip=, bootdev= and ib.pkey= is checked then
  // (inputs/networkmanager.h).
  std::optional<Source> network_manager;
  // ib.pkey= partitions left to NetworkManager in such an image (inputs/load.cc): the plan
  // checks their parents against its renames.
  std::vector<PkeyChild> nm_pkeys;
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
  // BOOTIF=, the boot interface a PXE loader names (pxelinux make_bootif_string:
  // "<htype>-<chaddr bytes>" of its DHCP packet), as what it can mean here; rd.bootif=0
  // (dracut's getargbool) makes dracut and NetworkManager's generator ignore it.
  struct BootIf {
    enum class Form { kMac, kGuid };
    Form form = Form::kMac;
    uint64_t value = 0;  // the MAC (low 48 bits) or the port GUID
    std::string how;     // "htype 1 and a MAC", "a 20-byte IPoIB address", ...
    Source source;
  };
  std::optional<BootIf> bootif;
  std::optional<Source> bootif_off;
  std::vector<NvmfTarget> nvmf;
  std::optional<Sourced<std::string>> nvmf_hostnqn, nvmf_hostid;
  std::optional<Source> nonvmf;
  // The targets dracut would connect over RDMA (none under rd.nonvmf).
  std::vector<const NvmfTarget*> nvmf_rdma() const;
};

}  // namespace rp
