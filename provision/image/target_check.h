// The configuration against a target known only by its RDMA drivers (dracut's
// rdma_provision_drivers, `check --drivers`, `image-needs --drivers`): what none of the
// target's drivers can do fails the image build, not the boot. The build host's own
// hardware plays no part (it is not the target).
#pragma once

#include <string>
#include <vector>

#include "provision/config/config.h"

namespace rp {

// Errors for what no named driver can do (IPoIB without an InfiniBand driver, RoCE without
// a RoCE one, a RoCE version none has, connected mode where every InfiniBand driver runs
// Enhanced IPoIB); warnings for what some of the hardware of a driver cannot (RoCE v2 on
// mlx4: a plain ConnectX-3). Modules the table of base/drivers.h does not know (mlx4_en,
// ib_ipoib, ...) are left out of the reckoning; with none known, nothing is checked.
void check_target(const Config& cfg, const std::vector<std::string>& drivers, Diagnostics& d);

}  // namespace rp
