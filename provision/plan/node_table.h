// The per-node table, resolved: its own stage between loading the inputs and planning.
// One image serves every node; each finds its row by the hardware it has.
#pragma once

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"

namespace rp {

// Node-table rows that match this node's ports (IPoIB port GUIDs, Ethernet MACs) become
// names, P_Key children, IPoIB modes and MTUs and addresses, unless an explicit setting
// (files or command line, which are read first) already gives them.
void resolve_node_table(const Inventory& inv, Config& cfg);

}  // namespace rp
