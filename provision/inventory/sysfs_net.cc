// Network interfaces from sysfs under the root (on the live system rtnetlink lists them,
// discover.cc), and what every interface gets from sysfs either way: its driver, PCI
// function, RDMA port, IPoIB mode and P_Key, IPv6 switch.
#include <map>

#include "provision/base/strings.h"
#include "provision/inventory/inventory.h"
#include "provision/inventory/shown.h"
#include "provision/inventory/sysfs_read.h"

namespace rp {

void discover_sysfs_netdevs(const Root& root, Inventory& inv, Detail detail) {
  for (const auto& name : root.list("/sys/class/net")) {
    const std::string path = "/sys/class/net/" + name;
    // Every interface is a link to its device directory (net-sysfs.c netdev_register_kobject);
    // bonding adds a regular file, bonding_masters (bond_sysfs.c bond_create_sysfs), and a
    // link whose interface is going away can dangle for a moment.
    if (!root.is_dir(path)) {
      if (root.link_basename(path))
        inv.notes.push_back(path + ": a dangling link, not an interface");
      continue;
    }
    const DirHandle dir = root.open_dir(path);
    NetDev n;
    n.name = name;
    n.ifindex = static_cast<int>(read_uint(dir, "ifindex").value_or(0));
    n.type = static_cast<int>(read_uint(dir, "type").value_or(0));
    if (auto a = HwAddress::parse(attr(dir, "address", inv))) n.address = *a;
    if (n.type == kArphrdEther) {
      const std::string uevent = dir.read_or("uevent", "");
      for (auto line : split(uevent, '\n'))
        if (starts_with(line, "DEVTYPE=")) n.kind = std::string(line.substr(8));
    }
    if (n.type == kArphrdInfiniband) {
      // What tells a P_Key child from its parent without the legacy child's files.
      n.iflink = static_cast<int>(read_uint(dir, "iflink").value_or(0));
      if (auto b = HwAddress::parse(dir.read_or("broadcast", ""))) n.broadcast = *b;
    }
    if (auto m = parse_uint(trim(attr(dir, "mtu", inv))); m && *m <= 0xffffffffu)
      n.mtu = static_cast<unsigned>(*m);
    n.admin_up = (parse_hex(attr(dir, "flags", inv)).value_or(0) & 0x1) != 0;
    // carrier_show answers EINVAL while the interface is down (net-sysfs.c): no carrier.
    n.carrier = dir.read_or("carrier", "0") == "1";  // the plan's link waits
    if (detail == Detail::kFull) n.operstate = attr(dir, "operstate", inv);
    inv.netdevs.push_back(std::move(n));
  }
}

void enrich_netdevs(const Root& root, Inventory& inv) {
  // PCI function -> its RDMA device ("" when it has several).
  std::map<std::string, std::string> rdma_on_pci;
  for (const auto& d : inv.rdma) {
    // A soft device's device link names its netdev's PCI function too (siw_main.c
    // siw_device_create): it is not the HCA's, and must not hide the HCA's device.
    if (!d.pci || d.soft_iwarp || !d.parent_netdev.empty()) continue;
    auto [it, fresh] = rdma_on_pci.emplace(d.pci->str(), d.name);
    if (!fresh) it->second.clear();
  }
  const bool ipv6 = root.is_dir("/proc/sys/net/ipv6");
  for (auto& n : inv.netdevs) {
    const DirHandle dir = root.open_dir("/sys/class/net/" + n.name);
    if (n.driver.empty()) n.driver = dir.link_basename("device/driver").value_or("");
    n.ipv6_off =
        !ipv6 || root.read_or("/proc/sys/net/ipv6/conf/" + n.name + "/disable_ipv6", "0") == "1";
    if (auto parent = dir.link_basename("device"); parent) {
      n.pci = PciAddress::parse(*parent);
    }
    // The port index minus one on a device with several ports (net/core/net-sysfs.c
    // dev_port_show; mlx4/en_netdev.c mlx4_en_init_netdev sets dev->dev_port = port - 1
    // on the one PCI function both ports share): what a name by pci-<bdf>/<port> matches
    // (resolve/name_key.cc). Read for interfaces on a PCI function only.
    std::optional<unsigned> dev_port;
    if (n.pci) dev_port = read_uint(dir, "dev_port");
    n.dev_port = dev_port.value_or(0);
    n.master = dir.link_basename("master").value_or("");
    // A bond's bonding/ directory (bond_sysfs.c): "slaves" lists them space-separated,
    // "mode" reads "<name> <number>" ("802.3ad 4"), "active_slave" the active one or "".
    if (const auto mode = dir.read("bonding/mode")) {
      const std::string slaves = dir.read_or("bonding/slaves", "");
      for (auto w : split(trim(slaves), ' '))
        if (!w.empty()) n.bond_slaves.emplace_back(w);
      const std::string m(trim(*mode));
      n.bond_mode = m.substr(0, m.find(' '));
      n.bond_active_slave = std::string(trim(dir.read_or("bonding/active_slave", "")));
    }
    if (n.type == kArphrdInfiniband) {
      // IPoIB sets dev_port only since Linux 4.20 (ipoib_main.c ipoib_add_port, "IB/ipoib:
      // Use dev_port to expose network interface port numbers"); before, the port was in
      // dev_id, and before 3.15 there was no dev_port attribute at all. As systemd's
      // udev-builtin-net_id does, a dev_port of 0 or none falls back to dev_id (whose read
      // logs nothing while dev_port is 0: ipoib_main.c dev_id_show).
      if (!n.pci) dev_port = read_uint(dir, "dev_port");
      if (dev_port.value_or(0) == 0) {
        if (auto id = dir.read("dev_id")) {
          if (auto v = parse_hex(trim(*id)); v && *v > 0 && *v < 256)
            dev_port = static_cast<unsigned>(*v);
        }
      }
      n.dev_port = dev_port.value_or(0);
      if (auto mode = dir.read("mode")) n.ipoib_mode = parse_shown_ipoib_mode(*mode);
      if (auto pk = dir.read("pkey")) {
        if (auto v = parse_hex(trim(*pk)); v && *v <= 0xffff) n.pkey = static_cast<unsigned>(*v);
      }
      n.parent = dir.read_or("parent", "");
      if (n.parent.empty() && n.iflink != 0 && n.iflink != n.ifindex) {
        for (const auto& p : inv.netdevs)
          if (p.ifindex == n.iflink) n.parent = p.name;
      }
      if (!n.pkey) n.pkey = n.broadcast.ipoib_broadcast_pkey();
      // IPoIB netdevs share the HCA's PCI device with one RDMA device (what the device's
      // infiniband/ directory lists), and dev_port is the port index minus one.
      if (auto it = n.pci ? rdma_on_pci.find(n.pci->str()) : rdma_on_pci.end();
          it != rdma_on_pci.end() && !it->second.empty()) {
        n.rdma_device = it->second;
        n.rdma_port = n.dev_port + 1;
      }
    }
  }
  // A P_Key child is a virtual netdev (no device link): it shares its parent's port.
  for (auto& n : inv.netdevs) {
    if (n.parent.empty() || !n.rdma_device.empty()) continue;
    if (const NetDev* p = inv.find_netdev(n.parent)) {
      n.rdma_device = p->rdma_device;
      n.rdma_port = p->rdma_port;
    }
  }
  // RoCE and soft devices name their netdev per port (gid_attrs/ndevs/0); an iWARP port
  // on an older kernel only through its GID, the netdev's MAC (on the device's PCI
  // function when it has one: siw's device link is its netdev's parent device,
  // siw_main.c siw_device_create).
  for (auto& d : inv.rdma) {
    for (auto& p : d.ports) {
      if (p.netdev.empty() && p.gid_mac && d.parent_netdev.empty()) {
        for (const auto& n : inv.netdevs) {
          if (n.address.mac() == p.gid_mac && (!d.pci || n.pci == d.pci)) p.netdev = n.name;
        }
        if (d.soft_iwarp) d.parent_netdev = p.netdev;
      }
      if (p.link_layer == LinkLayer::kEthernet && p.netdev.empty() && !d.parent_netdev.empty()) {
        p.netdev = d.parent_netdev;
      }
      for (auto& n : inv.netdevs) {
        if (p.link_layer == LinkLayer::kEthernet && n.name == p.netdev && n.rdma_device.empty()) {
          n.rdma_device = d.name;
          n.rdma_port = p.num;
        }
        if (p.link_layer == LinkLayer::kInfiniBand && n.rdma_device == d.name &&
            n.rdma_port == p.num && n.parent.empty() && p.netdev.empty()) {
          p.netdev = n.name;
        }
      }
    }
  }
}

}  // namespace rp
