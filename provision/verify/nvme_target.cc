// The NVMe/RDMA target check (cm_check_nvme_target): before `nvmf --boot` writes a
// connect to /dev/nvme-fabrics, whose failure is one errno with the step named only in
// the kernel log, rdma_cm opens the connection an NVMe/RDMA host opens first, the admin
// queue's (NVMe over Fabrics 1.1, RDMA transport binding; the host's side in the kernel:
// drivers/nvme/host/rdma.c nvme_rdma_route_resolved), and reads the target's answer:
// accepted (then closed at once: the target frees a queue that never got its Connect
// command, drivers/nvme/target/rdma.c nvmet_rdma_queue_disconnect), refused with its NVMe
// reason, or nothing listening on the port.
#include <endian.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstring>

#include "provision/verify/check.h"
#include "provision/verify/check_internal.h"

namespace rp {

using namespace rdma_internal;

namespace {

// The private data of the connect request and of the target's answers
// (include/linux/nvme-rdma.h: struct nvme_rdma_cm_req, _rep, _rej; little endian).
struct CmReq {
  uint16_t recfmt;   // NVME_RDMA_CM_FMT_1_0 = 0
  uint16_t qid;      // 0: the admin queue
  uint16_t hrqsize;  // the host's receive queue: the admin queue's depth
  uint16_t hsqsize;  // the host's send queue, 0's based
  uint16_t cntlid;   // the controller a queue joins: none yet for an admin queue (0)
  uint8_t rsvd[22];
};
static_assert(sizeof(CmReq) == 32);
struct CmRep {
  uint16_t recfmt;
  uint16_t crqsize;  // the controller's receive queue size
  uint8_t rsvd[28];
};
struct CmRej {
  uint16_t recfmt;
  uint16_t sts;  // enum nvme_rdma_cm_status
};

// The admin queue's depth the kernel's host asks for (include/linux/nvme.h NVME_AQ_DEPTH;
// the target refuses a larger one: nvmet_rdma_parse_cm_connect_req).
constexpr uint16_t kAdminQueueDepth = 32;

uint16_t le16(const void* p) {
  const auto* b = static_cast<const uint8_t*>(p);
  return static_cast<uint16_t>(b[0] | b[1] << 8);
}

Result<NvmeTargetResult> nvme_attempt(const NvmeTargetCheck& c, Until resolve_until, Until until,
                                      bool* transient) {
  *transient = false;
  const std::string peer = c.address.str() + ":" + std::to_string(c.port);
  auto cm = open_cm(peer);
  if (!cm) return cm.error();
  EventChannel& ec = cm.value().ec;
  CmId& id = cm.value().id;
  auto path = resolve_path(ec.get(), id.get(), c.address, c.port, resolve_until, transient);
  if (!path) return path.error();
  NvmeTargetResult r;
  r.device = path->device;
  r.port = path->port;
  r.local = path->local;
  const std::string cn = peer + ": NVMe/RDMA admin queue connect (via " + r.device + "/" +
                         std::to_string(r.port) + ")";

  Pd pd(ibv_alloc_pd(id->verbs));
  Channel ch(pd ? ibv_create_comp_channel(id->verbs) : nullptr);
  Cq cq(ch ? ibv_create_cq(id->verbs, 16, nullptr, ch.get(), 0) : nullptr);
  if (!cq) return make_error(cn, "cannot set up verbs resources", errno);
  ibv_qp_init_attr qa = rc_qp_attr(cq.get());
  if (rdma_create_qp(id.get(), pd.get(), &qa)) {
    return make_error(cn, "cannot create the connection's queue pair", errno);
  }
  struct QpGuard {
    rdma_cm_id* id;
    ~QpGuard() { rdma_destroy_qp(id); }
  } qp_guard{id.get()};

  // As the kernel's host asks for its admin queue (host/rdma.c nvme_rdma_route_resolved).
  CmReq req{};
  req.hrqsize = htole16(kAdminQueueDepth);
  req.hsqsize = htole16(kAdminQueueDepth - 1);
  rdma_conn_param cp{};
  cp.private_data = &req;
  cp.private_data_len = sizeof req;
  cp.responder_resources = 1;
  cp.initiator_depth = 1;
  cp.retry_count = 7;
  cp.rnr_retry_count = 7;
  cp.flow_control = 1;
  if (rdma_connect(id.get(), &cp)) return make_error(cn, "rdma_connect", errno);
  auto got = next_event(ec.get(), until, cn);
  if (!got) {
    *transient = true;
    return got.error();
  }
  rdma_cm_event* ev = *got;
  const rdma_cm_event_type type = ev->event;
  const int status = ev->status;
  std::optional<uint16_t> sts, crqsize;
  if (ev->param.conn.private_data && ev->param.conn.private_data_len >= sizeof(CmRej)) {
    const uint16_t second = le16(static_cast<const uint8_t*>(ev->param.conn.private_data) + 2);
    (type == RDMA_CM_EVENT_REJECTED ? sts : crqsize) = second;
  }
  rdma_ack_cm_event(ev);
  if (type == RDMA_CM_EVENT_ESTABLISHED) {
    r.queue_depth = crqsize.value_or(0);
    rdma_disconnect(id.get());
    const Until bye = std::min(until, Clock::now() + std::chrono::seconds(1));
    if (auto e = next_event(ec.get(), bye, cn); e) rdma_ack_cm_event(*e);
    return r;
  }
  if (type == RDMA_CM_EVENT_REJECTED) {
    // A consumer-defined reject carrying the NVMe reason: the target answered.
    if (status == 28 && sts) {
      return make_error(cn, "refused by the target: " + nvme_rdma_reject_text(*sts));
    }
    return make_error(cn, "rejected: " + reject_text(status));
  }
  *transient = type == RDMA_CM_EVENT_UNREACHABLE || type == RDMA_CM_EVENT_CONNECT_ERROR;
  std::string why = rdma_event_str(type);
  if (status < 0) return make_error(cn, why, -status);
  if (status > 0) why += " (status " + std::to_string(status) + ")";
  return make_error(cn, why);
}

}  // namespace

std::string nvme_rdma_reject_text(uint16_t sts) {
  // include/linux/nvme-rdma.h enum nvme_rdma_cm_status, the words of nvme_rdma_cm_msg.
  static const char* const kWords[] = {
      nullptr,
      "invalid length",
      "invalid record format",
      "invalid queue ID",
      "invalid host send queue size",
      "invalid host receive queue size",
      "no resources (the target is at its limit of queues)",
      "invalid IRD",
      "invalid ORD",
      "invalid controller ID",
  };
  const std::string code = "NVMe/RDMA status " + std::to_string(sts);
  if (sts == 0 || sts >= sizeof kWords / sizeof *kWords)
    return "unrecognized reason (" + code + ")";
  return std::string(kWords[sts]) + " (" + code + ")";
}

Result<NvmeTargetResult> cm_check_nvme_target(const NvmeTargetCheck& c, Until until) {
  unsigned tries = 0;
  auto r = with_retries<NvmeTargetResult>(
      [&](Until resolve_until, bool* transient, std::chrono::milliseconds*) {
        return nvme_attempt(c, resolve_until, until, transient);
      },
      until, &tries);
  if (r) r.value().tries = tries;
  return r;
}

}  // namespace rp
