// The commands of rdma-provision as one table: name, the options it takes, handler and
// one line of help. The usage text and the per-command errors are generated from it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/apply/log.h"
#include "provision/base/root.h"
#include "provision/cli/options.h"
#include "provision/config/config.h"
#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"

namespace rp {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;    // a usage error...
inline constexpr int kExitInvalid = 2;  // ...and invalid input share the code
// verify --boot --online IFACE: the peer is not reached through IFACE; checked later.
inline constexpr int kExitLater = 4;
// verify: nothing to check (no RDMA port configured or present, no peer): not a pass, since
// `verify && echo OK` must not succeed on a node whose HCA driver never loaded.
inline constexpr int kExitNothingChecked = 5;

struct Command {
  std::string_view name;
  // Option names, or a group name ("inputs") standing for every option of that group.
  std::vector<std::string_view> options;
  int (*run)(const Options&);
  std::string_view help;  // one line
};

const std::vector<Command>& command_table();

// The whole program: `args` is argv without the program name. Returns the exit status.
int run_cli(const std::vector<std::string>& args);

// The handlers (inspect.cc: commands that only read; act.cc: commands that write;
// verify.cc: verify).
int cmd_status(const Options& o);
int cmd_check(const Options& o);
int cmd_config(const Options& o);
int cmd_plan(const Options& o);
int cmd_image_needs(const Options& o);
int cmd_apply(const Options& o);
int cmd_udev_rules(const Options& o);
int cmd_udev_name(const Options& o);
int cmd_verify(const Options& o);
int cmd_nvmf(const Options& o);  // nvmf.cc
int cmd_preload(const Options& o);
int cmd_explain(const Options& o);     // explain.cc
int cmd_capture(const Options& o);     // capture.cc
int cmd_dhcp_hosts(const Options& o);  // dhcp_hosts.cc
int cmd_bootif(const Options& o);      // bootif.cc

// Shared by the handlers.
// False (with a message naming the command) when --root is not a directory.
bool root_usable(const Root& root, const Options& o, std::string_view command);

// What a handler starts from: the root, what the machine shows (`discover`: for plans,
// Detail::kPlan; else nothing is read) and the inputs, with the node table resolved
// against the machine (the stage between loading and planning). nullopt, said, when
// --root is not a directory.
struct Prepared {
  Root root;
  Inventory inv;
  Inputs in;
};
std::optional<Prepared> prepare(const Options& o, std::string_view command, bool discover = true);
// apply --udev-settle (coldplug.cc): `p` again once udev's coldplug has given what the
// plan names, or has ended; said on `log`. Marks kColdplugSeenPath before its last look.
std::optional<Prepared> prepare_after_coldplug(const Options& o, Prepared p, Log& log);
// Our own files under the root, replaced atomically (Root::write_file_atomic): those named
// by --output, --state-env and --metrics; write_run_file's under /run only
// (Root::check_write). False with `err` said.
bool write_own_file(const Root& root, const std::string& path, const std::string& text,
                    std::string& err);
bool write_run_file(const Root& root, const char* path, const std::string& text, std::string& err);
// Where a command's log goes: in the initramfs the kernel log, else stderr (--log).
Log::Sink make_sink(const Root& root, const std::string& choice);
// Errors and warnings of the inputs, each once, with its source, on stderr.
void print_diagnostics(const Diagnostics& d);
void print(const std::string& s);

}  // namespace rp
