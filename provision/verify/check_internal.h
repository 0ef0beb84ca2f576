// Inside the RDMA checks (loopback.cc, peer.cc, listen.cc): RAII owners of
// verbs objects, completion waits, and the wire format the peer check and the listener
// share. Not for use outside provision/verify:check.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/types.h"
#include "provision/verify/check.h"

namespace rp::rdma_internal {

using Clock = std::chrono::steady_clock;
using Until = Clock::time_point;

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

// Milliseconds until `until`, 0 once past.
int ms_left(Until until);
// FNV-1a: the check the two ends compare over the RDMA-written bytes.
uint32_t fnv1a(const uint8_t* p, size_t n);
void fill_pattern(uint8_t* p, size_t n, uint32_t seed);
// Waits for `want` completions on `cq` (armed through `ch`; event-driven, no busy poll
// beyond the first look). A completion with an error status ends the wait with it.
Status wait_completions(ibv_cq* cq, ibv_comp_channel* ch, int want, Until until,
                        const std::string& where, std::vector<ibv_wc>* got = nullptr);
Status post_recv(ibv_qp* qp, ibv_mr* mr, void* addr, uint32_t len, uint64_t id,
                 const std::string& where);
Status post_send(ibv_qp* qp, ibv_mr* mr, void* addr, uint32_t len, uint64_t id,
                 const std::string& where, ibv_wr_opcode op = IBV_WR_SEND, uint64_t raddr = 0,
                 uint32_t rkey = 0);
double us_since(Clock::time_point t0);

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

std::string sockaddr_text(const sockaddr* sa);
sockaddr_storage to_sockaddr(const IpAddress& a, uint16_t port);
// An rdma_cm event channel (non-blocking) and an id on it in the TCP port space, as both
// ends of a peer check use; errors name `where`.
using CmId = std::unique_ptr<rdma_cm_id, int (*)(rdma_cm_id*)>;
struct CmEndpoint {
  EventChannel ec{nullptr, rdma_destroy_event_channel};
  CmId id{nullptr, rdma_destroy_id};
};
Result<CmEndpoint> open_cm(const std::string& where);
// The attributes of the small RC QP each end of a check creates (4 work requests each way).
ibv_qp_init_attr rc_qp_attr(ibv_cq* cq);
// Connection parameters carrying `hello` as private data.
rdma_conn_param conn_param(const Hello* hello);
// The next event of `ec` (non-blocking fd, polled within `until`). The caller acks it.
Result<rdma_cm_event*> next_event(rdma_event_channel* ec, Until until, const std::string& where);
// IB CM's reject reason as words (8: no listener on the port).
std::string reject_text(int status);
// Waits for `want`; any other event is the stage's failure, named. `peer_hello` gets the
// private data of `want`; `*transient` says whether the failure may pass on a retry (no
// answer, unreachable, a listener's busy answer, whose delay goes to `busy`).
Status expect_event(rdma_event_channel* ec, rdma_cm_event_type want, Until until,
                    const std::string& where, Hello* peer_hello = nullptr,
                    bool* transient = nullptr, std::chrono::milliseconds* busy = nullptr);
// The local end of a resolved path: the device and port rdma_cm chose by route, and the
// address it connects from ("GID ::ffff:10.77.0.2"; "address 10.77.0.2 (iWARP)": rdma_cm
// connects iWARP over TCP, and its route has no GID: cma.c cma_resolve_iw_route).
struct ResolvedPath {
  std::string device;
  unsigned port = 0;
  std::string local;
};
// Address and route resolution of `id` to `address`:`port`, bounded by `resolve_until`;
// `*transient` as expect_event's (and for a route the kernel does not have yet).
Result<ResolvedPath> resolve_path(rdma_event_channel* ec, rdma_cm_id* id, const IpAddress& address,
                                  uint16_t port, Until resolve_until, bool* transient);
// Tries `attempt(resolve_until, &transient, &busy)` until it succeeds, fails for good, or
// no further try fits before `until` (peer_retry_delay); each try's resolution is bounded
// by 3 s, so one lost ARP exchange or a peer still coming up does not take the whole
// check's time. `*tries` gets the count; a final error says it when there were several.
template <typename T, typename F>
Result<T> with_retries(F attempt, Until until, unsigned* tries);

template <typename T, typename F>
Result<T> with_retries(F attempt, Until until, unsigned* tries) {
  constexpr auto kResolveTry = std::chrono::seconds(3);
  *tries = 0;
  for (;;) {
    ++*tries;
    bool transient = false;
    std::chrono::milliseconds busy{0};
    Result<T> r = attempt(std::min(until, Clock::now() + kResolveTry), &transient, &busy);
    if (r) return r;
    const auto wait = peer_retry_delay(transient, busy.count() ? std::optional(busy) : std::nullopt,
                                       std::chrono::milliseconds(ms_left(until)));
    if (!wait) {
      Error e = r.error();
      if (*tries > 1) e.what += " (after " + std::to_string(*tries) + " tries)";
      return e;
    }
    std::this_thread::sleep_for(*wait);
  }
}

}  // namespace rp::rdma_internal
