// The RDMA data path, tried for real: libibverbs (a loopback RC QP pair on one port) and
// librdmacm (a connection to a peer, and the listener that answers it). What the guides'
// ibv_rc_pingpong, rping and qperf steps prove, as one library call each; every stage that
// can fail names itself in the error.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/types.h"
#include "provision/verify/listen_policy.h"

namespace rp {

// The GID types of a RoCE port's table (enum ibv_gid_type; the kernel's
// ib_cache_gid_type_str: "IB/RoCE v1", "RoCE v2").
enum class GidType { kIb, kRoceV1, kRoceV2 };
std::string_view to_string(GidType t);  // "IB", "RoCE v1", "RoCE v2"

struct GidEntry {
  unsigned index = 0;
  std::array<uint8_t, 16> raw{};
  GidType type = GidType::kRoceV2;
};

// "fe80::5054:ff:fe77:2", "::ffff:10.77.0.2": a GID as an IPv6 address (how the kernel's
// ports/N/gids/M and `rdma`/`ibv_devinfo -v` show them).
std::string gid_text(const std::array<uint8_t, 16>& raw);
// ::ffff:a.b.c.d, the GID ib_core makes of an IPv4 address (roce_gid_mgmt.c).
bool gid_is_ipv4_mapped(const std::array<uint8_t, 16>& raw);

// The entry a check uses on a RoCE port: of type `want`; an IPv4-mapped GID first (what
// an NFS mount over IPv4 uses: RoCE v2 routes by the IP address in the GID), then the
// lowest index. nullopt when the table has none of that type. With `ipv6_routable` false
// (the kernel answered EAFNOSUPPORT: ipv6.disable=1) a RoCE v2 GID that is not IPv4-mapped
// cannot be used: the kernel resolves a RoCE v2 destination through the IP stack
// (core/verbs.c ib_resolve_unicast_gid_dmac -> rdma_addr_find_l2_eth_by_grh ->
// addr6_resolve), while RoCE v1 to a link-local GID takes the MAC from the GID itself
// (rdma_get_ll_mac) and needs no IP.
std::optional<GidEntry> choose_gid(const std::vector<GidEntry>& table, GidType want,
                                   bool ipv6_routable = true);

struct Latency {
  unsigned rounds = 0;
  double median_us = 0, min_us = 0, max_us = 0;
  std::string str() const;  // "8 round trips, median 41 us (38..120)"
};
Latency latency_of(std::vector<double> us);

struct LoopbackCheck {
  std::string device;
  unsigned port = 1;
  GidType want = GidType::kRoceV2;  // RoCE ports only
  bool ipv6_routable = true;        // false: the interface has IPv6 off (choose_gid)
  unsigned rounds = 8;
};
struct LoopbackResult {
  std::string addressing;  // "GID ::ffff:10.77.0.2 (index 3, RoCE v2)" or "LID 0x5"
  unsigned mtu = 0;        // the active path MTU, bytes
  unsigned written = 0;    // bytes of the RDMA WRITE checked on the other QP
  Latency rtt;
};
// Two RC QPs on the port, connected to each other: an RDMA WRITE of one path MTU whose
// bytes are compared, then `rounds` SEND ping-pongs. Bounded by `until`.
Result<LoopbackResult> verbs_loopback(const LoopbackCheck& c,
                                      std::chrono::steady_clock::time_point until);

// The peer check's port when none is given (rdma_cm's port space of TCP, RDMA_PS_TCP).
inline constexpr uint16_t kVerifyPort = 7472;

struct PeerCheck {
  IpAddress address;
  uint16_t port = kVerifyPort;
  unsigned rounds = 8;
};
struct PeerResult {
  unsigned tries = 1;  // resolution and connect are retried on no answer / unreachable
  std::string device;  // the local RDMA device rdma_cm chose by route
  unsigned port = 0;
  // "GID ::ffff:10.77.0.2" (InfiniBand, RoCE), "address 10.77.0.2" (iWARP: rdma_cm
  // connects it over TCP, and its route has no GID: cma.c cma_resolve_iw_route).
  std::string local;
  unsigned written = 0;
  Latency rtt;
};
// Address and route resolution, connect, an RDMA WRITE into the listener's buffer that it
// checks, and `rounds` SEND round trips; then disconnect. Bounded by `until`. A try that
// got no answer (resolution, unreachable, connect error) is repeated, each resolution
// bounded by 3 s, until `until`; a reject (no listener) is the answer and is not retried.
// An errno of rdma_resolve_addr that means "no route to the peer yet" (ENETUNREACH,
// EHOSTUNREACH, EADDRNOTAVAIL, ENODEV): retried within the check's time, not final.
bool route_missing(int errnum);

// Whether a failed try is followed by another, and after how long: a try that got no
// answer (transient) after 250 ms, a listener's busy answer after the delay it asked for;
// none when the wait and half a second for the try no longer fit in `left`. A plain
// reject (no listener, refused, outside the listener's --allow) is final.
std::optional<std::chrono::milliseconds> peer_retry_delay(
    bool transient, std::optional<std::chrono::milliseconds> busy, std::chrono::milliseconds left);
Result<PeerResult> cm_check_peer(const PeerCheck& c, std::chrono::steady_clock::time_point until);

// The NVMe/RDMA target check (verify-nvmf, before nvmf-connect): an rdma_cm connection
// to the target's port as the kernel's NVMe host opens its admin queue, closed once the
// target accepts it. Retried as the peer check is while nothing answers; a reject is the
// target's answer (nothing listening on the port, or the target's NVMe/RDMA reason).
struct NvmeTargetCheck {
  IpAddress address;
  uint16_t port = 4420;
};
struct NvmeTargetResult {
  unsigned tries = 1;
  std::string device;  // the local RDMA device and port rdma_cm chose by route
  unsigned port = 0;
  std::string local;         // as PeerResult's
  unsigned queue_depth = 0;  // the receive queue the target granted (its accept's crqsize)
};
Result<NvmeTargetResult> cm_check_nvme_target(const NvmeTargetCheck& c,
                                              std::chrono::steady_clock::time_point until);
// A target's reject reason (include/linux/nvme-rdma.h enum nvme_rdma_cm_status) as words:
// "no resources (...) (NVMe/RDMA status 6)".
std::string nvme_rdma_reject_text(uint16_t sts);

// verify --listen: answers peer checks on `address` (nullopt: every address) and `port`
// within `limits` (listen_policy.h) until `stop` returns true (checked at least once a
// second). `say` gets one line per event, `changed` the stats after each change. Returns
// the error that prevented listening at the start, kStopped once stopped, or
// kDeviceRemoved when the listening device went away (its ids closed): the caller starts
// the process anew, because librdmacm keeps the removed device's verbs context open while
// no other device is left (cma.c sync_devices_list returns early on an empty list) and
// the kernel's unregistration waits for it (uverbs_main.c ib_uverbs_remove_one, for
// drivers without disassociate_ucontext: rxe among them). An address change is handled
// here: the listener listens anew (retried every 2 s).
struct ListenConfig {
  std::optional<IpAddress> address;
  uint16_t port = kVerifyPort;
  ListenLimits limits;
  std::function<void(const ListenStats&)> changed;
  // A listener started anew after kDeviceRemoved: its counts so far, and a bind that fails
  // is waited out (every 2 s) instead of an error.
  std::optional<ListenStats> resume;
};
enum class ListenEnd { kStopped, kDeviceRemoved };
Result<ListenEnd> cm_listen(const ListenConfig& c,
                            const std::function<void(const std::string&)>& say,
                            const std::function<bool()>& stop);

}  // namespace rp
