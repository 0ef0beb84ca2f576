#include <string_view>

#include "provision/base/strings.h"
#include "provision/inventory/inventory.h"

namespace rp {

bool NvmeController::reaches(const std::string& traddr, const std::string& trsvcid) const {
  const std::string want = "traddr=" + traddr + ",trsvcid=" + trsvcid;
  return address.rfind(want, 0) == 0 &&
         (address.size() == want.size() || address[want.size()] == ',');
}

std::vector<NvmeController> discover_nvme_controllers(const Root& root) {
  constexpr const char* kClass = "/sys/class/nvme";
  std::vector<NvmeController> out;
  for (const auto& name : root.list(kClass)) {
    if (name.rfind("nvme", 0) != 0) continue;
    auto n = parse_uint(std::string_view(name).substr(4));
    if (!n) continue;
    NvmeController c;
    c.instance = static_cast<int>(*n);
    const std::string dir = std::string(kClass) + "/" + name;
    c.transport = std::string(trim(root.read_or(dir + "/transport", "")));
    c.address = std::string(trim(root.read_or(dir + "/address", "")));
    c.subsysnqn = std::string(trim(root.read_or(dir + "/subsysnqn", "")));
    c.state = std::string(trim(root.read_or(dir + "/state", "")));
    for (const auto& entry : root.list(dir)) {
      if (entry.rfind("nvme", 0) != 0) continue;
      std::string dev = entry;
      if (const size_t cpos = entry.find('c', 4); cpos != std::string::npos) {
        const size_t npos = entry.find('n', cpos);
        if (npos == std::string::npos) continue;
        dev = entry.substr(0, cpos) + entry.substr(npos);  // nvme0c1n1 -> nvme0n1
      } else if (entry.rfind(name + "n", 0) != 0) {
        continue;
      }
      if (root.exists("/sys/block/" + dev)) c.block_devices.push_back("/dev/" + dev);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace rp
