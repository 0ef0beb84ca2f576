// Links up, then addresses and routes (rtnetlink RTM_NEWLINK IFF_UP, RTM_NEWADDR,
// RTM_NEWROUTE, as `ip link set up`, `ip addr add`, `ip route add` send them). A renamed
// or reconfigured link that was up stays up (its executor restores it): only links that
// are down, or do not exist yet, get a link-up action.
#include "provision/plan/builder.h"

namespace rp {

std::optional<size_t> plan_link_up(PlanBuilder& b, const std::string& ifname,
                                   const std::string& reason) {
  if (auto up = b.up_action(ifname)) return up;
  const Iface* f = b.iface(ifname);
  if (!f) return std::nullopt;
  if (f->netdev && f->netdev->admin_up) return std::nullopt;
  Action a{LinkUp{ifname}, f->netdev ? "down" : "absent", reason};
  if (!f->netdev) a.waiting_for = ifname;
  PlanBuilder::need(a, f->producer);
  const size_t i = b.add(std::move(a));
  b.set_up_action(ifname, i);
  return i;
}

namespace {

void link_up(PlanBuilder& b, const std::string& ifname, const std::string& reason) {
  plan_link_up(b, ifname, reason);
}

}  // namespace

void plan_links_up(PlanBuilder& b) {
  const Config& cfg = b.cfg;
  for (const auto& [name, key] : cfg.names) link_up(b, name, key.source);
  for (const auto& [k, c] : cfg.pkeys) {
    link_up(b, c.parent, c.source);
    link_up(b, c.child_name(), c.source);
  }
  for (const auto& [ifname, s] : cfg.ipoib) {
    link_up(b, ifname,
            s.mode  ? s.mode->source.str()
            : s.mtu ? s.mtu->source.str()
                    : "IPoIB settings");
  }
  for (const auto& [ifname, list] : cfg.addresses) link_up(b, ifname, list.front().source);
  for (const auto& [netdev, l] : cfg.soft_links) link_up(b, b.final_name(netdev), l.source);
  for (const auto& [w, source] : cfg.effective_waits()) {
    if (w.kind == WaitItem::Kind::kLink) link_up(b, w.ifname, source);
  }
}

void plan_addresses(PlanBuilder& b) {
  for (const auto& [ifname, list] : b.cfg.addresses) {
    const Iface* f = b.iface(ifname);
    if (!f) {
      b.absent_iface(list.front().source, "addresses", "interface", ifname);
      continue;
    }
    std::optional<size_t> last;
    for (const auto& address : list) {
      Action a{AddAddress{ifname, address.prefix}, "unknown", address.source};
      if (!f->netdev) a.waiting_for = ifname;
      PlanBuilder::need(a, f->producer);
      PlanBuilder::need(a, b.up_action(ifname));
      last = b.add(std::move(a));
    }
    auto routes = b.cfg.routes.find(ifname);
    if (routes == b.cfg.routes.end()) continue;
    for (const auto& r : routes->second) {
      Action a{AddRoute{ifname, r.destination, r.gateway}, "unknown", r.source};
      PlanBuilder::need(a, last);  // after the interface's addresses
      last = b.add(std::move(a));
    }
  }
}

}  // namespace rp
