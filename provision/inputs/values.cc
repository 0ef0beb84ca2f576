#include "provision/inputs/values.h"

#include <algorithm>
#include <cctype>

#include "provision/base/modprobe.h"
#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/inputs/value_error.h"

namespace rp {
namespace {

// A word of a fixed set: `word` maps it (the string <-> enum table beside the type), and
// the message lists the set.
template <typename T>
std::optional<T> one_of(std::string_view s, std::optional<T> (*word)(std::string_view),
                        const char* what, const char* set, const Source& where, Diagnostics& d) {
  if (auto v = word(s)) return v;
  return bad<T>(where, d, std::string(what) + " " + shown(s) + " is not one of " + set);
}

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

// ---- Words -------------------------------------------------------------------------------

std::optional<bool> parse_bool(std::string_view s, const Source& where, Diagnostics& d) {
  // dracut's getargbool (modules.d/99base/dracut-lib.sh) takes "0", "no" and "off" as false
  // and any other word as true. We take the same words, their opposites and true/false, in
  // any case, and refuse the rest: a typo must not turn into "true".
  const std::string v = to_lower(s);
  if (v == "1" || v == "yes" || v == "on" || v == "true") return true;
  if (v == "0" || v == "no" || v == "off" || v == "false") return false;
  return bad<bool>(where, d,
                   "value " + shown(s) + " is not a boolean (1/0, yes/no, on/off, true/false)");
}

std::optional<PortType> parse_port_type(std::string_view s, const Source& where, Diagnostics& d) {
  // The words mlx4_core's mlx4_port<N> attribute takes (drivers/net/ethernet/mellanox/mlx4/
  // main.c, set_port_type) and rdma-core's mlx4.conf uses.
  return one_of<PortType>(s, parse_port_type, "port type", "ib, eth, auto", where, d);
}

std::optional<IpoibMode> parse_ipoib_mode(std::string_view s, const Source& where, Diagnostics& d) {
  // The words /sys/class/net/<if>/mode takes (drivers/infiniband/ulp/ipoib/ipoib_main.c).
  return one_of<IpoibMode>(s, parse_ipoib_mode, "IPoIB mode", "datagram, connected", where, d);
}

std::optional<RoceMode> parse_roce_mode(std::string_view s, const Source& where, Diagnostics& d) {
  // Our words for the rdma_cm configfs default_roce_mode values "IB/RoCE v1" and "RoCE v2"
  // (drivers/infiniband/core/cache.c, ib_cache_gid_parse_type_str).
  return one_of<RoceMode>(s, parse_roce_mode, "RoCE mode", "v1, v2", where, d);
}

// ---- Hardware ----------------------------------------------------------------------------

std::optional<PciAddress> parse_pci_address(std::string_view s, const Source& where,
                                            Diagnostics& d) {
  // The kernel's device name "%04x:%02x:%02x.%d" (drivers/pci/probe.c, pci_setup_device);
  // the domain may be left out as with lspci -s.
  if (auto p = PciAddress::parse(s)) return p;
  return bad<PciAddress>(where, d, "PCI address " + shown(s) + " is not of the form DDDD:BB:DD.F");
}

std::optional<HwKey> parse_hw_key(std::string_view s, const Source& where, Diagnostics& d) {
  // pci-<bdf>[/<port>]: the interface under a PCI function, as udev's KERNELS== matches its
  // parent (udev(7)); the port is dev_port + 1 for a function with two ports (mlx4:
  // mlx4/en_netdev.c mlx4_en_init_netdev sets dev_port = port - 1). The prefix is
  // RdmaSelector's and rdma_rename's (kernel-boot/rdma_rename.c) word for a PCI function.
  if (starts_with(s, "pci-")) {
    const std::string_view v = s.substr(4);
    const size_t slash = v.find('/');
    auto pci = PciAddress::parse(v.substr(0, slash));
    if (!pci) {
      return bad<HwKey>(where, d,
                        "PCI function " + shown(s) +
                            " is not of the form pci-DDDD:BB:DD.F[/<port>] (pci-0000:af:00.0)");
    }
    unsigned port = 0;
    if (slash != std::string_view::npos) {
      auto p = parse_port_number(v.substr(slash + 1), where, d);
      if (!p) return std::nullopt;
      port = *p;
    }
    return HwKey::of_pci(*pci, port);
  }
  // <ibdev>/<port>: an interface name never has a '/' (dev_valid_name), nor a GUID or MAC.
  if (auto slash = s.find('/'); slash != std::string_view::npos) {
    auto dev = parse_rdma_name(s.substr(0, slash), where, d);
    auto port = parse_port_number(s.substr(slash + 1), where, d);
    if (!dev || !port) return std::nullopt;
    return HwKey::of_rdma_port(*dev, *port);
  }
  if (auto k = HwKey::parse(s)) return k;
  // The commonest mistake: a udev-style match on the whole IPoIB address.
  auto full = HwAddress::parse(s);
  if (full && full->len == 20) {
    return bad<HwKey>(where, d,
                      "address " + shown(s) +
                          " is a whole 20-byte IPoIB address, whose first 12 bytes change "
                          "between boots; give the port GUID (its last 8 bytes, " +
                          full->ipoib_guid()->colon_bytes() + ")");
  }
  return bad<HwKey>(where, d,
                    "address " + shown(s) +
                        " is neither a port GUID (0002:c903:0031:78f2), a MAC address "
                        "(aa:bb:cc:dd:ee:ff), a PCI function (pci-0000:af:00.0) nor an RDMA "
                        "port (mlx5_0/1)");
}

std::optional<unsigned> parse_port_number(std::string_view s, const Source& where, Diagnostics& d) {
  // An HCA's ports count from 1 (rdma_start_port() in include/rdma/ib_verbs.h, and
  // ports/<N> in sysfs and the rdma_cm configfs); a MAD addresses at most 255.
  auto p = parse_uint(s);
  if (p && *p >= 1 && *p <= 255) return static_cast<unsigned>(*p);
  return bad<unsigned>(where, d, "port " + shown(s) + " is not a port number 1..255");
}

// ---- Names -------------------------------------------------------------------------------

namespace {

// What a kind of name may be: not empty, at most `max` bytes, every character allowed.
struct NameRule {
  std::string_view noun;  // "module name", as messages say it
  std::string_view article;
  size_t max;
  bool (*allowed)(char c);
  std::string_view refused;  // the end of the message about a character not allowed
};

std::optional<std::string> name_by_rule(std::string_view s, const NameRule& r, const Source& where,
                                        Diagnostics& d) {
  // The messages are built only when needed: a 10,000-row node table passes through here.
  if (s.empty()) {
    return bad<std::string>(
        where, d, std::string(r.article) + " " + std::string(r.noun) + " cannot be empty");
  }
  if (s.size() > r.max) {
    return bad<std::string>(where, d,
                            std::string(r.noun) + " " + shown(s) + " is longer than " +
                                std::to_string(r.max) + " bytes");
  }
  if (!std::all_of(s.begin(), s.end(), r.allowed)) {
    return bad<std::string>(where, d,
                            std::string(r.noun) + " " + shown(s) + " " + std::string(r.refused));
  }
  return std::string(s);
}

// MODULE_NAME_LEN (include/linux/module.h) is 64 - sizeof(unsigned long) with the NUL.
// Module names are made of these characters (the kernel builds them from file names with
// '-' as '_'); a '/' or a ".ko" names a file, which modprobe would look up as an alias.
constexpr NameRule kModuleName{"module name", "a", 55,
                               [](char c) { return alnum(c) || c == '_' || c == '-'; },
                               "may contain only letters, digits, '_' and '-'"};

// The kernel's dev_valid_name() (net/core/dev.c): not empty, shorter than IFNAMSIZ (16),
// no '/', ':' or white space (and not "." or ".."). Control characters are refused as
// well: they would garble every log line and udev rule that prints the name.
constexpr NameRule kIfname{"interface name", "an", 15,
                           [](char c) {
                             unsigned char u = static_cast<unsigned char>(c);
                             return c != '/' && c != ':' && !std::isspace(u) && u >= 0x20 &&
                                    u != 0x7f;
                           },
                           "contains '/', ':', a space or a control character"};

// IB_DEVICE_NAME_MAX (include/rdma/ib_verbs.h) is 64 with the NUL. The kernel allows
// more characters; we keep to those safe in sysfs and configfs paths.
constexpr NameRule kRdmaName{"RDMA device name", "an", 63,
                             [](char c) { return alnum(c) || c == '_' || c == '-' || c == '.'; },
                             "may contain only letters, digits, '_', '-' and '.'"};

}  // namespace

std::optional<std::string> parse_module_name(std::string_view s, const Source& where,
                                             Diagnostics& d) {
  auto name = name_by_rule(s, kModuleName, where, d);
  // libkmod's modname_normalize() makes '-' and '_' the same; the kernel names them with '_'.
  if (name) *name = modprobe_name(*name);
  return name;
}

std::optional<std::string> parse_ifname(std::string_view s, const Source& where, Diagnostics& d) {
  auto name = name_by_rule(s, kIfname, where, d);
  if (name && (s == "." || s == "..")) {
    return bad<std::string>(where, d, "interface name " + shown(s) + " is reserved");
  }
  return name;
}

std::string udev_refuses_ifname(std::string_view s) {
  // src/basic/socket-util.c ifname_valid_full and ifname_valid_char (systemd 252..257).
  if (s == "all" || s == "default") {
    return "would stand for every interface in /proc/sys/net/ipv4/conf/" + std::string(s) +
           ", so udev and systemd refuse it (ifname_valid_full)";
  }
  if (!s.empty() && std::all_of(s.begin(), s.end(), digit)) {
    return "is digits only, which udev and systemd take for an interface index and refuse "
           "as a name (ifname_valid_full)";
  }
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 127) return "has a byte outside ASCII, which udev refuses (ifname_valid_char)";
    if (u <= 32 || c == ':' || c == '/' || c == '%')
      return "has a space, a control character, ':', '/' or '%', which udev refuses "
             "(ifname_valid_char)";
  }
  if (s.empty() || s.size() >= 16 || s == "." || s == "..")
    return "is empty, longer than 15 bytes, '.' or '..', which udev refuses (ifname_valid_full)";
  return "";
}

std::optional<std::string> parse_new_ifname(std::string_view s, const Source& where,
                                            Diagnostics& d) {
  auto name = parse_ifname(s, where, d);
  if (!name) return std::nullopt;
  // A name with '%' is a template to the kernel (net/core/dev.c dev_get_valid_name ->
  // dev_prep_valid_name: "ib%d" becomes the first free ib<N>), not a name.
  if (s.find('%') != std::string_view::npos) {
    return bad<std::string>(where, d,
                            "interface name " + shown(s) +
                                " contains '%': the kernel takes it as a template (ib%d -> "
                                "the first free ib<N>)");
  }
  if (auto why = udev_refuses_ifname(s); !why.empty()) {
    return bad<std::string>(where, d, "interface name " + shown(s) + " " + why);
  }
  // The kernel's own names: renaming to one of them collides with the next device that
  // gets it by default.
  if (is_kernel_own_name(s)) {
    return bad<std::string>(where, d,
                            "interface name " + shown(s) + " is of the kernel's own " +
                                std::string(starts_with(s, "ib") ? "ib" : "eth") +
                                "<N> form and would collide with an unrenamed device");
  }
  return name;
}

bool is_kernel_own_name(std::string_view s) {
  for (std::string_view prefix : {"ib", "eth"}) {
    std::string_view n = s.substr(std::min(prefix.size(), s.size()));
    if (starts_with(s, prefix) && !n.empty() && std::all_of(n.begin(), n.end(), digit)) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> parse_rdma_name(std::string_view s, const Source& where,
                                           Diagnostics& d) {
  return name_by_rule(s, kRdmaName, where, d);
}

// ---- Numbers -----------------------------------------------------------------------------

// Decimal or 0x hex (parse_uint), within lo..hi.
static std::optional<unsigned> ranged(std::string_view s, const std::string& what, unsigned lo,
                                      unsigned hi, const Source& where, Diagnostics& d) {
  auto v = parse_uint(s);
  if (!v) return bad<unsigned>(where, d, what + " " + shown(s) + " is not a number");
  if (*v < lo || *v > hi) {
    return bad<unsigned>(where, d,
                         what + " " + shown(s) + " is out of range " + std::to_string(lo) + ".." +
                             std::to_string(hi));
  }
  return static_cast<unsigned>(*v);
}

std::optional<unsigned> parse_timeout(std::string_view s, const Source& where, Diagnostics& d) {
  return ranged(s, "timeout", 1, 3600, where, d);
}

std::optional<unsigned> parse_netdev_mtu(std::string_view s, const Source& where, Diagnostics& d) {
  // 68: the least IPv4 allows (RFC 791, the kernel's ETH_MIN_MTU). 65520: IPoIB's connected
  // mode maximum, IPOIB_CM_MTU (drivers/infiniband/ulp/ipoib/ipoib.h).
  return ranged(s, "MTU", 68, 65520, where, d);
}

std::optional<unsigned> parse_ib_mtu(std::string_view s, const Source& where, Diagnostics& d) {
  // The IB MTUs (enum ib_mtu, include/rdma/ib_verbs.h): what mlx4_port<N>_mtu takes
  // (drivers/net/ethernet/mellanox/mlx4/main.c, int_to_ibta_mtu).
  auto v = parse_uint(s);
  if (v && (*v == 256 || *v == 512 || *v == 1024 || *v == 2048 || *v == 4096)) {
    return static_cast<unsigned>(*v);
  }
  return bad<unsigned>(where, d,
                       "IB port MTU " + shown(s) + " is not one of 256, 512, 1024, 2048, 4096");
}

std::optional<unsigned> parse_tos(std::string_view s, const Source& where, Diagnostics& d) {
  // The rdma_cm's default_roce_tos is a u8 (drivers/infiniband/core/cma_configfs.c).
  return ranged(s, "ToS", 0, 255, where, d);
}

std::optional<uint16_t> parse_pkey(std::string_view s, const Source& where, Diagnostics& d) {
  // Always hexadecimal: administrators and every tool write P_Keys in hex.
  auto v = parse_hex(s);
  if (!v) {
    return bad<uint16_t>(where, d,
                         "P_Key " + shown(s) + " is not a hexadecimal number (e.g. 0x8001)");
  }
  if (*v > 0xffff) {
    return bad<uint16_t>(where, d, "P_Key " + shown(s) + " is out of range (at most 0xffff)");
  }
  // IPoIB's create_child (drivers/infiniband/ulp/ipoib/ipoib_main.c) refuses these two: a
  // partition number of 0 is the IBA's invalid P_Key.
  if ((*v & 0x7fff) == 0) {
    return bad<uint16_t>(
        where, d, "P_Key " + shown(s) + " is invalid: 0x0000 and 0x8000 have no partition number");
  }
  return static_cast<uint16_t>(*v);
}

std::string_view pfc_param(PfcDirection dir) {
  return dir == PfcDirection::kTx ? "pfctx" : "pfcrx";
}

std::optional<unsigned> parse_pfc_mask(std::string_view s, PfcDirection dir, const Source& where,
                                       Diagnostics& d) {
  // mlx4_en's pfctx/pfcrx are uint module parameters, which the kernel reads with
  // kstrtouint(s, 0) (kernel/params.c, param_set_uint): decimal, 0x hex, and octal after a
  // leading zero. Read the same way wherever they are written, they mean one thing.
  const std::string what(pfc_param(dir));
  const std::string_view given = s;
  // kstrtoull (lib/kstrtox.c) takes one leading '+' before the number, never a '-'.
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  uint64_t v = 0;
  if (s.size() > 1 && s[0] == '0' && s[1] != 'x' && s[1] != 'X') {
    if (s.find_first_not_of("01234567") != std::string_view::npos) {
      return bad<unsigned>(where, d,
                           what + " " + shown(given) +
                               " is not a number: with a leading zero the kernel reads octal");
    }
    for (char c : s) v = std::min<uint64_t>(v * 8 + static_cast<uint64_t>(c - '0'), 0x1000);
    if (v <= 0xff && v >= 8) {
      d.warn(where, what + " " + shown(given) +
                        " has a leading zero: the kernel reads it as octal, 0x" + hex(v, 2));
    }
  } else if (auto n = parse_uint(s)) {
    v = *n;
  } else {
    return bad<unsigned>(
        where, d, what + " " + shown(given) + " is not a number (a priority bitmask, e.g. 0x08)");
  }
  if (v > 0xff)
    return bad<unsigned>(where, d, what + " " + shown(given) + " is out of range 0..0xff");
  return static_cast<unsigned>(v);
}

}  // namespace rp
