// check-link: a port's or an HCA's link against what the fabric expects (rd.rdma.expect,
// plan/expect.cc), read from sysfs once the ports are up. A difference is a failed
// action naming what was found and what was expected: a warning of the boot ("some
// actions failed ... the boot continues"), and the boot stopped under rd.rdma.required=1.
#include "provision/apply/context.h"

namespace rp {

Outcome exec_check_link(ApplyContext& ctx, const Action& a, const CheckLink& p) {
  const std::string dev = "/sys/class/infiniband/" + p.device;
  auto read = [&](const std::string& path) { return ctx.files.read(path).value_or(""); };
  FoundLink found;
  if (p.port) {
    const std::string dir = dev + "/ports/" + std::to_string(p.port);
    found.rate = read(dir + "/rate");
    found.phys_state = read(dir + "/phys_state");
    found.link_layer = read(dir + "/link_layer");
    found.state = read(dir + "/state");
    found.sm_lid = read(dir + "/sm_lid");
    if (found.state.empty() && !ctx.files.read(dir + "/state"))
      return Outcome::failed(make_error(a.object(), "no such port (" + dir + ")"));
  } else {
    found.fw = read(dev + "/fw_ver");
    // The PCI function's link (pci-sysfs.c): what it trained at, and the most it can.
    found.pcie_speed = read(dev + "/device/current_link_speed");
    found.pcie_width = read(dev + "/device/current_link_width");
    found.pcie_max_speed = read(dev + "/device/max_link_speed");
    found.pcie_max_width = read(dev + "/device/max_link_width");
  }
  const auto diff = link_mismatches(p.want, found);
  if (diff.empty()) return Outcome::checked(found_text(p.want, found) + ": as expected");
  std::string what = "degraded: ";
  for (size_t i = 0; i < diff.size(); ++i) what += (i ? "; " : "") + diff[i];
  return Outcome::failed(make_error(a.object(), what));
}

}  // namespace rp
