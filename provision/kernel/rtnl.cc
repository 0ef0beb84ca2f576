// Route netlink: links (list, get, up, rename, MTU, IPoIB mode, P_Key children);
// addresses and routes are in rtnl_addr.cc.
#include "provision/kernel/rtnl.h"

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "provision/base/strings.h"
#include "provision/kernel/nl_io.h"
#include "provision/kernel/rtnl_internal.h"

namespace rp {

using rtnl_internal::build_pkey_child;
using rtnl_internal::change;
using rtnl_internal::check_name;
using rtnl_internal::link_header;

// Our IPoIB mode values are the kernel's.
static_assert(static_cast<uint16_t>(IpoibMode::kDatagram) == IPOIB_MODE_DATAGRAM);
static_assert(static_cast<uint16_t>(IpoibMode::kConnected) == IPOIB_MODE_CONNECTED);

namespace {

struct CacheFree {
  void operator()(nl_cache* c) const { nl_cache_free(c); }
};
using CachePtr = std::unique_ptr<nl_cache, CacheFree>;

Error nl_error(const std::string& what, int nlerr) {
  return make_error("netlink", what + ": " + nl_geterror(nlerr));
}

std::string pkey_text(uint16_t pkey) { return "0x" + hex(pkey, 4); }

// A link-layer address attribute of up to 20 bytes (IPoIB's INFINIBAND_ALEN).
void copy_hw(const void* data, int len, HwAddress& out) {
  if (len <= 0 || static_cast<size_t>(len) > out.bytes.size()) return;
  std::memcpy(out.bytes.data(), data, static_cast<size_t>(len));
  out.len = static_cast<uint8_t>(len);
}

// A change addressed by name fails with ENODEV when there is no such link: said plainly.
Status by_name(Status st) {
  if (!st && st.error().errnum == ENODEV) {
    return make_error(st.error().where, "no such interface", ENODEV);
  }
  return st;
}

}  // namespace

namespace rtnl_internal {

constexpr size_t kIfNameMax = IFNAMSIZ - 1;

Status check_name(const std::string& name) {
  if (name.empty() || name.size() > kIfNameMax || name.find('/') != std::string::npos ||
      name.find_first_of(" \t\n:") != std::string::npos) {
    return make_error(name,
                      "invalid interface name " + quote(name) + " (1 to " +
                          std::to_string(kIfNameMax) + " characters, no '/', ':' or white space)",
                      EINVAL);
  }
  return ok_status();
}

// Sends a request that changes something; the error names `where` and says `what` failed.
Status change(nl::MsgBuilder& b, const std::string& where, const std::string& what) {
  auto msg = b.finish(what);
  if (!msg) return msg.error();
  return send_change(msg->get(), where, what);
}

Status send_change(nl_msg* msg, const std::string& where, const std::string& what) {
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  nl::Answer a = nl::exchange(sock->get(), msg);
  if (a.errnum != 0) return make_error(where, nl::with_kernel_msg(what, a), a.errnum);
  return ok_status();
}

ifinfomsg link_header(int ifindex) {
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = ifindex;
  return ifi;
}

Result<nl::SockPtr> route_socket() { return nl::open_socket(NETLINK_ROUTE, "NETLINK_ROUTE"); }

std::optional<LinkInfo> parse_link(const nlmsghdr* h) {
  if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK) return std::nullopt;
  if (h->nlmsg_len < NLMSG_LENGTH(sizeof(ifinfomsg))) return std::nullopt;
  static nla_policy policy[IFLA_MAX + 1] = {};
  static const bool policy_ready = [] {
    policy[IFLA_IFNAME].type = NLA_STRING;
    policy[IFLA_MTU].type = NLA_U32;
    policy[IFLA_LINK].type = NLA_U32;
    policy[IFLA_OPERSTATE].type = NLA_U8;
    policy[IFLA_CARRIER].type = NLA_U8;
    policy[IFLA_LINKINFO].type = NLA_NESTED;
    return true;
  }();
  (void)policy_ready;
  nlattr* tb[IFLA_MAX + 1] = {};
  auto* hdr = const_cast<nlmsghdr*>(h);
  if (nlmsg_parse(hdr, sizeof(ifinfomsg), tb, IFLA_MAX, policy) < 0) return std::nullopt;
  const auto* ifi = static_cast<const ifinfomsg*>(nlmsg_data(hdr));
  LinkInfo l;
  l.ifindex = ifi->ifi_index;
  l.type = ifi->ifi_type;
  l.admin_up = (ifi->ifi_flags & IFF_UP) != 0;
  if (tb[IFLA_IFNAME]) l.name = nla_get_string(tb[IFLA_IFNAME]);
  if (tb[IFLA_MTU]) l.mtu = nla_get_u32(tb[IFLA_MTU]);
  if (tb[IFLA_LINK]) l.iflink = static_cast<int>(nla_get_u32(tb[IFLA_LINK]));
  if (tb[IFLA_CARRIER]) l.carrier = nla_get_u8(tb[IFLA_CARRIER]) != 0;
  if (tb[IFLA_ADDRESS]) copy_hw(nla_data(tb[IFLA_ADDRESS]), nla_len(tb[IFLA_ADDRESS]), l.address);
  if (tb[IFLA_BROADCAST]) {
    copy_hw(nla_data(tb[IFLA_BROADCAST]), nla_len(tb[IFLA_BROADCAST]), l.broadcast);
  }
  // IF_OPER_* (RFC 2863, 0..6), named as /sys/class/net/<if>/operstate names them.
  static const char* const kOperstate[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                           "testing", "dormant",    "up"};
  l.operstate = "unknown";
  if (tb[IFLA_OPERSTATE]) {
    const unsigned s = nla_get_u8(tb[IFLA_OPERSTATE]);
    if (s < sizeof kOperstate / sizeof kOperstate[0]) l.operstate = kOperstate[s];
  }
  if (tb[IFLA_LINKINFO]) {
    nlattr* info[IFLA_INFO_MAX + 1] = {};
    if (nla_parse_nested(info, IFLA_INFO_MAX, tb[IFLA_LINKINFO], nullptr) == 0 &&
        info[IFLA_INFO_KIND] && nla_len(info[IFLA_INFO_KIND]) > 0) {
      const char* kind = static_cast<const char*>(nla_data(info[IFLA_INFO_KIND]));
      l.kind.assign(kind, strnlen(kind, static_cast<size_t>(nla_len(info[IFLA_INFO_KIND]))));
    }
    nlattr* data[IFLA_IPOIB_MAX + 1] = {};
    if (l.kind == "ipoib" && info[IFLA_INFO_DATA] &&
        nla_parse_nested(data, IFLA_IPOIB_MAX, info[IFLA_INFO_DATA], nullptr) == 0) {
      if (data[IFLA_IPOIB_MODE] && nla_len(data[IFLA_IPOIB_MODE]) == 2) {
        l.ipoib_mode = nla_get_u16(data[IFLA_IPOIB_MODE]) == IPOIB_MODE_CONNECTED
                           ? IpoibMode::kConnected
                           : IpoibMode::kDatagram;
      }
      if (data[IFLA_IPOIB_PKEY] && nla_len(data[IFLA_IPOIB_PKEY]) == 2) {
        l.ipoib_pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]);
      }
    }
  }
  return l;
}

}  // namespace rtnl_internal

Result<std::vector<LinkInfo>> rtnl_list_links() {
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sock->get(), AF_UNSPEC, &raw); err < 0) {
    return nl_error("cannot list links", err);
  }
  CachePtr cache(raw);
  std::vector<LinkInfo> out;
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* link = reinterpret_cast<rtnl_link*>(o);
    LinkInfo l;
    l.name = rtnl_link_get_name(link) ? rtnl_link_get_name(link) : "";
    l.ifindex = rtnl_link_get_ifindex(link);
    l.type = static_cast<int>(rtnl_link_get_arptype(link));
    if (nl_addr* a = rtnl_link_get_addr(link)) {
      copy_hw(nl_addr_get_binary_addr(a), static_cast<int>(nl_addr_get_len(a)), l.address);
    }
    if (nl_addr* b = rtnl_link_get_broadcast(link)) {
      copy_hw(nl_addr_get_binary_addr(b), static_cast<int>(nl_addr_get_len(b)), l.broadcast);
    }
    l.mtu = rtnl_link_get_mtu(link);
    char buf[32];
    l.operstate = rtnl_link_operstate2str(rtnl_link_get_operstate(link), buf, sizeof buf);
    for (char& c : l.operstate) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    l.admin_up = (rtnl_link_get_flags(link) & IFF_UP) != 0;
    l.carrier = rtnl_link_get_carrier(link) != 0;
    if (const char* kind = rtnl_link_get_type(link)) l.kind = kind;
    l.iflink = rtnl_link_get_link(link);
    out.push_back(std::move(l));
  }
  return out;
}

Result<LinkInfo> rtnl_get_link(const std::string& name) {
  if (auto st = check_name(name); !st) return st.error();
  nl::MsgBuilder b(RTM_GETLINK, 0);
  b.header(link_header(0)).put_string(IFLA_IFNAME, name);
  auto msg = b.finish("look up " + name);
  if (!msg) return msg.error();
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  std::optional<LinkInfo> found;
  nl::Answer a = nl::exchange(sock->get(), msg->get(), [&](const nlmsghdr* h) {
    if (!found) found = rtnl_internal::parse_link(h);
  });
  if (a.errnum == ENODEV) return make_error(name, "no such interface", ENODEV);
  if (a.errnum != 0) return make_error(name, nl::with_kernel_msg("cannot look up", a), a.errnum);
  if (!found) return make_error(name, "the kernel's answer has no link", EBADMSG);
  return *found;
}

Status rtnl_set_link_up(const std::string& name, bool up) {
  if (auto st = check_name(name); !st) return st;
  // ifindex 0 and IFLA_IFNAME: the kernel finds the link by name, in one exchange.
  ifinfomsg ifi = link_header(0);
  ifi.ifi_flags = up ? IFF_UP : 0;
  ifi.ifi_change = IFF_UP;
  nl::MsgBuilder b(RTM_SETLINK, 0);
  b.header(ifi).put_string(IFLA_IFNAME, name);
  return by_name(change(b, name, up ? "cannot bring the link up" : "cannot take the link down"));
}

Status rtnl_rename_link(const std::string& name, const std::string& new_name) {
  if (auto st = check_name(new_name); !st) return make_error(name, st.error().what, EINVAL);
  auto link = rtnl_get_link(name);
  if (!link) return link.error();
  nl::MsgBuilder b(RTM_SETLINK, 0);
  b.header(link_header(link->ifindex)).put_string(IFLA_IFNAME, new_name);
  std::string what = "cannot rename to " + quote(new_name);
  auto st = change(b, name, what);
  if (st) return st;
  Error e = st.error();
  if (e.errnum == EEXIST) e.what += " (another interface has that name)";
  if (e.errnum == EBUSY) e.what += " (the link is up)";
  return e;
}

Status rtnl_set_mtu(const std::string& name, unsigned mtu) {
  if (auto st = check_name(name); !st) return st;
  nl::MsgBuilder b(RTM_SETLINK, 0);
  b.header(link_header(0)).put_string(IFLA_IFNAME, name).put_u32(IFLA_MTU, mtu);
  return by_name(change(b, name, "cannot set MTU " + std::to_string(mtu)));
}

namespace rtnl_internal {

Result<nl::MsgPtr> build_pkey_child(const PkeyChildSpec& spec, int parent_ifindex) {
  nl::MsgBuilder b(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
  b.header(link_header(0))
      .put_string(IFLA_IFNAME, spec.name)
      .put_u32(IFLA_LINK, static_cast<uint32_t>(parent_ifindex))
      .begin_nest(IFLA_LINKINFO)
      .put_string(IFLA_INFO_KIND, "ipoib")
      .begin_nest(IFLA_INFO_DATA)
      .put_u16(IFLA_IPOIB_PKEY, spec.pkey);
  if (spec.mode) b.put_u16(IFLA_IPOIB_MODE, static_cast<uint16_t>(*spec.mode));
  if (spec.umcast) b.put_u16(IFLA_IPOIB_UMCAST, *spec.umcast ? 1 : 0);
  b.end_nest().end_nest();
  return b.finish("create " + spec.name);
}

Result<nl::MsgPtr> build_ipoib_mode(int ifindex, IpoibMode mode) {
  nl::MsgBuilder b(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK);
  b.header(link_header(ifindex))
      .begin_nest(IFLA_LINKINFO)
      .put_string(IFLA_INFO_KIND, "ipoib")
      .begin_nest(IFLA_INFO_DATA)
      .put_u16(IFLA_IPOIB_MODE, static_cast<uint16_t>(mode))
      .end_nest()
      .end_nest();
  return b.finish("set the IPoIB mode");
}

}  // namespace rtnl_internal

Status rtnl_set_ipoib_mode(const std::string& ifname, IpoibMode mode) {
  auto link = rtnl_get_link(ifname);
  if (!link) return link.error();
  auto msg = rtnl_internal::build_ipoib_mode(link->ifindex, mode);
  if (!msg) return msg.error();
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  nl::Answer a = nl::exchange(sock->get(), msg->get());
  if (a.errnum != 0) {
    const std::string name(to_string(mode));
    std::string what = std::string("cannot set IPoIB mode ") + name;
    // rtnetlink.c __rtnl_newlink: EOPNOTSUPP when the link's ops are not ipoib's (another
    // kind of link, or ib_ipoib not loaded); ipoib_netlink.c ipoib_changelink passes
    // ipoib_set_mode's EINVAL for connected mode on an HCA without it (seen in the QEMU
    // guest of tests/e2e scenario 8: a dummy link answers EOPNOTSUPP).
    if (a.errnum == EOPNOTSUPP && link->type != kArphrdInfiniband) {
      what += ": " + ifname + " is not an IPoIB interface (link type " +
              std::to_string(link->type) + (link->kind.empty() ? "" : ", kind " + link->kind) + ")";
    } else if (a.errnum == EOPNOTSUPP) {
      what += ": the kernel has no ipoib link type (ib_ipoib is not loaded)";
    } else if (a.errnum == EINVAL && mode == IpoibMode::kConnected) {
      what += ": the HCA does not support connected mode (IPOIB_CM_SUPPORTED is not set)";
    }
    return make_error(ifname, nl::with_kernel_msg(what, a), a.errnum);
  }
  return ok_status();
}

Error pkey_child_error(const PkeyChildSpec& spec, int errnum, const std::string& kernel_msg) {
  std::string what = "cannot create P_Key " + pkey_text(spec.pkey) + " child " + quote(spec.name) +
                     " of " + spec.parent;
  switch (errnum) {
    case EEXIST:
      what += ": an interface named " + spec.name + " exists";
      break;
    case ENOTUNIQ:
      what += ": a child with this P_Key was created through sysfs (create_child)";
      break;
    case ENODEV:
      what += ": " + spec.parent + " is not an IPoIB interface";
      break;
    case EOPNOTSUPP:
      what += ": the kernel has no ipoib link type (ib_ipoib is not loaded)";
      break;
    case EINVAL:
      what += ": refused (P_Keys 0x0000 and 0x8000 are invalid, a child cannot have children";
      what += spec.mode == IpoibMode::kConnected ? ", connected mode needs CM support)" : ")";
      break;
    default:
      break;
  }
  if (!kernel_msg.empty()) what += "; kernel: " + kernel_msg;
  return make_error(spec.name, what, errnum);
}

Status rtnl_add_pkey_child(const PkeyChildSpec& spec) {
  if (auto st = check_name(spec.name); !st) return st.error();
  auto parent = rtnl_get_link(spec.parent);
  if (!parent) return parent.error();
  auto msg = build_pkey_child(spec, parent->ifindex);
  if (!msg) return msg.error();
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  nl::Answer a = nl::exchange(sock->get(), msg->get());
  if (a.errnum != 0) return pkey_child_error(spec, a.errnum, a.kernel_msg);
  return ok_status();
}

}  // namespace rp
