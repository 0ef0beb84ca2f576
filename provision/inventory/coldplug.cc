#include "provision/inventory/coldplug.h"

namespace rp {

bool udev_running(const Root& root) { return root.exists("/run/udev/control"); }

std::vector<std::string> udev_pending_interfaces(const Root& root, const Inventory& inv) {
  std::vector<std::string> out;
  if (!udev_running(root)) return out;
  for (const auto& n : inv.netdevs) {
    if (n.ifindex <= 0) continue;
    // /sys/class/net/<name> links to the device's directory: a virtual interface (lo, a
    // bridge, a P_Key child) is under /sys/devices/virtual/net, named by whoever made it.
    auto dev = root.resolve("/sys/class/net/" + n.name);
    if (!dev || dev->find("/devices/virtual/") != std::string::npos) continue;
    if (root.exists("/run/udev/data/n" + std::to_string(n.ifindex))) continue;
    out.push_back(n.name + " (ifindex " + std::to_string(n.ifindex) + ")");
  }
  return out;
}

std::string udev_ids(const Inventory& inv) {
  std::string out;
  for (const auto& n : inv.netdevs) {
    if (n.ifindex > 0) out += "n" + std::to_string(n.ifindex) + "\n";
  }
  for (const auto& d : inv.rdma) out += "+infiniband:" + d.name + "\n";
  return out;
}

}  // namespace rp
