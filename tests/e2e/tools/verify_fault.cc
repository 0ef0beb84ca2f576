// A misbehaving peer-check client for scenario 21 (the listener's load and fault test):
// connects to `rdma-provision verify --listen` through librdmacm like the real client, but
// with short or garbage private data, or stays silent, or hangs until it is killed.
//
//   verify_fault MODE SERVER_IP [SOURCE_IP]
//   MODE: hello (a valid hello, then disconnect) | short | garbage | silent:SECONDS | hang
//
// Prints one line: "verify_fault MODE: established" or "... rejected (reason N, busy|plain)"
// or "... failed: WHY"; exit 0 when the listener answered at all.
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "provision/verify/listen_policy.h"

namespace {

const char* g_mode = "?";

int fail(const std::string& why) {
  std::printf("verify_fault %s: failed: %s\n", g_mode, why.c_str());
  return 1;
}

// The next event within `ms`; nullptr when none came.
rdma_cm_event* next(rdma_event_channel* ec, int ms) {
  pollfd p{ec->fd, POLLIN, 0};
  if (::poll(&p, 1, ms) <= 0) return nullptr;
  rdma_cm_event* ev = nullptr;
  return rdma_get_cm_event(ec, &ev) == 0 ? ev : nullptr;
}

bool expect(rdma_event_channel* ec, rdma_cm_event_type want) {
  rdma_cm_event* ev = next(ec, 5000);
  if (!ev) return false;
  const bool ok = ev->event == want;
  rdma_ack_cm_event(ev);
  return ok;
}

sockaddr_in v4(const char* s) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(7472);
  ::inet_pton(AF_INET, s, &a.sin_addr);
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: verify_fault MODE SERVER_IP [SOURCE_IP]\n");
    return 2;
  }
  g_mode = argv[1];
  const std::string mode = argv[1];
  rdma_event_channel* ec = rdma_create_event_channel();
  rdma_cm_id* id = nullptr;
  if (!ec || rdma_create_id(ec, &id, nullptr, RDMA_PS_TCP)) return fail("no rdma_cm");
  sockaddr_in dst = v4(argv[2]), src{};
  if (argc > 3) src = v4(argv[3]), src.sin_port = 0;
  if (rdma_resolve_addr(id, argc > 3 ? reinterpret_cast<sockaddr*>(&src) : nullptr,
                        reinterpret_cast<sockaddr*>(&dst), 3000) ||
      !expect(ec, RDMA_CM_EVENT_ADDR_RESOLVED)) {
    return fail("address resolution");
  }
  if (rdma_resolve_route(id, 3000) || !expect(ec, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
    return fail("route resolution");
  }
  ibv_pd* pd = ibv_alloc_pd(id->verbs);
  ibv_cq* cq = pd ? ibv_create_cq(id->verbs, 8, nullptr, nullptr, 0) : nullptr;
  ibv_qp_init_attr qa{};
  qa.send_cq = qa.recv_cq = cq;
  qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
  qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
  qa.qp_type = IBV_QPT_RC;
  if (!cq || rdma_create_qp(id, pd, &qa)) return fail("verbs resources");
  // The real client's hello: magic "RPV1" (0x52505631, little endian), the rest zero.
  uint8_t data[56] = {0x31, 0x56, 0x50, 0x52};
  uint8_t len = 24;
  if (mode == "short") len = 2;  // half the magic
  if (mode == "garbage") {
    for (size_t i = 0; i < sizeof data; ++i) data[i] = static_cast<uint8_t>(i * 97 + 13);
    len = sizeof data;
  }
  rdma_conn_param cp{};
  cp.private_data = data;
  cp.private_data_len = len;
  cp.responder_resources = cp.initiator_depth = 1;
  cp.retry_count = cp.rnr_retry_count = 7;
  if (rdma_connect(id, &cp)) return fail("rdma_connect");
  rdma_cm_event* ev = next(ec, 10000);
  if (!ev) return fail("no answer in 10 s");
  if (ev->event == RDMA_CM_EVENT_REJECTED) {
    const bool busy = rp::busy_retry_after(ev->status, ev->param.conn.private_data,
                                           ev->param.conn.private_data_len)
                          .has_value();
    std::printf("verify_fault %s: rejected (reason %d, %s)\n", g_mode, ev->status,
                busy ? "busy" : "plain");
    rdma_ack_cm_event(ev);
    return 0;
  }
  const bool established = ev->event == RDMA_CM_EVENT_ESTABLISHED;
  const std::string what = rdma_event_str(ev->event);
  rdma_ack_cm_event(ev);
  if (!established) return fail(what);
  std::printf("verify_fault %s: established\n", g_mode);
  std::fflush(stdout);
  if (mode.rfind("silent:", 0) == 0) {
    ::sleep(static_cast<unsigned>(std::stoul(mode.substr(7))));
  } else if (mode == "hang") {
    for (;;) ::pause();  // until the harness kills it: the client powered off mid-check
  }
  rdma_disconnect(id);
  return 0;
}
