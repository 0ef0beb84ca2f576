// What the three checks share: the pure parts of check.h (GID choice, latency
// summary) and the verbs and rdma_cm helpers of check_internal.h.
#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "provision/base/sort.h"
#include "provision/kernel/verbs.h"
#include "provision/verify/check.h"
#include "provision/verify/check_internal.h"

namespace rp {

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

bool gid_is_ipv4_mapped(const std::array<uint8_t, 16>& g) {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.data(), kPrefix, sizeof kPrefix) == 0;
}

namespace {

bool ipv4_mapped(const std::array<uint8_t, 16>& g) { return gid_is_ipv4_mapped(g); }

bool zero(const std::array<uint8_t, 16>& g) {
  return std::all_of(g.begin(), g.end(), [](uint8_t b) { return b == 0; });
}

}  // namespace

std::optional<GidEntry> choose_gid(const std::vector<GidEntry>& table, GidType want,
                                   bool ipv6_routable) {
  std::optional<GidEntry> best;
  for (const auto& e : table) {
    if (e.type != want || zero(e.raw)) continue;
    if (!ipv6_routable && want == GidType::kRoceV2 && !ipv4_mapped(e.raw)) continue;
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
  sort_by(us);
  const size_t n = us.size();
  l.median_us = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  l.min_us = us.front();
  l.max_us = us.back();
  return l;
}

namespace rdma_internal {

int ms_left(Until until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

uint32_t fnv1a(const uint8_t* p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

void fill_pattern(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>((i * 131 + seed) & 0xff);
}

Status wait_completions(ibv_cq* cq, ibv_comp_channel* ch, int want, Until until,
                        const std::string& where, std::vector<ibv_wc>* got) {
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
                 const std::string& where, ibv_wr_opcode op, uint64_t raddr, uint32_t rkey) {
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

Result<CmEndpoint> open_cm(const std::string& where) {
  CmEndpoint e;
  e.ec.reset(rdma_create_event_channel());
  if (!e.ec) {
    // librdmacm's first use lists the devices and fails with ENODEV when there is none.
    const int err = errno;
    return make_error(where,
                      err == ENODEV ? "no RDMA device (librdmacm lists none)"
                                    : "cannot open rdma_cm (/dev/infiniband/rdma_cm; is "
                                      "rdma_ucm loaded?)",
                      err);
  }
  ::fcntl(e.ec->fd, F_SETFL, ::fcntl(e.ec->fd, F_GETFL) | O_NONBLOCK);
  rdma_cm_id* raw = nullptr;
  if (rdma_create_id(e.ec.get(), &raw, nullptr, RDMA_PS_TCP)) {
    return make_error(where, "cannot create an rdma_cm id", errno);
  }
  e.id.reset(raw);
  return e;
}

ibv_qp_init_attr rc_qp_attr(ibv_cq* cq) {
  ibv_qp_init_attr qa{};
  qa.send_cq = qa.recv_cq = cq;
  qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
  qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
  qa.qp_type = IBV_QPT_RC;
  return qa;
}

rdma_conn_param conn_param(const Hello* hello) {
  rdma_conn_param cp{};
  cp.private_data = hello;
  cp.private_data_len = sizeof *hello;
  cp.responder_resources = 1;
  cp.initiator_depth = 1;
  cp.rnr_retry_count = 7;
  return cp;
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
Status expect_event(rdma_event_channel* ec, rdma_cm_event_type want, Until until,
                    const std::string& where, Hello* peer_hello, bool* transient,
                    std::chrono::milliseconds* busy) {
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
  // The listener at its limit: a reject it asks us to retry (listen_policy.h).
  std::optional<std::chrono::milliseconds> retry;
  if (type == RDMA_CM_EVENT_REJECTED) {
    retry = busy_retry_after(status, ev->param.conn.private_data, ev->param.conn.private_data_len);
  }
  if (type == want && peer_hello && ev->param.conn.private_data &&
      ev->param.conn.private_data_len >= sizeof(Hello)) {
    std::memcpy(peer_hello, ev->param.conn.private_data, sizeof(Hello));
  }
  rdma_ack_cm_event(ev);
  if (type == want) return ok_status();
  std::string why = std::string(rdma_event_str(type));
  if (retry) {
    if (transient) *transient = true;
    if (busy) *busy = *retry;
    why =
        "busy: the listener is at its limit of sessions (IB CM reject reason 28 with its "
        "busy answer)";
  } else if (type == RDMA_CM_EVENT_REJECTED) {
    why = "rejected: " + reject_text(status);
  } else if (status < 0) {
    return make_error(where, why, -status);
  } else if (status > 0) {
    why += " (status " + std::to_string(status) + ")";
  }
  return make_error(where, why);
}

Result<ResolvedPath> resolve_path(rdma_event_channel* ec, rdma_cm_id* id, const IpAddress& address,
                                  uint16_t port, Until resolve_until, bool* transient) {
  const std::string peer = address.str() + ":" + std::to_string(port);
  sockaddr_storage dst = to_sockaddr(address, port);
  if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&dst),
                        std::max(ms_left(resolve_until), 1))) {
    // No route yet (the interface that leads to the peer is still being configured: the
    // kernel answers at once, cma.c rdma_resolve_addr -> addr.c rdma_resolve_ip): retried
    // within the check's time like a resolution that got no answer.
    const int e = errno;
    *transient = route_missing(e);
    return make_error(peer + ": address resolution",
                      *transient ? "no route to the peer yet" : "rdma_resolve_addr", e);
  }
  if (auto s = expect_event(ec, RDMA_CM_EVENT_ADDR_RESOLVED, resolve_until,
                            peer + ": address resolution", nullptr, transient);
      !s) {
    return s.error();
  }
  if (rdma_resolve_route(id, std::max(ms_left(resolve_until), 1))) {
    return make_error(peer + ": route resolution", "rdma_resolve_route", errno);
  }
  if (auto s = expect_event(ec, RDMA_CM_EVENT_ROUTE_RESOLVED, resolve_until,
                            peer + ": route resolution", nullptr, transient);
      !s) {
    return s.error();
  }
  ResolvedPath r;
  r.device = id->verbs ? verbs_device_name(id->verbs->device) : "?";
  r.port = id->port_num;
  if (id->verbs && id->verbs->device->transport_type == IBV_TRANSPORT_IWARP) {
    r.local = "address " + sockaddr_text(rdma_get_local_addr(id)) + " (iWARP)";
  } else {
    std::array<uint8_t, 16> sgid{};
    std::memcpy(sgid.data(), id->route.addr.addr.ibaddr.sgid.raw, 16);
    r.local = "GID " + gid_text(sgid);
  }
  return r;
}

}  // namespace rdma_internal
}  // namespace rp
