// Fuzz target: the parsers of what the kernel sends back over netlink, fed one datagram
// as recvmsg() hands it to nl_io.cc exchange():
//   - nl::find_answer walks the messages (libnl's nlmsg_ok/nlmsg_next), skips other
//     sequence numbers and NLMSG_NOOP, ends at NLMSG_DONE or NLMSG_ERROR;
//   - nl::parse_error_message reads the errno and the extended ack's NLMSGERR_ATTR_MSG
//     after the echoed or capped request (net/netlink/af_netlink.c netlink_ack);
//   - each reply message goes through rtnl's RTM_NEWLINK parser (rtnl.cc parse_link, the
//     attributes of net/core/rtnetlink.c rtnl_fill_ifinfo) and RDMA netlink's port reply
//     (rdma_nl.cc rdma_port_reply, drivers/infiniband/core/nldev.c fill_port_info);
//   - every message's payload after struct dcbmsg also goes through the DCB_CMD_IEEE_GET
//     reply parser (dcbnl.cc parse_dcb_ieee_reply, net/dcb/dcbnl.c dcbnl_ieee_fill);
//   - rdma_newlink_answer gives the same datagram as the answer to RDMA_NLDEV_CMD_NEWLINK.
// The sequence number asked for is the first message's (the kernel echoes the request's).
// Every answer must stay within the datagram and the errno must be the kernel's range.
#include <linux/dcbnl.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "provision/kernel/dcbnl.h"
#include "provision/kernel/nl_io.h"
#include "provision/kernel/rdma_nl.h"
#include "provision/kernel/rtnl_testing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // recvmsg() fills an aligned buffer: the walkers cast it to nlmsghdr.
  std::vector<uint32_t> words((size + 3) / 4 + 1);
  auto* buf = reinterpret_cast<uint8_t*>(words.data());
  if (size) std::memcpy(buf, data, size);
  uint32_t seq = 0;
  if (size >= sizeof(nlmsghdr)) seq = reinterpret_cast<const nlmsghdr*>(buf)->nlmsg_seq;

  size_t replies = 0;
  auto a = rp::nl::find_answer(buf, size, seq, [&](const nlmsghdr* h) {
    ++replies;
    const auto* m = reinterpret_cast<const uint8_t*>(h);
    if (m < buf || m + h->nlmsg_len > buf + size) std::abort();  // the walker stays inside
    if (auto link = rp::rtnl_parse_link_reply(m, h->nlmsg_len)) {
      if (link->name.size() > h->nlmsg_len || link->kind.size() > h->nlmsg_len) std::abort();
      if (link->address.len > 20 || link->broadcast.len > 20) std::abort();
    }
    if (auto port = rp::rdma_port_reply(m, h->nlmsg_len)) {
      if (port->device.empty() || port->port == 0) std::abort();
      if (port->device.size() + port->netdev.size() > h->nlmsg_len) std::abort();
    }
    const size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(dcbmsg));
    if (h->nlmsg_len >= hdr) {
      const auto dcb = rp::parse_dcb_ieee_reply(m + hdr, h->nlmsg_len - hdr);
      // DSCP entries only for the 64 code points; a trust table no longer than its bytes.
      if (!dcb.dscp_prio.empty() && dcb.dscp_prio.rbegin()->first >= 64) std::abort();
      if (dcb.trust && dcb.trust->size() > h->nlmsg_len) std::abort();
    }
  });
  // The kernel's text comes from the datagram (our own words for a truncated error).
  if (a && a->errnum != EBADMSG && a->kernel_msg.size() > size) std::abort();
  if (replies > size / NLMSG_HDRLEN) std::abort();

  const rp::SoftLinkRequest req{"rxe", "rxe0", "eth0"};
  auto st = rp::rdma_newlink_answer(req, std::vector<uint8_t>(data, data + size), seq);
  if (!st && st.error().what.empty()) std::abort();
  return 0;
}
