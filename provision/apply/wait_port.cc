// Waiting for an RDMA port to become ACTIVE: an InfiniBand port once a subnet manager has
// configured it, a RoCE port once its link is up. The state file has no event, so it is
// polled with exponential backoff until the run's deadline.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "provision/apply/context.h"
#include "provision/base/types.h"

namespace rp {
namespace {

std::string seconds_text(Clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", std::chrono::duration<double>(d).count());
  return buf;
}

// Why a port is not ACTIVE, in the words an administrator needs.
std::string why_not_active(ApplyContext& ctx, const WaitPort& a, std::optional<PortState> state,
                           const std::optional<Error>& read_error, const std::string& port_dir) {
  const std::string name = "port " + std::to_string(a.port) + " of " + a.device;
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

Outcome exec_wait_port(ApplyContext& ctx, const Action&, const WaitPort& a) {
  const std::string port_dir =
      "/sys/class/infiniband/" + a.device + "/ports/" + std::to_string(a.port);
  const auto start = Clock::now();
  std::optional<PortState> last;    // nothing: the state file cannot be read
  std::optional<Error> read_error;  // why, the last time
  unsigned looks = 0;
  auto active = [&] {
    ++looks;
    auto s = ctx.files.read(port_dir + "/state");
    last = s ? std::optional<PortState>(parse_port_state(*s)) : std::nullopt;
    read_error = s ? std::nullopt : std::optional<Error>(s.error());
    return last == PortState::kActive;
  };
  if (wait_backoff(ctx.deadline, active)) {
    if (looks == 1) return Outcome::already("ACTIVE");
    return Outcome::done("ACTIVE after " + seconds_text(Clock::now() - start));
  }
  Outcome o =
      Outcome::timed_out(make_error("", why_not_active(ctx, a, last, read_error, port_dir)));
  o.detail = "waited " + seconds_text(Clock::now() - start);
  if (last) {
    if (auto phys = ctx.files.read(port_dir + "/phys_state")) o.detail += "; phys_state " + *phys;
  }
  return o;
}

}  // namespace rp
