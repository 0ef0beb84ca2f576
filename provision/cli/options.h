// The command-line options of rdma-provision as one table: each option's name, value,
// help and how it is stored. Commands say which of them they take (commands.h); the
// parser refuses the others, naming the option and the command.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/inputs/load.h"
#include "provision/inputs/values.h"
#include "provision/report/dhcp_hosts.h"

namespace rp {

// Everything the options can set; each command reads the fields of its own options.
struct Options {
  std::string root = "/";
  bool json = false;
  std::string log = "auto";
  std::string output;
  std::string state_env;             // --state-env: a host path
  std::string metrics;               // --metrics: a host path (node_exporter's textfile)
  std::string history;               // --history: a directory under the root (boot records)
  std::optional<HwAddress> address;  // --address: udev-name's interface
  InputOptions inputs;
  bool generic = false;
  std::optional<std::vector<std::string>> drivers;  // --drivers: the target's RDMA drivers
  bool rdma_core = true;                            // false: --no-rdma-core
  bool help = false;                                // --help after the command
  std::optional<Endpoint> peer;                     // verify --peer
  std::optional<Endpoint> listen;                   // verify --listen (address 0: every one)
  bool listen_any = false;                          // --listen :PORT or --listen all
  bool boot = false;                                // verify --boot
  std::string online;                               // verify --boot --online IFACE
  std::vector<IpPrefix> allow;                      // verify --listen --allow
  std::optional<unsigned> max_sessions;             // verify --listen --max-sessions
  std::optional<unsigned> udev_settle;              // apply --udev-settle
  std::optional<DhcpServer> dhcp_server;            // dhcp-hosts --format
  std::optional<IbClientIds> ib_client_ids;         // dhcp-hosts --ib-client-id
};

struct OptionSpec {
  std::string_view name;   // "--config"
  std::string_view value;  // "FILE"; empty for a flag
  std::string_view group;  // "inputs": shown as [inputs] in a synopsis; else empty
  std::string_view help;   // one line
  bool empty_ok;           // an empty value is a value (--cmdline-string '')
  // Stores the value (a flag gets ""); returns "" or why the value is refused.
  std::string (*store)(std::string_view value, Options& o);
};

// Every option, in the order the usage text lists them.
const std::vector<OptionSpec>& option_table();
const OptionSpec* find_option(std::string_view name);
// What a group of options is, as a heading of the usage text ("inputs (default: ...):").
std::string_view group_heading(std::string_view group);

// Reads `args` (what follows the command name) for the command `command`, which takes
// only `accepted` (option names). Both `--opt VALUE` and `--opt=VALUE` work. Returns ""
// or the usage error, which names the option (and the command when it is not one of its
// options).
std::string parse_options(const std::vector<std::string>& args, std::string_view command,
                          const std::vector<std::string_view>& accepted, Options& o);

}  // namespace rp
