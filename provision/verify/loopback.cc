// The loopback check (verbs_loopback): two RC QPs on one port, connected to each other,
// as ibv_rc_pingpong does, through libibverbs alone.
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "provision/base/drivers.h"
#include "provision/base/root.h"
#include "provision/kernel/verbs.h"
#include "provision/verify/check.h"
#include "provision/verify/check_internal.h"

namespace rp {

using namespace rdma_internal;

namespace {

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
  // By the name it has now, not the one libibverbs listed it under (verbs_device_name): a
  // device renamed in this run (rd.rdma.devname) after the plan's look.
  for (int i = 0; i < n; ++i) {
    if (name != verbs_device_name(list.get()[i])) continue;
    Context ctx(ibv_open_device(list.get()[i]));
    if (!ctx) return make_error(name, "cannot open the device (/dev/infiniband/uverbs*)", errno);
    return ctx;
  }
  return make_error(name, why_not_listed(name));
}

const char* port_state_name(ibv_port_state s) { return ibv_port_state_str(s); }

// Waits until the port's GID table changes or `until`: the kernel tells every context of
// the device (cache.c __ib_cache_gid_add and del_gid -> dispatch_gid_change_event; uverbs
// passes IB_EVENT_GID_CHANGE to the context's async file, uverbs_main.c
// ib_uverbs_event_handler), so an address dracut or DHCP sets during the wait is seen at
// once, not at the next poll. False when the time is up.
bool wait_gid_change(ibv_context* ctx, unsigned port, Until until) {
  const int fd = ctx->async_fd;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return false;
  for (;;) {
    const int left = ms_left(until);
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    ibv_async_event ev{};
    while (ibv_get_async_event(ctx, &ev) == 0) {
      const bool ours =
          ev.event_type == IBV_EVENT_GID_CHANGE && ev.element.port_num == static_cast<int>(port);
      ibv_ack_async_event(&ev);
      if (ours) return true;
    }
  }
}

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
  // Once the kernel answers EAFNOSUPPORT for an IPv6 GID (ipv6.disable=1), only an
  // IPv4-mapped RoCE v2 GID can be resolved (choose_gid).
  bool ipv6_routable = c.ipv6_routable;
  bool chose_ipv6 = false;
  const auto started = Clock::now();
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
    for (;;) {
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
      if (auto g = choose_gid(table, c.want, ipv6_routable)) {
        ah.is_global = 1;
        std::memcpy(ah.grh.dgid.raw, g->raw.data(), 16);
        ah.grh.sgid_index = static_cast<uint8_t>(g->index);
        ah.grh.hop_limit = 64;
        chose_ipv6 = !gid_is_ipv4_mapped(g->raw);
        r.addressing = "GID " + gid_text(g->raw) + " (index " + std::to_string(g->index) + ", " +
                       std::string(to_string(g->type)) + ")";
        return ok_status();
      }
      // None it can use yet: an address may be on its way (dracut's ifup, DHCP). Wait for
      // the table to change rather than fail at once, within the check's time.
      if (!wait_gid_change(ctx.get(), c.port, until)) {
        char waited[32];
        std::snprintf(waited, sizeof waited, "%.1f s", us_since(started) / 1e6);
        return make_error(
            where,
            "the GID table has no " + std::string(to_string(c.want)) + " entry it can use (" +
                std::to_string(table.size()) + " valid entries; waited " + waited + " for one): " +
                (ipv6_routable ? "no IP address on the interface, or the other RoCE type "
                                 "configured"
                               : "IPv6 is off for the interface (disable_ipv6, or ipv6.disable=1: "
                                 "EAFNOSUPPORT for the link-local GID), so RoCE v2 needs an IPv4 "
                                 "address on it, and it has none yet"));
      }
    }
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
  ibv_qp_init_attr qa = rc_qp_attr(cq.get());
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
    // IPv6 disabled: the same check over an IPv4-mapped GID, when there is one or comes one.
    const bool no_ipv6 = e == EAFNOSUPPORT && chose_ipv6 && ipv6_routable;
    if (no_ipv6) ipv6_routable = false;
    const bool unresolved = e == ETIMEDOUT || e == ENETUNREACH || e == EHOSTUNREACH ||
                            e == EADDRNOTAVAIL || e == ENODATA || no_ipv6;
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

}  // namespace rp
