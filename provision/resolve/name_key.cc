#include "provision/resolve/name_key.h"

#include "provision/base/drivers.h"

namespace rp {
namespace {

// The port under a PCI function that a pci- key names: dev_port + 1. The kernel's
// dev_port (net/core/net-sysfs.c, dev_port_show) is the port index minus one: mlx4_en
// sets it per port of the one function the two ports share (mlx4/en_netdev.c
// mlx4_en_init_netdev: dev->dev_port = port - 1), IPoIB likewise (ipoib_main.c
// ipoib_add_port, since 4.20; inventory/sysfs.cc falls back to dev_id before).
unsigned pci_port(const HwKey& key) { return key.port ? key.port : 1; }

}  // namespace

const NetDev* netdev_for_key(const Inventory& inv, const HwKey& key) {
  for (const auto& n : inv.netdevs) {
    if (!n.parent.empty()) continue;  // a P_Key child: its parent is meant
    switch (key.by) {
      case HwKey::By::kGuid:
        if (n.type != kArphrdInfiniband) continue;
        if (auto g = n.address.ipoib_guid(); g && g->value == key.value) return &n;
        break;
      case HwKey::By::kMac:
        if (n.type != kArphrdEther) continue;
        if (auto m = n.address.mac(); m && HwKey::of_mac(*m) == key) return &n;
        break;
      case HwKey::By::kPci:
        if (n.pci && *n.pci == key.pci && n.dev_port + 1 == pci_port(key)) return &n;
        break;
      case HwKey::By::kRdmaPort:
        if (n.rdma_device == key.device && n.rdma_port == key.port) return &n;
        break;
    }
  }
  return nullptr;
}

std::string also_named_by_key(const Inventory& inv, const HwKey& key, const NetDev& first) {
  if (key.by != HwKey::By::kPci) return "";  // a GUID, a MAC, an RDMA port: one interface
  std::string out;
  for (const auto& n : inv.netdevs) {
    if (&n == &first || !n.parent.empty() || !n.pci || !(*n.pci == key.pci)) continue;
    if (n.dev_port + 1 == pci_port(key)) out += (out.empty() ? "" : ", ") + n.name;
  }
  return out;
}

KeyPort rdma_port_for_key(const Inventory& inv, const HwKey& key) {
  for (const auto& d : inv.rdma) {
    if (key.by == HwKey::By::kRdmaPort && d.name == key.device) return {&d, d.port(key.port)};
    // A soft device's device link names its netdev's function (siw_main.c
    // siw_device_create): the HCA's device is meant, as rdma_select.cc's pci- does.
    if (key.by == HwKey::By::kPci && d.pci && *d.pci == key.pci && !d.soft_iwarp &&
        d.parent_netdev.empty()) {
      return {&d, d.port(pci_port(key))};
    }
  }
  return {};
}

std::optional<PortGuid> awaited_ipoib_guid(const Inventory& inv, const HwKey& key) {
  if (key.is_guid()) {
    for (const auto& d : inv.rdma)
      for (const auto& p : d.ports)
        if (p.guid && p.guid->value == key.value) return PortGuid{key.value};
    return std::nullopt;
  }
  const KeyPort kp = rdma_port_for_key(inv, key);
  if (kp.port && kp.port->link_layer == LinkLayer::kInfiniBand && kp.port->guid)
    return kp.port->guid;
  return std::nullopt;
}

}  // namespace rp
