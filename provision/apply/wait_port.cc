// Waiting for an RDMA port to become ACTIVE: an InfiniBand port once a subnet manager has
// configured it, a RoCE port once its link is up. The state file has no event, so it is
// polled with exponential backoff until the run's deadline.
//
// A RoCE port is usable only while the interface under it has carrier, and its state file
// does not always say so: Soft-RoCE on Linux 6.1 sets the port ACTIVE on NETDEV_UP
// whatever the carrier (rxe_net.c rxe_notify -> rxe_port_up; only NETDEV_CHANGE looks at
// netif_carrier_ok), seen in QEMU with the NIC's link off from power-on ("infiniband rxe0:
// set active", then dracut's "No carrier detected"). So for a RoCE port the interface's
// carrier must be 1 too, when it can be read (net-sysfs.c carrier_show: EINVAL while the
// interface is down, when the port state alone decides).
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "provision/apply/context.h"
#include "provision/base/strings.h"
#include "provision/base/types.h"

namespace rp {
namespace {

std::string seconds_text(Clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", std::chrono::duration<double>(d).count());
  return buf;
}

// The interface under a RoCE port: the kernel's netdev of its first GID (core/sysfs.c
// print_ndev), else the soft device's parent (rxe_verbs.c parent_show); "" for an
// InfiniBand port or none.
std::string roce_port_netdev(FileOps& files, const std::string& device, unsigned port) {
  const std::string port_dir = "/sys/class/infiniband/" + device + "/ports/" + std::to_string(port);
  auto ll = files.read(port_dir + "/link_layer");
  if (!ll || parse_link_layer(*ll) != LinkLayer::kEthernet) return "";
  if (auto n = files.read(port_dir + "/gid_attrs/ndevs/0"); n && !n->empty()) return *n;
  if (auto p = files.read("/sys/class/infiniband/" + device + "/parent"); p && !p->empty())
    return *p;  // rxe
  // iWARP (siw on 6.1 answers EINVAL for ndevs/0): the interface with GID 0's MAC.
  auto mac = MacAddress::of_iwarp_gid(files.read(port_dir + "/gids/0").value_or(""));
  if (!mac) return "";
  // On the device's PCI function when it has one: a bond or VLAN above carries the MAC too.
  const Root& root = files.root();
  const auto fn = root.link_basename("/sys/class/infiniband/" + device + "/device");
  for (const auto& n : root.list("/sys/class/net")) {
    auto a = HwAddress::parse(files.read("/sys/class/net/" + n + "/address").value_or(""));
    if (!a || !(a->mac() == mac)) continue;
    if (!fn || root.link_basename("/sys/class/net/" + n + "/device").value_or("") == *fn) return n;
  }
  return "";
}

// The RoCE LAG device that took over the RDMA device of PCI function `pci`, gone now: one
// whose port's interface is a bond with a slave on `pci`. Once both PFs of an mlx5 card
// are that bond's slaves, mlx5 unregisters their devices and registers one on the first
// PF (lag/lag.c mlx5_do_bond), its port on the bond (Inventory::roce_lag). "" when none.
std::string lag_device_of(FileOps& files, const std::string& pci) {
  const Root& root = files.root();
  for (const auto& d : root.list("/sys/class/infiniband")) {
    const std::string bond(
        trim(files.read("/sys/class/infiniband/" + d + "/ports/1/gid_attrs/ndevs/0").value_or("")));
    if (bond.empty()) continue;
    const std::string slaves =
        files.read("/sys/class/net/" + bond + "/bonding/slaves").value_or("");
    for (auto sl : split_ws(slaves))
      if (root.link_basename(cat({"/sys/class/net/", sl, "/device"})).value_or("") == pci) return d;
  }
  return "";
}

std::string why_not_active(ApplyContext& ctx, const WaitPort& a, std::optional<PortState> state,
                           const std::optional<Error>& read_error, const std::string& port_dir,
                           const std::string& no_carrier) {
  const std::string name = "port " + std::to_string(a.port) + " of " + a.device;
  if (state == PortState::kActive && !no_carrier.empty()) {
    return name + " is ACTIVE but " + no_carrier +
           " under it has no carrier: no link (cable, switch port, or the peer is down)";
  }
  if (!state) {
    if (!ctx.files.exists("/sys/class/infiniband/" + a.device)) {
      return name + " does not exist: there is no RDMA device " + a.device;
    }
    // The file is there but the kernel refuses to show it (EIO from a driver whose
    // firmware stopped answering, say): that, not absence, is the reason.
    if (read_error && read_error->errnum != ENOENT) {
      return "the state of " + name + " cannot be read: " + read_error->str();
    }
    return name + " does not exist";
  }
  const std::string is = name + " is " + std::string(to_string(*state));
  switch (*state) {
    case PortState::kDown:
      if (auto why = roce_link_down(ctx.files, a.device, a.port); !why.empty()) {
        return is + ": " + why;
      }
      if (auto netdev = roce_port_netdev(ctx.files, a.device, a.port);
          !netdev.empty() &&
          ctx.files.read("/sys/class/net/" + netdev + "/carrier").value_or("") == "1") {
        // Soft-iWARP before 6.12 caches its state: set at siw_newlink from the carrier,
        // changed at NETDEV_UP/DOWN only (siw_main.c siw_netdev_event ignores
        // NETDEV_CHANGE), so a carrier that came later is never seen.
        const bool siw =
            ctx.files.read("/sys/class/infiniband/" + a.device + "/node_desc").value_or("") ==
            "Software iWARP stack";
        return is + " although " + netdev + " under it is up with carrier" +
               (siw ? ": Soft-iWARP before Linux 6.12 sees a carrier that came after its "
                      "link was made only when the interface is set up again"
                    : "");
      }
      return is + ": no link (cable, switch port, or the peer is down)";
    case PortState::kInit: {
      auto ll = parse_link_layer(ctx.files.read(port_dir + "/link_layer").value_or(""));
      if (ll == LinkLayer::kEthernet) return is + ": the link is up but the port is not active yet";
      return is + ": no subnet manager has configured it";
    }
    case PortState::kArmed:
      return is + ": the subnet manager has not activated it yet";
    case PortState::kActiveDefer:
      return is + ": the port is recovering from an error";
    default:
      return name + " is in an unknown state";
  }
}

}  // namespace

// On hardware the port follows the netdev (mlx5_query_port_roce, mlx4 eth_link_query_port:
// ACTIVE only while it is running with carrier). Administratively down (IFF_UP clear in
// `flags`) and up without carrier (net-sysfs.c carrier_show reads 0; it is EINVAL while the
// link is down) read the same in the port's files; the interface tells them apart.
std::string roce_link_down(FileOps& files, const std::string& device, unsigned port) {
  const std::string netdev = roce_port_netdev(files, device, port);
  if (netdev.empty()) return "";
  auto flags = files.read("/sys/class/net/" + netdev + "/flags");
  if (!flags) return "";
  if ((parse_hex(*flags).value_or(0) & 0x1) == 0) {
    return netdev + " under it is administratively down (a RoCE port is ACTIVE only " +
           "while its interface is up with carrier)";
  }
  if (files.read("/sys/class/net/" + netdev + "/carrier").value_or("") == "0") {
    return netdev +
           " under it is up but has no carrier: no link (cable, switch port, or the peer is down)";
  }
  return "";
}

// "3 s", "1 min 30 s": as systemd's "A start job is running for ... (10s / 1min 30s)".
std::string whole_seconds(Clock::duration d) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  return s < 60 ? std::to_string(s) + " s"
                : std::to_string(s / 60) + " min" +
                      (s % 60 ? " " + std::to_string(s % 60) + " s" : "");
}

// While a wait lasts: a line after the first second (a port that comes within it needs
// none), then one every kProgressEvery, each with the port's state and why it is not
// ready, so a console that shows nothing for a minute never means a hang.
constexpr Clock::duration kProgressFirst = std::chrono::seconds(1);
constexpr Clock::duration kProgressEvery = std::chrono::seconds(5);

Outcome exec_wait_port(ApplyContext& ctx, const Action&, const WaitPort& wanted) {
  WaitPort a = wanted;  // the device a RoCE LAG takes over is followed (lag_device_of)
  std::string port_dir = "/sys/class/infiniband/" + a.device + "/ports/" + std::to_string(a.port);
  const std::string pci =
      ctx.files.root().link_basename("/sys/class/infiniband/" + a.device + "/device").value_or("");
  std::string followed;  // why the wait is on another device than planned
  const auto start = Clock::now();
  const auto bound = ctx.deadline.left();
  std::optional<PortState> last;      // nothing: the state file cannot be read
  std::optional<Error> read_error;    // why, the last time
  std::optional<std::string> netdev;  // a RoCE port's interface, looked up once
  std::string no_carrier;             // that interface, while it is up without carrier
  unsigned looks = 0;
  auto next_line = start + kProgressFirst;
  std::optional<Clock::time_point> carrierless_since;  // a.carrier_grace: up, no carrier
  bool gave_up = false;
  auto active = [&] {
    ++looks;
    auto s = ctx.files.read(port_dir + "/state");
    if (!s && s.error().errnum == ENOENT && !pci.empty() && followed.empty()) {
      if (const std::string lag = lag_device_of(ctx.files, pci); !lag.empty()) {
        followed = cat({a.device, " (", pci, ") is gone: the RoCE LAG ", lag,
                        " took it over (mlx5 lag/lag.c mlx5_do_bond); waited for ", lag, "/1"});
        ctx.log.notice("waiting for " + a.device + "/" + std::to_string(a.port) + ": " + followed);
        a.device = lag;
        a.port = 1;
        port_dir = "/sys/class/infiniband/" + lag + "/ports/1";
        netdev.reset();
        s = ctx.files.read(port_dir + "/state");
      }
    }
    last = s ? std::optional<PortState>(parse_port_state(*s)) : std::nullopt;
    read_error = s ? std::nullopt : std::optional<Error>(s.error());
    no_carrier.clear();
    // The interface's carrier matters for an ACTIVE port, and for the grace of one the
    // boot does not use whatever its state (mlx5 shows such a port DOWN): read then only.
    bool carrierless = false;
    if (last == PortState::kActive || a.carrier_grace) {
      if (!netdev) netdev = roce_port_netdev(ctx.files, a.device, a.port);
      carrierless = !netdev->empty() &&
                    ctx.files.read("/sys/class/net/" + *netdev + "/carrier").value_or("") == "0";
    }
    if (last == PortState::kActive && !carrierless) return true;
    if (carrierless) no_carrier = *netdev;
    const auto now = Clock::now();
    if (a.carrier_grace && carrierless) {
      if (!carrierless_since) carrierless_since = now;
      if (now - *carrierless_since >= std::chrono::seconds(kCarrierGraceS)) {
        gave_up = true;
        return true;
      }
    } else {
      carrierless_since.reset();
    }
    if (now >= next_line) {
      next_line = now + kProgressEvery;
      ctx.log.notice("waiting for " + a.device + "/" + std::to_string(a.port) +
                     " to become ACTIVE (" + whole_seconds(now - start) + " / " +
                     whole_seconds(bound) +
                     "): " + why_not_active(ctx, a, last, read_error, port_dir, no_carrier));
    }
    return false;
  };
  if (wait_backoff(ctx.deadline, active)) {
    if (gave_up) {
      return Outcome::skipped("no carrier on " + *netdev + " after " +
                              std::to_string(kCarrierGraceS) +
                              " s: not checked (the boot's network does not use it)");
    }
    if (looks == 1) return Outcome::already("ACTIVE");
    return Outcome::done(
        cat({"ACTIVE after ", seconds_text(Clock::now() - start), followed.empty() ? "" : " (",
             followed, followed.empty() ? "" : ")"}));
  }
  Outcome o = Outcome::timed_out(
      make_error("", why_not_active(ctx, a, last, read_error, port_dir, no_carrier)));
  o.detail = "waited " + seconds_text(Clock::now() - start);
  if (last) {
    if (auto phys = ctx.files.read(port_dir + "/phys_state")) o.detail += "; phys_state " + *phys;
  }
  return o;
}

}  // namespace rp
