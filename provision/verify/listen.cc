// The listener (cm_listen): answers peer checks, one session per connection, within the
// limits of listen_policy.h (--allow, --max-sessions, the per-session deadline), and
// listens again when its device goes away or its address changes.
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "provision/kernel/verbs.h"
#include "provision/verify/check.h"
#include "provision/verify/check_internal.h"
#include "provision/verify/listen_policy.h"

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
  bool established = false;
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

using Say = std::function<void(const std::string&)>;
using Sessions = std::map<rdma_cm_id*, std::unique_ptr<Session>>;

std::optional<IpAddress> ip_of(const sockaddr* sa) {
  IpAddress a;
  if (sa && sa->sa_family == AF_INET) {
    std::memcpy(a.bytes.data(), &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, 4);
    return a;
  }
  if (sa && sa->sa_family == AF_INET6) {
    a.v6 = true;
    std::memcpy(a.bytes.data(), &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, 16);
    return a;
  }
  return std::nullopt;
}

// The client's hello. On IB and RoCE the request carries 56 bytes of private data whatever
// the client gave, zero-padded (cma.c cma_ib_new_conn_id: IB_CM_REQ_PRIVATE_DATA_SIZE less
// rdma_cm's own header), so a short hello is told by its magic alone.
bool hello_ok(const rdma_cm_event* ev) {
  Hello h{};
  if (!ev->param.conn.private_data || ev->param.conn.private_data_len < sizeof(Hello)) {
    return false;
  }
  std::memcpy(&h, ev->param.conn.private_data, sizeof h);
  return h.magic == kMagic;
}

// A connect request: refused (plain reject), answered busy (the reject the client retries)
// or accepted into `sessions`. Returns what was decided; `*error` says why an accepted
// request could not be set up (then it was rejected plainly). The id stays the caller's
// unless accepted: it is destroyed after the event is acked (librdmacm's rdma_destroy_id
// waits for the id's events to be acked: cma.c ucma_destroy_kern_id).
Admission on_request(rdma_cm_event* ev, const ListenLimits& limits, Sessions& sessions,
                     std::string& who, std::optional<Error>* error) {
  rdma_cm_id* id = ev->id;
  who = sockaddr_text(rdma_get_peer_addr(id));
  const Admission a = admit(limits, ip_of(rdma_get_peer_addr(id)), hello_ok(ev), sessions.size());
  if (a == Admission::kBusy) {
    const auto busy = busy_reject(kBusyRetryAfter);
    rdma_reject(id, busy.data(), static_cast<uint8_t>(busy.size()));
    return a;
  }
  if (a != Admission::kAccept) {
    rdma_reject(id, nullptr, 0);
    return a;
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
  // A resource shortage is the busy answer too: the client comes back within its budget.
  auto refuse = [&](Error e) {
    const auto busy = busy_reject(kBusyRetryAfter);
    rdma_reject(id, busy.data(), static_cast<uint8_t>(busy.size()));
    if (id->qp) rdma_destroy_qp(id);
    s->id = nullptr;
    *error = std::move(e);
    return Admission::kBusy;
  };
  if (!s->mr || rdma_create_qp(id, s->pd.get(), &qa)) {
    return refuse(make_error(who,
                             "cannot set up verbs resources for the connection (LimitMEMLOCK "
                             "below --max-sessions x " +
                                 std::to_string(kSessionPinnedBytes / 1024) + " KiB?)",
                             errno));
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
  return Admission::kAccept;
}

// Answers every message the session's CQ has; false when the session is broken.
bool serve(Session& s, const Say& say) {
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

// The listening id on its own event channel, bound and listening (a backlog of the cap:
// requests beyond it wait in the kernel, not in our memory).
Result<CmEndpoint> bind_and_listen(const ListenConfig& c, const std::string& where) {
  auto cm = open_cm(where);
  if (!cm) return cm.error();
  sockaddr_storage ss = to_sockaddr(c.address.value_or(IpAddress{}), c.port);
  if (rdma_bind_addr(cm.value().id.get(), reinterpret_cast<sockaddr*>(&ss))) {
    return make_error(where, "cannot bind (no RDMA device has that address, or the port is taken)",
                      errno);
  }
  if (rdma_listen(cm.value().id.get(), static_cast<int>(c.limits.max_sessions))) {
    return make_error(where, "rdma_listen", errno);
  }
  return cm;
}

std::string limits_text(const ListenLimits& l) {
  std::string t = "at most " + std::to_string(l.max_sessions) + " session(s) of " +
                  std::to_string(l.deadline.count() / 1000) + " s, ";
  if (l.allow.empty()) return t + "from any source";
  t += "from";
  for (const auto& p : l.allow) t += " " + p.str();
  return t;
}

class Listener {
 public:
  Listener(const ListenConfig& c, const Say& say)
      : c_(c), say_(say), deadlines_(c.limits.deadline) {
    if (c.resume) stats_ = *c.resume;
    stats_.max_sessions = c.limits.max_sessions;
    where_ = (c.address ? c.address->str() : std::string("*")) + ":" + std::to_string(c.port);
  }
  Status start() {
    auto cm = bind_and_listen(c_, where_);
    if (!cm && !c_.resume) return cm.error();
    if (cm && c_.resume) {
      cm_ = std::move(cm.value());
      ++stats_.relistens;
      say_("listening again on " + where_);
    } else if (cm) {
      cm_ = std::move(cm.value());
      say_("listening on " + where_ + " (" + limits_text(c_.limits) + ")");
    } else {
      say_("started anew, waiting for " + where_ + ": " + cm.error().str() +
           "; retrying every 2 s");
      waiting_ = true;
    }
    publish();
    return ok_status();
  }
  ListenEnd run(const std::function<bool()>& stop) {
    while (!stop() && !device_removed_) {
      if (!cm_.id && !relisten()) continue;
      step();
    }
    close_all();
    return device_removed_ ? ListenEnd::kDeviceRemoved : ListenEnd::kStopped;
  }

 private:
  void publish() {
    stats_.active = static_cast<unsigned>(sessions_.size());
    if (c_.changed) c_.changed(stats_);
  }
  void end(Sessions::iterator it, const std::string& why) {
    Session& s = *it->second;
    say_(s.from + ": " + why + " after " + std::to_string(s.rounds) + " message(s); RDMA WRITE " +
         (s.write_ok ? "checked" : "not checked"));
    ++(s.write_ok ? stats_.passed : stats_.failed);
    deadlines_.end(reinterpret_cast<uintptr_t>(it->first));
    sessions_.erase(it);
  }
  void close_all() {
    while (!sessions_.empty()) end(sessions_.begin(), "closed with the listener");
    cm_ = CmEndpoint{};
    publish();
  }
  // After ADDR_CHANGE on the listening id (or started anew after a device removal): the
  // id made anew. rdma_cm has no event for an address or device that comes back to an id
  // that is not bound to one, so the bind is retried every 2 s, said once.
  bool relisten() {
    auto cm = bind_and_listen(c_, where_);
    if (!cm) {
      if (!waiting_) say_("cannot listen again: " + cm.error().str() + "; retrying every 2 s");
      waiting_ = true;
      ::poll(nullptr, 0, 2000);
      return false;
    }
    waiting_ = false;
    cm_ = std::move(cm.value());
    ++stats_.relistens;
    say_("listening again on " + where_);
    publish();
    return true;
  }
  void step();
  void on_event(rdma_cm_event* ev, bool* changed);

  const ListenConfig& c_;
  const Say& say_;
  std::string where_;
  CmEndpoint cm_;
  Sessions sessions_;
  SessionDeadlines deadlines_;
  ListenStats stats_;
  bool waiting_ = false;
  bool device_removed_ = false;
};

void Listener::step() {
  std::vector<pollfd> fds{{cm_.ec->fd, POLLIN, 0}};
  std::vector<rdma_cm_id*> ids{nullptr};
  for (auto& [id, s] : sessions_) {
    fds.push_back({s->ch->fd, POLLIN, 0});
    ids.push_back(id);
  }
  // Woken by an event, the next session deadline, or at the latest after a second (the
  // stop flag is a signal handler's).
  ::poll(fds.data(), fds.size(), deadlines_.wait_ms(ListenClock::now(), 1000));
  bool changed = false;
  for (size_t i = 1; i < fds.size(); ++i) {
    if (!(fds[i].revents & POLLIN)) continue;
    auto it = sessions_.find(ids[i]);
    if (it != sessions_.end() && !serve(*it->second, say_)) rdma_disconnect(it->first);
  }
  rdma_cm_event* ev = nullptr;
  bool relisten = false;
  while ((fds[0].revents & POLLIN) && rdma_get_cm_event(cm_.ec.get(), &ev) == 0) {
    const bool on_listener = ev->id == cm_.id.get();
    if (on_listener &&
        (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL || ev->event == RDMA_CM_EVENT_ADDR_CHANGE)) {
      relisten = true;
      device_removed_ = ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL;
      say_(where_ + ": " + rdma_event_str(ev->event) +
           (device_removed_ ? ": closing everything, to start anew" : ": listening anew"));
      rdma_ack_cm_event(ev);
      continue;
    }
    on_event(ev, &changed);
  }
  for (uintptr_t key : deadlines_.expired(ListenClock::now())) {
    auto it = sessions_.find(reinterpret_cast<rdma_cm_id*>(key));
    if (it == sessions_.end()) continue;
    ++stats_.expired;
    end(it, "no end within " + std::to_string(c_.limits.deadline.count() / 1000) +
                " s (client silent or gone): closed");
    changed = true;
  }
  if (relisten) {
    while (!sessions_.empty()) end(sessions_.begin(), "closed: the listener starts anew");
    cm_ = CmEndpoint{};
    changed = true;
  }
  if (changed) publish();
}

// One rdma_cm event of a session (or a connect request); acks it.
void Listener::on_event(rdma_cm_event* ev, bool* changed) {
  rdma_cm_id* id = ev->id;
  switch (ev->event) {
    case RDMA_CM_EVENT_CONNECT_REQUEST: {
      std::string who;
      std::optional<Error> error;
      const Admission a = on_request(ev, c_.limits, sessions_, who, &error);
      *changed = true;
      if (a == Admission::kAccept) {
        ++stats_.sessions;
        deadlines_.start(reinterpret_cast<uintptr_t>(id), ListenClock::now());
        break;
      }
      ++(a == Admission::kBusy ? stats_.busy : stats_.refused);
      say_(error ? error->str() + ": answered busy" : who + ": " + std::string(to_string(a)));
      rdma_ack_cm_event(ev);
      rdma_destroy_id(id);
      return;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
      if (auto it = sessions_.find(id); it != sessions_.end()) {
        it->second->established = true;
        say_("connection from " + it->second->from + " on " + verbs_device_name(id->verbs->device) +
             "/" + std::to_string(id->port_num));
      }
      break;
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_REJECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
    case RDMA_CM_EVENT_ADDR_CHANGE:
      if (auto it = sessions_.find(id); it != sessions_.end()) {
        const std::string why = rdma_event_str(ev->event);
        rdma_ack_cm_event(ev);
        end(it, why);
        *changed = true;
        return;
      }
      break;
    default:
      break;
  }
  rdma_ack_cm_event(ev);
}

}  // namespace

Result<ListenEnd> cm_listen(const ListenConfig& c, const Say& say,
                            const std::function<bool()>& stop) {
  Listener l(c, say);
  if (auto st = l.start(); !st) return st.error();
  return l.run(stop);
}

}  // namespace rp
