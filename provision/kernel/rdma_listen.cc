// The listener (cm_listen): answers peer checks, one session per connection.
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "provision/kernel/rdma_check.h"
#include "provision/kernel/rdma_check_internal.h"

namespace rp {

using namespace rdma_internal;

namespace {

// One accepted check: its verbs objects and buffer (the target of the client's write).
struct Session {
  rdma_cm_id* id = nullptr;
  std::string from;
  Pd pd;
  Channel ch;
  Cq cq;
  Mr mr;
  std::vector<uint8_t> buf;  // [target: kBufferBytes][send: Msg][recv: Msg]
  unsigned rounds = 0;
  bool write_ok = false;
  Msg* send_msg() { return reinterpret_cast<Msg*>(buf.data() + kBufferBytes); }
  Msg* recv_msg() { return reinterpret_cast<Msg*>(buf.data() + kBufferBytes + sizeof(Msg)); }
  ~Session() {
    if (id && id->qp) rdma_destroy_qp(id);
    mr.reset();
    cq.reset();
    ch.reset();
    pd.reset();
    if (id) rdma_destroy_id(id);
  }
};

Status accept_session(rdma_cm_event* ev, std::map<rdma_cm_id*, std::unique_ptr<Session>>& sessions,
                      std::string& who) {
  rdma_cm_id* id = ev->id;
  who = sockaddr_text(rdma_get_peer_addr(id));
  Hello h{};
  if (!ev->param.conn.private_data || ev->param.conn.private_data_len < sizeof(Hello) ||
      (std::memcpy(&h, ev->param.conn.private_data, sizeof h), h.magic != kMagic)) {
    rdma_reject(id, nullptr, 0);
    return make_error(who, "not an rdma-provision verify client: rejected");
  }
  auto s = std::make_unique<Session>();
  s->id = id;
  s->from = who;
  s->buf.resize(kBufferBytes + 2 * sizeof(Msg));
  s->pd.reset(ibv_alloc_pd(id->verbs));
  if (s->pd) s->ch.reset(ibv_create_comp_channel(id->verbs));
  if (s->ch) s->cq.reset(ibv_create_cq(id->verbs, 16, nullptr, s->ch.get(), 0));
  if (s->cq) {
    s->mr.reset(ibv_reg_mr(s->pd.get(), s->buf.data(), s->buf.size(),
                           IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  }
  ibv_qp_init_attr qa = rc_qp_attr(s->cq.get());
  // On a failure the id stays the caller's: it is destroyed after the event is acked
  // (rdma_destroy_id waits for the id's events to be acked: cma.c ucma_destroy_kern_id).
  auto refuse = [&](Error e) {
    rdma_reject(id, nullptr, 0);
    if (id->qp) rdma_destroy_qp(id);
    s->id = nullptr;
    return e;
  };
  if (!s->mr || rdma_create_qp(id, s->pd.get(), &qa)) {
    return refuse(make_error(who, "cannot set up verbs resources for the connection", errno));
  }
  if (auto st = post_recv(id->qp, s->mr.get(), s->recv_msg(), sizeof(Msg), 1, who); !st) {
    return refuse(st.error());
  }
  ::fcntl(s->ch->fd, F_SETFL, ::fcntl(s->ch->fd, F_GETFL) | O_NONBLOCK);
  if (int e = ibv_req_notify_cq(s->cq.get(), 0))
    return refuse(make_error(who, "cannot arm the CQ", e));
  Hello mine{kMagic, s->mr->rkey, reinterpret_cast<uintptr_t>(s->buf.data()), kBufferBytes, 0};
  rdma_conn_param cp = conn_param(&mine);
  if (rdma_accept(id, &cp)) return refuse(make_error(who, "rdma_accept", errno));
  sessions[id] = std::move(s);
  return ok_status();
}

// Answers every message the session's CQ has; false when the session is broken.
bool serve(Session& s, const std::function<void(const std::string&)>& say) {
  ibv_cq* ev_cq = nullptr;
  void* ev_ctx = nullptr;
  if (ibv_get_cq_event(s.ch.get(), &ev_cq, &ev_ctx) == 0) ibv_ack_cq_events(ev_cq, 1);
  ibv_req_notify_cq(s.cq.get(), 0);
  ibv_wc wc[8];
  int n;
  while ((n = ibv_poll_cq(s.cq.get(), 8, wc)) > 0) {
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        say(s.from + ": " + ibv_wc_status_str(wc[i].status));
        return false;
      }
      if (!(wc[i].opcode & IBV_WC_RECV)) continue;
      const Msg in = *s.recv_msg();
      Msg out{kMagic, in.round, in.written, in.check, 0, 0};
      if (in.magic == kMagic && in.written && in.written <= kBufferBytes) {
        out.ok = fnv1a(s.buf.data(), in.written) == in.check;
        s.write_ok = out.ok;
        if (!out.ok) say(s.from + ": the " + std::to_string(in.written) + " bytes written differ");
      }
      ++s.rounds;
      *s.send_msg() = out;
      if (!post_recv(s.id->qp, s.mr.get(), s.recv_msg(), sizeof(Msg), 1, s.from) ||
          !post_send(s.id->qp, s.mr.get(), s.send_msg(), sizeof(Msg), 2, s.from)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

Status cm_listen(const std::optional<IpAddress>& address, uint16_t port,
                 const std::function<void(const std::string&)>& say,
                 const std::function<bool()>& stop) {
  const std::string where =
      (address ? address->str() : std::string("*")) + ":" + std::to_string(port);
  auto cm = open_cm(where);
  if (!cm) return cm.error();
  EventChannel& ec = cm.value().ec;
  CmId& listener = cm.value().id;
  sockaddr_storage ss = to_sockaddr(address.value_or(IpAddress{}), port);
  if (rdma_bind_addr(listener.get(), reinterpret_cast<sockaddr*>(&ss))) {
    return make_error(where, "cannot bind (no RDMA device has that address, or the port is taken)",
                      errno);
  }
  if (rdma_listen(listener.get(), 16)) return make_error(where, "rdma_listen", errno);
  say("listening on " + where);
  std::map<rdma_cm_id*, std::unique_ptr<Session>> sessions;
  while (!stop()) {
    std::vector<pollfd> fds{{ec->fd, POLLIN, 0}};
    std::vector<rdma_cm_id*> ids{nullptr};
    for (auto& [id, s] : sessions) {
      fds.push_back({s->ch->fd, POLLIN, 0});
      ids.push_back(id);
    }
    if (::poll(fds.data(), fds.size(), 1000) <= 0) continue;
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      auto it = sessions.find(ids[i]);
      if (it != sessions.end() && !serve(*it->second, say)) rdma_disconnect(it->first);
    }
    if (!(fds[0].revents & POLLIN)) continue;
    rdma_cm_event* ev = nullptr;
    while (rdma_get_cm_event(ec.get(), &ev) == 0) {
      rdma_cm_id* id = ev->id;
      switch (ev->event) {
        case RDMA_CM_EVENT_CONNECT_REQUEST: {
          std::string who;
          auto st = accept_session(ev, sessions, who);
          if (!st) {
            say(st.error().str());
            rdma_ack_cm_event(ev);
            ev = nullptr;
            rdma_destroy_id(id);
          }
          break;
        }
        case RDMA_CM_EVENT_ESTABLISHED:
          if (auto it = sessions.find(id); it != sessions.end()) {
            say("connection from " + it->second->from + " on " +
                ibv_get_device_name(id->verbs->device) + "/" + std::to_string(id->port_num));
          }
          break;
        case RDMA_CM_EVENT_DISCONNECTED:
        case RDMA_CM_EVENT_CONNECT_ERROR:
        case RDMA_CM_EVENT_UNREACHABLE:
        case RDMA_CM_EVENT_REJECTED:
          if (auto it = sessions.find(id); it != sessions.end()) {
            Session& s = *it->second;
            say(s.from + ": " + rdma_event_str(ev->event) + " after " + std::to_string(s.rounds) +
                " message(s); RDMA WRITE " + (s.write_ok ? "checked" : "not checked"));
            rdma_ack_cm_event(ev);
            ev = nullptr;
            sessions.erase(it);
          }
          break;
        default:
          break;
      }
      if (ev) rdma_ack_cm_event(ev);
    }
  }
  sessions.clear();
  return ok_status();
}

}  // namespace rp
