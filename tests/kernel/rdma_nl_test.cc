// RDMA netlink NEWLINK without a kernel that has RDMA: the request byte by byte (what
// `rdma link add rxe0 type rxe netdev eth0` sends), the acknowledgement parser, and the
// messages refusals turn into.
#include "provision/kernel/rdma_nl.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace rp {
namespace {

const SoftLinkRequest kRxe{"rxe", "rxe0", "eth0"};

struct Attr {
  uint16_t type;
  std::string value;  // with its NUL
};

std::vector<Attr> attrs_after_header(const std::vector<uint8_t>& bytes) {
  std::vector<Attr> out;
  size_t off = NLMSG_HDRLEN;  // NLDEV messages have no family header
  while (off + NLA_HDRLEN <= bytes.size()) {
    nlattr a;
    std::memcpy(&a, bytes.data() + off, sizeof a);
    EXPECT_GE(a.nla_len, NLA_HDRLEN);
    EXPECT_LE(off + a.nla_len, bytes.size());
    if (a.nla_len < NLA_HDRLEN || off + a.nla_len > bytes.size()) break;
    out.push_back(
        {a.nla_type, std::string(reinterpret_cast<const char*>(bytes.data()) + off + NLA_HDRLEN,
                                 a.nla_len - NLA_HDRLEN)});
    off += NLA_ALIGN(a.nla_len);
  }
  EXPECT_EQ(off, bytes.size()) << "trailing bytes";
  return out;
}

TEST(RdmaNewlinkRequest, MatchesWhatRdmaLinkAddSends) {
  auto bytes = rdma_newlink_request(kRxe, 42);
  ASSERT_TRUE(bytes) << bytes.error().str();
  nlmsghdr h;
  std::memcpy(&h, bytes->data(), sizeof h);
  EXPECT_EQ(h.nlmsg_len, bytes->size());
  EXPECT_EQ(h.nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK));
  EXPECT_EQ(h.nlmsg_type, (5 << 10) + 3);
  EXPECT_EQ(RDMA_NL_GET_CLIENT(h.nlmsg_type), RDMA_NL_NLDEV);
  EXPECT_EQ(RDMA_NL_GET_OP(h.nlmsg_type), RDMA_NLDEV_CMD_NEWLINK);
  EXPECT_EQ(h.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
  EXPECT_EQ(h.nlmsg_seq, 42u);
  auto attrs = attrs_after_header(*bytes);
  ASSERT_EQ(attrs.size(), 3u);
  // NLA_NUL_STRING in the kernel's nldev_policy: each string carries its NUL.
  EXPECT_EQ(attrs[0].type, RDMA_NLDEV_ATTR_DEV_NAME);
  EXPECT_EQ(attrs[0].value, std::string("rxe0", 5));
  EXPECT_EQ(attrs[1].type, RDMA_NLDEV_ATTR_LINK_TYPE);
  EXPECT_EQ(attrs[1].value, std::string("rxe", 4));
  EXPECT_EQ(attrs[2].type, RDMA_NLDEV_ATTR_NDEV_NAME);
  EXPECT_EQ(attrs[2].value, std::string("eth0", 5));
}

// `rdma dev set mlx5_0 name hca0` (iproute2 rdma/dev.c dev_set_name): RDMA_NLDEV_CMD_SET,
// the device's index as a u32, the name NUL-terminated (nldev_set_doit reads both).
TEST(RdmaRenameRequest, MatchesWhatRdmaDevSetNameSends) {
  auto bytes = rdma_rename_request(3, {"mlx5_0", "hca0"}, 7);
  ASSERT_TRUE(bytes) << bytes.error().str();
  nlmsghdr h;
  std::memcpy(&h, bytes->data(), sizeof h);
  EXPECT_EQ(h.nlmsg_len, bytes->size());
  EXPECT_EQ(h.nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SET));
  EXPECT_EQ(h.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
  EXPECT_EQ(h.nlmsg_seq, 7u);
  auto attrs = attrs_after_header(*bytes);
  ASSERT_EQ(attrs.size(), 2u);
  EXPECT_EQ(attrs[0].type, RDMA_NLDEV_ATTR_DEV_INDEX);
  EXPECT_EQ(attrs[0].value, std::string("\x03\0\0\0", 4));
  EXPECT_EQ(attrs[1].type, RDMA_NLDEV_ATTR_DEV_NAME);
  EXPECT_EQ(attrs[1].value, std::string("hca0", 5));
  // What nla_strscpy would cut short, ib_device_rename's sysfs name, or a template.
  for (const std::string bad : {std::string(), std::string(64, 'h'), std::string("a/b"),
                                std::string("hca%d"), std::string("h ca")}) {
    EXPECT_FALSE(rdma_rename_request(3, {"mlx5_0", bad}, 1)) << bad;
  }
  EXPECT_NE(rdma_rename_error({"mlx5_0", "hca0"}, EEXIST, "")
                .str()
                .find("another RDMA device is named hca0"),
            std::string::npos);
}

TEST(RdmaNewlinkRequest, RefusesWhatTheKernelWouldMangleOrRefuse) {
  const SoftLinkRequest bad[] = {
      {"roce", "rxe0", "eth0"},                // not a soft link type
      {"rxe", "rxe%d", "eth0"},                // the kernel refuses '%'
      {"rxe", "", "eth0"},                     // empty name
      {"rxe", std::string(64, 'r'), "eth0"},   // longer than IB_DEVICE_NAME_MAX - 1
      {"siw", "siw0", "a-very-long-ifname0"},  // longer than IFNAMSIZ - 1
  };
  for (const auto& r : bad) {
    auto bytes = rdma_newlink_request(r, 1);
    ASSERT_FALSE(bytes) << r.type << " " << r.name << " " << r.netdev;
    EXPECT_EQ(bytes.error().errnum, EINVAL);
    EXPECT_NE(bytes.error().what.find("cannot create " + r.type + " device"), std::string::npos)
        << bytes.error().what;
  }
}

// One NLMSG_ERROR datagram as the kernel sends it with NETLINK_CAP_ACK and NETLINK_EXT_ACK.
std::vector<uint8_t> ack(uint32_t seq, int error, const std::string& ext_msg = "") {
  std::vector<uint8_t> out(NLMSG_LENGTH(sizeof(nlmsgerr)));
  nlmsghdr h{};
  h.nlmsg_type = NLMSG_ERROR;
  h.nlmsg_seq = seq;
  h.nlmsg_flags = NLM_F_CAPPED;
  nlmsgerr e{};
  e.error = error;
  e.msg.nlmsg_len = NLMSG_HDRLEN + 40;  // the request's own length (capped away)
  e.msg.nlmsg_seq = seq;
  if (!ext_msg.empty()) {
    h.nlmsg_flags |= NLM_F_ACK_TLVS;
    nlattr a{};
    a.nla_type = NLMSGERR_ATTR_MSG;
    a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + ext_msg.size() + 1);
    const size_t at = out.size();
    out.resize(at + NLA_ALIGN(a.nla_len));
    std::memcpy(out.data() + at, &a, sizeof a);
    std::memcpy(out.data() + at + NLA_HDRLEN, ext_msg.c_str(), ext_msg.size() + 1);
  }
  h.nlmsg_len = static_cast<uint32_t>(out.size());
  std::memcpy(out.data(), &h, sizeof h);
  std::memcpy(out.data() + NLMSG_HDRLEN, &e, sizeof e);
  return out;
}

TEST(RdmaNewlinkAnswer, AckIsSuccess) { EXPECT_TRUE(rdma_newlink_answer(kRxe, ack(7, 0), 7)); }

TEST(RdmaNewlinkAnswer, AnswerToAnotherRequestIsNotTaken) {
  auto st = rdma_newlink_answer(kRxe, ack(8, -EEXIST), 7);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().errnum, EBADMSG);
}

TEST(RdmaNewlinkAnswer, RefusalNamesDeviceTypeNetdevAndErrno) {
  auto st = rdma_newlink_answer(kRxe, ack(7, -EEXIST), 7);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().errnum, EEXIST);
  EXPECT_EQ(st.error().str(),
            "rxe0: cannot create rxe device 'rxe0' on eth0: eth0 has a rxe device already (File "
            "exists)");
}

TEST(RdmaNewlinkAnswer, KernelExplanationFromExtendedAckIsKept) {
  auto st = rdma_newlink_answer(kRxe, ack(7, -EINVAL, "some reason"), 7);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().errnum, EINVAL);
  EXPECT_NE(st.error().what.find("; kernel: some reason"), std::string::npos) << st.error().what;
}

TEST(RdmaNewlinkErrors, MissingModuleIsNamedForEachType) {
  // nldev_newlink answers EINVAL when no link ops of the type exist after request_module.
  Error rxe = rdma_newlink_error(kRxe, EINVAL, "");
  EXPECT_NE(rxe.what.find("module rdma_rxe not loaded or not built"), std::string::npos)
      << rxe.what;
  Error siw = rdma_newlink_error({"siw", "siw0", "eth0"}, EOPNOTSUPP, "");
  EXPECT_NE(siw.what.find("module siw missing"), std::string::npos) << siw.what;
  Error noent = rdma_newlink_error(kRxe, ENOENT, "");
  EXPECT_NE(noent.what.find("module rdma_rxe missing"), std::string::npos) << noent.what;
}

TEST(RdmaNewlinkErrors, OtherRefusals) {
  EXPECT_NE(rdma_newlink_error(kRxe, ENODEV, "").what.find("no interface eth0"), std::string::npos);
  EXPECT_NE(rdma_newlink_error(kRxe, ENFILE, "").what.find("another RDMA device is named rxe0"),
            std::string::npos);
  EXPECT_NE(rdma_newlink_error(kRxe, EPROTONOSUPPORT, "").what.find("ib_core is not loaded"),
            std::string::npos);
  EXPECT_NE(rdma_newlink_error(kRxe, EPERM, "").what.find("CAP_NET_ADMIN"), std::string::npos);
}

// `rdma link show` asks for the ports of one device at a time: nldev_port_get_dumpit
// (drivers/infiniband/core/nldev.c) refuses a port dump without RDMA_NLDEV_ATTR_DEV_INDEX.
TEST(RdmaPortDump, AsksForOneDevicesPorts) {
  auto bytes = rdma_port_dump_request(3, 9);
  ASSERT_TRUE(bytes) << bytes.error().str();
  nlmsghdr h;
  std::memcpy(&h, bytes->data(), sizeof h);
  EXPECT_EQ(h.nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET));
  EXPECT_EQ(h.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
  auto attrs = attrs_after_header(*bytes);
  ASSERT_EQ(attrs.size(), 1u);
  EXPECT_EQ(attrs[0].type, RDMA_NLDEV_ATTR_DEV_INDEX);
  uint32_t index = 0;
  std::memcpy(&index, attrs[0].value.data(), 4);
  EXPECT_EQ(index, 3u);
}

// A port message as nldev.c fill_port_info lays it out: the device's index and name, the
// port index, other attributes, then the netdev's index and name (only when the port has a
// netdev in this namespace).
std::vector<uint8_t> port_message(const std::string& dev, uint32_t port, const std::string& ndev) {
  std::vector<uint8_t> out(NLMSG_HDRLEN);
  auto put = [&](uint16_t type, const void* data, size_t len) {
    nlattr a{static_cast<uint16_t>(NLA_HDRLEN + len), type};
    const size_t at = out.size();
    out.resize(at + NLA_ALIGN(NLA_HDRLEN + len));
    std::memcpy(out.data() + at, &a, sizeof a);
    std::memcpy(out.data() + at + NLA_HDRLEN, data, len);
  };
  const uint32_t dev_index = 7, ndev_index = 4;
  const uint64_t caps = 0;
  put(RDMA_NLDEV_ATTR_DEV_INDEX, &dev_index, 4);
  put(RDMA_NLDEV_ATTR_DEV_NAME, dev.c_str(), dev.size() + 1);
  put(RDMA_NLDEV_ATTR_PORT_INDEX, &port, 4);
  put(RDMA_NLDEV_ATTR_CAP_FLAGS, &caps, 8);
  if (!ndev.empty()) {
    put(RDMA_NLDEV_ATTR_NDEV_INDEX, &ndev_index, 4);
    put(RDMA_NLDEV_ATTR_NDEV_NAME, ndev.c_str(), ndev.size() + 1);
  }
  nlmsghdr h{static_cast<uint32_t>(out.size()),
             static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET)),
             NLM_F_MULTI, 9, 0};
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

TEST(RdmaPortDump, ReadsTheNetdevOfASoftIwarpPort) {
  auto m = port_message("siw0", 1, "ens785f0");
  auto r = rdma_port_reply(m.data(), m.size());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->device, "siw0");
  EXPECT_EQ(r->port, 1u);
  EXPECT_EQ(r->netdev, "ens785f0");
  auto none = port_message("mlx5_0", 1, "");  // an IB port: no netdev attribute
  r = rdma_port_reply(none.data(), none.size());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->netdev, "");
  EXPECT_FALSE(rdma_port_reply(m.data(), NLMSG_HDRLEN - 1));
}

TEST(SoftLinkModule, ForEachType) {
  EXPECT_EQ(soft_link_module("rxe"), "rdma_rxe");
  EXPECT_EQ(soft_link_module("siw"), "siw");
}

}  // namespace
}  // namespace rp
