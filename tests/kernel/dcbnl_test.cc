// DCB netlink requests byte for byte against iproute2's `dcb` (6.1.0, Debian 12's), and the
// parsing of the kernel's IEEE_GET reply. iproute2's bytes are what its code builds
// (dcb/dcb.c dcb_prepare: NLM_F_REQUEST|NLM_F_ACK, struct dcbmsg {0, cmd, 0},
// DCB_ATTR_IFNAME with its NUL; dcb_pfc.c, dcb_ets.c and dcb_app.c: one DCB_ATTR_IEEE nest
// with NLA_F_NESTED) and what Debian's binary was seen to send for "eth0" (strace, a stub
// kernel answering its GET): 32 bytes for a get, 176 for PFC, 100 for ETS, 48 for one APP
// entry. The sequence number and port id are not compared (iproute2's is time(NULL)), nor
// padding (Debian's libmnl 1.0.4 leaves stale bytes there). The same requests are compared
// on the guest kernel in QEMU by scenario 8 (tests/nlmon).
#include "provision/kernel/dcbnl.h"

#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>

#include <cstring>
#include <vector>

namespace rp {
namespace {

using Bytes = std::vector<uint8_t>;

void u16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v & 0xff));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void u32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void pad(Bytes& b) {
  while (b.size() % 4) b.push_back(0);
}

// iproute2's message: header, dcbmsg, IFNAME "eth0\0", then `body` (already laid out).
Bytes iproute2(uint16_t type, uint8_t cmd, const Bytes& body) {
  Bytes b;
  const uint32_t len = 16 + 4 + 12 + static_cast<uint32_t>(body.size());
  u32(b, len);
  u16(b, type);
  u16(b, NLM_F_REQUEST | NLM_F_ACK);
  u32(b, 0);  // seq
  u32(b, 0);  // pid
  b.insert(b.end(), {0, cmd, 0, 0});
  u16(b, 9);
  u16(b, DCB_ATTR_IFNAME);
  for (char c : std::string("eth0")) b.push_back(static_cast<uint8_t>(c));
  b.push_back(0);
  pad(b);
  b.insert(b.end(), body.begin(), body.end());
  return b;
}

Bytes attr(uint16_t type, const Bytes& payload) {
  Bytes b;
  u16(b, static_cast<uint16_t>(4 + payload.size()));
  u16(b, type);
  b.insert(b.end(), payload.begin(), payload.end());
  pad(b);
  return b;
}

// Compares two requests attribute by attribute: everything but seq, pid and the padding
// bytes after an attribute.
void expect_same(Bytes ours, Bytes theirs) {
  ASSERT_EQ(ours.size(), theirs.size());
  for (auto* b : {&ours, &theirs}) std::memset(b->data() + 8, 0, 8);  // seq, pid
  // Padding after IFNAME ("eth0\0" + 3).
  for (size_t i = 29; i < 32; ++i) ours[i] = theirs[i] = 0;
  EXPECT_EQ(ours, theirs);
}

TEST(DcbRequests, GetIsIproute2s) {
  const Bytes ours = dcb_get_request("eth0");
  ASSERT_EQ(ours.size(), 32u);
  expect_same(ours, iproute2(78 /*RTM_GETDCB*/, DCB_CMD_IEEE_GET, {}));
}

TEST(DcbRequests, PfcIsIproute2sWholeStruct) {
  // `dcb pfc set dev eth0 prio-pfc all:off 3:on` after a GET showing pfc_cap 8, delay 7:
  // the struct as shown, pfc_en 0x08 (dcb_pfc.c dcb_cmd_pfc_set).
  DcbPfcRequest r{0x08, 8, 0, 7};
  ieee_pfc p{};
  p.pfc_cap = 8;
  p.pfc_en = 0x08;
  p.delay = 7;
  Bytes payload(reinterpret_cast<uint8_t*>(&p), reinterpret_cast<uint8_t*>(&p) + sizeof p);
  const Bytes body = attr(DCB_ATTR_IEEE | NLA_F_NESTED, attr(DCB_ATTR_IEEE_PFC, payload));
  ASSERT_EQ(body.size(), 144u);  // the nest of "90 00 0d 80"
  const Bytes ours = dcb_pfc_request("eth0", r);
  ASSERT_EQ(ours.size(), 176u);
  expect_same(ours, iproute2(79 /*RTM_SETDCB*/, DCB_CMD_IEEE_SET, body));
}

TEST(DcbRequests, EtsIsIproute2sWholeStruct) {
  // `dcb ets set dev eth0 tc-tsa all:ets tc-bw all:0 0:50 3:50 prio-tc 3:3` over mlx5's
  // defaults: 59 bytes in an attribute of 63 (dcb_ets.c dcb_ets_set).
  DcbEtsRequest r;
  r.ets_cap = 8;
  r.tc_bw = {50, 0, 0, 50, 0, 0, 0, 0};
  r.tc_tsa.fill(2);
  r.prio_tc = {1, 0, 2, 3, 4, 5, 6, 7};
  ieee_ets e{};
  e.ets_cap = 8;
  for (int i = 0; i < 8; ++i) {
    e.tc_tx_bw[i] = r.tc_bw[i];
    e.tc_tsa[i] = 2;
    e.prio_tc[i] = r.prio_tc[i];
  }
  Bytes payload(reinterpret_cast<uint8_t*>(&e), reinterpret_cast<uint8_t*>(&e) + sizeof e);
  Bytes inner = attr(DCB_ATTR_IEEE_ETS, payload);  // "3f 00 01 00", padded to 64
  const Bytes body = attr(DCB_ATTR_IEEE | NLA_F_NESTED, inner);
  Bytes ours = dcb_ets_request("eth0", r);
  ASSERT_EQ(ours.size(), 100u);
  Bytes theirs = iproute2(79, DCB_CMD_IEEE_SET, body);
  ours[99] = theirs[99] = 0;  // the ETS attribute's one byte of padding
  expect_same(ours, theirs);
}

TEST(DcbRequests, AppAddAndDelAreIproute2s) {
  // `dcb app add dev eth0 dscp-prio 26:3`: one IEEE_SET, no GET (dcb_app.c
  // dcb_cmd_app_add); `dcb app del` the same bytes with IEEE_DEL.
  const Bytes entry = {5, 3, 26, 0};
  const Bytes body = attr(DCB_ATTR_IEEE | NLA_F_NESTED, attr(DCB_ATTR_IEEE_APP_TABLE | NLA_F_NESTED,
                                                             attr(DCB_ATTR_IEEE_APP, entry)));
  ASSERT_EQ(body.size(), 16u);
  expect_same(dcb_apps_request("eth0", {{5, 3, 26}}, false), iproute2(79, DCB_CMD_IEEE_SET, body));
  expect_same(dcb_apps_request("eth0", {{5, 3, 26}}, true), iproute2(79, DCB_CMD_IEEE_DEL, body));
}

// The kernel's IEEE_GET reply (dcbnl_ieee_fill): the IEEE nest without NLA_F_NESTED, ETS,
// PFC and the APP table inside, DCB_ATTR_DCBX after it.
TEST(DcbReply, IeeeGetIsReadAsTheKernelFillsIt) {
  ieee_ets e{};
  e.ets_cap = 8;
  e.tc_tx_bw[0] = e.tc_tx_bw[3] = 50;
  for (int i = 0; i < 8; ++i) {
    e.tc_tsa[i] = 2;
    e.prio_tc[i] = static_cast<uint8_t>(i);
  }
  ieee_pfc p{};
  p.pfc_cap = 8;
  p.pfc_en = 0x08;
  p.delay = 7;
  Bytes nest;
  for (const Bytes& a :
       {attr(DCB_ATTR_IEEE_ETS,
             Bytes(reinterpret_cast<uint8_t*>(&e), reinterpret_cast<uint8_t*>(&e) + sizeof e)),
        attr(DCB_ATTR_IEEE_PFC,
             Bytes(reinterpret_cast<uint8_t*>(&p), reinterpret_cast<uint8_t*>(&p) + sizeof p)),
        attr(DCB_ATTR_IEEE_APP_TABLE, [] {
          Bytes t = attr(DCB_ATTR_IEEE_APP, {5, 3, 26, 0});
          Bytes u = attr(DCB_ATTR_IEEE_APP, {1, 4, 0x06, 0x89});  // an EtherType entry
          t.insert(t.end(), u.begin(), u.end());
          return t;
        }())})
    nest.insert(nest.end(), a.begin(), a.end());
  Bytes reply = attr(DCB_ATTR_IFNAME, {'e', 't', 'h', '0', 0});
  for (const Bytes& a : {attr(DCB_ATTR_IEEE, nest), attr(DCB_ATTR_DCBX, {0x0d})})
    reply.insert(reply.end(), a.begin(), a.end());
  const DcbState s = parse_dcb_ieee_reply(reply.data(), reply.size());
  EXPECT_EQ(s.pfc_en, 0x08);
  EXPECT_EQ(s.pfc_delay, 7);
  EXPECT_TRUE(s.has_ets);
  EXPECT_EQ(s.tc_bw[3], 50);
  EXPECT_EQ(s.dscp_prio, (std::map<uint8_t, uint8_t>{{26, 3}}));
  EXPECT_TRUE(s.other_apps);
  EXPECT_FALSE(s.trust);
  EXPECT_EQ(s.dcbx, 0x0d);
  EXPECT_EQ(s.effective_trust(), DcbTrust::kDscp);
  EXPECT_EQ(s.roce_priority(106), 3);  // ToS 106: DSCP 26
  EXPECT_EQ(s.pfc_text(), "3");
  // A truncated reply gives what it holds, and never reads past its end.
  const DcbState cut = parse_dcb_ieee_reply(reply.data(), 20);
  EXPECT_FALSE(cut.pfc_en);
}

}  // namespace
}  // namespace rp
