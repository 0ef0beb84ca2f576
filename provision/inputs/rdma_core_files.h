// Readers for the files administrators already keep for rdma-core, modprobe and udev, so
// an existing setup works unchanged, one source file per format (mlx4_conf.cc,
// modules_conf.cc, modprobe_conf.cc, ipoib_rules.cc). Pure functions: the caller reads the
// file and passes its path (used in messages as "file:line"); nothing here touches the file
// system.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "provision/config/config.h"

namespace rp {

// /etc/rdma/mlx4.conf: "<pci address> <port1 type> [<port2 type>]" per line, types ib,
// eth or auto. Fills cfg.mlx4[pci].type[0/1].
void parse_mlx4_conf(std::string_view text, const std::string& file, Config& cfg,
                     Diagnostics& diag);

// /etc/rdma/modules/*.conf (read by systemd-modules-load): one module per line. Appends
// to cfg.modules.
void parse_modules_conf(std::string_view text, const std::string& file, Config& cfg,
                        Diagnostics& diag);

// /etc/modprobe.d/*.conf, read the way libkmod reads it: `options` (appended to
// cfg.module_options; mlx4_en pfctx/pfcrx also fill cfg.pfc_tx/pfc_rx) and `blacklist`
// (cfg.blacklist). install/remove/softdep/alias belong to modprobe and are skipped.
void parse_modprobe_conf(std::string_view text, const std::string& file, Config& cfg,
                         Diagnostics& diag);

// /etc/udev/rules.d/70-persistent-ipoib.rules: NAME= rules matching ATTR{address} on an
// IPoIB port GUID (type 32) or an Ethernet MAC (type 1). Fills cfg.names.
void parse_ipoib_rules(std::string_view text, const std::string& file, Config& cfg,
                       Diagnostics& diag);

// systemd .link files (/etc/systemd/network and the directories below it), as udev's
// net_setup_link builtin reads them: the names their [Link] Name= gives the ports their
// [Match] MACAddress= lists. `files` in udev's order (by file name; the copy of the
// directory that wins). Fills cfg.names. (link_files.cc)
struct LinkFileText {
  std::string path;
  std::string text;
};
void parse_link_files(const std::vector<LinkFileText>& files, Config& cfg, Diagnostics& diag);

}  // namespace rp
