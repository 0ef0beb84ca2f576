// `rdma-provision status`: the inventory printed like ibstat + ibdev2netdev in one, as
// text or JSON from the same walk.
#pragma once

#include <string>

#include "provision/inventory/inventory.h"

namespace rp {

std::string status_text(const Inventory& inv);
std::string status_json(const Inventory& inv);

}  // namespace rp
