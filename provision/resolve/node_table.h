// The per-node table, resolved: its own stage between loading the inputs and planning.
// One image serves every node; each finds its row by the hardware it has.
#pragma once

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"

namespace rp {

// `cfg` as it is on this machine: the node-table rows that match this node's ports (IPoIB
// port GUIDs, Ethernet MACs) become names, P_Key children, IPoIB modes and MTUs and
// addresses, unless an explicit setting (files or command line, which are read first)
// already gives them; a table with no row for this node says so
// (Config::node_table_unmatched). The configuration given is left as it was.
Config resolve_node_table(const Inventory& inv, Config cfg);

}  // namespace rp
