// LinkWatcher: link state from RTNLGRP_LINK events on one socket that also carries the
// initial dump (see rtnl.h for why the order matters).
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "provision/kernel/nl_io.h"
#include "provision/kernel/rtnl.h"
#include "provision/kernel/rtnl_internal.h"

namespace rp {

using Clock = std::chrono::steady_clock;

// A dump is generated while we read it; this bounds a kernel that stops answering.
constexpr std::chrono::milliseconds kDumpTimeout{5000};

struct LinkWatcher::Impl {
  nl::SockPtr sock;
  std::map<int, LinkInfo> links;  // by ifindex: a rename keeps the entry
  uint32_t dump_seq = 0;
  bool dumping = false;
  // Events were lost (ENOBUFS): the state is rebuilt from a new dump. Links neither in
  // that dump nor in an event during it were deleted meanwhile.
  bool resyncing = false;
  bool resync_again = false;
  std::set<int> seen;
  unsigned events = 0;
  unsigned resyncs = 0;
  std::vector<uint8_t> buf = std::vector<uint8_t>(64 * 1024);

  int fd() const { return nl_socket_get_fd(sock.get()); }

  Status start_dump() {
    ifinfomsg ifi{};
    ifi.ifi_family = AF_UNSPEC;
    nl::MsgBuilder b(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP);
    b.header(ifi);
    auto msg = b.finish("list links");
    if (!msg) return msg.error();
    errno = 0;
    if (int err = nl_send_auto(sock.get(), msg->get()); err < 0) {
      return make_error("link events", std::string("cannot ask for the links: ") + nl_geterror(err),
                        errno != 0 ? errno : ECOMM);
    }
    dump_seq = nlmsg_hdr(msg->get())->nlmsg_seq;
    dumping = true;
    return ok_status();
  }

  // Applies one message. Returns the link when it now satisfies `pred`.
  Result<std::optional<LinkInfo>> apply(const nlmsghdr* h, const Predicate* pred) {
    const bool from_dump = dumping && h->nlmsg_seq == dump_seq && h->nlmsg_seq != 0;
    switch (h->nlmsg_type) {
      case NLMSG_ERROR:
      case NLMSG_DONE: {
        if (!from_dump) return std::optional<LinkInfo>();
        int err = 0;
        if (h->nlmsg_type == NLMSG_ERROR) {
          err = nl::parse_error_message(h).errnum;
        } else if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
          err = -*static_cast<const int*>(NLMSG_DATA(h));
        }
        dumping = false;
        if (err != 0) return make_error("link events", "listing the links failed", err);
        if (resyncing) {
          for (auto it = links.begin(); it != links.end();) {
            it = seen.count(it->first) ? std::next(it) : links.erase(it);
          }
          resyncing = false;
          seen.clear();
        }
        if (resync_again) {
          resync_again = false;
          return begin_resync();
        }
        return std::optional<LinkInfo>();
      }
      case RTM_NEWLINK: {
        auto l = rtnl_internal::parse_link(h);
        if (!l) return std::optional<LinkInfo>();
        if (!from_dump) ++events;
        if (resyncing) seen.insert(l->ifindex);
        links[l->ifindex] = *l;
        if (pred && (*pred)(*l)) return l;
        return std::optional<LinkInfo>();
      }
      case RTM_DELLINK: {
        auto* ifi = static_cast<const ifinfomsg*>(NLMSG_DATA(h));
        if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(ifinfomsg))) {
          links.erase(ifi->ifi_index);
          if (resyncing) seen.erase(ifi->ifi_index);
          ++events;
        }
        return std::optional<LinkInfo>();
      }
      default:
        return std::optional<LinkInfo>();
    }
  }

  Result<std::optional<LinkInfo>> begin_resync() {
    if (dumping) {
      resync_again = true;
      return std::optional<LinkInfo>();
    }
    resyncing = true;
    ++resyncs;
    seen.clear();
    if (auto st = start_dump(); !st) return st.error();
    return std::optional<LinkInfo>();
  }

  // Reads and applies one datagram without blocking. `more` is false when none was queued.
  // The first link satisfying `pred` is returned; the rest of the datagram is still applied.
  Result<std::optional<LinkInfo>> read_once(const Predicate* pred, bool& more) {
    more = false;
    ssize_t n;
    do {
      n = ::recv(fd(), buf.data(), buf.size(), MSG_DONTWAIT | MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return std::optional<LinkInfo>();
    more = true;
    if (n < 0 && errno == ENOBUFS) return begin_resync();  // events were dropped
    if (n < 0) return make_error("link events", "reading link events failed", errno);
    if (static_cast<size_t>(n) > buf.size()) {
      // A datagram larger than the buffer lost its tail: grow and rebuild the state.
      buf.resize(static_cast<size_t>(n));
      return begin_resync();
    }
    std::optional<LinkInfo> hit;
    auto* h = reinterpret_cast<nlmsghdr*>(buf.data());
    int rem = static_cast<int>(n);
    for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
      auto r = apply(h, hit ? nullptr : pred);
      if (!r) return r.error();
      if (*r && !hit) hit = *r;
    }
    return hit;
  }

  Status wait_readable(Clock::time_point deadline, bool& timed_out) {
    timed_out = false;
    for (;;) {
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) {
        timed_out = true;
        return ok_status();
      }
      // Rounded up: waking before the deadline would only spin once more.
      const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
      pollfd p{fd(), POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(ms, 1 << 30)));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return make_error("link events", "poll failed", errno);
      if (r > 0) return ok_status();
    }
  }
};

LinkWatcher::LinkWatcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LinkWatcher::LinkWatcher(LinkWatcher&&) noexcept = default;
LinkWatcher& LinkWatcher::operator=(LinkWatcher&&) noexcept = default;
LinkWatcher::~LinkWatcher() = default;

Result<LinkWatcher> LinkWatcher::open(int receive_buffer) {
  auto sock = rtnl_internal::route_socket();
  if (!sock) return sock.error();
  auto impl = std::make_unique<Impl>();
  impl->sock = std::move(sock).value();
  nl_sock* s = impl->sock.get();
  // Multicast first, dump second: nothing can change unseen in between.
  if (int err = nl_socket_add_membership(s, RTNLGRP_LINK); err < 0) {
    return make_error("link events", std::string("cannot join RTNLGRP_LINK: ") + nl_geterror(err),
                      EPERM);
  }
  nl_socket_disable_auto_ack(s);  // dumps end with NLMSG_DONE, not with an ack
  (void)nl_socket_set_buffer_size(s, receive_buffer, 0);
  if (int err = nl_socket_set_nonblocking(s); err < 0) {
    return make_error("link events",
                      std::string("cannot make the socket non-blocking: ") + nl_geterror(err));
  }
  if (auto st = impl->start_dump(); !st) return st.error();
  const auto deadline = Clock::now() + kDumpTimeout;
  while (impl->dumping) {
    bool timed_out = false;
    if (auto st = impl->wait_readable(deadline, timed_out); !st) return st.error();
    if (timed_out) return make_error("link events", "the kernel did not list the links", ETIMEDOUT);
    for (bool more = true; more && impl->dumping;) {
      auto r = impl->read_once(nullptr, more);
      if (!r) return r.error();
    }
  }
  impl->events = 0;
  return LinkWatcher(std::move(impl));
}

Result<LinkInfo> LinkWatcher::wait_for(const Predicate& pred, TimePoint deadline) {
  for (const auto& [index, link] : impl_->links) {
    if (pred(link)) return link;
  }
  for (;;) {
    for (bool more = true; more;) {
      auto r = impl_->read_once(&pred, more);
      if (!r) return r.error();
      if (*r) return **r;
    }
    bool timed_out = false;
    if (auto st = impl_->wait_readable(deadline, timed_out); !st) return st.error();
    if (timed_out)
      return make_error("link events", "no link matched before the deadline", ETIMEDOUT);
  }
}

Status LinkWatcher::refresh() {
  // Also completes a dump under way (after lost events), so the state is whole again.
  const auto deadline = Clock::now() + kDumpTimeout;
  for (;;) {
    for (bool more = true; more;) {
      auto r = impl_->read_once(nullptr, more);
      if (!r) return r.error();
    }
    if (!impl_->dumping) return ok_status();
    bool timed_out = false;
    if (auto st = impl_->wait_readable(deadline, timed_out); !st) return st;
    if (timed_out) return make_error("link events", "the kernel did not list the links", ETIMEDOUT);
  }
}

std::optional<LinkInfo> LinkWatcher::find(const std::string& name) const {
  for (const auto& [index, link] : impl_->links) {
    if (link.name == name) return link;
  }
  return std::nullopt;
}

std::vector<LinkInfo> LinkWatcher::links() const {
  std::vector<LinkInfo> out;
  for (const auto& [index, link] : impl_->links) out.push_back(link);
  return out;
}

unsigned LinkWatcher::events() const { return impl_->events; }

unsigned LinkWatcher::resyncs() const { return impl_->resyncs; }

LinkWatcher::Predicate LinkWatcher::exists(std::string name) {
  return [name = std::move(name)](const LinkInfo& l) { return l.name == name; };
}

LinkWatcher::Predicate LinkWatcher::has_carrier(std::string name) {
  return [name = std::move(name)](const LinkInfo& l) { return l.name == name && l.carrier; };
}

}  // namespace rp
