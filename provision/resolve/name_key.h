// What a persistent name's key (config.h HwKey) means on this machine: the interface it
// names now, or the RDMA port whose IPoIB interface ib_ipoib will make. One answer for the
// renames (names.cc), the node table (node_table.cc), the waits and the modules.
#pragma once

#include <string>

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"

namespace rp {

// The interface `key` names, or nullptr. A GUID: the IPoIB interface with that port GUID;
// a MAC: the Ethernet interface with it; pci-<bdf>[/<port>]: the interface under that PCI
// function with dev_port port-1 (the first port's when none is given); <ibdev>/<port>: the
// interface of that RDMA port (IPoIB: its parent interface; RoCE: the port's netdev).
// P_Key children share their parent's GUID, function and port, and are never meant.
const NetDev* netdev_for_key(const Inventory& inv, const HwKey& key);

// The other interfaces `key` would name as well (comma separated; "" when it names one):
// a function in switchdev mode has its VF representors under it, on dev_port 0 too.
std::string also_named_by_key(const Inventory& inv, const HwKey& key, const NetDev& first);

// The RDMA port `key` means, when it names one by PCI function or device (nullptr for a
// GUID or a MAC, and when absent): the hardware device on that function, not a soft
// device on its netdev.
struct KeyPort {
  const RdmaDevice* device = nullptr;
  const RdmaPort* port = nullptr;
};
KeyPort rdma_port_for_key(const Inventory& inv, const HwKey& key);

// The port GUID of the InfiniBand port whose IPoIB interface `key` names, when that
// interface is not there yet (ib_ipoib makes it, ipoib_main.c ipoib_add_one).
std::optional<PortGuid> awaited_ipoib_guid(const Inventory& inv, const HwKey& key);

}  // namespace rp
