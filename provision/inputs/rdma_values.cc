// RDMA device selectors, RoCE targets and the wait list: the one parser of each (values.h).
#include <algorithm>
#include <cctype>

#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/inputs/value_error.h"
#include "provision/inputs/values.h"

namespace rp {

std::optional<RdmaSelector> parse_rdma_selector(std::string_view s, bool star_ok,
                                                const Source& where, Diagnostics& d) {
  if (s == "*") {
    if (star_ok) return RdmaSelector::all();
    return bad<RdmaSelector>(where, d, "'*' cannot be waited for: name a device and a port");
  }
  auto after = [&](std::string_view prefix) -> std::optional<std::string_view> {
    if (!starts_with(s, prefix)) return std::nullopt;
    return s.substr(prefix.size());
  };
  RdmaSelector sel;
  if (auto v = after("pci-")) {
    auto a = PciAddress::parse(*v);
    if (!a) {
      return bad<RdmaSelector>(where, d,
                               "PCI address " + shown(*v) + " is not of the form 0000:af:00.0");
    }
    sel.by = RdmaSelector::By::kPci;
    sel.pci = *a;
    return sel;
  }
  if (auto v = after("guid-")) {
    // rdma_rename's own spelling (16 hex digits, kernel-boot/rdma_rename.c by_guid) too.
    auto g = v->size() == 16 && std::all_of(v->begin(), v->end(), isxdigit)
                 ? PortGuid::parse("0x" + std::string(*v))
                 : PortGuid::parse(*v);
    if (!g) {
      return bad<RdmaSelector>(
          where, d, "node GUID " + shown(*v) + " is not of the form 9803:9b03:0046:8a10");
    }
    sel.by = RdmaSelector::By::kNodeGuid;
    sel.guid = *g;
    return sel;
  }
  if (auto v = after("netdev-")) {
    auto n = parse_ifname(*v, where, d);
    if (!n) return std::nullopt;
    sel.by = RdmaSelector::By::kNetdev;
    sel.name = *n;
    return sel;
  }
  auto n = parse_rdma_name(s, where, d);
  if (!n) return std::nullopt;
  return RdmaSelector::named(*n);
}

// "<selector>[/<port>]": the port is a number; a netdev- selector has its port already.
static std::optional<std::pair<RdmaSelector, unsigned>> device_port(std::string_view s,
                                                                    bool star_ok,
                                                                    const Source& where,
                                                                    Diagnostics& d) {
  auto slash = s.find('/');
  auto dev = parse_rdma_selector(s.substr(0, slash), star_ok, where, d);
  unsigned port = 0;  // every port
  bool ok = dev.has_value();
  if (slash != std::string_view::npos) {
    auto p = parse_port_number(s.substr(slash + 1), where, d);
    ok = ok && p;
    port = p.value_or(0);
    if (ok && dev->by == RdmaSelector::By::kNetdev) {
      return bad<std::pair<RdmaSelector, unsigned>>(
          where, d, shown(s) + ": an interface names its port itself; write " + shown(dev->str()));
    }
  }
  if (!ok) return std::nullopt;
  return std::pair(*dev, port);
}

std::optional<std::pair<RdmaSelector, unsigned>> parse_roce_target(std::string_view s,
                                                                   const Source& where,
                                                                   Diagnostics& d) {
  return device_port(s, true, where, d);
}

void parse_wait_list(std::string_view s, const Source& where, Config& cfg, Diagnostics& d) {
  for (auto item : split(s, ',')) {
    item = trim(item);
    if (item.empty()) {
      d.error(where, "wait list has an empty entry");
      continue;
    }
    WaitItem w;
    if (item == "all") {
      w.kind = WaitItem::Kind::kAll;
    } else if (item == "none") {
      w.kind = WaitItem::Kind::kNone;
    } else if (item.find('/') != std::string_view::npos || starts_with(item, "netdev-") ||
               starts_with(item, "pci-") || starts_with(item, "guid-")) {
      // An interface name never has a '/': this is <device>/<port> (or a netdev- port).
      auto dp = device_port(item, false, where, d);
      if (!dp) continue;
      if (dp->first.by != RdmaSelector::By::kNetdev && dp->second == 0) {
        d.error(where,
                "wait for " + shown(item) + ": name the port too (" + std::string(item) + "/1)");
        continue;
      }
      w.kind = WaitItem::Kind::kPort;
      w.device = dp->first;
      w.port = dp->second;
    } else {
      auto n = parse_ifname(item, where, d);
      if (!n) continue;
      w.kind = WaitItem::Kind::kLink;
      w.ifname = *n;
    }
    cfg.wait.push_back({w, where});
  }
}

}  // namespace rp
