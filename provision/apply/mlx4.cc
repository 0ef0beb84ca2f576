// mlx4 port type and IB port MTU: the mlx4_core attribute files of a PCI function. A real
// change unregisters and re-registers the whole card, so every write is read back and
// followed by a bounded wait for the card's RDMA devices and netdevs to come back.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "provision/apply/context.h"
#include "provision/base/strings.h"
#include "provision/base/types.h"
#include "provision/inventory/shown.h"

namespace rp {
namespace {

using std::chrono::milliseconds;

// How long one action keeps retrying a refused or busy write: the card may still be
// re-registering after the other port's switch (rdma-core's script allows 2.5 s).
constexpr Clock::duration kSwitchBound = std::chrono::seconds(10);
// How long to watch for the card to come back after a change. Current kernels re-register
// inside the write, so this ends at the first look unless nothing observable changed.
constexpr Clock::duration kReregisterBound = std::chrono::seconds(2);
constexpr Clock::duration kFirstRetry = milliseconds(5);
constexpr Clock::duration kRetryCap = milliseconds(250);
// A refused write (EINVAL, EOPNOTSUPP) is retried this often even when the card looks
// settled: right after a re-registration the kernel may refuse for a moment.
constexpr unsigned kRefusedGrace = 3;

std::string pci_dir(const std::string& bdf) { return "/sys/bus/pci/devices/" + bdf; }

long long ms_of(Clock::duration d) { return std::chrono::duration_cast<milliseconds>(d).count(); }

std::string retries_text(unsigned writes) {
  if (writes <= 1) return "";
  const unsigned n = writes - 1;
  return "after " + std::to_string(n) + (n == 1 ? " retry" : " retries");
}

// The link layer an mlx4_port value stands for, as the port's link_layer file says it.
std::string link_layer_of(std::string_view shown) {
  const auto t = parse_mlx4_port_type(shown);
  return t ? std::string(to_string(t->link_layer())) : "";
}

// Whether the port is configured as `want` ("auto (eth)" is auto).
bool type_matches(std::string_view shown, PortType want) {
  const auto t = parse_mlx4_port_type(shown);
  return t && t->configured == want;
}

bool module_loaded(ApplyContext& ctx, std::string_view name) {
  auto mods = ctx.files.read("/proc/modules");
  if (!mods) return false;
  for (auto line : split(*mods, '\n')) {
    auto f = split_ws(line);
    if (!f.empty() && f[0] == name) return true;
  }
  return false;
}

enum class ErrClass { kReadOnly, kGone, kBusy, kRefused, kOther };

ErrClass classify(int errnum) {
  switch (errnum) {
    case EACCES:
    case EPERM:
    case EROFS:
      return ErrClass::kReadOnly;
    case ENOENT:
    case ENODEV:
    case ENXIO:
      return ErrClass::kGone;
    case EBUSY:
    case EAGAIN:
    case EINTR:
      return ErrClass::kBusy;
    case EINVAL:
    case EOPNOTSUPP:
      return ErrClass::kRefused;
    default:
      return ErrClass::kOther;
  }
}

// What the card has registered: its RDMA devices and netdevs (with ifindex), and the
// link layer of the port being changed. Names come from listing the directories; every
// later look goes through FileOps.
struct CardView {
  std::vector<std::string> ibdevs;
  std::map<std::string, std::string> netdevs;  // name -> ifindex
  std::string link_layer;                      // of the changed port, first RDMA device
};

CardView look_at_card(ApplyContext& ctx, const std::string& bdf, unsigned port) {
  const std::string base = pci_dir(bdf);
  CardView v;
  v.ibdevs = ctx.files.root().list(base + "/infiniband");
  for (const auto& n : ctx.files.root().list(base + "/net")) {
    v.netdevs[n] = ctx.files.read(base + "/net/" + n + "/ifindex").value_or("");
  }
  if (!v.ibdevs.empty()) {
    v.link_layer = ctx.files
                       .read(base + "/infiniband/" + v.ibdevs[0] + "/ports/" +
                             std::to_string(port) + "/link_layer")
                       .value_or("");
  }
  return v;
}

// Whether the card is between an unregister and a register (the other port is switching):
// its RDMA device is missing although mlx4_ib is loaded, or a port's RDMA link layer does
// not yet match its mlx4_port type.
bool card_settling(ApplyContext& ctx, const std::string& bdf) {
  const std::string base = pci_dir(bdf);
  const auto ibdevs = ctx.files.root().list(base + "/infiniband");
  if (ibdevs.empty()) return module_loaded(ctx, "mlx4_ib");
  for (const auto& dev : ibdevs) {
    for (unsigned p = 1; p <= 2; ++p) {
      auto type = ctx.files.read(base + "/mlx4_port" + std::to_string(p));
      if (!type) continue;
      auto ll = ctx.files.read(base + "/infiniband/" + dev + "/ports/" + std::to_string(p) +
                               "/link_layer");
      if (!ll) return true;
      const std::string want = link_layer_of(*type);
      if (!want.empty() && *ll != want) return true;
    }
  }
  return false;
}

// Watches the card after a change until its devices are back. Evidence of the
// re-registration: an entry that vanished, a netdev with a new ifindex, or the port's
// link layer turning into the wanted one; "back" means every RDMA device is present again.
struct Reregistration {
  bool seen = false;
  bool vanished = false;  // the PCI function itself is gone
  Clock::duration waited{};
};

Reregistration wait_reregistration(ApplyContext& ctx, const std::string& bdf, unsigned port,
                                   const CardView& before, const std::string& wanted_ll) {
  const std::string base = pci_dir(bdf);
  const auto start = Clock::now();
  const Deadline bound = ctx.deadline.sooner(kReregisterBound);
  Reregistration r;
  bool evidence = false;
  auto back = [&]() -> bool {
    if (!ctx.files.exists(base)) {
      r.vanished = true;
      return true;
    }
    for (const auto& dev : before.ibdevs) {
      if (!ctx.files.exists(base + "/infiniband/" + dev)) evidence = true;
    }
    for (const auto& [name, ifindex] : before.netdevs) {
      auto now = ctx.files.read(base + "/net/" + name + "/ifindex");
      if (!now || *now != ifindex) evidence = true;
    }
    // Back: as many RDMA devices as before (a device may come back under another name).
    const auto ibdevs = ctx.files.root().list(base + "/infiniband");
    const bool all_there = ibdevs.size() >= before.ibdevs.size();
    if (all_there && !ibdevs.empty() && !wanted_ll.empty() && before.link_layer != wanted_ll) {
      auto ll = ctx.files.read(base + "/infiniband/" + ibdevs[0] + "/ports/" +
                               std::to_string(port) + "/link_layer");
      if (ll && *ll == wanted_ll) evidence = true;
    }
    return evidence && all_there;
  };
  r.seen = wait_backoff(bound, back, milliseconds(2), milliseconds(100)) && !r.vanished;
  r.waited = Clock::now() - start;
  return r;
}

// One mlx4 attribute write: verify, write with bounded retries, read back, wait for the
// card. `shown_ok` says whether a read value is the wanted one; `hint` explains a refusal.
struct Mlx4Write {
  std::string path;
  std::string value;   // without the newline
  std::string device;  // the PCI address
  unsigned port = 1;
  std::string wanted_ll;  // the port's link layer once done ("" when unchanged/unknown)
  std::function<bool(const std::string&)> shown_ok;
  std::function<std::string(int errnum)> hint;
  // A refusal that no wait can change (an MTU on an Ethernet port): reported at once.
  std::function<bool(int errnum)> refusal_is_final = [](int) { return false; };
  // A refusal that leaves the value staged in the kernel (a port type on a card that takes
  // one type for both ports): the outcome to report at once, or nothing.
  std::function<std::optional<Outcome>(int errnum)> staged = [](int) {
    return std::optional<Outcome>();
  };
  // Whether going from the old shown value to the new one re-registers the card ("eth" ->
  // "auto (eth)" does not).
  std::function<bool(const std::string& before, const std::string& after)> reregisters =
      [](const std::string&, const std::string&) { return true; };
};

const char kSriovHint[] =
    "port types of SR-IOV (multi-function) mlx4 devices are fixed by the firmware/module "
    "options (mlx4_core port_type_array)";

Outcome write_mlx4(ApplyContext& ctx, const Action& a, const Mlx4Write& w) {
  const std::string base = pci_dir(w.device);
  const Deadline bound = ctx.deadline.sooner(kSwitchBound);

  if (!ctx.files.exists(w.path) && !a.waiting_for.empty()) {
    ctx.log.info(w.path + ": waiting for " + a.waiting_for);
    wait_backoff(bound, [&] { return ctx.files.exists(w.path); });
  }
  auto current = ctx.files.read(w.path);
  if (!current) {
    Error e = current.error();
    if (e.errnum == ENOENT) {
      e = make_error(w.path, "does not exist");
      return ctx.deadline.expired() && !a.waiting_for.empty()
                 ? Outcome::timed_out(e)
                 : Outcome::failed(e, w.device + " is gone or not driven by mlx4_core");
    }
    return Outcome::failed(e);
  }
  if (w.shown_ok(*current)) return Outcome::already("reads " + quote(*current));
  const std::string shown = quote(w.value);
  if (!ctx.files.writable(w.path)) {
    return Outcome::failed(
        make_error(w.path, "writing " + shown + " refused: the file is read-only"), kSriovHint);
  }

  unsigned writes = 0;
  bool was_settling = false;
  std::string now_shown;
  bool accepted = false;  // the kernel took the value; only the read-back is pending
  CardView before;
  std::optional<Outcome> verdict;
  Error last;
  // True when the file shows the value; else `last` says what it shows.
  auto read_back = [&]() -> bool {
    auto rb = ctx.files.read(w.path);
    if (rb && w.shown_ok(*rb)) {
      now_shown = *rb;
      return true;
    }
    last = rb ? make_error(w.path, "reads back " + quote(*rb) + " after writing " + shown)
              : rb.error();
    return false;
  };
  auto attempt = [&]() -> bool {
    if (accepted) return read_back();
    before = look_at_card(ctx, w.device, w.port);
    ++writes;
    Status st = ctx.files.write(w.path, w.value + "\n");
    if (st) {
      accepted = true;
      if (read_back()) return true;
      ctx.log.debug(last.str() + ": reading again");
      return false;
    }
    last = st.error();
    switch (classify(last.errnum)) {
      case ErrClass::kReadOnly:
        verdict = Outcome::failed(last, kSriovHint);
        return true;
      case ErrClass::kGone:
        verdict = Outcome::failed(
            last, w.device + " is gone (hot-unplugged, or mlx4_core was unbound from it)");
        return true;
      case ErrClass::kBusy:
        ctx.log.debug(last.str() + ": retrying");
        return false;
      case ErrClass::kRefused: {
        if (auto staged = w.staged(last.errnum)) {
          verdict = *staged;
          return true;
        }
        if (w.refusal_is_final(last.errnum)) {
          verdict = Outcome::failed(last, w.hint(last.errnum));
          return true;
        }
        // Retried while the card is settling, and once more after it has settled.
        const bool settling = writes > kRefusedGrace && card_settling(ctx, w.device);
        if (writes <= kRefusedGrace || settling || was_settling) {
          was_settling = settling;
          ctx.log.debug(last.str() + ": the card may still be switching, retrying");
          return false;
        }
        verdict = Outcome::failed(last, w.hint(last.errnum));
        return true;
      }
      case ErrClass::kOther:
        verdict = Outcome::failed(last, w.hint(last.errnum));
        return true;
    }
    return true;
  };
  if (!wait_backoff(bound, attempt, kFirstRetry, kRetryCap)) {
    if (ctx.deadline.expired()) {
      Outcome o = Outcome::timed_out(last);
      o.detail = join({retries_text(writes), "the run's deadline passed while retrying"}, "; ");
      return o;
    }
    return Outcome::failed(
        last, join({w.hint(last.errnum), "gave up after " + std::to_string(ms_of(kSwitchBound)) +
                                             " ms and " + std::to_string(writes) +
                                             (writes == 1 ? " write" : " writes")},
                   "; "));
  }
  if (verdict) {
    verdict->detail = join({verdict->detail, retries_text(writes)}, "; ");
    return *verdict;
  }

  // The change went in: the card unregisters and comes back. Nothing to watch when neither
  // an RDMA device nor a netdev of the card existed before.
  std::string rereg;
  if (!w.reregisters(*current, now_shown)) {
    rereg = "the card keeps its port types: nothing re-registers";
  } else if (before.ibdevs.empty() && before.netdevs.empty()) {
    rereg = "no RDMA device or netdev of the card to wait for";
  } else {
    Reregistration r = wait_reregistration(ctx, w.device, w.port, before, w.wanted_ll);
    if (r.vanished) {
      return Outcome::failed(make_error(base, "vanished after writing " + shown + " to " + w.path),
                             "the device disappeared instead of re-registering (hot-unplug or "
                             "driver unbind)");
    }
    rereg = r.seen ? "card re-registered"
                   : "no re-registration seen within " + std::to_string(ms_of(r.waited)) + " ms";
  }
  return Outcome::done(join({retries_text(writes), rereg}, "; "));
}

}  // namespace

Outcome exec_port_type(ApplyContext& ctx, const Action& a, const SetPortType& p) {
  const std::string value(to_string(p.type));
  Mlx4Write w;
  w.device = p.pci.str();
  w.port = p.port;
  w.path = pci_dir(w.device) + "/mlx4_port" + std::to_string(p.port);
  w.value = value;
  w.wanted_ll = p.type == PortType::kAuto ? "" : link_layer_of(value);
  const PortType want = p.type;
  w.shown_ok = [want](const std::string& s) { return type_matches(s, want); };
  w.reregisters = [](const std::string& before, const std::string& after) {
    return link_layer_of(before) != link_layer_of(after);
  };
  w.hint = [p, value](int errnum) -> std::string {
    const std::string port = std::to_string(p.port);
    switch (errnum) {
      case EOPNOTSUPP:
      case EINVAL:
        if (p.type == PortType::kAuto) {
          return "the HCA cannot sense the port type (auto) on port " + port + "; set ib or eth";
        }
        return "the HCA does not support " + value + " on port " + port +
               ", or both ports must be the same type on this HCA";
      case EIO:
        return "the firmware failed to change the port type (see the mlx4_core lines in dmesg)";
      case EBUSY:
      case EAGAIN:
        return "the card stayed busy (another port switch or a reset in progress)";
      default:
        return "";
    }
  };
  const unsigned other_port = p.port == 1 ? 2 : 1;
  if (p.other && !p.other_first && *p.other == p.type) {
    w.staged = [other_port](int errnum) -> std::optional<Outcome> {
      if (errnum != EOPNOTSUPP) return std::nullopt;
      return Outcome::done(
          "staged: this HCA takes one type for both ports (no DPDP); the "
          "write of port " +
          std::to_string(other_port) + " applies both");
    };
  }
  Outcome o = write_mlx4(ctx, a, w);
  const bool ok = o.kind == OutcomeKind::kDone || o.kind == OutcomeKind::kAlready;
  if (!ok || !p.other || !p.other_first) return o;
  // The card's last port-type write: what does the hardware say about both ports now?
  const std::string other_path = pci_dir(w.device) + "/mlx4_port" + std::to_string(other_port);
  auto shown = ctx.files.read(other_path);
  const std::string other_value = shown ? std::string(trim(*shown)) : "unreadable";
  if (!shown || !type_matches(other_value, *p.other)) {
    return Outcome::failed(
        make_error(other_path, "reads " + quote(other_value) + " after both ports of " + w.device +
                                   " were written (wanted " + std::string(to_string(*p.other)) +
                                   ")"),
        "the card did not take the pair " + std::string(to_string(*p.other)) + "," + value +
            " (see the mlx4_core lines in dmesg)");
  }
  o.detail += std::string(o.detail.empty() ? "" : "; ") + "port " + std::to_string(other_port) +
              " reads " + quote(other_value);
  return o;
}

Outcome exec_port_mtu(ApplyContext& ctx, const Action& a, const SetPortMtu& p) {
  const std::string base = pci_dir(p.pci.str());
  Mlx4Write w;
  w.device = p.pci.str();
  w.port = p.port;
  w.path = base + "/mlx4_port" + std::to_string(p.port) + "_mtu";
  w.value = std::to_string(p.mtu);
  w.shown_ok = [want = w.value](const std::string& s) { return s == want; };
  auto ethernet = [&ctx, p, base] {
    auto type = ctx.files.read(base + "/mlx4_port" + std::to_string(p.port));
    return type && link_layer_of(*type) == "Ethernet";
  };
  w.refusal_is_final = [ethernet](int errnum) { return errnum == EINVAL && ethernet(); };
  w.hint = [p, ethernet](int errnum) -> std::string {
    const std::string port = std::to_string(p.port);
    if (errnum == EINVAL) {
      if (ethernet()) {
        return "port " + port + " of " + p.pci.str() +
               " is an Ethernet port: the kernel sets a port MTU on InfiniBand ports only";
      }
      return "the IB MTU is one of 256, 512, 1024, 2048, 4096";
    }
    if (errnum == EIO) {
      return "the firmware failed to change the port MTU (see the mlx4_core lines in dmesg)";
    }
    if (errnum == EBUSY || errnum == EAGAIN) {
      return "the card stayed busy (another port switch or a reset in progress)";
    }
    return "";
  };
  return write_mlx4(ctx, a, w);
}

}  // namespace rp
