// Reads every input under the root, in override order: rdma-core's files, the native
// config, the per-node table (resolved against the inventory), the kernel command line.
#pragma once

#include <optional>
#include <string>

#include "provision/base/root.h"
#include "provision/config/config.h"
#include "provision/inventory/inventory.h"

namespace rp {

struct InputOptions {
  // Native config file (kernel path under the root); default the standard location.
  std::string config_path = "/etc/rdma-provision/rdma-provision.conf";
  bool config_path_given = false;  // a given file must exist; the default may be absent
  // Command line: text given directly, a file (host path), or /proc/cmdline under the root.
  std::optional<std::string> cmdline_text;
  std::optional<std::string> cmdline_file;
};

struct Inputs {
  Config config;
  Diagnostics diag;
  std::vector<std::string> files_read;  // kernel paths, in reading order
};

Inputs load_inputs(const Root& root, const Inventory& inv, const InputOptions& opt);

// Node-table rows that match this node's ports (IPoIB GUIDs, Ethernet MACs) become
// names, P_Key children, modes, MTUs and addresses, unless an earlier explicit setting
// already gives them. Exposed for tests and the 10,000-node benchmark.
void apply_node_table(const Inventory& inv, Config& cfg);

}  // namespace rp
