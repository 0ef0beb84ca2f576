#include "provision/cli/commands.h"

#include <algorithm>
#include <cstdio>

#include "provision/base/root.h"
#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/kernel/dcbnl.h"
#include "provision/kernel/verbs.h"
#include "provision/resolve/concerns.h"
#include "provision/resolve/node_table.h"
#include "provision/version.h"

namespace rp {

const std::vector<Command>& command_table() {
  static const std::vector<Command> kCommands = {
      {"status",
       {"--root", "inputs", "--json"},
       cmd_status,
       "RDMA devices, ports, mlx4 port types, network links and NVMe over Fabrics "
       "controllers, as they are now, and each link against what the fabric expects "
       "(rd.rdma.expect)"},
      {"check",
       {"--root", "inputs", "--drivers", "--network-manager", "--json"},
       cmd_check,
       "validate every input, against this machine or, with --drivers, against a target "
       "known by its RDMA drivers; exit 2 when something is invalid"},
      {"config",
       {"--root", "inputs", "--json"},
       cmd_config,
       "the effective configuration: every value after all inputs are merged (and this "
       "node's row of the node table), each with the file and line or command-line token it "
       "came from"},
      {"plan",
       {"--root", "inputs", "--json"},
       cmd_plan,
       "the ordered actions apply would take (touches nothing)"},
      {"apply",
       {"--root", "inputs", "--log", "--metrics", "--udev-settle", "--history"},
       cmd_apply,
       "carry out the plan; exit 0 all done, 1 some action failed, 2 invalid input (nothing "
       "applied), 3 deadline"},
      {"verify",
       {"--root", "inputs", "--peer", "--listen", "--allow", "--max-sessions", "--metrics",
        "--boot", "--online", "--log"},
       cmd_verify,
       "try the RDMA data path: a loopback RC QP pair on each configured port (every port "
       "when none is), a peer with --peer; --listen answers peers; exit 0 verified, 1 a "
       "check failed, 2 invalid input, 5 nothing to check"},
      {"nvmf",
       {"--root", "inputs", "--boot", "--online", "--log"},
       cmd_nvmf,
       "connect the NVMe over Fabrics targets over RDMA the boot asks for (dracut's "
       "rd.nvmf.discover=rdma,...): discovery, each subsystem, its namespaces' block devices; "
       "exit 0 connected or nothing to connect, 1 a target not connected, 2 invalid input, 4 "
       "a target reached through another interface (--online)"},
      {"preload",
       {"--root", "inputs", "--log"},
       cmd_preload,
       "load the modules the plan needs that need no device (soft RoCE, rdma_cm, IPoIB, "
       "NFS/RDMA), before udev's coldplug; quiet and exit 0 when the inputs are invalid or "
       "disabled (the other steps report that)"},
      {"udev-rules",
       {"--root", "inputs", "--output", "--state-env"},
       cmd_udev_rules,
       "udev rules giving the configured persistent names"},
      {"udev-name",
       {"--root", "inputs", "--address"},
       cmd_udev_name,
       "for udev's IMPORT{program}: RDMA_PROVISION_NAME=<name> for the interface with that "
       "address, from the names and the per-node table"},
      {"image-needs",
       {"--root", "inputs", "--generic", "--drivers", "--no-rdma-core", "--network-manager"},
       cmd_image_needs,
       "what an initramfs must carry for these inputs: kernel modules and input files, one "
       "per line"},
      {"capture",
       {"--root", "inputs", "--output"},
       cmd_capture,
       "what this program reads of the machine (RDMA, network, PCI and module sysfs, "
       "configfs, the files it reads under /etc), as a tar archive that --root reads back; "
       "values only, the kernel command line withheld"},
      {"dhcp-hosts",
       {"--root", "inputs", "--format", "--ib-client-id", "--output"},
       cmd_dhcp_hosts,
       "the DHCP server's host entries for every row of the node table (Ethernet ports by "
       "MAC, IPoIB ports by their client identifiers; lease= or address=, host=), for ISC "
       "dhcpd, Kea or dnsmasq"},
      {"bootif",
       {"--root", "inputs"},
       cmd_bootif,
       "when BOOTIF names an InfiniBand port whose IPoIB interface the configuration names: "
       "the parameters that give dracut that interface instead (rd.bootif=0, ip=<name>:dhcp), "
       "on one line; the initramfs writes them to /etc/cmdline.d at dracut's cmdline step"},
      {"explain",
       {"--root", "--json", "--history"},
       cmd_explain,
       "the last boot in a few lines: each phase's outcome, what failed and why, how the root "
       "is mounted, where the records are; exit 1 when a record shows a failure"},
  };
  return kCommands;
}

namespace {

constexpr size_t kHelpColumn = 33;
constexpr size_t kWidth = 80;

const Command* find_command(std::string_view name) {
  for (const auto& c : command_table())
    if (c.name == name) return &c;
  return nullptr;
}

// The option names a command takes, its groups expanded.
std::vector<std::string_view> accepted(const Command& c) {
  std::vector<std::string_view> out;
  for (auto n : c.options) {
    if (find_option(n)) {
      out.push_back(n);
      continue;
    }
    for (const auto& s : option_table())
      if (s.group == n) out.push_back(s.name);
  }
  return out;
}

std::string option_synopsis(const OptionSpec& s) {
  return std::string(s.name) + (s.value.empty() ? "" : " " + std::string(s.value));
}

// "status [--root DIR] [inputs] [--json]"
std::string synopsis(const Command& c) {
  std::string out(c.name);
  for (auto n : c.options) {
    const OptionSpec* s = find_option(n);
    out += " [" + (s ? option_synopsis(*s) : std::string(n)) + "]";
  }
  return out;
}

// `left` at column 2, `help` from kHelpColumn on (on the next line when `left` is too
// long), wrapped at kWidth.
std::string help_row(const std::string& left, std::string_view help) {
  std::string out = "  " + left;
  size_t col = out.size();
  if (col + 1 >= kHelpColumn) {
    out += "\n";
    col = 0;
  }
  std::string line;
  for (auto word : split_ws(help)) {
    if (!line.empty() && kHelpColumn + line.size() + 1 + word.size() > kWidth) {
      out += std::string(kHelpColumn - col, ' ') + line + "\n";
      line.clear();
      col = 0;
    }
    line += (line.empty() ? "" : " ") + std::string(word);
  }
  return out + std::string(kHelpColumn - col, ' ') + line + "\n";
}

std::string options_text(const std::vector<std::string_view>& names) {
  std::string out;
  std::vector<std::string_view> groups;
  for (const auto& s : option_table()) {
    if (std::find(names.begin(), names.end(), s.name) == names.end()) continue;
    if (s.group.empty())
      out += help_row(option_synopsis(s), s.help);
    else if (std::find(groups.begin(), groups.end(), s.group) == groups.end())
      groups.push_back(s.group);
  }
  for (auto g : groups) {
    out += std::string(group_heading(g)) + ":\n";
    for (const auto& s : option_table())
      if (s.group == g && std::find(names.begin(), names.end(), s.name) != names.end())
        out += help_row(option_synopsis(s), s.help);
  }
  return out;
}

std::string usage_text() {
  std::string out =
      "usage: rdma-provision [--version] [--help] <command> [options]\n"
      "       rdma-provision <command> --help\n\ncommands:\n";
  for (const auto& c : command_table()) out += help_row(synopsis(c), c.help);
  std::vector<std::string_view> all;
  for (const auto& s : option_table()) all.push_back(s.name);
  return out + "\noptions:\n" + options_text(all);
}

std::string command_usage(const Command& c) {
  return "usage: rdma-provision " + synopsis(c) + "\n";
}

std::string command_help(const Command& c) {
  return command_usage(c) + std::string(c.help) + "\n\noptions:\n" + options_text(accepted(c));
}

int usage_error(const std::string& msg, const std::string& usage) {
  std::fprintf(stderr, "rdma-provision: %s\n%s", msg.c_str(), usage.c_str());
  return kExitUsage;
}

int version() {
  std::string providers;
  for (const auto& p : verbs_static_providers()) providers += " " + p;
  std::printf("rdma-provision %s\nverbs providers (static):%s\n", RDMA_PROVISION_VERSION,
              providers.c_str());
  return kExitOk;
}

}  // namespace

namespace {

// `rdma-provision --complete [WORD...] PARTIAL`, for the shell's completion
// (configs/rdma-provision.bash-completion asks the binary, which knows its table): the
// commands that begin with PARTIAL when no command is given yet, else the options of
// that command; after an option that takes a value, nothing (the shell completes files).
int complete(const std::vector<std::string>& args) {
  const std::string partial = args.size() > 1 ? args.back() : "";
  std::vector<std::string_view> words;
  if (args.size() <= 2) {
    for (const auto& c : command_table()) words.push_back(c.name);
  } else if (const Command* c = find_command(args[1])) {
    const OptionSpec* prev = args.size() > 3 ? find_option(args[args.size() - 2]) : nullptr;
    if (prev && !prev->value.empty()) return kExitOk;
    words = accepted(*c);
    words.push_back("--help");
  }
  for (auto w : words)
    if (w.substr(0, partial.size()) == partial)
      std::printf("%.*s\n", static_cast<int>(w.size()), w.data());
  return kExitOk;
}

}  // namespace

// Where to read more, after a usage error that names no command: one line, not the whole
// help (which --help prints).
constexpr const char kReadMore[] =
    "see 'rdma-provision --help' for the commands and their options, and rdma-provision(8)\n";

int run_cli(const std::vector<std::string>& args) {
  if (args.empty()) return usage_error("no command given", kReadMore);
  const std::string& name = args[0];
  if (name == "--version" || name == "version") return version();
  if (name == "--help" || name == "-h" || name == "help") {
    const Command* c = args.size() > 1 ? find_command(args[1]) : nullptr;
    print(c ? command_help(*c) : usage_text());
    return kExitOk;
  }
  if (name == "--complete") return complete(args);
  const Command* c = find_command(name);
  if (!c) {
    std::vector<std::string_view> names;
    for (const auto& k : command_table()) names.push_back(k.name);
    std::string msg = "unknown command " + quote(name);
    if (auto near = closest_word(name, names); !near.empty())
      msg += " (did you mean " + quote(near) + "?)";
    return usage_error(msg, kReadMore);
  }
  Options o;
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (std::string e = parse_options(rest, c->name, accepted(*c), o); !e.empty()) {
    return usage_error(name + ": " + e, command_usage(*c));
  }
  if (o.help) {
    print(command_help(*c));
    return kExitOk;
  }
  return c->run(o);
}

bool root_usable(const Root& root, const Options& o, std::string_view command) {
  if (root.is_live() || root.is_dir("/")) return true;
  std::fprintf(stderr, "rdma-provision: %.*s: --root %s is not a directory\n",
               static_cast<int>(command.size()), command.data(), o.root.c_str());
  return false;
}

// Writes one of our own files under the root (Root::write_file_atomic). The callers:
// write_run_file, and the files named by --output, --state-env and --metrics.
bool write_own_file(const Root& root, const std::string& path, const std::string& text,
                    std::string& err) {
  auto st = root.write_file_atomic(path, text);
  if (!st) err = st.error().str();
  return st.ok();
}

// One of our files under /run (Root::check_write: nothing outside /sys and /run).
bool write_run_file(const Root& root, const char* path, const std::string& text, std::string& err) {
  if (auto st = Root::check_write(path); !st) {
    err = st.error().str();
    return false;
  }
  return write_own_file(root, path, text, err);
}

// In the initramfs messages go to the kernel log (console, dmesg, journal).
Log::Sink make_sink(const Root& root, const std::string& choice) {
  const bool initramfs = root.exists("/etc/initrd-release") || root.exists("/run/initramfs");
  if (choice == "kmsg" || (choice == "auto" && initramfs && root.is_live())) {
    return kmsg_sink(root.path("/dev/kmsg"));
  }
  return stderr_sink();
}

std::optional<Prepared> prepare(const Options& o, std::string_view command, bool discover) {
  Root root(o.root);
  if (!root_usable(root, o, command)) return std::nullopt;
  Inventory inv = discover ? rp::discover(root, Detail::kPlan) : Inventory{};
  Inputs in = load_inputs(root, o.inputs);
  if (discover) in.config = resolve_node_table(inv, in.config);
  // DCB is read over netlink, for the interfaces the configuration sets only.
  if (discover && root.is_live() && !in.config.dcb.empty())
    discover_dcb(inv, kernel_dcb(), dcb_interfaces(in.config, inv));
  return Prepared{std::move(root), std::move(inv), std::move(in)};
}

void print_diagnostics(const Diagnostics& d) {
  for (const auto& w : d.warnings) std::fprintf(stderr, "warning: %s\n", w.str().c_str());
  for (const auto& e : d.errors) std::fprintf(stderr, "error: %s\n", e.str().c_str());
}

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

}  // namespace rp
