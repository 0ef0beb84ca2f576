// Route netlink, wrapped once here (libnl builds and parses the messages): the rest of the
// program never sees a libnl pointer. Listing and watching links, and the changes Apply
// makes: rename, up/down, MTU, IPoIB P_Key children, addresses, routes. Every error names
// the interface and the value and carries the kernel's errno (and its explanation, when
// the kernel gives one).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/types.h"

namespace rp {

struct LinkInfo {
  std::string name;
  int ifindex = 0;
  int type = 0;  // ARPHRD_*
  HwAddress address;
  // IFLA_BROADCAST; an IPoIB P_Key child carries its P_Key in bytes 8-9
  // (ipoib_vlan.c __ipoib_vlan_add / ipoib_child_init).
  HwAddress broadcast;
  unsigned mtu = 0;
  std::string operstate;
  bool admin_up = false;
  bool carrier = false;
  std::string kind;  // "veth", "ipoib", "" for physical devices
  // IFLA_LINK: the parent of an IPoIB P_Key child or a VLAN, the peer of a veth; 0 or
  // the link's own ifindex for a link that stands alone.
  int iflink = 0;
  // IPoIB's link data (ipoib_netlink.c ipoib_fill_info), on rtnl_get_link() answers; what
  // tells the mode of a child made over rtnetlink, which has no sysfs mode file.
  std::optional<IpoibMode> ipoib_mode;
  std::optional<uint16_t> ipoib_pkey;
};

// All links of the current network namespace.
Result<std::vector<LinkInfo>> rtnl_list_links();

// One link by name; ENODEV when there is none.
Result<LinkInfo> rtnl_get_link(const std::string& name);

// Administrative state (IFF_UP).
Status rtnl_set_link_up(const std::string& name, bool up);

// The kernel renames only links that are down (EBUSY otherwise): callers take the link
// down and bring it back up themselves, so they decide what happens when a step fails.
Status rtnl_rename_link(const std::string& name, const std::string& new_name);

Status rtnl_set_mtu(const std::string& name, unsigned mtu);

// IPoIB P_Key child over route netlink (what `ip link add link ib0 name ib0.8001 type ipoib
// pkey 0x8001 mode connected` sends). The P_Key is used exactly as given: the plan decides
// the full-membership bit (see plan.cc).
struct PkeyChildSpec {
  std::string parent;  // ib0
  std::string name;    // ib0.8001
  uint16_t pkey = 0;
  std::optional<IpoibMode> mode;  // unset: the kernel's default (datagram)
  std::optional<bool> umcast;     // unset: the kernel's default (off)
};
Status rtnl_add_pkey_child(const PkeyChildSpec& spec);

// Sets the IPoIB mode of an existing parent or child: RTM_NEWLINK with IFLA_IPOIB_MODE in
// the ipoib link data (ipoib_netlink.c ipoib_changelink -> ipoib_set_mode), which works
// where the sysfs mode file does not exist (children made over rtnetlink).
Status rtnl_set_ipoib_mode(const std::string& ifname, IpoibMode mode);
// The error rtnl_add_pkey_child() reports when the kernel refuses with `errnum`.
Error pkey_child_error(const PkeyChildSpec& spec, int errnum, const std::string& kernel_msg);

// Adds an address (EEXIST when the interface has it already).
Status rtnl_add_address(const std::string& ifname, const IpPrefix& address);

// The global (universe-scope) addresses on the link `ifindex`, as `ip -o addr show scope
// global dev X` lists them: an RTM_GETADDR dump. Link-local addresses are left out (every
// IPv6-enabled link has one).
Result<std::vector<IpPrefix>> rtnl_global_addresses(int ifindex);

// The interface the kernel would send to `destination` through (RTM_GETROUTE, what `ip
// route get` asks): its ifindex. ENETUNREACH (the kernel's answer) when no route leads
// there yet.
Result<int> rtnl_route_interface(const IpAddress& destination);
// The same by name: "" when no route leads there yet, "ifindex N" for a link not listed.
std::string rtnl_route_via(const IpAddress& destination);

// Adds a route on `ifname` to `destination` (nullopt: the default route) through
// `gateway` (nullopt: on-link). Main table, protocol "boot", as `ip route add` does.
// EEXIST when the route exists.
Status rtnl_add_route(const std::string& ifname, const std::optional<IpPrefix>& destination,
                      const std::optional<IpAddress>& gateway);

// Waits for link events without losing any: it joins the RTNLGRP_LINK multicast group
// first and only then asks for every link's state, on the same socket, so every change is
// either in that state or arrives as an event after it. wait_for() blocks in poll() until
// a link satisfies a predicate or the deadline passes: no sleeps, no re-polling.
class LinkWatcher {
 public:
  using Predicate = std::function<bool(const LinkInfo&)>;
  using TimePoint = std::chrono::steady_clock::time_point;

  // Room for bursts of events between two reads (a card re-registering all its netdevs).
  // When it overflows, the kernel drops events and the watcher rebuilds its state.
  static constexpr int kReceiveBuffer = 1 << 20;

  // Subscribes, then reads the current state of every link.
  static Result<LinkWatcher> open(int receive_buffer = kReceiveBuffer);
  LinkWatcher(LinkWatcher&&) noexcept;
  LinkWatcher& operator=(LinkWatcher&&) noexcept;
  ~LinkWatcher();

  // The first link satisfying `pred`, now or as an event makes it so. When `deadline`
  // passes first: an error with ETIMEDOUT (find() then tells the last state seen).
  Result<LinkInfo> wait_for(const Predicate& pred, TimePoint deadline);
  // Reads the events queued so far without blocking.
  Status refresh();
  // The latest state seen of a link, by name.
  std::optional<LinkInfo> find(const std::string& name) const;
  std::vector<LinkInfo> links() const;
  // Link events (not the initial state) read since open().
  unsigned events() const;
  // Times events were dropped by the kernel (receive buffer full) and the state was
  // rebuilt from a fresh dump.
  unsigned resyncs() const;

  static Predicate exists(std::string name);
  static Predicate has_carrier(std::string name);

 private:
  struct Impl;
  explicit LinkWatcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rp
