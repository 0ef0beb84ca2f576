// The peer check (cm_check_peer): a connection through rdma_cm to a `verify --listen`,
// an RDMA WRITE it checks and SEND round trips, retried while the peer does not answer.
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "provision/kernel/verbs.h"
#include "provision/verify/check.h"
#include "provision/verify/check_internal.h"

namespace rp {

using namespace rdma_internal;

namespace {

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
// Waits for `want`; any other event is the stage's failure, named.
Status expect_event(rdma_event_channel* ec, rdma_cm_event_type want, Until until,
                    const std::string& where, Hello* peer_hello = nullptr,
                    bool* transient = nullptr, std::chrono::milliseconds* busy = nullptr) {
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

// One try of the peer check; `*transient` says whether a failure may pass on a retry
// (resolution without an answer, unreachable). Address and route resolution are bounded
// by `resolve_until`, the rest by `until`.
Result<PeerResult> peer_attempt(const PeerCheck& c, Until resolve_until, Until until,
                                bool* transient, std::chrono::milliseconds* wait) {
  *transient = false;
  const std::string peer = c.address.str() + ":" + std::to_string(c.port);
  auto cm = open_cm(peer);
  if (!cm) return cm.error();
  EventChannel& ec = cm.value().ec;
  CmId& id = cm.value().id;
  sockaddr_storage dst = to_sockaddr(c.address, c.port);
  if (rdma_resolve_addr(id.get(), nullptr, reinterpret_cast<sockaddr*>(&dst),
                        std::max(ms_left(resolve_until), 1))) {
    // No route yet (the interface that leads to the peer is still being configured: the
    // kernel answers at once, cma.c rdma_resolve_addr -> addr.c rdma_resolve_ip): retried
    // within the check's time like a resolution that got no answer.
    const int e = errno;
    *transient = route_missing(e);
    return make_error(peer + ": address resolution",
                      *transient ? "no route to the peer yet" : "rdma_resolve_addr", e);
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
  r.device = id->verbs ? verbs_device_name(id->verbs->device) : "?";
  r.port = id->port_num;
  if (id->verbs && id->verbs->device->transport_type == IBV_TRANSPORT_IWARP) {
    char text[INET6_ADDRSTRLEN] = "?";
    const sockaddr* src = rdma_get_local_addr(id.get());
    if (src->sa_family == AF_INET) {
      ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(src)->sin_addr, text, sizeof text);
    } else if (src->sa_family == AF_INET6) {
      ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(src)->sin6_addr, text,
                  sizeof text);
    }
    r.local = std::string("address ") + text + " (iWARP)";
  } else {
    std::array<uint8_t, 16> sgid{};
    std::memcpy(sgid.data(), id->route.addr.addr.ibaddr.sgid.raw, 16);
    r.local = "GID " + gid_text(sgid);
  }
  const std::string local = " (via " + r.device + "/" + std::to_string(r.port) + ")";

  Pd pd(ibv_alloc_pd(id->verbs));
  Channel ch(pd ? ibv_create_comp_channel(id->verbs) : nullptr);
  Cq cq(ch ? ibv_create_cq(id->verbs, 16, nullptr, ch.get(), 0) : nullptr);
  std::vector<uint8_t> buf(kWriteBytes + 2 * sizeof(Msg));
  Mr mr(cq ? ibv_reg_mr(pd.get(), buf.data(), buf.size(), IBV_ACCESS_LOCAL_WRITE) : nullptr);
  if (!mr) return make_error(peer + local, "cannot set up verbs resources", errno);
  ibv_qp_init_attr qa = rc_qp_attr(cq.get());
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
  rdma_conn_param cp = conn_param(&hello);
  cp.retry_count = 7;
  if (rdma_connect(id.get(), &cp)) return make_error(cn, "rdma_connect", errno);
  if (auto s =
          expect_event(ec.get(), RDMA_CM_EVENT_ESTABLISHED, until, cn, &server, transient, wait);
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

bool route_missing(int errnum) {
  return errnum == ENETUNREACH || errnum == EHOSTUNREACH || errnum == EADDRNOTAVAIL ||
         errnum == ENODEV;
}

std::optional<std::chrono::milliseconds> peer_retry_delay(
    bool transient, std::optional<std::chrono::milliseconds> busy, std::chrono::milliseconds left) {
  using std::chrono::milliseconds;
  if (!transient) return std::nullopt;
  const milliseconds wait = busy ? *busy : milliseconds(250);
  // Another try needs the wait and half a second for itself.
  if (left < wait + milliseconds(500)) return std::nullopt;
  return wait;
}

Result<PeerResult> cm_check_peer(const PeerCheck& c, Until until) {
  // A few seconds per try of the resolution, so that one lost ARP exchange or a peer that
  // is still coming up does not take the whole check's time; retried until it is over.
  constexpr auto kResolveTry = std::chrono::seconds(3);
  unsigned tries = 0;
  for (;;) {
    ++tries;
    bool transient = false;
    std::chrono::milliseconds busy{0};
    auto r = peer_attempt(c, std::min(until, Clock::now() + kResolveTry), until, &transient, &busy);
    if (r) {
      r.value().tries = tries;
      return r;
    }
    const auto wait = peer_retry_delay(transient, busy.count() ? std::optional(busy) : std::nullopt,
                                       std::chrono::milliseconds(ms_left(until)));
    if (!wait) {
      Error e = r.error();
      if (tries > 1) e.what += " (after " + std::to_string(tries) + " tries)";
      return e;
    }
    ::poll(nullptr, 0, static_cast<int>(wait->count()));
  }
}

}  // namespace rp
