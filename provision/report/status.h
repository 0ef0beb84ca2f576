// `rdma-provision status`: the inventory printed like ibstat + ibdev2netdev in one, as
// text or JSON from the same walk.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "provision/inventory/inventory.h"

namespace rp {

// A link checked against what the fabric expects (rd.rdma.expect): what is expected, and
// each difference found (none: as expected). Keyed by (device, port; 0: the HCA).
struct LinkHealth {
  std::string expected;
  std::vector<std::string> differences;
};
using LinkHealthMap = std::map<std::pair<std::string, unsigned>, LinkHealth>;

std::string status_text(const Inventory& inv, const LinkHealthMap& health = {});
std::string status_json(const Inventory& inv, const LinkHealthMap& health = {});

}  // namespace rp
