// Inventory's lookups: what the planners ask of a discovered machine (no discovery here,
// so readers of sysfs alone link without netlink or libibverbs).
#include "provision/inventory/inventory.h"

#include <algorithm>

#include "provision/base/drivers.h"
#include "provision/base/sort.h"

namespace rp {

const RdmaDevice* Inventory::find_rdma(const std::string& name) const {
  for (const auto& d : rdma)
    if (d.name == name) return &d;
  return nullptr;
}

const NetDev* Inventory::find_netdev(const std::string& name) const {
  for (const auto& n : netdevs)
    if (n.name == name) return &n;
  return nullptr;
}

std::optional<Inventory::RoceLag> Inventory::roce_lag(const RdmaDevice& d) const {
  if (d.driver != "mlx5_core" || !d.pci) return std::nullopt;
  for (const auto& p : d.ports) {
    const NetDev* bond = p.link_layer == LinkLayer::kEthernet ? find_netdev(p.netdev) : nullptr;
    if (!bond || bond->bond_slaves.size() < 2) continue;
    RoceLag lag{bond, {}};
    for (const auto& s : bond->bond_slaves) {
      const NetDev* n = find_netdev(s);
      if (!n || !n->pci || !n->pci->same_slot(*d.pci)) return std::nullopt;
      lag.slaves.push_back(n);
    }
    sort_by(lag.slaves, [](const NetDev* a, const NetDev* b) { return *a->pci < *b->pci; });
    return lag;
  }
  return std::nullopt;
}

bool Inventory::module_loaded(const std::string& name) const {
  return std::binary_search(modules.begin(), modules.end(), name) || shown_present.count(name);
}

bool RdmaDevice::iwarp() const {
  if (soft_iwarp || node_type == "4: RNIC") return true;
  if (!node_type.empty()) return false;
  // The node type unknown (a partial capture, an old kernel): what is not known is not
  // iWARP. A driver of the table decides (rdma-core's rdma-description.rules by the PCI
  // driver: mlx4 and mlx5 have no iWARP), and so does a RoCE LAG device's name (mlx5_ib
  // main.c registers "mlx5_bond_%d"); only an unknown driver's Ethernet port without a
  // RoCE GID type is taken for iWARP.
  if (name.rfind("mlx5_bond_", 0) == 0) return false;
  if (auto d = driver_ports(driver)) return d->iwarp && !d->roce_v1 && !d->roce_v2;
  for (const auto& p : ports)
    if (p.link_layer == LinkLayer::kEthernet && !p.roce_v1 && !p.roce_v2) return true;
  return false;
}

const RdmaPort* RdmaDevice::port(unsigned num) const {
  for (const auto& p : ports)
    if (p.num == num) return &p;
  return nullptr;
}

}  // namespace rp
