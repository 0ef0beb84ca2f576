#include "provision/verify/listen_policy.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "provision/base/strings.h"

namespace rp {

namespace {
constexpr uint8_t kBusyMagic[8] = {'R', 'P', 'V', '1', 'B', 'U', 'S', 'Y'};
// IB CM reject reason 28 (include/rdma/ib_cm.h IB_CM_REJ_CONSUMER_DEFINED): what
// rdma_reject sends (ucma.c ucma_reject: reason 0 means consumer defined; cma.c
// rdma_reject -> ib_send_cm_rej(..., IB_CM_REJ_CONSUMER_DEFINED, ...)).
constexpr int kConsumerDefined = 28;
constexpr std::chrono::milliseconds kBusyRetryCap{10000};
}  // namespace

std::string_view to_string(Admission a) {
  switch (a) {
    case Admission::kAccept:
      return "accepted";
    case Admission::kNotOurs:
      return "not an rdma-provision verify client: rejected";
    case Admission::kNotAllowed:
      return "not in --allow: rejected";
    case Admission::kBusy:
      return "busy (at --max-sessions): asked to retry";
  }
  return "?";
}

Admission admit(const ListenLimits& l, const std::optional<IpAddress>& from, bool hello_ok,
                size_t active) {
  if (!l.allow.empty()) {
    const bool in = from && std::any_of(l.allow.begin(), l.allow.end(), [&](const IpPrefix& p) {
                      return prefix_contains(p, *from);
                    });
    if (!in) return Admission::kNotAllowed;
  }
  if (!hello_ok) return Admission::kNotOurs;
  if (active >= l.max_sessions) return Admission::kBusy;
  return Admission::kAccept;
}

std::array<uint8_t, kBusyRejectBytes> busy_reject(std::chrono::milliseconds retry_after) {
  std::array<uint8_t, kBusyRejectBytes> b{};
  std::memcpy(b.data(), kBusyMagic, sizeof kBusyMagic);
  const auto ms = static_cast<uint32_t>(std::max<long long>(retry_after.count(), 0));
  for (int i = 0; i < 4; ++i) b[8 + i] = static_cast<uint8_t>(ms >> (8 * i));
  return b;
}

std::optional<std::chrono::milliseconds> busy_retry_after(int status, const void* data,
                                                          size_t len) {
  if (status != kConsumerDefined || !data || len < kBusyRejectBytes) return std::nullopt;
  const auto* p = static_cast<const uint8_t*>(data);
  if (std::memcmp(p, kBusyMagic, sizeof kBusyMagic) != 0) return std::nullopt;
  uint32_t ms = 0;
  for (int i = 0; i < 4; ++i) ms |= static_cast<uint32_t>(p[8 + i]) << (8 * i);
  return std::min(std::chrono::milliseconds(ms), kBusyRetryCap);
}

std::vector<uintptr_t> SessionDeadlines::expired(ListenClock::time_point now) const {
  std::vector<uintptr_t> out;
  for (const auto& [key, until] : until_) {
    if (until <= now) out.push_back(key);
  }
  return out;
}

int SessionDeadlines::wait_ms(ListenClock::time_point now, int cap) const {
  int best = cap;
  for (const auto& [key, until] : until_) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
    best = static_cast<int>(std::clamp<long long>(left, 0, best));
  }
  return best;
}

std::string listen_resume_text(const ListenStats& s) {
  std::string t;
  for (uint64_t v : {s.sessions, s.refused, s.busy, s.passed, s.failed, s.expired, s.relistens}) {
    t += std::to_string(v) + " ";
  }
  return t;
}

std::optional<ListenStats> parse_listen_resume(const char* text) {
  if (!text) return std::nullopt;
  ListenStats s;
  uint64_t* fields[] = {&s.sessions, &s.refused, &s.busy,     &s.passed,
                        &s.failed,   &s.expired, &s.relistens};
  size_t n = 0;
  for (auto word : split(text, ' ')) {
    if (word.empty()) continue;
    auto v = parse_uint(word);
    if (!v || n == std::size(fields)) return std::nullopt;
    *fields[n++] = *v;
  }
  if (n != std::size(fields)) return std::nullopt;
  return s;
}

}  // namespace rp
