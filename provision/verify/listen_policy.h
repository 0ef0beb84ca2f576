// The rules of `verify --listen` apart from rdma_cm, so that they can be tested as values:
// who may connect (--allow), how many sessions at once (--max-sessions) and for how long,
// the busy answer a client recognises and retries, and the listener's own metrics.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/base/types.h"

namespace rp {

using ListenClock = std::chrono::steady_clock;

// A client needs at most this long for its whole check (resolution is done before the
// connect; the connect, one RDMA WRITE and 9 SEND round trips take milliseconds): a
// session older than this is a client gone silent or powered off (RC has no keepalive).
inline constexpr std::chrono::milliseconds kSessionDeadline{15000};
inline constexpr unsigned kDefaultMaxSessions = 16;
inline constexpr unsigned kMaxSessionsLimit = 256;
// What the busy answer asks a client to wait before its next try.
inline constexpr std::chrono::milliseconds kBusyRetryAfter{1000};
// The bytes each session pins (ibv_reg_mr): the 64 KiB target of the client's RDMA WRITE and
// the two messages, rounded up to whole pages, plus one page for the provider's CQ and QP
// rings where they are user memory (mlx4/mlx5). LimitMEMLOCK of the unit is sized from it.
inline constexpr size_t kSessionPinnedBytes = (64 * 1024 + 4096) + 2 * 4096;

struct ListenLimits {
  std::vector<IpPrefix> allow;  // empty: every source
  unsigned max_sessions = kDefaultMaxSessions;
  std::chrono::milliseconds deadline = kSessionDeadline;
};

enum class Admission {
  kAccept,
  kNotOurs,     // no or garbled hello in the request's private data: a plain reject
  kNotAllowed,  // source outside --allow: a plain reject (final for the client)
  kBusy,        // at the cap: the busy reject, which the client retries
};
std::string_view to_string(Admission a);

// What the listener answers a connect request from `from` (nullopt: the kernel gave no
// source address) whose private data held `hello_ok`, with `active` sessions open.
Admission admit(const ListenLimits& l, const std::optional<IpAddress>& from, bool hello_ok,
                size_t active);

// The busy answer: the private data of a reject (IB CM reason 28, consumer defined).
// 12 bytes: our magic, "BUSY", the delay before retrying in ms (little endian). Any size up
// to 148 bytes would pass: the kernel refuses more (cm.c ib_send_cm_rej:
// IB_CM_REJ_PRIVATE_DATA_SIZE, 148, for IB and RoCE alike) and hands the receiver always
// 148 bytes, zero-padded (cma.c cma_ib_handler, IB_CM_REJ_RECEIVED); librdmacm passes at most
// RDMA_MAX_PRIVATE_DATA (256, rdma_user_cm.h) and a uint8_t length (cma.c rdma_reject).
inline constexpr size_t kBusyRejectBytes = 12;
std::array<uint8_t, kBusyRejectBytes> busy_reject(std::chrono::milliseconds retry_after);

// The delay a REJECTED event asks for when it is a listener's busy answer: reason 28 and
// our 12 bytes at the start of its private data; nullopt for any other reject (final).
// The delay is capped at 10 s, so that a garbled answer cannot stall a client.
std::optional<std::chrono::milliseconds> busy_retry_after(int status, const void* data, size_t len);

// A session's age limit, per key (the rdma_cm id): which have passed it, and how long until
// the next one does (the listener's poll timeout: no wake-up without a reason).
class SessionDeadlines {
 public:
  explicit SessionDeadlines(std::chrono::milliseconds limit) : limit_(limit) {}
  void start(uintptr_t key, ListenClock::time_point now) { until_[key] = now + limit_; }
  void end(uintptr_t key) { until_.erase(key); }
  size_t size() const { return until_.size(); }
  std::vector<uintptr_t> expired(ListenClock::time_point now) const;
  // Milliseconds until the next expiry, at most `cap`; 0 when one is due.
  int wait_ms(ListenClock::time_point now, int cap) const;

 private:
  std::chrono::milliseconds limit_;
  std::map<uintptr_t, ListenClock::time_point> until_;
};

// What the listener has done since it started, for its --metrics file.
struct ListenStats {
  uint64_t sessions = 0;      // connections accepted
  uint64_t refused = 0;       // plain rejects: outside --allow, or not our client
  uint64_t busy = 0;          // busy answers
  uint64_t passed = 0;        // sessions whose RDMA WRITE checked
  uint64_t failed = 0;        // sessions that ended otherwise (expired, broken, bytes differ)
  uint64_t expired = 0;       // of the failed: past the deadline
  uint64_t relistens = 0;     // listener re-created after device removal or address change
  unsigned active = 0;        // sessions open now
  unsigned max_sessions = 0;  // the cap
};

// The counts carried across a start anew (verify --listen after a device removal: a fresh
// process, the counts in its environment): "sessions refused busy passed failed expired
// relistens", and back; nullopt for anything else.
std::string listen_resume_text(const ListenStats& s);
std::optional<ListenStats> parse_listen_resume(const char* text);

}  // namespace rp
