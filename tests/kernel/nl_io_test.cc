// nl_io.cc's reading of the kernel's acks (af_netlink.c netlink_ack): the errno, the
// extended ack's text after the echoed request, and error values no kernel sends.
#include "provision/kernel/nl_io.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>

#include <climits>
#include <cstring>
#include <vector>

namespace rp::nl {
namespace {

// An NLMSG_ERROR answering request `seq`, with the request's header echoed (capped:
// NLM_F_CAPPED) and, when `text` is given, NLMSGERR_ATTR_MSG (NLM_F_ACK_TLVS).
std::vector<uint8_t> ack(uint32_t seq, int error, const char* text = nullptr) {
  std::vector<uint8_t> b(NLMSG_LENGTH(sizeof(nlmsgerr)));
  if (text) {
    const size_t len = std::strlen(text) + 1;
    const size_t at = b.size();
    b.resize(at + NLMSG_ALIGN(NLA_HDRLEN + len));
    auto* a = reinterpret_cast<nlattr*>(b.data() + at);
    a->nla_type = NLMSGERR_ATTR_MSG;
    a->nla_len = static_cast<uint16_t>(NLA_HDRLEN + len);
    std::memcpy(b.data() + at + NLA_HDRLEN, text, len);
  }
  auto* h = reinterpret_cast<nlmsghdr*>(b.data());
  h->nlmsg_len = static_cast<uint32_t>(b.size());
  h->nlmsg_type = NLMSG_ERROR;
  h->nlmsg_flags = NLM_F_CAPPED | (text ? NLM_F_ACK_TLVS : 0);
  h->nlmsg_seq = seq;
  auto* e = reinterpret_cast<nlmsgerr*>(b.data() + NLMSG_HDRLEN);
  e->error = error;
  e->msg.nlmsg_len = NLMSG_HDRLEN;
  e->msg.nlmsg_seq = seq;
  return b;
}

TEST(FindAnswer, TheErrnoAndTheKernelsText) {
  auto b = ack(7, -EINVAL, "Invalid argument here");
  auto a = find_answer(b.data(), b.size(), 7);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->errnum, EINVAL);
  EXPECT_EQ(a->kernel_msg, "Invalid argument here");
}

TEST(FindAnswer, AnotherRequestsAnswerIsNotOurs) {
  auto b = ack(8, -EINVAL);
  EXPECT_FALSE(find_answer(b.data(), b.size(), 7));
}

TEST(FindAnswer, AnErrorNoKernelSendsIsABadMessage) {
  // Found by the netlink_replies fuzz target: negating INT_MIN was undefined behaviour.
  for (int error : {INT_MIN, -4096, 1, INT_MAX}) {
    auto b = ack(7, error);
    auto a = find_answer(b.data(), b.size(), 7);
    ASSERT_TRUE(a) << error;
    EXPECT_EQ(a->errnum, EBADMSG) << error;
    EXPECT_EQ(a->kernel_msg, "NLMSG_ERROR with error " + std::to_string(error));
  }
  auto b = ack(7, -4095);  // MAX_ERRNO
  EXPECT_EQ(find_answer(b.data(), b.size(), 7)->errnum, 4095);
}

TEST(FindAnswer, ATruncatedErrorIsABadMessage) {
  auto b = ack(7, -EINVAL);
  reinterpret_cast<nlmsghdr*>(b.data())->nlmsg_len = NLMSG_HDRLEN + 4;
  b.resize(NLMSG_HDRLEN + 4);
  auto a = find_answer(b.data(), b.size(), 7);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->errnum, EBADMSG);
}

}  // namespace
}  // namespace rp::nl
