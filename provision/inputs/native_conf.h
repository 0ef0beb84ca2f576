// The native configuration file, /etc/rdma-provision/rdma-provision.conf: an INI-style
// file (sections, key = value, # comments) documented in configs/rdma-provision.conf.5 and the
// commented example configs/rdma-provision.conf. Unknown sections and keys are errors: a
// typo must not pass silently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "provision/config/config.h"

namespace rp {

// `file` is the kernel path used in messages; errors are "file:line: ...".
void parse_native_conf(std::string_view text, const std::string& file, Config& cfg,
                       Diagnostics& diag);

// A file of nodes.d/ (inputs/load.cc): node-table rows as under [nodes], with or without
// that header; any other section is an error, as a row outside the table would be.
void parse_node_table_file(std::string_view text, const std::string& file, Config& cfg,
                           Diagnostics& diag);

// What the reader knows, from its tables: every [section], and every key of each section
// (for [nodes], the fields of a row).
struct NativeConfKey {
  std::string_view section;
  std::string_view key;
};
std::vector<std::string_view> native_conf_sections();
std::vector<NativeConfKey> native_conf_keys();

}  // namespace rp
