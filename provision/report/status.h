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

// A fixed name the configuration gives an RDMA device (rd.rdma.devname), by the device's
// name now: the name wanted, whether it has it already, the setting.
struct FixedName {
  std::string wanted;
  bool held = false;
  std::string source;
};
using FixedNameMap = std::map<std::string, FixedName>;

// What the configuration asks of the devices and links shown, when status is given inputs.
struct StatusNotes {
  LinkHealthMap health;
  FixedNameMap names;
  // NVMe over Fabrics controllers over RDMA, by instance: the interface the route to the
  // target goes through and the RDMA port under it ("fabric0 (rxe0/1)"); live system only.
  std::map<int, std::string> nvme_via;
};

std::string status_text(const Inventory& inv, const StatusNotes& notes = {});
std::string status_json(const Inventory& inv, const StatusNotes& notes = {});

}  // namespace rp
