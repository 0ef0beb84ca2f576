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
  auto path = resolve_path(ec.get(), id.get(), c.address, c.port, resolve_until, transient);
  if (!path) return path.error();
  PeerResult r;
  r.device = path->device;
  r.port = path->port;
  r.local = path->local;
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
  unsigned tries = 0;
  auto r = with_retries<PeerResult>(
      [&](Until resolve_until, bool* transient, std::chrono::milliseconds* busy) {
        return peer_attempt(c, resolve_until, until, transient, busy);
      },
      until, &tries);
  if (r) r.value().tries = tries;
  return r;
}

}  // namespace rp
