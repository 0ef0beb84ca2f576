// The configuration against NetworkManager's initrd generator, when NetworkManager
// configures the boot's network (BootContext::network_manager): IPoIB interfaces it would take
// for Ethernet, connected mode it would undo, P_Key children it cannot activate, an
// ib.pkey= it would drop. Errors: such a boot cannot bring its interface up.
#pragma once

#include "provision/config/config.h"

namespace rp {

void check_networkmanager(const Config& cfg, Diagnostics& diag);

}  // namespace rp
