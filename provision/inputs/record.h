// Recording parsed values into the Config, with the checks that span several values: one
// name per device and one device per name, one child per P_Key child name, one netdev per
// soft RDMA device name. Shared by every reader, like the parsers in values.h.
#pragma once

#include <cstdint>
#include <string>

#include "provision/config/config.h"

namespace rp {

// Records name -> key. Within one source file (or the command line) a second name for
// the same key, or a second key for the same name, is an error naming both places; a
// later source overrides an earlier one.
void set_name(Config& cfg, const std::string& name, const HwKey& key, const Source& where,
              Diagnostics& d);

// Adds a module to cfg.blacklist once (keeps the first source), like add_module().
void add_blacklist(Config& cfg, std::string name, const Source& where);

// Records the P_Key child (parent, pkey) from `where`; `name` empty keeps the name given
// earlier (or the default). A name another child already has is an error naming both.
void set_pkey_child(Config& cfg, const std::string& parent, uint16_t pkey, const std::string& name,
                    const Source& where, Diagnostics& d);

// Records the Soft-RoCE/Soft-iWARP link on `netdev` from `where`; `name` empty keeps the
// name given earlier (or leaves it to the plan). A name asked for another netdev is an
// error naming both places.
void set_soft_link(Config& cfg, const std::string& netdev, SoftKind kind, const std::string& name,
                   const Source& where, Diagnostics& d);

}  // namespace rp
