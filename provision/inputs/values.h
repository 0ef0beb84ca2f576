// Value parsers shared by every input reader (native config, kernel command line,
// rdma-core's files), so one value is checked and worded the same way wherever it is
// written. Each reports to `diag` at `where` and returns nullopt on a bad value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "provision/config/config.h"

namespace rp {

// "a, b c" -> {"a", "b", "c"} (commas and/or whitespace).
std::vector<std::string_view> split_list(std::string_view s);
// Drops a '#' comment (and everything after it).
std::string_view strip_comment(std::string_view line);
// dracut's booleans: 1/0, yes/no, on/off, true/false.
std::optional<bool> parse_bool(std::string_view s);

// Module names: letters, digits, '_' and '-', at most 55 bytes. "" when fine.
std::string check_module_name(std::string_view name);
// modprobe treats '-' and '_' alike; we keep '_'.
std::string normalize_module(std::string_view name);
// Adds a module to cfg.blacklist once (keeps the first source), like add_module().
void add_blacklist(Config& cfg, std::string name, const std::string& where);
// RDMA device names (the kernel allows 63 bytes; we keep to what is safe in sysfs and
// configfs paths). "" when fine.
std::string check_rdma_name(std::string_view name);
// "10.0.0.5/24", "fd00::5/64" (a length is required). "" when fine, and *out is set.
std::string check_cidr(std::string_view s, std::optional<IpPrefix>* out = nullptr);

std::optional<uint16_t> parse_pkey(std::string_view s, const std::string& where, Diagnostics& d);
std::optional<unsigned> parse_tos(std::string_view s, const std::string& where, Diagnostics& d);
std::optional<unsigned> parse_netdev_mtu(std::string_view s, const std::string& where,
                                         Diagnostics& d);
std::optional<unsigned> parse_ib_mtu(std::string_view s, const std::string& where, Diagnostics& d);
// `what` names the value in messages ("pfc tx", "pfctx").
std::optional<unsigned> parse_pfc_mask(std::string_view s, const std::string& what,
                                       const std::string& where, Diagnostics& d);
std::optional<unsigned> parse_timeout(std::string_view s, const std::string& where, Diagnostics& d);
// "<ibdev|*>[/<port>]" -> (ibdev, port or 0 for every port).
std::optional<std::pair<std::string, unsigned>> parse_roce_target(std::string_view s,
                                                                  const std::string& where,
                                                                  Diagnostics& d);
// "all", "none", "<ibdev>/<port>" or an ifname, comma separated; appended to cfg.wait.
void parse_wait_list(std::string_view s, const std::string& where, Config& cfg, Diagnostics& d);
// "default via 10.0.0.1" or "10.2.0.0/16 via 10.0.0.254".
std::optional<RouteSetting> parse_route(std::string_view s, const std::string& where,
                                        Diagnostics& d);

// The file (or "cmdline") part of a source "file:line" / "cmdline: token".
std::string source_file(const std::string& where);

// Records name -> key. Within one source file (or the command line) a second name for
// the same key, or a second key for the same name, is an error naming both places; a
// later source overrides an earlier one.
void set_name(Config& cfg, const std::string& name, const HwKey& key, const std::string& where,
              Diagnostics& d);

}  // namespace rp
