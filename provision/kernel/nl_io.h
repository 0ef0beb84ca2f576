// Netlink plumbing shared by the route and RDMA netlink wrappers, private to
// provision/kernel: libnl sockets and messages behind RAII owners, a message builder that
// remembers overflow, and a request/acknowledgement exchange that keeps the kernel's errno
// and its extended-ack text (libnl's own ack handling folds both into NLE_* codes).
#pragma once

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "provision/base/result.h"

namespace rp::nl {

struct SockFree {
  void operator()(nl_sock* s) const { nl_socket_free(s); }
};
struct MsgFree {
  void operator()(nl_msg* m) const { nlmsg_free(m); }
};
using SockPtr = std::unique_ptr<nl_sock, SockFree>;
using MsgPtr = std::unique_ptr<nl_msg, MsgFree>;

// The kernel answers a change within its sendmsg(); the bound only guards a broken socket.
constexpr std::chrono::milliseconds kAnswerTimeout{5000};

// Opens and binds a netlink socket of `protocol` with extended acks on. `name` is how
// errors call it ("NETLINK_ROUTE"); the error carries socket()'s errno.
Result<SockPtr> open_socket(int protocol, const std::string& name);

// How the kernel answered one request.
struct Answer {
  int errnum = 0;          // 0: acknowledged
  std::string kernel_msg;  // NLMSGERR_ATTR_MSG when the kernel explained itself
};

// Called with every message answering the request before its ack (a GET's reply).
using ReplyFn = std::function<void(const nlmsghdr*)>;

// Sends `msg` (its sequence number and port are filled in; NLM_F_REQUEST|NLM_F_ACK are
// set) and reads until the kernel acknowledges or refuses it. Transport failures (send,
// receive, timeout) come back as an Answer too, with their errno.
Answer exchange(nl_sock* sock, nl_msg* msg, const ReplyFn& on_reply = nullptr,
                std::chrono::milliseconds timeout = kAnswerTimeout);

// The answer to sequence number `seq` among the messages of one received datagram, or
// nullopt when the datagram holds none. Other messages for `seq` go to `on_reply`.
std::optional<Answer> find_answer(const uint8_t* data, size_t len, uint32_t seq,
                                  const ReplyFn& on_reply = nullptr);

// The errno and extended-ack text of one NLMSG_ERROR message (errnum 0 for an ack).
Answer parse_error_message(const nlmsghdr* h);

// "what: <kernel message>" when the kernel gave one, else `what`.
std::string with_kernel_msg(std::string what, const Answer& a);

// The bytes of a built message, as they would be sent.
std::vector<uint8_t> bytes_of(nl_msg* msg);

// Builds one request; the first failing put (message too large) is remembered, so callers
// check once at the end instead of after every attribute.
class MsgBuilder {
 public:
  MsgBuilder(int type, int flags);
  // The fixed header of the family (ifinfomsg, ifaddrmsg, rtmsg), right after nlmsghdr.
  template <typename T>
  MsgBuilder& header(const T& h) {
    return append(&h, sizeof h);
  }
  MsgBuilder& append(const void* data, size_t len);
  MsgBuilder& put(int type, const void* data, size_t len);
  MsgBuilder& put_string(int type, const std::string& s);  // NUL-terminated, as the kernel wants
  MsgBuilder& put_u8(int type, uint8_t v);
  MsgBuilder& put_u16(int type, uint16_t v);
  MsgBuilder& put_u32(int type, uint32_t v);
  MsgBuilder& begin_nest(int type);
  MsgBuilder& end_nest();
  MsgBuilder& seq(uint32_t s);
  // The message, or an error when it could not be built.
  Result<MsgPtr> finish(const std::string& what);

 private:
  MsgPtr msg_;
  std::vector<nlattr*> nests_;
  bool ok_ = true;
};

}  // namespace rp::nl
