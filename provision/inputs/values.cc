#include "provision/inputs/values.h"

#include <arpa/inet.h>

#include <cctype>

#include "provision/base/strings.h"

namespace rp {

std::vector<std::string_view> split_list(std::string_view s) {
  std::vector<std::string_view> out;
  for (auto part : split(s, ','))
    for (auto w : split_ws(part)) out.push_back(w);
  return out;
}

std::string_view strip_comment(std::string_view line) {
  auto hash = line.find('#');
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

std::optional<bool> parse_bool(std::string_view s) {
  std::string v = to_lower(s);
  if (v == "1" || v == "yes" || v == "on" || v == "true") return true;
  if (v == "0" || v == "no" || v == "off" || v == "false") return false;
  return std::nullopt;
}

std::string check_module_name(std::string_view name) {
  if (name.empty()) return "a module name cannot be empty";
  if (name.size() > 55) return "module name " + quote(name) + " is longer than 55 bytes";
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      return "module name " + quote(name) + " may contain only letters, digits, '_' and '-'";
    }
  }
  return "";
}

std::string normalize_module(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

void add_blacklist(Config& cfg, std::string name, const std::string& where) {
  for (const auto& b : cfg.blacklist)
    if (b.value == name) return;
  cfg.blacklist.push_back({std::move(name), where});
}

std::string check_cidr(std::string_view s, std::optional<IpPrefix>* out) {
  auto slash = s.find('/');
  if (slash == std::string_view::npos) {
    return "address " + quote(s) + " has no prefix length (e.g. 10.0.0.5/24)";
  }
  auto addr = IpAddress::parse(s.substr(0, slash));
  if (!addr) return "address " + quote(s) + " is not an IPv4 or IPv6 address";
  // The one parser of a prefix (base/types.cc): decimal length, within the family's range.
  auto prefix = IpPrefix::parse(s);
  if (!prefix) {
    return "address " + quote(s) + " has an invalid prefix length (" +
           (addr->v6 ? "0..128" : "0..32") + ")";
  }
  if (out) *out = prefix;
  return "";
}

std::optional<uint16_t> parse_pkey(std::string_view s, const std::string& where, Diagnostics& d) {
  auto v = parse_hex(s);
  if (!v) {
    d.error(where, "P_Key " + quote(s) + " is not a hexadecimal number (e.g. 0x8001)");
    return std::nullopt;
  }
  if (*v > 0xffff) {
    d.error(where, "P_Key " + quote(s) + " is out of range (at most 0xffff)");
    return std::nullopt;
  }
  if ((*v & 0x7fff) == 0) {
    d.error(where, "P_Key " + quote(s) + " is invalid: 0x0000 and 0x8000 have no partition number");
    return std::nullopt;
  }
  return static_cast<uint16_t>(*v);
}

static std::optional<unsigned> ranged(std::string_view s, const std::string& what, unsigned lo,
                                      unsigned hi, const std::string& where, Diagnostics& d) {
  auto v = parse_uint(s);
  if (!v) {
    d.error(where, what + " " + quote(s) + " is not a number");
    return std::nullopt;
  }
  if (*v < lo || *v > hi) {
    d.error(where, what + " " + quote(s) + " is out of range " + std::to_string(lo) + ".." +
                       std::to_string(hi));
    return std::nullopt;
  }
  return static_cast<unsigned>(*v);
}

std::optional<unsigned> parse_tos(std::string_view s, const std::string& where, Diagnostics& d) {
  return ranged(s, "ToS", 0, 255, where, d);
}

std::optional<unsigned> parse_netdev_mtu(std::string_view s, const std::string& where,
                                         Diagnostics& d) {
  return ranged(s, "MTU", 68, 65520, where, d);
}

std::optional<unsigned> parse_ib_mtu(std::string_view s, const std::string& where, Diagnostics& d) {
  auto v = parse_uint(s);
  if (v && (*v == 256 || *v == 512 || *v == 1024 || *v == 2048 || *v == 4096)) {
    return static_cast<unsigned>(*v);
  }
  d.error(where, "IB port MTU " + quote(s) + " is not one of 256, 512, 1024, 2048, 4096");
  return std::nullopt;
}

std::optional<unsigned> parse_pfc_mask(std::string_view s, const std::string& what,
                                       const std::string& where, Diagnostics& d) {
  auto v = parse_uint(s);
  if (!v) {
    d.error(where, what + " " + quote(s) + " is not a number (a priority bitmask, e.g. 0x08)");
    return std::nullopt;
  }
  if (*v > 0xff) {
    d.error(where, what + " " + quote(s) + " is out of range 0..0xff");
    return std::nullopt;
  }
  return static_cast<unsigned>(*v);
}

std::optional<unsigned> parse_timeout(std::string_view s, const std::string& where,
                                      Diagnostics& d) {
  return ranged(s, "timeout", 1, 3600, where, d);
}

std::string check_rdma_name(std::string_view name) {
  if (name.empty()) return "an RDMA device name cannot be empty";
  if (name.size() > 63) return "RDMA device name " + quote(name) + " is longer than 63 bytes";
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return "RDMA device name " + quote(name) +
             " may contain only letters, digits, '_', '-' and '.'";
    }
  }
  return "";
}

static bool valid_ibdev(std::string_view s) { return check_rdma_name(s).empty(); }

std::optional<std::pair<std::string, unsigned>> parse_roce_target(std::string_view s,
                                                                  const std::string& where,
                                                                  Diagnostics& d) {
  auto slash = s.find('/');
  std::string_view dev = s.substr(0, slash);
  if (dev != "*" && !valid_ibdev(dev)) {
    d.error(where, "RDMA device " + quote(dev) + " is not a valid device name or '*'");
    return std::nullopt;
  }
  unsigned port = 0;
  if (slash != std::string_view::npos) {
    auto p = parse_uint(s.substr(slash + 1));
    if (!p || *p < 1 || *p > 255) {
      d.error(where, "port " + quote(s.substr(slash + 1)) + " is not a port number 1..255");
      return std::nullopt;
    }
    port = static_cast<unsigned>(*p);
  }
  return std::pair(std::string(dev), port);
}

void parse_wait_list(std::string_view s, const std::string& where, Config& cfg, Diagnostics& d) {
  for (auto item : split(s, ',')) {
    item = trim(item);
    if (item.empty()) {
      d.error(where, "wait list has an empty entry");
      continue;
    }
    if (item == "all" || item == "none") {
      cfg.wait.push_back({std::string(item), where});
      continue;
    }
    auto slash = item.find('/');
    if (slash != std::string_view::npos) {
      auto dev = item.substr(0, slash);
      auto port = parse_uint(item.substr(slash + 1));
      if (!valid_ibdev(dev) || !port || *port < 1 || *port > 255) {
        d.error(where,
                "wait target " + quote(item) + " is not <ibdev>/<port>, an interface, all or none");
        continue;
      }
    } else if (auto e = check_ifname_syntax(item); !e.empty()) {
      d.error(where, "wait target " + quote(item) + ": " + e);
      continue;
    }
    cfg.wait.push_back({std::string(item), where});
  }
}

std::optional<RouteSetting> parse_route(std::string_view s, const std::string& where,
                                        Diagnostics& d) {
  auto w = split_ws(s);
  if (w.size() != 3 || w[1] != "via") {
    d.error(where, "route " + quote(s) + " is not '<default|prefix> via <gateway>'");
    return std::nullopt;
  }
  std::optional<IpPrefix> destination;
  if (w[0] != "default") {
    if (auto e = check_cidr(w[0], &destination); !e.empty()) {
      d.error(where, "route destination: " + e);
      return std::nullopt;
    }
  }
  auto gw = IpAddress::parse(w[2]);
  if (!gw) {
    d.error(where, "route gateway " + quote(w[2]) + " is not an IPv4 or IPv6 address");
    return std::nullopt;
  }
  return RouteSetting{destination, *gw, where};
}

std::string source_file(const std::string& where) {
  if (starts_with(where, "cmdline")) return "cmdline";
  auto colon = where.rfind(':');
  return colon == std::string::npos ? where : where.substr(0, colon);
}

void set_name(Config& cfg, const std::string& name, const HwKey& key, const std::string& where,
              Diagnostics& d) {
  const std::string file = source_file(where);
  for (auto it = cfg.names.begin(); it != cfg.names.end();) {
    bool same_file = source_file(it->second.source) == file;
    if (it->first == name && !(it->second.value == key)) {
      if (same_file) {
        d.error(where, "name " + quote(name) + " is already given to " + it->second.value.str() +
                           " at " + it->second.source);
        return;
      }
    } else if (it->first != name && it->second.value == key) {
      if (same_file) {
        d.error(where, key.str() + " already has the name " + quote(it->first) + " at " +
                           it->second.source);
        return;
      }
      it = cfg.names.erase(it);  // a later source renames the same device
      continue;
    }
    ++it;
  }
  cfg.names[name] = {key, where};
}

}  // namespace rp
