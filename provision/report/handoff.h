// Hand-off to the real root: /run survives switch-root, so what was done is recorded in
// /run/rdma-provision/state.json and the persistent names are left as udev rules in
// /run/udev/rules.d, which keep them through a udev re-trigger after switch-root.
#pragma once

#include <string>

#include "provision/apply/apply.h"
#include "provision/config/config.h"
#include "provision/plan/plan.h"

namespace rp {

// Rules that name netdevs on "add": IPoIB by the port GUID (the last 8 bytes of the
// 20-byte address, never the whole address), Ethernet by MAC. Physical devices only
// (DRIVERS), and never an IPoIB P_Key child (it shares its parent's GUID).
std::string udev_rules(const Config& cfg);

std::string state_json(const Config& cfg, const Plan& plan, const ApplyReport* report);

inline constexpr const char* kStatePath = "/run/rdma-provision/state.json";
inline constexpr const char* kRunRulesPath = "/run/udev/rules.d/60-rdma-provision.rules";

}  // namespace rp
