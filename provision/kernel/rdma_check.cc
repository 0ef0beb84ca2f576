#include "provision/kernel/rdma_check.h"

#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "provision/base/drivers.h"
#include "provision/base/root.h"
#include "provision/kernel/verbs.h"

namespace rp {

using Clock = std::chrono::steady_clock;
using Until = Clock::time_point;

std::string_view to_string(GidType t) {
  switch (t) {
    case GidType::kIb:
      return "IB";
    case GidType::kRoceV1:
      return "RoCE v1";
    case GidType::kRoceV2:
      return "RoCE v2";
  }
  return "?";
}

std::string gid_text(const std::array<uint8_t, 16>& raw) {
  char buf[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET6, raw.data(), buf, sizeof buf);
  return buf;
}

namespace {

bool ipv4_mapped(const std::array<uint8_t, 16>& g) {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.data(), kPrefix, sizeof kPrefix) == 0;
}

bool zero(const std::array<uint8_t, 16>& g) {
  return std::all_of(g.begin(), g.end(), [](uint8_t b) { return b == 0; });
}

}  // namespace

std::optional<GidEntry> choose_gid(const std::vector<GidEntry>& table, GidType want) {
  std::optional<GidEntry> best;
  for (const auto& e : table) {
    if (e.type != want || zero(e.raw)) continue;
    if (!best || (ipv4_mapped(e.raw) && !ipv4_mapped(best->raw)) ||
        (ipv4_mapped(e.raw) == ipv4_mapped(best->raw) && e.index < best->index)) {
      best = e;
    }
  }
  return best;
}

std::string Latency::str() const {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%u round trip%s, median %.0f us (%.0f..%.0f)", rounds,
                rounds == 1 ? "" : "s", median_us, min_us, max_us);
  return buf;
}

Latency latency_of(std::vector<double> us) {
  Latency l;
  l.rounds = static_cast<unsigned>(us.size());
  if (us.empty()) return l;
  std::sort(us.begin(), us.end());
  const size_t n = us.size();
  l.median_us = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  l.min_us = us.front();
  l.max_us = us.back();
  return l;
}

namespace {

// ---------------------------------------------------------------- shared verbs helpers

template <typename T, int (*F)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) F(p);
  }
};
template <typename T, int (*F)(T*)>
using Owned = std::unique_ptr<T, Deleter<T, F>>;

using Context = Owned<ibv_context, ibv_close_device>;
using Pd = Owned<ibv_pd, ibv_dealloc_pd>;
using Cq = Owned<ibv_cq, ibv_destroy_cq>;
using Qp = Owned<ibv_qp, ibv_destroy_qp>;
using Mr = Owned<ibv_mr, ibv_dereg_mr>;
using Channel = Owned<ibv_comp_channel, ibv_destroy_comp_channel>;

int ms_left(Until until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

// FNV-1a: the check the two ends compare over the RDMA-written bytes.
uint32_t fnv1a(const uint8_t* p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

void fill_pattern(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>((i * 131 + seed) & 0xff);
}

// Waits for `want` completions on `cq` (armed through `ch`; event-driven, no busy poll
// beyond the first look). A completion with an error status ends the wait with it.
Status wait_completions(ibv_cq* cq, ibv_comp_channel* ch, int want, Until until,
                        const std::string& where, std::vector<ibv_wc>* got = nullptr) {
  int have = 0;
  bool armed = false;
  while (have < want) {
    ibv_wc wc[8];
    const int n = ibv_poll_cq(cq, 8, wc);
    if (n < 0) return make_error(where, "polling the completion queue failed", EIO);
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        return make_error(where,
                          std::string(ibv_wc_status_str(wc[i].status)) + " (completion of " +
                              (wc[i].opcode & IBV_WC_RECV ? "a receive" : "a send or write") +
                              ", status " + std::to_string(wc[i].status) + ")");
      }
      if (got) got->push_back(wc[i]);
    }
    have += n;
    if (have >= want || n > 0) continue;
    if (!armed) {
      if (int e = ibv_req_notify_cq(cq, 0))
        return make_error(where, "cannot arm the completion queue", e);
      armed = true;
      continue;  // look once more: a completion may have come before the arming
    }
    pollfd pfd{ch->fd, POLLIN, 0};
    const int left = ms_left(until);
    if (left == 0) return make_error(where, "no completion in time", ETIMEDOUT);
    const int r = ::poll(&pfd, 1, left);
    if (r < 0 && errno != EINTR) return make_error(where, "poll", errno);
    if (r <= 0) continue;
    ibv_cq* ev_cq = nullptr;
    void* ev_ctx = nullptr;
    if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0) ibv_ack_cq_events(ev_cq, 1);
    armed = false;
  }
  return ok_status();
}

Status post_recv(ibv_qp* qp, ibv_mr* mr, void* addr, uint32_t len, uint64_t id,
                 const std::string& where) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(addr), len, mr->lkey};
  ibv_recv_wr wr{}, *bad = nullptr;
  wr.wr_id = id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  if (int e = ibv_post_recv(qp, &wr, &bad)) return make_error(where, "cannot post a receive", e);
  return ok_status();
}

Status post_send(ibv_qp* qp, ibv_mr* mr, void* addr, uint32_t len, uint64_t id,
                 const std::string& where, ibv_wr_opcode op = IBV_WR_SEND, uint64_t raddr = 0,
                 uint32_t rkey = 0) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(addr), len, mr->lkey};
  ibv_send_wr wr{}, *bad = nullptr;
  wr.wr_id = id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = op;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = raddr;
  wr.wr.rdma.rkey = rkey;
  if (int e = ibv_post_send(qp, &wr, &bad)) {
    return make_error(where, op == IBV_WR_SEND ? "cannot post a send" : "cannot post an RDMA WRITE",
                      e);
  }
  return ok_status();
}

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------- loopback

// A QP of the loopback pair: RESET -> INIT -> RTR (towards `remote`) -> RTS, as
// ibv_rc_pingpong (rdma-core libibverbs/examples/rc_pingpong.c) connects its QPs.
Status connect_rc(ibv_qp* qp, uint32_t remote, unsigned port, ibv_mtu mtu, const ibv_ah_attr& ah,
                  const std::string& where) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = static_cast<uint8_t>(port);
  a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
  if (int e = ibv_modify_qp(qp, &a,
                            IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
    return make_error(where, "QP to INIT", e);
  }
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = mtu;
  a.dest_qp_num = remote;
  a.rq_psn = 0;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr = ah;
  if (int e = ibv_modify_qp(qp, &a,
                            IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
    return make_error(where, "QP to RTR (address handle towards itself)", e);
  }
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.sq_psn = 0;
  a.max_rd_atomic = 1;
  if (int e = ibv_modify_qp(qp, &a,
                            IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
    return make_error(where, "QP to RTS", e);
  }
  return ok_status();
}

// Why libibverbs does not list a device the kernel has. ib_uverbs gives every device a
// /sys/class/infiniband_verbs/uverbsN whose ibdev names it (uverbs_main.c); libibverbs
// lists it only when a provider of this binary claims it (verbs_find_device): the
// providers built in are mlx4, mlx5, rxe and siw (@rdma_core, RDMA_STATIC_PROVIDERS).
std::string why_not_listed(const std::string& name) {
  const Root live("/");
  const std::string dev = "/sys/class/infiniband/" + name;
  if (!live.exists(dev)) return "no such RDMA device";
  bool uverbs = false;
  for (const auto& u : live.list("/sys/class/infiniband_verbs")) {
    uverbs |= live.read_or("/sys/class/infiniband_verbs/" + u + "/ibdev", "") == name;
  }
  if (!uverbs) {
    return "libibverbs has no such device: ib_uverbs is not loaded, or has no "
           "/sys/class/infiniband_verbs/uverbs* for it";
  }
  // The RDMA driver: a NIC driver's RDMA side (bnxt_en -> bnxt_re), else the device's own.
  std::string driver = live.link_basename(dev + "/device/driver").value_or(name);
  if (auto rdma = rdma_driver_for(driver)) driver = std::string(*rdma);
  return "no libibverbs provider for " + driver +
         " in this binary (it has mlx4, mlx5, rxe and siw): the data path cannot be checked "
         "from here";
}

Result<Context> open_by_name(const std::string& name) {
  int n = 0;
  std::unique_ptr<ibv_device*, void (*)(ibv_device**)> list(ibv_get_device_list(&n),
                                                            ibv_free_device_list);
  if (!list) return make_error(name, "libibverbs cannot list devices", errno);
  for (int i = 0; i < n; ++i) {
    if (name != ibv_get_device_name(list.get()[i])) continue;
    Context ctx(ibv_open_device(list.get()[i]));
    if (!ctx) return make_error(name, "cannot open the device (/dev/infiniband/uverbs*)", errno);
    return ctx;
  }
  return make_error(name, why_not_listed(name));
}

const char* port_state_name(ibv_port_state s) { return ibv_port_state_str(s); }

}  // namespace

Result<LoopbackResult> verbs_loopback(const LoopbackCheck& c, Until until) {
  const std::string where = c.device + "/" + std::to_string(c.port);
  auto opened = open_by_name(c.device);
  if (!opened) return make_error(where, opened.error().what, opened.error().errnum);
  Context ctx = std::move(opened.value());
  ibv_port_attr pa{};
  if (int e = ibv_query_port(ctx.get(), static_cast<uint8_t>(c.port), &pa)) {
    return make_error(where, "cannot query the port", e);
  }
  if (pa.state != IBV_PORT_ACTIVE) {
    return make_error(where,
                      std::string("the port is ") + port_state_name(pa.state) + ", not ACTIVE");
  }
  LoopbackResult r;
  ibv_ah_attr ah{};
  ah.port_num = static_cast<uint8_t>(c.port);
  // The address handle towards the port itself: on RoCE the chosen GID (read again on a
  // retry: an IPv4 GID may have appeared), on IB the port's LID.
  auto address = [&]() -> Status {
    if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
      if (pa.lid == 0) {
        return make_error(where,
                          "the port has no LID: no subnet manager has configured it (opensm)");
      }
      ah.dlid = pa.lid;
      char lid[16];
      std::snprintf(lid, sizeof lid, "0x%x", pa.lid);
      r.addressing = std::string("LID ") + lid;
      return ok_status();
    }
    std::vector<ibv_gid_entry> raw(std::max<int>(pa.gid_tbl_len, 1));
    const ssize_t n = ibv_query_gid_table(ctx.get(), raw.data(), raw.size(), 0);
    if (n < 0) return make_error(where, "cannot read the GID table", static_cast<int>(-n));
    std::vector<GidEntry> table;
    for (ssize_t i = 0; i < n; ++i) {
      if (raw[i].port_num != c.port) continue;
      GidEntry g;
      g.index = raw[i].gid_index;
      std::memcpy(g.raw.data(), raw[i].gid.raw, 16);
      g.type = raw[i].gid_type == IBV_GID_TYPE_ROCE_V2 ? GidType::kRoceV2 : GidType::kRoceV1;
      table.push_back(g);
    }
    auto g = choose_gid(table, c.want);
    if (!g) {
      return make_error(where, "the GID table has no " + std::string(to_string(c.want)) +
                                   " entry (" + std::to_string(table.size()) +
                                   " valid entries): no IP address on the interface, or the "
                                   "other RoCE type configured");
    }
    ah.is_global = 1;
    std::memcpy(ah.grh.dgid.raw, g->raw.data(), 16);
    ah.grh.sgid_index = static_cast<uint8_t>(g->index);
    ah.grh.hop_limit = 64;
    r.addressing = "GID " + gid_text(g->raw) + " (index " + std::to_string(g->index) + ", " +
                   std::string(to_string(g->type)) + ")";
    return ok_status();
  };
  if (auto s = address(); !s) return s.error();
  r.mtu = ib_mtu_bytes(pa.active_mtu);
  const unsigned msg = 64;
  const unsigned total = r.mtu + 2 * msg;

  Pd pd(ibv_alloc_pd(ctx.get()));
  if (!pd) return make_error(where, "cannot allocate a protection domain", errno);
  Channel ch(ibv_create_comp_channel(ctx.get()));
  if (!ch) return make_error(where, "cannot create a completion channel", errno);
  Cq cq(ibv_create_cq(ctx.get(), 16, nullptr, ch.get(), 0));
  if (!cq) return make_error(where, "cannot create a completion queue", errno);
  std::vector<uint8_t> buf(2 * total);
  Mr mr(ibv_reg_mr(pd.get(), buf.data(), buf.size(),
                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  if (!mr) return make_error(where, "cannot register memory", errno);
  ibv_qp_init_attr qa{};
  qa.send_cq = qa.recv_cq = cq.get();
  qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
  qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
  qa.qp_type = IBV_QPT_RC;
  Qp a, b;
  // RTR resolves the GID's address through the IP stack on RoCE v2 (verbs.c
  // ib_resolve_unicast_gid_dmac -> rdma_addr_find_l2_eth_by_grh): right after link-up the
  // IPv6 link-local address is still tentative (DAD) and the resolution times out. Retried
  // with fresh QPs until it resolves or the check's time is up.
  for (;;) {
    a.reset(ibv_create_qp(pd.get(), &qa));
    b.reset(a ? ibv_create_qp(pd.get(), &qa) : nullptr);
    if (!a || !b) return make_error(where, "cannot create an RC queue pair", errno);
    Status s = connect_rc(a.get(), b->qp_num, c.port, pa.active_mtu, ah, where);
    if (s) s = connect_rc(b.get(), a->qp_num, c.port, pa.active_mtu, ah, where);
    if (s) break;
    const int e = s.error().errnum;
    const bool unresolved = e == ETIMEDOUT || e == ENETUNREACH || e == EHOSTUNREACH ||
                            e == EADDRNOTAVAIL || e == ENODATA;
    if (!unresolved || ms_left(until) < 300) {
      Error err = s.error();
      if (unresolved) {
        err.what += " (the kernel could not resolve " + r.addressing +
                    ": no usable IP address for it yet, or IPv6 disabled)";
      }
      return err;
    }
    b.reset();
    a.reset();
    ::poll(nullptr, 0, 250);
    if (auto st = address(); !st) return st.error();
  }

  uint8_t* a_buf = buf.data();          // A: [write source: mtu][send: msg][recv: msg]
  uint8_t* b_buf = buf.data() + total;  // B: [write target: mtu][send: msg][recv: msg]
  // The RDMA WRITE of one path MTU, then a SEND: RC delivers in order, so the bytes are in
  // B's buffer when B's receive completes.
  fill_pattern(a_buf, r.mtu, 0x5a);
  std::memset(b_buf, 0, r.mtu);
  const std::string wr_where = where + ": RDMA WRITE";
  if (auto s = post_recv(b.get(), mr.get(), b_buf + r.mtu + msg, msg, 1, wr_where); !s)
    return s.error();
  if (auto s = post_send(a.get(), mr.get(), a_buf, r.mtu, 2, wr_where, IBV_WR_RDMA_WRITE,
                         reinterpret_cast<uintptr_t>(b_buf), mr->rkey);
      !s) {
    return s.error();
  }
  if (auto s = post_send(a.get(), mr.get(), a_buf + r.mtu, msg, 3, wr_where); !s) return s.error();
  if (auto s = wait_completions(cq.get(), ch.get(), 3, until, wr_where); !s) return s.error();
  if (std::memcmp(a_buf, b_buf, r.mtu) != 0) {
    return make_error(wr_where,
                      "the " + std::to_string(r.mtu) + " bytes written differ from those sent");
  }
  r.written = r.mtu;
  // SEND ping-pongs: A -> B, B -> A; the time of each round.
  std::vector<double> rtt;
  const std::string pp_where = where + ": SEND round trip";
  for (unsigned i = 0; i < c.rounds; ++i) {
    if (auto s = post_recv(b.get(), mr.get(), b_buf + r.mtu + msg, msg, 10, pp_where); !s)
      return s.error();
    if (auto s = post_recv(a.get(), mr.get(), a_buf + r.mtu + msg, msg, 11, pp_where); !s)
      return s.error();
    const auto t0 = Clock::now();
    if (auto s = post_send(a.get(), mr.get(), a_buf + r.mtu, msg, 12, pp_where); !s)
      return s.error();
    std::vector<ibv_wc> got;
    // A's send and B's receive; then B answers.
    if (auto s = wait_completions(cq.get(), ch.get(), 2, until, pp_where, &got); !s)
      return s.error();
    if (auto s = post_send(b.get(), mr.get(), b_buf + r.mtu, msg, 13, pp_where); !s)
      return s.error();
    if (auto s = wait_completions(cq.get(), ch.get(), 2, until, pp_where, &got); !s)
      return s.error();
    rtt.push_back(us_since(t0));
  }
  r.rtt = latency_of(std::move(rtt));
  return r;
}

// ---------------------------------------------------------------- rdma_cm peer check

namespace {

// What the two ends of a peer check exchange: the listener's buffer in its accept's
// private data, then one message per round (the client's SEND, the listener's answer).
constexpr uint32_t kMagic = 0x52505631;  // "RPV1"
constexpr uint32_t kBufferBytes = 64 * 1024;
constexpr uint32_t kWriteBytes = 4096;

struct Hello {  // both private data blobs (56 bytes max on IB CM REQ: ib_cm.h)
  uint32_t magic;
  uint32_t rkey;
  uint64_t addr;
  uint32_t len;
  uint32_t pad;
};
struct Msg {
  uint32_t magic;
  uint32_t round;
  uint32_t written;  // bytes the client wrote at the start of the buffer (round 0)
  uint32_t check;    // their FNV-1a, as the client computed it; the listener's answer repeats
  uint32_t ok;       // listener: 1 when its bytes match
  uint32_t pad;
};

using EventChannel = std::unique_ptr<rdma_event_channel, void (*)(rdma_event_channel*)>;

std::string sockaddr_text(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!sa) return "?";
  if (sa->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof buf);
  } else if (sa->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

sockaddr_storage to_sockaddr(const IpAddress& a, uint16_t port) {
  sockaddr_storage ss{};
  if (a.v6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(port);
    std::memcpy(&s6->sin6_addr, a.bytes.data(), 16);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(port);
    std::memcpy(&s4->sin_addr, a.bytes.data(), 4);
  }
  return ss;
}

// Why a connect was rejected: IB CM's reject reasons (include/rdma/ib_cm.h enum
// ib_cm_rej_reason) that a check meets; 8 is what a port without a listener answers
// (cm.c cm_match_req -> IB_CM_REJ_INVALID_SERVICE_ID).
std::string reject_text(int status) {
  switch (status) {
    case 8:
      return "no listener on that port (IB CM reject reason 8, invalid service ID)";
    case 28:
      return "the listener refused the connection (IB CM reject reason 28, consumer defined)";
    default:
      return "IB CM reject reason " + std::to_string(status);
  }
}

// The next event of `ec` (non-blocking fd, polled within `until`). The caller acks it.
Result<rdma_cm_event*> next_event(rdma_event_channel* ec, Until until, const std::string& where) {
  for (;;) {
    rdma_cm_event* ev = nullptr;
    if (rdma_get_cm_event(ec, &ev) == 0) return ev;
    if (errno != EAGAIN && errno != EINTR) return make_error(where, "rdma_get_cm_event", errno);
    pollfd pfd{ec->fd, POLLIN, 0};
    const int left = ms_left(until);
    if (left == 0) return make_error(where, "no answer in time", ETIMEDOUT);
    if (::poll(&pfd, 1, left) < 0 && errno != EINTR) return make_error(where, "poll", errno);
  }
}

// Waits for `want`; any other event is the stage's failure, named.
Status expect_event(rdma_event_channel* ec, rdma_cm_event_type want, Until until,
                    const std::string& where, Hello* peer_hello = nullptr,
                    bool* transient = nullptr) {
  auto got = next_event(ec, until, where);
  if (!got) {
    if (transient) *transient = true;  // no answer in time
    return got.error();
  }
  rdma_cm_event* ev = *got;
  const rdma_cm_event_type type = ev->event;
  // What a peer still booting, or a lost packet, gives; a reject is the peer's answer.
  if (transient) {
    *transient = type == RDMA_CM_EVENT_ADDR_ERROR || type == RDMA_CM_EVENT_ROUTE_ERROR ||
                 type == RDMA_CM_EVENT_UNREACHABLE || type == RDMA_CM_EVENT_CONNECT_ERROR;
  }
  const int status = ev->status;
  if (type == want && peer_hello && ev->param.conn.private_data &&
      ev->param.conn.private_data_len >= sizeof(Hello)) {
    std::memcpy(peer_hello, ev->param.conn.private_data, sizeof(Hello));
  }
  rdma_ack_cm_event(ev);
  if (type == want) return ok_status();
  std::string why = std::string(rdma_event_str(type));
  if (type == RDMA_CM_EVENT_REJECTED) {
    why = "rejected: " + reject_text(status);
  } else if (status < 0) {
    return make_error(where, why, -status);
  } else if (status > 0) {
    why += " (status " + std::to_string(status) + ")";
  }
  return make_error(where, why);
}

// One try of the peer check; `*transient` says whether a failure may pass on a retry
// (resolution without an answer, unreachable). Address and route resolution are bounded
// by `resolve_until`, the rest by `until`.
Result<PeerResult> peer_attempt(const PeerCheck& c, Until resolve_until, Until until,
                                bool* transient) {
  *transient = false;
  const std::string peer = c.address.str() + ":" + std::to_string(c.port);
  EventChannel ec(rdma_create_event_channel(), rdma_destroy_event_channel);
  if (!ec)
    return make_error(peer, "cannot open rdma_cm (/dev/infiniband/rdma_cm; is rdma_ucm loaded?)",
                      errno);
  ::fcntl(ec->fd, F_SETFL, ::fcntl(ec->fd, F_GETFL) | O_NONBLOCK);
  rdma_cm_id* raw_id = nullptr;
  if (rdma_create_id(ec.get(), &raw_id, nullptr, RDMA_PS_TCP)) {
    return make_error(peer, "cannot create an rdma_cm id", errno);
  }
  std::unique_ptr<rdma_cm_id, int (*)(rdma_cm_id*)> id(raw_id, rdma_destroy_id);
  sockaddr_storage dst = to_sockaddr(c.address, c.port);
  if (rdma_resolve_addr(id.get(), nullptr, reinterpret_cast<sockaddr*>(&dst),
                        std::max(ms_left(resolve_until), 1))) {
    return make_error(peer + ": address resolution", "rdma_resolve_addr", errno);
  }
  if (auto s = expect_event(ec.get(), RDMA_CM_EVENT_ADDR_RESOLVED, resolve_until,
                            peer + ": address resolution", nullptr, transient);
      !s) {
    return s.error();
  }
  if (rdma_resolve_route(id.get(), std::max(ms_left(resolve_until), 1))) {
    return make_error(peer + ": route resolution", "rdma_resolve_route", errno);
  }
  if (auto s = expect_event(ec.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, resolve_until,
                            peer + ": route resolution", nullptr, transient);
      !s) {
    return s.error();
  }
  PeerResult r;
  r.device = id->verbs ? ibv_get_device_name(id->verbs->device) : "?";
  r.port = id->port_num;
  std::array<uint8_t, 16> sgid{};
  std::memcpy(sgid.data(), id->route.addr.addr.ibaddr.sgid.raw, 16);
  r.local_gid = gid_text(sgid);
  const std::string local = " (via " + r.device + "/" + std::to_string(r.port) + ")";

  Pd pd(ibv_alloc_pd(id->verbs));
  Channel ch(pd ? ibv_create_comp_channel(id->verbs) : nullptr);
  Cq cq(ch ? ibv_create_cq(id->verbs, 16, nullptr, ch.get(), 0) : nullptr);
  std::vector<uint8_t> buf(kWriteBytes + 2 * sizeof(Msg));
  Mr mr(cq ? ibv_reg_mr(pd.get(), buf.data(), buf.size(), IBV_ACCESS_LOCAL_WRITE) : nullptr);
  if (!mr) return make_error(peer + local, "cannot set up verbs resources", errno);
  ibv_qp_init_attr qa{};
  qa.send_cq = qa.recv_cq = cq.get();
  qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
  qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
  qa.qp_type = IBV_QPT_RC;
  if (rdma_create_qp(id.get(), pd.get(), &qa)) {
    return make_error(peer + local, "cannot create the connection's queue pair", errno);
  }
  // The QP belongs to the id from here on; destroyed before the id.
  struct QpGuard {
    rdma_cm_id* id;
    ~QpGuard() { rdma_destroy_qp(id); }
  } qp_guard{id.get()};
  auto* send_msg = reinterpret_cast<Msg*>(buf.data() + kWriteBytes);
  auto* recv_msg = reinterpret_cast<Msg*>(buf.data() + kWriteBytes + sizeof(Msg));
  const std::string cn = peer + ": connect" + local;
  if (auto s = post_recv(id->qp, mr.get(), recv_msg, sizeof(Msg), 1, cn); !s) return s.error();

  Hello hello{kMagic, 0, 0, 0, 0}, server{};
  rdma_conn_param cp{};
  cp.private_data = &hello;
  cp.private_data_len = sizeof hello;
  cp.responder_resources = 1;
  cp.initiator_depth = 1;
  cp.retry_count = 7;
  cp.rnr_retry_count = 7;
  if (rdma_connect(id.get(), &cp)) return make_error(cn, "rdma_connect", errno);
  if (auto s = expect_event(ec.get(), RDMA_CM_EVENT_ESTABLISHED, until, cn, &server, transient);
      !s) {
    return s.error();
  }
  *transient = false;
  if (server.magic != kMagic || server.len < kWriteBytes) {
    rdma_disconnect(id.get());
    return make_error(cn, "the listener at " + peer +
                              " is not an rdma-provision verify listener "
                              "(its accept carried no buffer)");
  }
  // Round 0: the RDMA WRITE into the listener's buffer, then a SEND telling it what to
  // check; later rounds: SEND round trips.
  const std::string xfer = peer + ": data transfer" + local;
  fill_pattern(buf.data(), kWriteBytes, 0xa5);
  std::vector<double> rtt;
  for (unsigned i = 0; i <= c.rounds; ++i) {
    *send_msg =
        Msg{kMagic, i, i == 0 ? kWriteBytes : 0, i == 0 ? fnv1a(buf.data(), kWriteBytes) : 0, 0, 0};
    const auto t0 = Clock::now();
    int want = 2;  // our send, the answer
    if (i == 0) {
      if (auto s = post_send(id->qp, mr.get(), buf.data(), kWriteBytes, 2, xfer, IBV_WR_RDMA_WRITE,
                             server.addr, server.rkey);
          !s) {
        return s.error();
      }
      ++want;
    }
    if (auto s = post_send(id->qp, mr.get(), send_msg, sizeof(Msg), 3, xfer); !s) return s.error();
    if (auto s = wait_completions(cq.get(), ch.get(), want, until, xfer); !s) return s.error();
    if (i > 0) rtt.push_back(us_since(t0));
    if (recv_msg->magic != kMagic || recv_msg->round != i) {
      return make_error(xfer,
                        "the listener's answer to round " + std::to_string(i) + " is garbled");
    }
    if (i == 0 && !recv_msg->ok) {
      return make_error(xfer, "the listener read other bytes than the " +
                                  std::to_string(kWriteBytes) + " written by RDMA WRITE");
    }
    if (i < c.rounds) {
      if (auto s = post_recv(id->qp, mr.get(), recv_msg, sizeof(Msg), 1, xfer); !s)
        return s.error();
    }
  }
  r.written = kWriteBytes;
  r.rtt = latency_of(std::move(rtt));
  rdma_disconnect(id.get());
  // The listener's DISCONNECTED is its business; ours comes within a moment (bounded).
  const Until bye = std::min(until, Clock::now() + std::chrono::seconds(1));
  if (auto ev = next_event(ec.get(), bye, xfer); ev) rdma_ack_cm_event(*ev);
  return r;
}

}  // namespace

Result<PeerResult> cm_check_peer(const PeerCheck& c, Until until) {
  // A few seconds per try of the resolution, so that one lost ARP exchange or a peer that
  // is still coming up does not take the whole check's time; retried until it is over.
  constexpr auto kResolveTry = std::chrono::seconds(3);
  unsigned tries = 0;
  for (;;) {
    ++tries;
    bool transient = false;
    auto r = peer_attempt(c, std::min(until, Clock::now() + kResolveTry), until, &transient);
    if (r) {
      r.value().tries = tries;
      return r;
    }
    if (!transient || ms_left(until) < 500) {
      Error e = r.error();
      if (tries > 1) e.what += " (after " + std::to_string(tries) + " tries)";
      return e;
    }
    ::poll(nullptr, 0, 250);
  }
}

// ---------------------------------------------------------------- listener

namespace {

// One accepted check: its verbs objects and buffer (the target of the client's write).
struct Session {
  rdma_cm_id* id = nullptr;
  std::string from;
  Pd pd;
  Channel ch;
  Cq cq;
  Mr mr;
  std::vector<uint8_t> buf;  // [target: kBufferBytes][send: Msg][recv: Msg]
  unsigned rounds = 0;
  bool write_ok = false;
  Msg* send_msg() { return reinterpret_cast<Msg*>(buf.data() + kBufferBytes); }
  Msg* recv_msg() { return reinterpret_cast<Msg*>(buf.data() + kBufferBytes + sizeof(Msg)); }
  ~Session() {
    if (id && id->qp) rdma_destroy_qp(id);
    mr.reset();
    cq.reset();
    ch.reset();
    pd.reset();
    if (id) rdma_destroy_id(id);
  }
};

Status accept_session(rdma_cm_event* ev, std::map<rdma_cm_id*, std::unique_ptr<Session>>& sessions,
                      std::string& who) {
  rdma_cm_id* id = ev->id;
  who = sockaddr_text(rdma_get_peer_addr(id));
  Hello h{};
  if (!ev->param.conn.private_data || ev->param.conn.private_data_len < sizeof(Hello) ||
      (std::memcpy(&h, ev->param.conn.private_data, sizeof h), h.magic != kMagic)) {
    rdma_reject(id, nullptr, 0);
    return make_error(who, "not an rdma-provision verify client: rejected");
  }
  auto s = std::make_unique<Session>();
  s->id = id;
  s->from = who;
  s->buf.resize(kBufferBytes + 2 * sizeof(Msg));
  s->pd.reset(ibv_alloc_pd(id->verbs));
  if (s->pd) s->ch.reset(ibv_create_comp_channel(id->verbs));
  if (s->ch) s->cq.reset(ibv_create_cq(id->verbs, 16, nullptr, s->ch.get(), 0));
  if (s->cq) {
    s->mr.reset(ibv_reg_mr(s->pd.get(), s->buf.data(), s->buf.size(),
                           IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  }
  ibv_qp_init_attr qa{};
  qa.send_cq = qa.recv_cq = s->cq.get();
  qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
  qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
  qa.qp_type = IBV_QPT_RC;
  // On a failure the id stays the caller's: it is destroyed after the event is acked
  // (rdma_destroy_id waits for the id's events to be acked: cma.c ucma_destroy_kern_id).
  auto refuse = [&](Error e) {
    rdma_reject(id, nullptr, 0);
    if (id->qp) rdma_destroy_qp(id);
    s->id = nullptr;
    return e;
  };
  if (!s->mr || rdma_create_qp(id, s->pd.get(), &qa)) {
    return refuse(make_error(who, "cannot set up verbs resources for the connection", errno));
  }
  if (auto st = post_recv(id->qp, s->mr.get(), s->recv_msg(), sizeof(Msg), 1, who); !st) {
    return refuse(st.error());
  }
  ::fcntl(s->ch->fd, F_SETFL, ::fcntl(s->ch->fd, F_GETFL) | O_NONBLOCK);
  if (int e = ibv_req_notify_cq(s->cq.get(), 0))
    return refuse(make_error(who, "cannot arm the CQ", e));
  Hello mine{kMagic, s->mr->rkey, reinterpret_cast<uintptr_t>(s->buf.data()), kBufferBytes, 0};
  rdma_conn_param cp{};
  cp.private_data = &mine;
  cp.private_data_len = sizeof mine;
  cp.responder_resources = 1;
  cp.initiator_depth = 1;
  cp.rnr_retry_count = 7;
  if (rdma_accept(id, &cp)) return refuse(make_error(who, "rdma_accept", errno));
  sessions[id] = std::move(s);
  return ok_status();
}

// Answers every message the session's CQ has; false when the session is broken.
bool serve(Session& s, const std::function<void(const std::string&)>& say) {
  ibv_cq* ev_cq = nullptr;
  void* ev_ctx = nullptr;
  if (ibv_get_cq_event(s.ch.get(), &ev_cq, &ev_ctx) == 0) ibv_ack_cq_events(ev_cq, 1);
  ibv_req_notify_cq(s.cq.get(), 0);
  ibv_wc wc[8];
  int n;
  while ((n = ibv_poll_cq(s.cq.get(), 8, wc)) > 0) {
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        say(s.from + ": " + ibv_wc_status_str(wc[i].status));
        return false;
      }
      if (!(wc[i].opcode & IBV_WC_RECV)) continue;
      const Msg in = *s.recv_msg();
      Msg out{kMagic, in.round, in.written, in.check, 0, 0};
      if (in.magic == kMagic && in.written && in.written <= kBufferBytes) {
        out.ok = fnv1a(s.buf.data(), in.written) == in.check;
        s.write_ok = out.ok;
        if (!out.ok) say(s.from + ": the " + std::to_string(in.written) + " bytes written differ");
      }
      ++s.rounds;
      *s.send_msg() = out;
      if (!post_recv(s.id->qp, s.mr.get(), s.recv_msg(), sizeof(Msg), 1, s.from) ||
          !post_send(s.id->qp, s.mr.get(), s.send_msg(), sizeof(Msg), 2, s.from)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

Status cm_listen(const std::optional<IpAddress>& address, uint16_t port,
                 const std::function<void(const std::string&)>& say,
                 const std::function<bool()>& stop) {
  const std::string where =
      (address ? address->str() : std::string("*")) + ":" + std::to_string(port);
  EventChannel ec(rdma_create_event_channel(), rdma_destroy_event_channel);
  if (!ec)
    return make_error(where, "cannot open rdma_cm (/dev/infiniband/rdma_cm; is rdma_ucm loaded?)",
                      errno);
  ::fcntl(ec->fd, F_SETFL, ::fcntl(ec->fd, F_GETFL) | O_NONBLOCK);
  rdma_cm_id* raw = nullptr;
  if (rdma_create_id(ec.get(), &raw, nullptr, RDMA_PS_TCP)) {
    return make_error(where, "cannot create an rdma_cm id", errno);
  }
  std::unique_ptr<rdma_cm_id, int (*)(rdma_cm_id*)> listener(raw, rdma_destroy_id);
  sockaddr_storage ss = to_sockaddr(address.value_or(IpAddress{}), port);
  if (rdma_bind_addr(listener.get(), reinterpret_cast<sockaddr*>(&ss))) {
    return make_error(where, "cannot bind (no RDMA device has that address, or the port is taken)",
                      errno);
  }
  if (rdma_listen(listener.get(), 16)) return make_error(where, "rdma_listen", errno);
  say("listening on " + where);
  std::map<rdma_cm_id*, std::unique_ptr<Session>> sessions;
  while (!stop()) {
    std::vector<pollfd> fds{{ec->fd, POLLIN, 0}};
    std::vector<rdma_cm_id*> ids{nullptr};
    for (auto& [id, s] : sessions) {
      fds.push_back({s->ch->fd, POLLIN, 0});
      ids.push_back(id);
    }
    if (::poll(fds.data(), fds.size(), 1000) <= 0) continue;
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      auto it = sessions.find(ids[i]);
      if (it != sessions.end() && !serve(*it->second, say)) rdma_disconnect(it->first);
    }
    if (!(fds[0].revents & POLLIN)) continue;
    rdma_cm_event* ev = nullptr;
    while (rdma_get_cm_event(ec.get(), &ev) == 0) {
      rdma_cm_id* id = ev->id;
      switch (ev->event) {
        case RDMA_CM_EVENT_CONNECT_REQUEST: {
          std::string who;
          auto st = accept_session(ev, sessions, who);
          if (!st) {
            say(st.error().str());
            rdma_ack_cm_event(ev);
            ev = nullptr;
            rdma_destroy_id(id);
          }
          break;
        }
        case RDMA_CM_EVENT_ESTABLISHED:
          if (auto it = sessions.find(id); it != sessions.end()) {
            say("connection from " + it->second->from + " on " +
                ibv_get_device_name(id->verbs->device) + "/" + std::to_string(id->port_num));
          }
          break;
        case RDMA_CM_EVENT_DISCONNECTED:
        case RDMA_CM_EVENT_CONNECT_ERROR:
        case RDMA_CM_EVENT_UNREACHABLE:
        case RDMA_CM_EVENT_REJECTED:
          if (auto it = sessions.find(id); it != sessions.end()) {
            Session& s = *it->second;
            say(s.from + ": " + rdma_event_str(ev->event) + " after " + std::to_string(s.rounds) +
                " message(s); RDMA WRITE " + (s.write_ok ? "checked" : "not checked"));
            rdma_ack_cm_event(ev);
            ev = nullptr;
            sessions.erase(it);
          }
          break;
        default:
          break;
      }
      if (ev) rdma_ack_cm_event(ev);
    }
  }
  sessions.clear();
  return ok_status();
}

}  // namespace rp
