// Reads every input under the root, in override order: rdma-core's files, the native
// config, the kernel command line.
#pragma once

#include <optional>
#include <string>

#include "provision/base/root.h"
#include "provision/config/config.h"

namespace rp {

struct InputOptions {
  // Native config file (kernel path under the root); default the standard location.
  std::string config_path = "/etc/rdma-provision/rdma-provision.conf";
  bool config_path_given = false;  // a given file must exist; the default may be absent
  // Command line: text given directly, a file (host path), or /proc/cmdline under the root.
  std::optional<std::string> cmdline_text;
  std::optional<std::string> cmdline_file;
  // The image is built with dracut's network-manager module (image build: the build host
  // is not the initramfs, whose nm-initrd-generator tells at boot).
  bool network_manager = false;
};

struct Inputs {
  Config config;
  Diagnostics diag;
  std::vector<std::string> files_read;  // kernel paths, in reading order
};

// The directory of more node-table files beside the native config `config_path`:
// /etc/rdma-provision/nodes.d for the standard one. Its *.conf files are read after the
// config, in the byte order of their names (as systemd and libkmod order conf.d files).
std::string nodes_d_dir(const std::string& config_path);

// The inputs alone; the per-node table stays a table here (resolve/node_table.h resolves it
// against the machine, between loading and planning).
Inputs load_inputs(const Root& root, const InputOptions& opt);

// rd.rdma.verify=peer at boot when root= leaves the NFS server to DHCP
// (cfg.boot.nfs_server_unknown ""): the server dracut's DHCP handler recorded for `iface` in
// /tmp/dhclient.<iface>.dhcpopts (every interface's, in name order, when `iface` is
// empty), set as cfg.boot.nfs_server with that file as its source. Returns what was found, or
// why nothing was, for the log; "" when there was nothing to look for.
std::string read_dhcp_root(const Root& root, const std::string& iface, Config& cfg);

}  // namespace rp
