#include "provision/resolve/concerns.h"

#include "provision/resolve/name_key.h"

namespace rp {

std::vector<std::string> dcb_interfaces(const Config& cfg, const Inventory& inv) {
  std::vector<std::string> out;
  for (const auto& [name, s] : cfg.dcb) {
    out.push_back(name);
    const auto named = cfg.names.find(name);
    if (named == cfg.names.end()) continue;
    const NetDev* n = netdev_for_key(inv, named->second.value);
    if (n && n->name != name) out.push_back(n->name);
  }
  return out;
}

std::vector<std::string> roce_interfaces(const Inventory& inv) {
  std::vector<std::string> out;
  for (const auto& d : inv.rdma)
    for (const auto& p : d.ports)
      if (p.link_layer == LinkLayer::kEthernet && !d.iwarp() && !p.netdev.empty())
        out.push_back(p.netdev);
  return out;
}

}  // namespace rp
