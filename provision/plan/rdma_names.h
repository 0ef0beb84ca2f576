// Fixed RDMA device names (rd.rdma.devname, [devname <name>]): multi-rail nodes pin NCCL
// and UCX to device names, which rdma_rename's policies, probe order or an added card
// change. Each setting's device is renamed over RDMA netlink before anything names it; the
// rest of the plan is made against the names the devices will have.
#pragma once

#include <string>
#include <vector>

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/plan.h"

namespace rp {

struct RdmaNameMove {
  std::string from, to;  // the device's name now, the one it is given
  Source source;
};

struct RdmaNameMoves {
  std::vector<RdmaNameMove> moves;
  // Settings whose device is not here (yet): said by plan_rdma_names as absent, which
  // makes apply's coldplug wait for it and rd.rdma.required=1 fail the boot without it.
  std::vector<std::pair<std::string, Sourced<RdmaSelector>>> absent;
};

// The renames the configuration asks for here: each setting's device (by its name now, its
// PCI function, node GUID, or an interface under it, by its name now or the one this
// configuration gives it), when its name differs. One that means several devices, or two
// names for one device, is an error.
RdmaNameMoves rdma_name_moves(const Config& cfg, const Inventory& inv, Diagnostics& diag);

// `inv` with the moved devices under their new names: what the other planners plan against.
Inventory renamed_view(const Inventory& inv, const std::vector<RdmaNameMove>& moves);

}  // namespace rp
