// Addresses, routes, the verify setting and the NFS server of a root: the one parser of
// each (values.h).
#include <algorithm>
#include <cctype>

#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/inputs/value_error.h"
#include "provision/inputs/values.h"

namespace rp {

std::optional<IpAddress> parse_ip_address(std::string_view s, const Source& where, Diagnostics& d) {
  if (auto a = IpAddress::parse(s)) return a;
  return bad<IpAddress>(where, d, "address " + shown(s) + " is not an IPv4 or IPv6 address");
}

std::optional<BootContext::BootIf> parse_bootif(std::string_view s) {
  std::vector<uint8_t> b;
  for (auto part : split(s, s.find('-') != std::string_view::npos ? '-' : ':')) {
    if (part.size() != 2 || !std::isxdigit(static_cast<unsigned char>(part[0])) ||
        !std::isxdigit(static_cast<unsigned char>(part[1]))) {
      return std::nullopt;
    }
    b.push_back(static_cast<uint8_t>(std::stoul(std::string(part), nullptr, 16)));
  }
  const auto tail = [&](size_t n) {
    uint64_t v = 0;
    for (size_t i = b.size() - n; i < b.size(); ++i) v = v << 8 | b[i];
    return v;
  };
  using Form = BootContext::BootIf::Form;
  BootContext::BootIf r;
  // htype 1 (Ethernet) or 0 (undefined) before a MAC: NetworkManager's generator strips
  // both ("01-", "00-": nmi-cmdline-reader.c, test_bootif_hwtype), dracut's fix_bootif any.
  if ((b.size() == 7 && b[0] <= 1) || b.size() == 6) {
    r = {Form::kMac,
         tail(6),
         b.size() == 7 ? "htype " + std::to_string(b[0]) + " and a MAC" : "a MAC",
         {}};
  } else if ((b.size() == 9 && b[0] == 32) || b.size() == 8) {
    r = {Form::kGuid, tail(8), b.size() == 9 ? "htype 32 and a port GUID" : "a port GUID", {}};
  } else if ((b.size() == 21 && b[0] == 32) || b.size() == 20) {
    r = {Form::kGuid, tail(8), "a 20-byte IPoIB address", {}};
  } else {
    return std::nullopt;
  }
  return r;
}

std::optional<IpAddress> parse_dhcp_address(std::string_view s, const Source& where,
                                            Diagnostics& d) {
  auto a = parse_ip_address(s, where, d);
  if (!a) return std::nullopt;
  if (a->v6) {
    return bad<IpAddress>(where, d,
                          "lease " + shown(s) + " is an IPv6 address; a DHCPv4 host entry " +
                              "hands out IPv4 addresses only");
  }
  const uint8_t first = a->bytes[0];
  const bool zero = a->bytes[0] == 0 && a->bytes[1] == 0 && a->bytes[2] == 0 && a->bytes[3] == 0;
  const bool all =
      a->bytes[0] == 255 && a->bytes[1] == 255 && a->bytes[2] == 255 && a->bytes[3] == 255;
  if (zero || all || (first >= 224 && first <= 239)) {
    return bad<IpAddress>(where, d,
                          "lease " + shown(s) + " is not a host's address (0.0.0.0, " +
                              "255.255.255.255 and multicast are none)");
  }
  return a;
}

std::optional<std::string> parse_hostname(std::string_view s, const Source& where, Diagnostics& d) {
  const auto refuse = [&](const std::string& why) {
    return bad<std::string>(where, d, "host name " + shown(s) + " " + why);
  };
  if (s.empty() || s.size() > 253) return refuse("is not 1..253 bytes long");
  size_t start = 0;
  for (;;) {
    const size_t dot = s.find('.', start);
    const std::string_view label = s.substr(start, dot - start);
    if (label.empty() || label.size() > 63) return refuse("has a label that is not 1..63 bytes");
    if (label.front() == '-' || label.back() == '-')
      return refuse("has a label that starts or ends with '-'");
    for (char c : label) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-')
        return refuse("has " + shown(std::string(1, c)) + ": letters, digits and '-' only");
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return std::string(s);
}

// "ADDR", "ADDR:PORT", "[V6]", "[V6]:PORT" (an IPv6 address with a port needs brackets).
std::optional<Endpoint> parse_endpoint(std::string_view s) {
  std::string_view addr = s, port;
  if (starts_with(s, "[")) {
    const size_t close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    addr = s.substr(1, close - 1);
    std::string_view rest = s.substr(close + 1);
    if (!rest.empty() && (rest[0] != ':' || rest.size() == 1)) return std::nullopt;
    if (!rest.empty()) port = rest.substr(1);
  } else if (std::count(s.begin(), s.end(), ':') == 1) {
    addr = s.substr(0, s.find(':'));
    port = s.substr(s.find(':') + 1);
  }
  auto a = IpAddress::parse(addr);
  if (!a) return std::nullopt;
  if (port.empty()) return Endpoint{*a, std::nullopt};
  auto n = parse_uint(port);
  if (!n || *n < 1 || *n > 65535) return std::nullopt;
  return Endpoint{*a, static_cast<uint16_t>(*n)};
}

std::optional<VerifySetting> parse_verify(std::string_view s, const Source& where, Diagnostics& d) {
  VerifySetting v;
  if (s == "0" || s == "off" || s == "no") return v;
  if (s == "ports") {
    v.mode = VerifySetting::Mode::kPorts;
    return v;
  }
  if (s == "peer" || starts_with(s, "peer:")) {
    v.mode = VerifySetting::Mode::kPeer;
    if (s == "peer") return v;
    auto ep = parse_endpoint(s.substr(5));
    if (!ep) {
      return bad<VerifySetting>(where, d,
                                "peer " + shown(s.substr(5)) +
                                    " is not ADDR, ADDR:PORT or [IPv6]:PORT (an IP address: "
                                    "rdma_cm resolves addresses, not names)");
    }
    v.peer = ep->address;
    if (ep->port) v.port = *ep->port;
    return v;
  }
  return bad<VerifySetting>(
      where, d, "verify " + shown(s) + " is not one of 0, ports, peer, peer:ADDR[:PORT]");
}

std::optional<std::string_view> nfs_root_server_text(std::string_view root) {
  std::string_view rest;
  if (starts_with(root, "nfs4:")) {
    rest = root.substr(5);
  } else if (starts_with(root, "nfs:")) {
    rest = root.substr(4);
  } else {
    return std::nullopt;
  }
  std::string_view server;
  if (starts_with(rest, "//")) {  // RFC 2224: nfs://SERVER[:PORT]/PATH
    rest = rest.substr(2);
    server = rest.substr(0, rest.find('/'));
    if (starts_with(server, "[")) {
      server =
          server.substr(1, server.find(']') == std::string_view::npos ? 0 : server.find(']') - 1);
    } else {
      server = server.substr(0, server.find(':'));
    }
  } else {
    const size_t path = rest.find(":/");  // nfsroot_to_var: the server is what precedes ":/"
    if (path == std::string_view::npos) return std::string_view();  // nfs:/path: none
    server = rest.substr(0, path);
    if (starts_with(server, "[") && ends_with(server, "]"))
      server = server.substr(1, server.size() - 2);
  }
  return server;
}

std::optional<IpAddress> nfs_root_server(std::string_view root) {
  auto server = nfs_root_server_text(root);
  return server ? IpAddress::parse(*server) : std::nullopt;
}

std::optional<IpPrefix> parse_prefix(std::string_view s, const Source& where, Diagnostics& d) {
  // ip-address(8)'s ADDRESS/PREFIX-LENGTH, with the length required here: a forgotten /24
  // must not become a host address.
  auto slash = s.find('/');
  if (slash == std::string_view::npos) {
    return bad<IpPrefix>(where, d,
                         "address " + shown(s) + " has no prefix length (e.g. 10.0.0.5/24)");
  }
  // The one parser of a prefix (provision/base/types.cc): decimal length, within the family's
  // range. The address alone is looked at only to word a failure.
  if (auto prefix = IpPrefix::parse(s)) return prefix;
  auto addr = parse_ip_address(s.substr(0, slash), where, d);
  if (!addr) return std::nullopt;
  return bad<IpPrefix>(where, d,
                       "address " + shown(s) + " has an invalid prefix length (" +
                           (addr->v6 ? "0..128" : "0..32") + ")");
}

std::optional<RouteSetting> parse_route(std::string_view s, const Source& where, Diagnostics& d) {
  auto w = split_ws(s);
  if (w.size() != 3 || w[1] != "via") {
    return bad<RouteSetting>(where, d,
                             "route " + shown(s) + " is not '<default|prefix> via <gateway>'");
  }
  std::optional<IpPrefix> destination;
  if (w[0] != "default" && !(destination = parse_prefix(w[0], where, d))) return std::nullopt;
  auto gateway = parse_ip_address(w[2], where, d);
  if (!gateway) return std::nullopt;
  return RouteSetting{destination, *gateway, where};
}

}  // namespace rp
