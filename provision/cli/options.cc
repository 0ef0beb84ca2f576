#include "provision/cli/options.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"
#include "provision/verify/listen_policy.h"

namespace rp {

namespace {

// A whole decimal number from `lo` to `hi`, or nullopt: an option's count or seconds.
std::optional<unsigned> count_in(std::string_view v, unsigned lo, unsigned hi) {
  unsigned n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi) return std::nullopt;
  return n;
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> kOptions = {
      {"--root", "DIR", "",
       "resolve every kernel path (/sys, /proc, /dev, /run, /etc, /lib/modules) under DIR "
       "instead of /; used with fixture trees",
       false,
       [](std::string_view v, Options& o) {
         o.root = std::string(v);
         return std::string();
       }},
      {"--json", "", "", "print JSON instead of text", false,
       [](std::string_view, Options& o) {
         o.json = true;
         return std::string();
       }},
      {"--config", "FILE", "inputs", "native configuration (a kernel path under the root)", false,
       [](std::string_view v, Options& o) {
         o.inputs.config_path = std::string(v);
         o.inputs.config_path_given = true;
         return std::string();
       }},
      {"--cmdline", "FILE", "inputs", "read the kernel command line from FILE (a host path)", false,
       [](std::string_view v, Options& o) {
         o.inputs.cmdline_file = std::string(v);
         return std::string();
       }},
      {"--cmdline-string", "TEXT", "inputs", "use TEXT as the kernel command line (may be empty)",
       true,
       [](std::string_view v, Options& o) {
         o.inputs.cmdline_text = std::string(v);
         return std::string();
       }},
      {"--log", "auto|kmsg|stderr", "",
       "where apply reports: the kernel log in an initramfs (auto), or as chosen", false,
       [](std::string_view v, Options& o) {
         if (v != "auto" && v != "kmsg" && v != "stderr") {
           return "--log " + quote(v) + " is not one of auto, kmsg, stderr";
         }
         o.log = std::string(v);
         return std::string();
       }},
      {"--output", "FILE", "", "write to FILE (a host path) instead of standard output", false,
       [](std::string_view v, Options& o) {
         o.output = std::string(v);
         return std::string();
       }},
      {"--format", "isc|kea|dnsmasq", "",
       "dhcp-hosts: the DHCP server whose host entries to write (ISC dhcpd host "
       "declarations, Kea reservations, dnsmasq dhcp-host lines)",
       false,
       [](std::string_view v, Options& o) {
         o.dhcp_server = parse_dhcp_server(v);
         return o.dhcp_server ? std::string()
                              : "--format: " + quote(v) + " is not isc, kea or dnsmasq";
       }},
      {"--ib-client-id", "os|flexboot|both", "",
       "dhcp-hosts: the client identifiers of an IPoIB port: the OS's (20:<GUID>: "
       "NetworkManager, dracut's dhclient), FlexBoot's (ff:...:02:c9:00:<GUID>), or both "
       "(default)",
       false,
       [](std::string_view v, Options& o) {
         o.ib_client_ids = parse_ib_client_ids(v);
         return o.ib_client_ids ? std::string()
                                : "--ib-client-id: " + quote(v) + " is not os, flexboot or both";
       }},
      {"--state-env", "FILE", "",
       "also write what the inputs say (RP_REQUIRED, RP_ERRORS, ...) for a shell to source, "
       "valid or not, to FILE (a host path)",
       false,
       [](std::string_view v, Options& o) {
         o.state_env = std::string(v);
         return std::string();
       }},
      {"--metrics", "FILE", "",
       "also write the outcome (apply) or the listener's counts (verify --listen) for "
       "node_exporter's textfile collector to FILE (a host path, replaced atomically; e.g. "
       "/var/lib/prometheus/node-exporter/rdma_provision.prom)",
       false,
       [](std::string_view v, Options& o) {
         o.metrics = std::string(v);
         return std::string();
       }},
      {"--history", "DIR", "",
       "apply: keep this boot's records under DIR/boot and move the boot before's to "
       "DIR/previous; explain: read the boot before's from there (default "
       "/var/lib/rdma-provision; a path under the root)",
       false,
       [](std::string_view v, Options& o) {
         o.history = std::string(v);
         return std::string();
       }},
      {"--address", "HWADDR", "",
       "the interface's hardware address, as udev's $attr{address} gives it", false,
       [](std::string_view v, Options& o) {
         o.address = HwAddress::parse(v);
         return o.address ? std::string()
                          : "--address: " + quote(v) + " is not a hardware address (aa:bb:...)";
       }},
      {"--generic", "", "",
       "every known RDMA driver instead of the host's (an image for any machine)", false,
       [](std::string_view, Options& o) {
         o.generic = true;
         return std::string();
       }},
      {"--drivers", "'MOD ...'", "",
       "the target's RDMA drivers instead of the host's (e.g. 'mlx5_ib' or 'rdma_rxe')", false,
       [](std::string_view v, Options& o) {
         std::vector<std::string> mods;
         Diagnostics d;
         for (auto m : split_list(v)) {
           // The one module-name parser (inputs/values): checked and spelled with '_'.
           auto name = parse_module_name(m, Source::at(Source::Origin::kOption, "--drivers"), d);
           if (!name) return d.errors.back().str();
           mods.push_back(std::move(*name));
         }
         if (mods.empty()) return std::string("--drivers needs at least one module name");
         o.drivers = std::move(mods);
         return std::string();
       }},
      {"--peer", "ADDR[:PORT]", "",
       "verify: connect to the `verify --listen` at ADDR (an IP address; [IPv6]:PORT), write "
       "into its buffer and time round trips (default port 7472)",
       false,
       [](std::string_view v, Options& o) {
         o.peer = parse_endpoint(v);
         return o.peer ? std::string()
                       : "--peer: " + quote(v) + " is not ADDR, ADDR:PORT or [IPv6]:PORT";
       }},
      {"--listen", "ADDR[:PORT]|:PORT|all", "",
       "verify: answer peer checks on that address (all: every address) until SIGTERM", false,
       [](std::string_view v, Options& o) {
         if (v == "all" || (v.size() > 1 && v[0] == ':')) {
           o.listen_any = true;
           auto ep = parse_endpoint("0.0.0.0" + std::string(v == "all" ? "" : v));
           if (ep) o.listen = ep;
         } else {
           o.listen = parse_endpoint(v);
         }
         return o.listen ? std::string()
                         : "--listen: " + quote(v) + " is not ADDR, ADDR:PORT, :PORT or all";
       }},
      {"--online", "IFACE", "",
       "verify --boot, nvmf --boot: IFACE has just come online (dracut's online hook); check "
       "the peer, or connect a target, only if the route to it goes through IFACE, else exit 4 "
       "(at a later interface)",
       false,
       [](std::string_view v, Options& o) {
         o.online = std::string(v);
         return std::string();
       }},
      {"--allow", "PREFIX[,PREFIX]", "",
       "verify --listen: answer only sources within these prefixes (IPv4/IPv6 CIDR, e.g. "
       "10.77.0.0/24,fd00::/64); others get a plain reject (default: every source)",
       false,
       [](std::string_view v, Options& o) {
         Diagnostics d;
         size_t start = 0;
         for (;;) {
           const size_t comma = v.find(',', start);
           auto p = parse_prefix(v.substr(start, comma - start),
                                 Source::at(Source::Origin::kOption, "--allow"), d);
           if (!p) return d.errors.back().str();
           o.allow.push_back(*p);
           if (comma == std::string_view::npos) return std::string();
           start = comma + 1;
         }
       }},
      {"--max-sessions", "N", "",
       "verify --listen: at most N checks at once (1..256, default 16); a client beyond them "
       "is answered busy and tries again within its time",
       false,
       [](std::string_view v, Options& o) {
         o.max_sessions = count_in(v, 1, kMaxSessionsLimit);
         return o.max_sessions ? std::string()
                               : "--max-sessions: " + quote(v) + " is not a number from 1 to " +
                                     std::to_string(kMaxSessionsLimit);
       }},
      {"--udev-settle", "SECONDS", "",
       "apply: udev's coldplug may still run (the dracut module starts apply once the "
       "trigger is sent): wait until every device the plan names is here and udev has "
       "handled it, or until udev has handled every event (at most SECONDS, 1..3600)",
       false,
       [](std::string_view v, Options& o) {
         o.udev_settle = count_in(v, 1, 3600);
         return o.udev_settle
                    ? std::string()
                    : "--udev-settle: " + quote(v) + " is not a number of seconds from 1 to 3600";
       }},
      {"--boot", "", "",
       "verify, nvmf: what rd.rdma.verify asks once the network is up (the peer check; nothing "
       "when it asks for none), or the NVMe over Fabrics targets over RDMA to connect; the "
       "result also in /run/rdma-provision/verify.{json,env} or nvmf.{json,env}",
       false,
       [](std::string_view, Options& o) {
         o.boot = true;
         return std::string();
       }},
      {"--network-manager", "", "",
       "the image configures its network with NetworkManager (dracut's network-manager "
       "module): check ip=, bootdev= and ib.pkey= as its nm-initrd-generator reads them",
       false,
       [](std::string_view, Options& o) {
         o.inputs.network_manager = true;
         return std::string();
       }},
      {"--no-rdma-core", "", "",
       "as if rdma-core's files (/etc/rdma, modprobe.d, 70-persistent-ipoib.rules) were "
       "absent",
       false,
       [](std::string_view, Options& o) {
         o.rdma_core = false;
         return std::string();
       }},
  };
  return kOptions;
}

const OptionSpec* find_option(std::string_view name) {
  for (const auto& s : option_table())
    if (s.name == name) return &s;
  return nullptr;
}

std::string_view group_heading(std::string_view group) {
  if (group == "inputs") return "inputs (default: the files under the root and its /proc/cmdline)";
  return group;
}

namespace {

// Options that make no sense together: the second would silently win.
constexpr std::pair<std::string_view, std::string_view> kExclusive[] = {
    {"--cmdline", "--cmdline-string"},
    {"--generic", "--drivers"},
};

std::string list(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out.empty() ? "none" : out;
}

// "--config" or "--config=..." of a known option: not a value for the option before it.
bool looks_like_option(std::string_view a) {
  return find_option(a.substr(0, a.find('='))) != nullptr || a == "--help";
}

}  // namespace

std::string parse_options(const std::vector<std::string>& args, std::string_view command,
                          const std::vector<std::string_view>& accepted, Options& o) {
  const std::string cmd(command);
  std::set<std::string_view> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      continue;
    }
    if (!starts_with(a, "--")) return "unexpected argument " + quote(a);
    const size_t eq = a.find('=');
    const std::string_view name = std::string_view(a).substr(0, eq);
    const OptionSpec* spec = find_option(name);
    if (!spec) {
      std::vector<std::string_view> names = accepted;
      for (const auto& s : option_table()) names.push_back(s.name);
      if (auto near = closest_word(name, names); !near.empty()) {
        return "unknown option " + quote(name) + " (did you mean " + quote(near) + "?)";
      }
      return "unknown option " + quote(name);
    }
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      return std::string(name) + " is not an option of " + cmd + " (it takes " + list(accepted) +
             ")";
    }
    std::string value;
    if (spec->value.empty()) {
      if (eq != std::string::npos) return std::string(name) + " takes no value";
    } else {
      const std::string form = std::string(name) + " " + std::string(spec->value) + " or " +
                               std::string(name) + "=" + std::string(spec->value);
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
      } else if (i + 1 < args.size() && !looks_like_option(args[i + 1])) {
        value = args[++i];
      } else {
        return std::string(name) + " needs a value: " + form;
      }
      if (value.empty() && !spec->empty_ok) return std::string(name) + " needs a value: " + form;
    }
    if (!seen.insert(name).second) return std::string(name) + " is given twice";
    if (std::string e = spec->store(value, o); !e.empty()) return e;
  }
  for (const auto& [x, y] : kExclusive) {
    if (seen.count(x) && seen.count(y)) {
      return std::string(x) + " and " + std::string(y) + " exclude each other";
    }
  }
  return "";
}

}  // namespace rp
