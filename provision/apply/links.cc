// Executors for route netlink and netdev attributes: renames, P_Key children, IPoIB mode,
// MTU, links up, addresses, routes, waiting for carrier. They act on the running kernel
// only; a link the plan expects to appear (Action::waiting_for) is awaited through link
// events, within the run's deadline.
#include "provision/apply/links.h"

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>

#include "provision/apply/context.h"
#include "provision/base/strings.h"
#include "provision/base/types.h"
#include "provision/kernel/rtnl.h"

namespace rp {
namespace {

constexpr char kDatagramOnly[] = "Enhanced IPoIB (mlx5) supports only datagram mode";

std::string ms_since(Clock::time_point t0) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
  return std::to_string(ms.count()) + " ms";
}

bool timed_out(const Error& e) { return e.errnum == ETIMEDOUT; }

// Looks up the link `name`, or waits for it to appear when the plan expects it to (it is
// created, renamed or registered by an earlier action or a module). Returns the outcome to
// report when there is no link to act on.
std::optional<Outcome> find_link(ApplyContext& ctx, const Action& a, const std::string& name,
                                 LinkInfo& out) {
  if (a.waiting_for.empty()) {
    auto link = rtnl_get_link(name);
    if (!link) return Outcome::failed(link.error());
    out = *link;
    return std::nullopt;
  }
  auto watcher = LinkWatcher::open();
  if (!watcher) return Outcome::failed(watcher.error());
  const auto t0 = Clock::now();
  auto link = watcher.value().wait_for(LinkWatcher::exists(name), ctx.deadline.end());
  if (!link && timed_out(link.error())) {
    return Outcome::timed_out(make_error(
        name, "did not appear within " + ms_since(t0) + " (waiting for " + a.waiting_for + ")",
        ETIMEDOUT));
  }
  if (!link) return Outcome::failed(link.error());
  if (Clock::now() - t0 >= std::chrono::milliseconds(1)) {
    ctx.log.info(name + " appeared after " + ms_since(t0));
  }
  out = *link;
  return std::nullopt;
}

bool is_ipoib_parent(const LinkInfo& l) {
  return l.type == kArphrdInfiniband && (l.iflink == 0 || l.iflink == l.ifindex);
}

// Takes the link down when it is up, runs `change`, and brings the link back up under
// `name_after(succeeded)`, also when the change failed: a failed step must not leave an
// interface down that was up.
// Why `link` must not be taken down, if it must not: it is up and carries global
// addresses (the network root, an administrator's session). A rename or a mode change
// takes a link down; the plan orders them before any address of ours is added, so an
// address here belongs to someone else (a running system, dracut's own network setup).
std::optional<Outcome> carries_traffic(const LinkInfo& link, const std::string& change) {
  if (!link.admin_up) return std::nullopt;
  auto addresses = rtnl_global_addresses(link.ifindex);
  if (!addresses || addresses->empty()) return std::nullopt;
  std::string list;
  for (const auto& a : *addresses) list += (list.empty() ? "" : ", ") + a.str();
  return Outcome::skipped(link.name + " is up with " + list + ": " + change +
                          " would take it down and cut what it carries (a network root, a "
                          "session); not done (make the change in the initramfs, before the "
                          "interface has addresses)");
}

template <typename Change, typename NameAfter>
Status with_link_down(ApplyContext& ctx, const LinkInfo& link, Change change,
                      NameAfter name_after) {
  if (link.admin_up) {
    if (auto st = rtnl_set_link_up(link.name, false); !st) return st;
  }
  Status st = change();
  if (link.admin_up) {
    auto up = rtnl_set_link_up(name_after(st.ok()), true);
    if (!up && st) return up;
    if (!up) ctx.log.warn(up.error().str());
  }
  return st;
}

Outcome rename(ApplyContext& ctx, const LinkInfo& link, const std::string& want) {
  if (auto busy = carries_traffic(link, "renaming it to " + want)) return *busy;
  auto st = with_link_down(
      ctx, link, [&] { return rtnl_rename_link(link.name, want); },
      [&](bool renamed) { return renamed ? want : link.name; });
  if (!st) {
    const int e = st.error().errnum;
    return Outcome::failed(st.error(),
                           e == EEXIST  ? "an interface that appeared after planning holds " + want
                           : e == EBUSY ? "the link could not be taken down"
                                        : "");
  }
  return Outcome::done(link.name + " -> " + want +
                       (link.admin_up ? " (taken down and brought back up)" : ""));
}

std::string sysfs_net(const std::string& ifname, const char* attr) {
  return "/sys/class/net/" + ifname + "/" + attr;
}

}  // namespace

bool same_hardware(const LinkInfo& l, const std::optional<HwAddress>& want) {
  if (!want) return true;  // nothing to compare with
  if (want->len == 20 && l.address.len == 20) {
    return want->ipoib_guid()->value == l.address.ipoib_guid()->value;
  }
  return want->len == l.address.len && want->bytes == l.address.bytes;
}

Outcome exec_rename(ApplyContext& ctx, const Action& a, const Rename& p) {
  if (auto skip = live_only(ctx)) return *skip;
  const std::string& want = p.to;
  const std::string expected = p.expected ? p.expected->str() : "unknown";
  LinkInfo link;
  if (p.from.empty()) {
    // The IPoIB netdev of a port GUID, which appears when ib_ipoib loads: match the last
    // 8 address bytes, on parents only (P_Key children share the GUID).
    const std::optional<PortGuid> guid = p.guid;
    if (!guid) return Outcome::failed(make_error(want, "no interface and no port GUID to rename"));
    auto watcher = LinkWatcher::open();
    if (!watcher) return Outcome::failed(watcher.error());
    const auto t0 = Clock::now();
    auto found = watcher.value().wait_for(
        [&](const LinkInfo& l) {
          auto g = l.address.ipoib_guid();
          return is_ipoib_parent(l) && g && *g == *guid;
        },
        ctx.deadline.end());
    if (!found && timed_out(found.error())) {
      return Outcome::timed_out(make_error(
          want,
          "no IPoIB interface with port GUID " + guid->str() + " appeared within " + ms_since(t0),
          ETIMEDOUT));
    }
    if (!found) return Outcome::failed(found.error());
    link = *found;
  } else if (!a.waiting_for.empty()) {
    // Re-registered by an earlier action (an mlx4 port-type change): back under its name.
    if (auto o = find_link(ctx, a, p.from, link)) return *o;
    if (!same_hardware(link, p.expected)) {
      return Outcome::failed(make_error(p.from, "came back with address " + link.address.str() +
                                                    ", the plan expected " + expected +
                                                    "; not renamed to " + want));
    }
  } else {
    auto found = rtnl_get_link(p.from);
    if (!found && found.error().errnum == ENODEV) {
      // Renamed already (a second run, or udev got there first)?
      auto wanted = rtnl_get_link(want);
      if (wanted && same_hardware(*wanted, p.expected)) return Outcome::already();
    }
    if (!found) return Outcome::failed(found.error());
    link = *found;
    if (!same_hardware(link, p.expected)) {
      return Outcome::failed(
          make_error(p.from, "has address " + link.address.str() + ", the plan expected " +
                                 expected + "; not renamed to " + want),
          "the interfaces changed after planning; plan again");
    }
  }
  if (link.name == want) return Outcome::already();
  return rename(ctx, link, want);
}

Outcome existing_pkey_child(const CreatePkeyChild& p, const LinkInfo& parent,
                            const LinkInfo& existing) {
  const std::string what = "P_Key 0x" + hex(p.pkey, 4) + " on " + p.parent;
  // A child made over rtnetlink has no pkey file: its P_Key is in the broadcast address,
  // for both kinds of child.
  int pkey = -1;  // none
  if (existing.type == kArphrdInfiniband) {
    if (auto k = existing.broadcast.ipoib_broadcast_pkey()) pkey = *k;
  }
  const bool on_parent = existing.iflink == parent.ifindex;
  if (on_parent && pkey == p.pkey) return Outcome::already(what);
  return Outcome::failed(
      make_error(p.name, "exists, but is not the child with " + what + " (" +
                             (pkey >= 0 ? "P_Key 0x" + hex(pkey, 4) : std::string("no P_Key")) +
                             (on_parent ? "" : ", not on " + p.parent) + ")"),
      "give the P_Key child another name");
}

Outcome exec_pkey_child(ApplyContext& ctx, const Action& a, const CreatePkeyChild& p) {
  if (auto skip = live_only(ctx)) return *skip;
  PkeyChildSpec spec;
  spec.parent = p.parent;
  spec.name = p.name;
  spec.pkey = p.pkey;
  spec.mode = p.mode;
  const std::string what = "P_Key 0x" + hex(spec.pkey, 4) + " on " + p.parent;
  LinkInfo parent;
  if (auto o = find_link(ctx, a, p.parent, parent)) return *o;
  if (parent.type != kArphrdInfiniband) {
    return Outcome::failed(make_error(p.parent, "is not an IPoIB interface (type " +
                                                    arphrd_name(parent.type) +
                                                    "); no P_Key child " + p.name));
  }
  if (auto existing = rtnl_get_link(p.name)) return existing_pkey_child(p, parent, *existing);
  auto st = rtnl_add_pkey_child(spec);
  if (!st) {
    const int e = st.error().errnum;
    const bool mode_refused =
        spec.mode == IpoibMode::kConnected && (e == EINVAL || e == EOPNOTSUPP);
    return Outcome::failed(st.error(), mode_refused ? kDatagramOnly : "");
  }
  return Outcome::done(what + (p.mode ? ", " + std::string(to_string(*p.mode)) + " mode" : ""));
}

Outcome exec_ipoib_mode(ApplyContext& ctx, const Action& a, const SetIpoibMode& p) {
  const std::string path = sysfs_net(p.ifname, "mode");
  const std::string want(to_string(p.mode));
  auto write_mode = [&]() -> Status { return ctx.files.write(path, want + "\n"); };
  auto hint = [&](int errnum) -> std::string {
    return want == "connected" && (errnum == EINVAL || errnum == EOPNOTSUPP) ? kDatagramOnly : "";
  };
  if (!ctx.live) {
    // A fixture root has the attribute file and no links to take down.
    auto cur = ctx.files.read(path);
    if (cur && trim(*cur) == want) return Outcome::already(want);
    if (auto st = write_mode(); !st) return Outcome::failed(st.error(), hint(st.error().errnum));
    return Outcome::done((cur ? std::string(trim(*cur)) : "unknown") + " -> " + want);
  }
  LinkInfo link;
  if (auto o = find_link(ctx, a, p.ifname, link)) return *o;
  if (link.type != kArphrdInfiniband) {
    return Outcome::failed(make_error(p.ifname, "is not an IPoIB interface (type " +
                                                    arphrd_name(link.type) + "); no IPoIB mode"));
  }
  // Through rtnetlink, not the sysfs mode file: a child made over rtnetlink has none.
  const IpoibMode mode = p.mode;
  auto shown = [](const LinkInfo& l) -> std::string {
    return l.ipoib_mode ? std::string(to_string(*l.ipoib_mode)) : "unknown";
  };
  const std::string cur = shown(link);
  if (link.ipoib_mode == mode) return Outcome::already(want);
  if (auto busy = carries_traffic(link, "changing its IPoIB mode to " + want)) return *busy;
  // The mode changes while the link is down (DOMAIN.md); then the plan sets the MTU.
  auto st = with_link_down(
      ctx, link, [&] { return rtnl_set_ipoib_mode(link.name, mode); },
      [&](bool) { return link.name; });
  if (!st) return Outcome::failed(st.error(), hint(st.error().errnum));
  auto now = rtnl_get_link(link.name);
  if (now && now->ipoib_mode && *now->ipoib_mode != mode) {
    return Outcome::failed(
        make_error(link.name, "still reports mode " + shown(*now) + " after setting " + want),
        hint(EINVAL));
  }
  return Outcome::done(cur + " -> " + want +
                       (link.admin_up ? " (taken down and brought back up)" : ""));
}

Outcome mtu_outcome(const LinkInfo& before, unsigned want, const LinkInfo* after, Log& log) {
  const std::string shown = std::to_string(want);
  // A link whose mode is unknown (a kernel without IFLA_IPOIB_MODE) counts as datagram, the
  // kernel's default; in connected mode ipoib_change_mtu sets the MTU as asked or refuses.
  const bool datagram = !after || !after->ipoib_mode || *after->ipoib_mode == IpoibMode::kDatagram;
  if (after && after->mtu < want && before.type == kArphrdInfiniband && datagram) {
    // Datagram IPoIB keeps the wanted MTU as its admin MTU but runs min(broadcast group
    // MTU, admin MTU), lowered again at each multicast join (ipoib_main.c
    // ipoib_change_mtu, ipoib_multicast.c ipoib_mcast_join_finish): the partition's MTU in
    // the subnet manager (OpenSM's default 2048 gives 2044) decides. Not a failure: the
    // kernel accepted it and uses it once the fabric allows.
    const std::string clamp = "the kernel runs " + std::to_string(after->mtu) + ", clamped to " +
                              "the IPoIB broadcast group's MTU (the partition MTU of the subnet "
                              "manager); " +
                              shown + " is kept as the admin MTU";
    log.warn(before.name + ": MTU " + shown + " set, but " + clamp);
    return Outcome::done(std::to_string(before.mtu) + " -> " + shown + "; warning: " + clamp);
  }
  if (after && after->mtu != want) {
    return Outcome::failed(make_error(
        before.name, "MTU is " + std::to_string(after->mtu) + " after setting " + shown));
  }
  return Outcome::done(std::to_string(before.mtu) + " -> " + shown);
}

Outcome exec_mtu(ApplyContext& ctx, const Action& a, const SetMtu& p) {
  if (auto skip = live_only(ctx)) return *skip;
  const unsigned want = p.mtu;
  const std::string shown = std::to_string(want);
  LinkInfo link;
  if (auto o = find_link(ctx, a, p.ifname, link)) return *o;
  if (link.mtu == want) return Outcome::already("MTU " + shown);
  if (auto st = rtnl_set_mtu(link.name, want); !st) {
    std::string hint;
    if (st.error().errnum == EINVAL && link.type == kArphrdInfiniband) {
      hint =
          "IPoIB datagram mode allows the IB link MTU - 4 (2044, 4092); connected mode up to "
          "65520";
    } else if (st.error().errnum == EINVAL) {
      hint = "outside the device's MTU range";
    }
    return Outcome::failed(st.error(), hint);
  }
  auto after = rtnl_get_link(link.name);
  return mtu_outcome(link, want, after ? &after.value() : nullptr, ctx.log);
}

Outcome exec_link_up(ApplyContext& ctx, const Action& a, const LinkUp& p) {
  if (auto skip = live_only(ctx)) return *skip;
  LinkInfo link;
  if (auto o = find_link(ctx, a, p.ifname, link)) return *o;
  if (link.admin_up) return Outcome::already("up");
  if (auto st = rtnl_set_link_up(link.name, true); !st) return Outcome::failed(st.error());
  return Outcome::done("up");
}

Outcome exec_address(ApplyContext& ctx, const Action& a, const AddAddress& p) {
  if (auto skip = live_only(ctx)) return *skip;
  LinkInfo link;
  if (auto o = find_link(ctx, a, p.ifname, link)) return *o;
  auto st = rtnl_add_address(link.name, p.prefix);
  if (!st && st.error().errnum == EEXIST) return Outcome::already(p.prefix.str());
  if (!st) return Outcome::failed(st.error());
  return Outcome::done(p.prefix.str());
}

Outcome exec_route(ApplyContext& ctx, const Action& a, const AddRoute& p) {
  if (auto skip = live_only(ctx)) return *skip;
  LinkInfo link;
  if (auto o = find_link(ctx, a, p.ifname, link)) return *o;
  const std::string shown = p.shown();
  auto st = rtnl_add_route(link.name, p.destination, p.gateway);
  if (!st && st.error().errnum == EEXIST) return Outcome::already(shown);
  if (!st) {
    const int e = st.error().errnum;
    return Outcome::failed(st.error(), e == ENETUNREACH || e == ENETDOWN
                                           ? "the gateway must be inside a prefix of an address "
                                             "on " +
                                                 link.name + ", and the link must be up"
                                           : "");
  }
  return Outcome::done(shown);
}

Outcome exec_wait_link(ApplyContext& ctx, const Action&, const WaitLink& p) {
  if (auto skip = live_only(ctx)) return *skip;
  auto watcher = LinkWatcher::open();
  if (!watcher) return Outcome::failed(watcher.error());
  LinkWatcher& w = watcher.value();
  const std::string& name = p.ifname;
  if (auto now = w.find(name); now && now->carrier) return Outcome::already("carrier");
  const auto t0 = Clock::now();
  auto link = w.wait_for(LinkWatcher::has_carrier(name), ctx.deadline.end());
  if (link) return Outcome::done("carrier after " + ms_since(t0));
  if (!timed_out(link.error())) return Outcome::failed(link.error());
  const std::string waited = ms_since(t0);
  (void)w.refresh();
  const auto last = w.find(name);
  std::string what;
  if (!last) {
    what = "did not appear within " + waited;
  } else {
    what = "no carrier within " + waited + " (operstate " + last->operstate +
           (last->admin_up ? "" : ", administratively down") + ")";
  }
  return Outcome::timed_out(make_error(name, what, ETIMEDOUT));
}

}  // namespace rp
