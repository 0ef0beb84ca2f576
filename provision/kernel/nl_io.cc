#include "provision/kernel/nl_io.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace rp::nl {

Result<SockPtr> open_socket(int protocol, const std::string& name) {
  SockPtr sock(nl_socket_alloc());
  if (!sock) return make_error("netlink", "cannot allocate a socket for " + name, ENOMEM);
  errno = 0;
  if (int err = nl_connect(sock.get(), protocol); err < 0) {
    // libnl folds errno into NLE_* codes; socket() and bind() leave errno as it was.
    int errnum = errno != 0 ? errno : EPROTONOSUPPORT;
    return make_error("netlink", "cannot open " + name + " (" + nl_geterror(err) + ")", errnum);
  }
  const int fd = nl_socket_get_fd(sock.get());
  const int one = 1;
  // Errors must explain themselves, and need not echo the whole request back. Both are
  // best effort: kernels before 4.12 ignore them and still answer with the errno.
  (void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one);
  (void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof one);
  return sock;
}

Answer parse_error_message(const nlmsghdr* h) {
  Answer a;
  if (h->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) {
    a.errnum = EBADMSG;
    a.kernel_msg = "truncated NLMSG_ERROR";
    return a;
  }
  const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
  // 0 or a negative errno (af_netlink.c netlink_ack); errnos end at MAX_ERRNO, 4095
  // (include/linux/err.h). Anything else is not the kernel's answer (and negating INT_MIN
  // is undefined: the fuzz target found it).
  const long long error = e->error;
  if (error > 0 || error < -4095) {
    a.errnum = EBADMSG;
    a.kernel_msg = "NLMSG_ERROR with error " + std::to_string(error);
    return a;
  }
  a.errnum = static_cast<int>(-error);
  if (!(h->nlmsg_flags & NLM_F_ACK_TLVS)) return a;
  // The TLVs follow the echoed request: only its header when the kernel capped it.
  size_t offset = NLMSG_HDRLEN + sizeof(int);
  offset += (h->nlmsg_flags & NLM_F_CAPPED) ? sizeof(nlmsghdr) : NLMSG_ALIGN(e->msg.nlmsg_len);
  if (offset >= h->nlmsg_len) return a;
  const auto* base = reinterpret_cast<const uint8_t*>(h);
  auto* attr = reinterpret_cast<nlattr*>(const_cast<uint8_t*>(base + offset));
  int rem = static_cast<int>(h->nlmsg_len - offset);
  for (; nla_ok(attr, rem); attr = nla_next(attr, &rem)) {
    if (nla_type(attr) == NLMSGERR_ATTR_MSG && nla_len(attr) > 0) {
      const char* text = static_cast<const char*>(nla_data(attr));
      a.kernel_msg.assign(text, strnlen(text, static_cast<size_t>(nla_len(attr))));
    }
  }
  return a;
}

std::optional<Answer> find_answer(const uint8_t* data, size_t len, uint32_t seq,
                                  const ReplyFn& on_reply) {
  // libnl's walkers: the kernel's macros compare a signed remainder with an unsigned length.
  auto* h = reinterpret_cast<nlmsghdr*>(const_cast<uint8_t*>(data));
  int rem = static_cast<int>(len);
  for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
    if (h->nlmsg_seq != seq) continue;  // someone else's message (or a stale one)
    if (h->nlmsg_type == NLMSG_ERROR) return parse_error_message(h);
    if (h->nlmsg_type == NLMSG_DONE) return Answer{};
    if (h->nlmsg_type == NLMSG_NOOP) continue;
    if (on_reply) on_reply(h);
  }
  return std::nullopt;
}

Answer exchange(nl_sock* sock, nl_msg* msg, const ReplyFn& on_reply,
                std::chrono::milliseconds timeout) {
  nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
  errno = 0;
  if (int err = nl_send_auto(sock, msg); err < 0) {
    return Answer{errno != 0 ? errno : ECOMM,
                  std::string("cannot send the request: ") + nl_geterror(err)};
  }
  const uint32_t seq = nlmsg_hdr(msg)->nlmsg_seq;
  const int fd = nl_socket_get_fd(sock);
  const auto end = std::chrono::steady_clock::now() + timeout;
  // An answer is an ack or one object: it fits on the stack. A larger datagram (seen
  // with MSG_PEEK first, so nothing is lost) goes to the heap: allocating 64 KiB per
  // exchange costs an mmap/munmap pair with musl's malloc.
  alignas(nlmsghdr) uint8_t small[8192];
  std::vector<uint8_t> big;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() < 0) left = std::chrono::milliseconds(0);
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Answer{errno, "waiting for the kernel's answer failed"};
    if (r == 0) return Answer{ETIMEDOUT, "the kernel did not answer"};
    ssize_t size = ::recv(fd, small, sizeof small, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
    if (size < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (size < 0) return Answer{errno, "reading the kernel's answer failed"};
    uint8_t* data = small;
    size_t capacity = sizeof small;
    if (static_cast<size_t>(size) > capacity) {
      big.resize(static_cast<size_t>(size));
      data = big.data();
      capacity = big.size();
    }
    iovec iov{data, capacity};
    sockaddr_nl peer{};
    msghdr mh{};
    mh.msg_name = &peer;
    mh.msg_namelen = sizeof peer;
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    ssize_t n = ::recvmsg(fd, &mh, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return Answer{errno, "reading the kernel's answer failed"};
    if (mh.msg_flags & MSG_TRUNC) return Answer{EMSGSIZE, "the kernel's answer was truncated"};
    if (peer.nl_pid != 0) continue;  // not from the kernel
    if (auto a = find_answer(data, static_cast<size_t>(n), seq, on_reply)) return *a;
  }
}

std::string with_kernel_msg(std::string what, const Answer& a) {
  if (!a.kernel_msg.empty()) what += ": " + a.kernel_msg;
  return what;
}

std::vector<uint8_t> bytes_of(nl_msg* msg) {
  const nlmsghdr* h = nlmsg_hdr(msg);
  const auto* p = reinterpret_cast<const uint8_t*>(h);
  return std::vector<uint8_t>(p, p + h->nlmsg_len);
}

MsgBuilder::MsgBuilder(int type, int flags) : msg_(nlmsg_alloc_simple(type, flags)) {
  ok_ = msg_ != nullptr;
}

MsgBuilder& MsgBuilder::append(const void* data, size_t len) {
  if (ok_) ok_ = nlmsg_append(msg_.get(), const_cast<void*>(data), len, NLMSG_ALIGNTO) == 0;
  return *this;
}

MsgBuilder& MsgBuilder::put(int type, const void* data, size_t len) {
  if (ok_) ok_ = nla_put(msg_.get(), type, static_cast<int>(len), data) == 0;
  return *this;
}

MsgBuilder& MsgBuilder::put_string(int type, const std::string& s) {
  return put(type, s.c_str(), s.size() + 1);
}

MsgBuilder& MsgBuilder::put_u8(int type, uint8_t v) { return put(type, &v, sizeof v); }
MsgBuilder& MsgBuilder::put_u16(int type, uint16_t v) { return put(type, &v, sizeof v); }
MsgBuilder& MsgBuilder::put_u32(int type, uint32_t v) { return put(type, &v, sizeof v); }

MsgBuilder& MsgBuilder::begin_nest(int type) {
  if (!ok_) return *this;
  nlattr* n = nla_nest_start(msg_.get(), type);
  if (!n) {
    ok_ = false;
    return *this;
  }
  nests_.push_back(n);
  return *this;
}

MsgBuilder& MsgBuilder::end_nest() {
  if (!ok_ || nests_.empty()) {
    ok_ = false;
    return *this;
  }
  ok_ = nla_nest_end(msg_.get(), nests_.back()) == 0;
  nests_.pop_back();
  return *this;
}

MsgBuilder& MsgBuilder::seq(uint32_t s) {
  if (ok_) nlmsg_hdr(msg_.get())->nlmsg_seq = s;
  return *this;
}

Result<MsgPtr> MsgBuilder::finish(const std::string& what) {
  if (!ok_ || !nests_.empty()) {
    return make_error("netlink", "request too large or malformed: " + what, EMSGSIZE);
  }
  return std::move(msg_);
}

}  // namespace rp::nl
