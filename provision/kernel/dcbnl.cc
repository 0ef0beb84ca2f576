// DCB netlink requests and replies (kernel/dcbnl.h). The layouts are the kernel's uapi
// (linux/dcbnl.h); the checks below pin the sizes iproute2 and the kernel agree on.
#include "provision/kernel/dcbnl.h"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "provision/base/strings.h"
#include "provision/kernel/nl_io.h"

namespace rp {
namespace {

static_assert(sizeof(ieee_pfc) == 136, "struct ieee_pfc as the kernel's policy wants it");
static_assert(sizeof(ieee_ets) == 59, "struct ieee_ets as the kernel's policy wants it");
static_assert(sizeof(dcb_app) == 4, "struct dcb_app");
static_assert(sizeof(dcbmsg) == 4, "struct dcbmsg");
static_assert(RTM_GETDCB == 78 && RTM_SETDCB == 79, "rtnetlink's DCB message types");
static_assert(DCB_CMD_IEEE_SET == 20 && DCB_CMD_IEEE_GET == 21 && DCB_CMD_IEEE_DEL == 27);
static_assert(DCB_ATTR_IFNAME == 1 && DCB_ATTR_IEEE == 13 && DCB_ATTR_DCBX == 14);
static_assert(DCB_ATTR_IEEE_ETS == 1 && DCB_ATTR_IEEE_PFC == 2 && DCB_ATTR_IEEE_APP_TABLE == 3);
static_assert(DCB_ATTR_IEEE_APP == 1 && IEEE_8021QAZ_APP_SEL_DSCP == 5);
// Kernels 6.2 and later (include/uapi/linux/dcbnl.h): the trust table inside
// DCB_ATTR_IEEE, one u8 selector per attribute, of type DCB_ATTR_IEEE_APP (1) for IEEE
// selectors and DCB_ATTR_DCB_APP (2) for PCP (255). 6.1's headers have neither; 6.1's
// kernel skips the attribute (its policy ends at 10, and dcbnl parses liberally).
constexpr int kAttrAppTrustTable = 11;
constexpr int kAttrDcbApp = 2;
constexpr uint8_t kSelPcp = 255;
#ifdef DCB_ATTR_DCB_APP_TRUST_TABLE
static_assert(DCB_ATTR_DCB_APP_TRUST_TABLE == kAttrAppTrustTable);
#endif

// Each attribute of a run of them: type (without NLA_F_NESTED), payload, its length.
void for_each_attr(const uint8_t* p, size_t len,
                   const std::function<void(int, const uint8_t*, size_t)>& fn) {
  while (len >= NLA_HDRLEN) {
    nlattr a;
    std::memcpy(&a, p, sizeof a);
    if (a.nla_len < NLA_HDRLEN || a.nla_len > len) return;
    fn(a.nla_type & NLA_TYPE_MASK, p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN);
    const size_t step = NLA_ALIGN(a.nla_len);
    if (step >= len) return;
    p += step;
    len -= step;
  }
}

nl::MsgBuilder request(int type, uint8_t cmd, const std::string& ifname) {
  nl::MsgBuilder b(type, 0);
  dcbmsg h{};
  h.dcb_family = AF_UNSPEC;  // dcbnl_init registers dcb_doit for PF_UNSPEC
  h.cmd = cmd;
  b.header(h).put_string(DCB_ATTR_IFNAME, ifname);
  return b;
}

ieee_pfc pfc_struct(const DcbPfcRequest& r) {
  ieee_pfc p{};
  p.pfc_cap = r.pfc_cap;
  p.pfc_en = r.pfc_en;
  p.mbc = r.mbc;
  p.delay = r.delay;
  return p;
}

ieee_ets ets_struct(const DcbEtsRequest& r) {
  ieee_ets e{};
  e.willing = r.willing;
  e.ets_cap = r.ets_cap;
  e.cbs = r.cbs;
  for (int i = 0; i < 8; ++i) {
    e.tc_tx_bw[i] = r.tc_bw[i];
    e.tc_tsa[i] = r.tc_tsa[i];
    e.prio_tc[i] = r.prio_tc[i];
  }
  return e;
}

nl::MsgBuilder pfc_msg(const std::string& ifname, const DcbPfcRequest& r) {
  const ieee_pfc p = pfc_struct(r);
  auto b = request(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
  b.begin_nest(DCB_ATTR_IEEE | NLA_F_NESTED).put(DCB_ATTR_IEEE_PFC, &p, sizeof p).end_nest();
  return b;
}

nl::MsgBuilder ets_msg(const std::string& ifname, const DcbEtsRequest& r) {
  const ieee_ets e = ets_struct(r);
  auto b = request(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
  b.begin_nest(DCB_ATTR_IEEE | NLA_F_NESTED).put(DCB_ATTR_IEEE_ETS, &e, sizeof e).end_nest();
  return b;
}

nl::MsgBuilder apps_msg(const std::string& ifname, const std::vector<DcbAppEntry>& entries,
                        bool del) {
  auto b = request(RTM_SETDCB, del ? DCB_CMD_IEEE_DEL : DCB_CMD_IEEE_SET, ifname);
  b.begin_nest(DCB_ATTR_IEEE | NLA_F_NESTED).begin_nest(DCB_ATTR_IEEE_APP_TABLE | NLA_F_NESTED);
  for (const auto& e : entries) {
    dcb_app a{};
    a.selector = e.selector;
    a.priority = e.priority;
    a.protocol = e.protocol;
    b.put(DCB_ATTR_IEEE_APP, &a, sizeof a);
  }
  b.end_nest().end_nest();
  return b;
}

nl::MsgBuilder trust_msg(const std::string& ifname, const std::vector<uint8_t>& selectors) {
  auto b = request(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
  b.begin_nest(DCB_ATTR_IEEE | NLA_F_NESTED).begin_nest(kAttrAppTrustTable | NLA_F_NESTED);
  for (uint8_t s : selectors) b.put_u8(s == kSelPcp ? kAttrDcbApp : DCB_ATTR_IEEE_APP, s);
  b.end_nest().end_nest();
  return b;
}

std::vector<uint8_t> bytes(nl::MsgBuilder b) {
  auto m = b.seq(0).finish("DCB request");
  if (!m) return {};
  nlmsg_hdr(m->get())->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;  // as exchange() sends it
  return nl::bytes_of(m->get());
}

Error dcb_error(const std::string& ifname, const std::string& what, const nl::Answer& a) {
  std::string why = "DCB " + what;
  if (a.errnum == EOPNOTSUPP) {
    // dcb_doit: no dcbnl_ops (virtio_net, e1000, an mlx5 VF without the vport_group_manager
    // and qos capabilities, en_dcbnl.c mlx5e_dcbnl_build_netdev).
    why += ": its driver has no DCB support (no dcbnl_ops)";
  }
  return make_error(ifname, nl::with_kernel_msg(why, a), a.errnum);
}

class KernelDcb : public DcbOps {
 public:
  Result<DcbState> get(const std::string& ifname) const override {
    auto sock = nl::open_socket(NETLINK_ROUTE, "NETLINK_ROUTE");
    if (!sock) return sock.error();
    auto m = request(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname).finish("DCB IEEE_GET");
    if (!m) return m.error();
    DcbState st;
    bool replied = false;
    const nl::Answer a = nl::exchange(sock->get(), m->get(), [&](const nlmsghdr* h) {
      if (h->nlmsg_type != RTM_GETDCB) return;
      const size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(dcbmsg));
      if (h->nlmsg_len < hdr) return;
      st = parse_dcb_ieee_reply(reinterpret_cast<const uint8_t*>(h) + hdr, h->nlmsg_len - hdr);
      replied = true;
    });
    if (a.errnum) return dcb_error(ifname, "state (IEEE_GET)", a);
    if (!replied)
      return make_error(ifname, "DCB state (IEEE_GET): the kernel sent no reply", EPROTO);
    return st;
  }

  Status set_pfc(const std::string& ifname, const DcbPfcRequest& r) const override {
    return set(ifname, "PFC", pfc_msg(ifname, r));
  }
  Status set_ets(const std::string& ifname, const DcbEtsRequest& r) const override {
    return set(ifname, "ETS", ets_msg(ifname, r));
  }
  Status add_apps(const std::string& ifname, const std::vector<DcbAppEntry>& e) const override {
    return set(ifname, "APP entries (add)", apps_msg(ifname, e, false));
  }
  Status del_apps(const std::string& ifname, const std::vector<DcbAppEntry>& e) const override {
    return set(ifname, "APP entries (delete)", apps_msg(ifname, e, true));
  }
  Status set_trust(const std::string& ifname, const std::vector<uint8_t>& s) const override {
    return set(ifname, "trust table", trust_msg(ifname, s));
  }

 private:
  // A set: the ack, then the status byte dcbnl_ieee_set / dcbnl_ieee_del put in the
  // reply's DCB_ATTR_IEEE (0, or the driver's negative errno).
  static Status set(const std::string& ifname, const std::string& what, nl::MsgBuilder b) {
    auto sock = nl::open_socket(NETLINK_ROUTE, "NETLINK_ROUTE");
    if (!sock) return sock.error();
    auto m = b.finish("DCB " + what);
    if (!m) return m.error();
    int status = 0;
    const nl::Answer a = nl::exchange(sock->get(), m->get(), [&](const nlmsghdr* h) {
      if (h->nlmsg_type != RTM_SETDCB) return;
      const size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(dcbmsg));
      if (h->nlmsg_len < hdr) return;
      for_each_attr(reinterpret_cast<const uint8_t*>(h) + hdr, h->nlmsg_len - hdr,
                    [&](int type, const uint8_t* p, size_t n) {
                      if (type == DCB_ATTR_IEEE && n >= 1) status = static_cast<int8_t>(p[0]);
                    });
    });
    if (a.errnum) return dcb_error(ifname, what, a);
    if (status < 0) {
      return make_error(ifname, "DCB " + what + ": the driver refused it", -status);
    }
    return ok_status();
  }
};

}  // namespace

DcbState parse_dcb_ieee_reply(const uint8_t* attrs, size_t len) {
  DcbState st;
  for_each_attr(attrs, len, [&](int type, const uint8_t* p, size_t n) {
    if (type == DCB_ATTR_DCBX && n >= 1) st.dcbx = p[0];
    if (type != DCB_ATTR_IEEE) return;
    for_each_attr(p, n, [&](int t, const uint8_t* q, size_t m) {
      if (t == DCB_ATTR_IEEE_PFC && m >= sizeof(ieee_pfc)) {
        ieee_pfc pfc;
        std::memcpy(&pfc, q, sizeof pfc);
        st.pfc_en = pfc.pfc_en;
        st.pfc_cap = pfc.pfc_cap;
        st.pfc_mbc = pfc.mbc;
        st.pfc_delay = pfc.delay;
      } else if (t == DCB_ATTR_IEEE_ETS && m >= sizeof(ieee_ets)) {
        ieee_ets e;
        std::memcpy(&e, q, sizeof e);
        st.has_ets = true;
        st.ets_willing = e.willing;
        st.ets_cap = e.ets_cap;
        st.ets_cbs = e.cbs;
        for (int i = 0; i < 8; ++i) {
          st.tc_bw[i] = e.tc_tx_bw[i];
          st.tc_tsa[i] = e.tc_tsa[i];
          st.prio_tc[i] = e.prio_tc[i];
        }
      } else if (t == DCB_ATTR_IEEE_APP_TABLE) {
        for_each_attr(q, m, [&](int at, const uint8_t* r, size_t k) {
          if (k < sizeof(dcb_app) || (at != DCB_ATTR_IEEE_APP && at != kAttrDcbApp)) return;
          dcb_app app;
          std::memcpy(&app, r, sizeof app);
          if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP && app.protocol < 64) {
            st.dscp_prio[static_cast<uint8_t>(app.protocol)] = app.priority;
          } else {
            st.other_apps = true;
          }
        });
      } else if (t == kAttrAppTrustTable) {
        std::vector<uint8_t> sel;
        for_each_attr(q, m, [&](int, const uint8_t* r, size_t k) {
          if (k >= 1) sel.push_back(r[0]);
        });
        st.trust = std::move(sel);
      }
    });
  });
  return st;
}

const DcbOps& kernel_dcb() {
  static const KernelDcb k;
  return k;
}

std::vector<uint8_t> dcb_get_request(const std::string& ifname) {
  return bytes(request(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname));
}
std::vector<uint8_t> dcb_pfc_request(const std::string& ifname, const DcbPfcRequest& pfc) {
  return bytes(pfc_msg(ifname, pfc));
}
std::vector<uint8_t> dcb_ets_request(const std::string& ifname, const DcbEtsRequest& ets) {
  return bytes(ets_msg(ifname, ets));
}
std::vector<uint8_t> dcb_apps_request(const std::string& ifname,
                                      const std::vector<DcbAppEntry>& entries, bool del) {
  return bytes(apps_msg(ifname, entries, del));
}

}  // namespace rp
