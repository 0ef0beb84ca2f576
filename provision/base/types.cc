#include "provision/base/types.h"

#include <arpa/inet.h>
#include <net/if_arp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "provision/base/strings.h"

namespace rp {

static_assert(kArphrdEther == ARPHRD_ETHER, "ARPHRD_ETHER");
static_assert(kArphrdInfiniband == ARPHRD_INFINIBAND, "ARPHRD_INFINIBAND");
static_assert(kArphrdLoopback == ARPHRD_LOOPBACK, "ARPHRD_LOOPBACK");

// The value of a hex digit, or -1.
static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parse colon-separated hex groups each of `group_chars` hex digits into bytes. No
// allocation: node tables with thousands of GUIDs and MACs are read at every boot.
static bool parse_groups(std::string_view s, size_t group_chars, uint8_t* out, size_t nbytes) {
  const size_t groups = nbytes * 2 / group_chars;
  if (s.size() != groups * group_chars + (groups - 1)) return false;
  size_t k = 0;
  for (size_t g = 0; g < groups; ++g) {
    const size_t at = g * (group_chars + 1);
    if (g > 0 && s[at - 1] != ':') return false;
    for (size_t i = 0; i < group_chars; i += 2) {
      const int hi = hex_digit(s[at + i]), lo = hex_digit(s[at + i + 1]);
      if (hi < 0 || lo < 0) return false;
      out[k++] = static_cast<uint8_t>(hi << 4 | lo);
    }
  }
  return true;
}

std::optional<PortGuid> PortGuid::parse(std::string_view s) {
  uint8_t b[8];
  if (starts_with(s, "0x") || starts_with(s, "0X")) {
    if (s.size() != 18) return std::nullopt;
    auto v = parse_hex(s);
    if (!v) return std::nullopt;
    return PortGuid{*v};
  }
  if (!parse_groups(s, 2, b, 8) && !parse_groups(s, 4, b, 8)) return std::nullopt;
  uint64_t v = 0;
  for (uint8_t x : b) v = (v << 8) | x;
  return PortGuid{v};
}

std::string PortGuid::str() const {
  return hex(value >> 48, 4) + ":" + hex((value >> 32) & 0xffff, 4) + ":" +
         hex((value >> 16) & 0xffff, 4) + ":" + hex(value & 0xffff, 4);
}

std::string PortGuid::colon_bytes() const {
  std::string out;
  for (int i = 7; i >= 0; --i) {
    out += hex((value >> (8 * i)) & 0xff, 2);
    if (i) out += ':';
  }
  return out;
}

std::optional<MacAddress> MacAddress::parse(std::string_view s) {
  MacAddress m;
  if (!parse_groups(s, 2, m.bytes.data(), 6)) return std::nullopt;
  return m;
}

std::string MacAddress::str() const {
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out += ':';
    out += hex(bytes[i], 2);
  }
  return out;
}

std::optional<HwAddress> HwAddress::parse(std::string_view s) {
  auto parts = split(trim(s), ':');
  if (parts.empty() || parts.size() > 20) return std::nullopt;
  HwAddress a;
  for (auto p : parts) {
    if (p.size() != 2) return std::nullopt;
    auto v = parse_hex(p);
    if (!v || p.find_first_of("xX") != std::string_view::npos) return std::nullopt;
    a.bytes[a.len++] = static_cast<uint8_t>(*v);
  }
  return a;
}

std::string HwAddress::str() const {
  std::string out;
  for (size_t i = 0; i < len; ++i) {
    if (i) out += ':';
    out += hex(bytes[i], 2);
  }
  return out;
}

std::optional<PortGuid> HwAddress::ipoib_guid() const {
  if (len != 20) return std::nullopt;
  uint64_t v = 0;
  for (size_t i = 12; i < 20; ++i) v = (v << 8) | bytes[i];
  return PortGuid{v};
}

std::optional<uint16_t> HwAddress::ipoib_broadcast_pkey() const {
  if (len != 20) return std::nullopt;
  return static_cast<uint16_t>(bytes[8] << 8 | bytes[9]);
}

std::optional<MacAddress> MacAddress::of_iwarp_gid(std::string_view gid) {
  auto groups = split(trim(gid), ':');
  if (groups.size() != 8) return std::nullopt;
  for (size_t i = 3; i < 8; ++i)
    if (groups[i] != "0000") return std::nullopt;
  std::string mac;
  for (size_t i = 0; i < 3; ++i) {
    if (groups[i].size() != 4) return std::nullopt;
    mac += (i ? ":" : "") + std::string(groups[i].substr(0, 2)) + ":" +
           std::string(groups[i].substr(2, 2));
  }
  auto m = MacAddress::parse(mac);
  if (!m || *m == MacAddress{}) return std::nullopt;
  return m;
}

std::optional<MacAddress> HwAddress::mac() const {
  if (len != 6) return std::nullopt;
  MacAddress m;
  for (size_t i = 0; i < 6; ++i) m.bytes[i] = bytes[i];
  return m;
}

std::optional<PciAddress> PciAddress::parse(std::string_view s) {
  auto parts = split(s, ':');
  if (parts.size() == 2) parts.insert(parts.begin(), "0000");
  if (parts.size() != 3 || parts[0].size() < 4 || parts[0].size() > 8 || parts[1].size() != 2) {
    return std::nullopt;
  }
  auto dot = split(parts[2], '.');
  if (dot.size() != 2 || dot[0].size() != 2 || dot[1].size() != 1) return std::nullopt;
  auto dom = parse_hex(parts[0]), bus = parse_hex(parts[1]), dev = parse_hex(dot[0]),
       fn = parse_hex(dot[1]);
  for (auto p : {parts[0], parts[1], dot[0], dot[1]})
    if (p.find_first_of("xX") != std::string_view::npos) return std::nullopt;
  if (!dom || !bus || !dev || !fn || *dev > 0x1f || *fn > 7) return std::nullopt;
  PciAddress a;
  a.domain = static_cast<uint32_t>(*dom);
  a.bus = static_cast<uint8_t>(*bus);
  a.device = static_cast<uint8_t>(*dev);
  a.function = static_cast<uint8_t>(*fn);
  return a;
}

std::string PciAddress::str() const {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return buf;
}

PortState parse_port_state(std::string_view v) {
  // "4: ACTIVE": the number is authoritative, the word is for people.
  auto colon = v.find(':');
  auto n = parse_uint(trim(v.substr(0, colon)));
  if (!n || *n > 5) return PortState::kUnknown;
  return static_cast<PortState>(*n);
}

std::string_view to_string(PortState s) {
  switch (s) {
    case PortState::kDown:
      return "DOWN";
    case PortState::kInit:
      return "INIT";
    case PortState::kArmed:
      return "ARMED";
    case PortState::kActive:
      return "ACTIVE";
    case PortState::kActiveDefer:
      return "ACTIVE_DEFER";
    case PortState::kUnknown:
      break;
  }
  return "UNKNOWN";
}

LinkLayer parse_link_layer(std::string_view s) {
  s = trim(s);
  if (s == "InfiniBand") return LinkLayer::kInfiniBand;
  if (s == "Ethernet") return LinkLayer::kEthernet;
  return LinkLayer::kUnknown;
}

std::string_view to_string(LinkLayer l) {
  switch (l) {
    case LinkLayer::kInfiniBand:
      return "InfiniBand";
    case LinkLayer::kEthernet:
      return "Ethernet";
    case LinkLayer::kUnknown:
      break;
  }
  return "unknown";
}

std::optional<PortType> parse_port_type(std::string_view s) {
  if (s == "ib") return PortType::kIb;
  if (s == "eth") return PortType::kEth;
  if (s == "auto") return PortType::kAuto;
  return std::nullopt;
}

std::string_view to_string(PortType t) {
  switch (t) {
    case PortType::kIb:
      return "ib";
    case PortType::kEth:
      return "eth";
    case PortType::kAuto:
      return "auto";
  }
  return "?";
}

LinkLayer Mlx4PortType::link_layer() const {
  return effective == PortType::kEth ? LinkLayer::kEthernet : LinkLayer::kInfiniBand;
}

std::string Mlx4PortType::str() const {
  const std::string type(to_string(effective));
  return is_auto() ? "auto (" + type + ")" : type;
}

std::optional<IpoibMode> parse_ipoib_mode(std::string_view s) {
  if (s == "datagram") return IpoibMode::kDatagram;
  if (s == "connected") return IpoibMode::kConnected;
  return std::nullopt;
}

std::string_view to_string(IpoibMode m) {
  return m == IpoibMode::kConnected ? "connected" : "datagram";
}

std::string arphrd_name(int type) {
  switch (type) {
    case kArphrdEther:
      return "ether";
    case kArphrdInfiniband:
      return "infiniband";
    case kArphrdLoopback:
      return "loopback";
    case ARPHRD_NONE:
      return "none";
    case ARPHRD_IPGRE:
      return "gre";
    case ARPHRD_TUNNEL:
      return "ipip";
    case ARPHRD_TUNNEL6:
      return "ip6tnl";
    case ARPHRD_SIT:
      return "sit";
    default:
      return std::to_string(type);
  }
}

std::optional<IpAddress> IpAddress::parse(std::string_view s) {
  const std::string text(s);
  IpAddress a;
  a.v6 = text.find(':') != std::string::npos;
  if (inet_pton(a.v6 ? AF_INET6 : AF_INET, text.c_str(), a.bytes.data()) != 1) return std::nullopt;
  return a;
}

std::string IpAddress::str() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<IpPrefix> IpPrefix::parse(std::string_view cidr) {
  const auto slash = cidr.find('/');
  auto addr = IpAddress::parse(cidr.substr(0, slash));
  if (!addr) return std::nullopt;
  IpPrefix p{*addr, addr->v6 ? 128u : 32u};
  if (slash != std::string_view::npos) {
    const std::string_view len = cidr.substr(slash + 1);
    if (len.empty() || len.size() > 3 || len.find_first_not_of("0123456789") != len.npos) {
      return std::nullopt;
    }
    auto n = parse_uint(len);
    if (!n || *n > p.length) return std::nullopt;
    p.length = static_cast<unsigned>(*n);
  }
  return p;
}

std::string IpPrefix::str() const { return address.str() + "/" + std::to_string(length); }

std::string_view to_string(DcbTrust t) { return t == DcbTrust::kDscp ? "dscp" : "pcp"; }

DcbTrust DcbState::effective_trust() const {
  if (trust && !trust->empty()) {
    return (*trust)[0] == 5 ? DcbTrust::kDscp : DcbTrust::kPcp;  // IEEE_8021QAZ_APP_SEL_DSCP
  }
  return dscp_prio.empty() ? DcbTrust::kPcp : DcbTrust::kDscp;
}

std::optional<uint8_t> DcbState::roce_priority(unsigned tos) const {
  if (effective_trust() == DcbTrust::kPcp) return 0;
  auto it = dscp_prio.find(static_cast<uint8_t>((tos & 0xff) >> 2));
  if (it == dscp_prio.end()) return std::nullopt;
  return it->second;
}

std::string DcbState::pfc_text() const {
  if (!pfc_en) return "unknown";
  std::string out;
  for (unsigned p = 0; p < 8; ++p) {
    if (*pfc_en & (1u << p)) out += (out.empty() ? "" : ",") + std::to_string(p);
  }
  return out.empty() ? "none" : out;
}

std::optional<RoceMode> parse_roce_mode(std::string_view s) {
  if (s == "v1") return RoceMode::kV1;
  if (s == "v2") return RoceMode::kV2;
  return std::nullopt;
}

std::string_view to_string(RoceMode m) { return m == RoceMode::kV1 ? "v1" : "v2"; }

std::string_view configfs_value(RoceMode m) {
  return m == RoceMode::kV1 ? "IB/RoCE v1" : "RoCE v2";
}

std::string_view to_string(SoftKind k) { return k == SoftKind::kRxe ? "rxe" : "siw"; }
std::string_view module_of(SoftKind k) { return k == SoftKind::kRxe ? "rdma_rxe" : "siw"; }

bool prefix_contains(const IpPrefix& p, const IpAddress& a) {
  if (p.address.v6 != a.v6) return false;
  const unsigned bits = std::min<unsigned>(p.length, a.v6 ? 128 : 32);
  const unsigned whole = bits / 8, rest = bits % 8;
  if (std::memcmp(p.address.bytes.data(), a.bytes.data(), whole) != 0) return false;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (p.address.bytes[whole] & mask) == (a.bytes[whole] & mask);
}

}  // namespace rp
