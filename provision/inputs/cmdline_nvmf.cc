// dracut's NVMe over Fabrics parameters, read as its 95nvmf module reads them
// (parse-nvmf-boot-connections.sh, dracut 059 and dracut-ng 106: parse_nvmf_discover and
// the lines after it), for the targets reached over RDMA: what dracut skips is skipped
// here with its reason, never an error (the parameters are dracut's).
#include <optional>

#include "provision/base/strings.h"
#include "provision/inputs/cmdline_arg.h"

namespace rp::cmdline_internal {

// rd.nvmf.discover=<transport>,<traddr>[,<host_traddr>[,<trsvcid>]]: split on ',' only
// (IFS=,), 2 to 4 fields ("Invalid arguments" otherwise), an empty field keeps its
// default (host_traddr "none", trsvcid 4420), traddr is mandatory; "fc,auto" asks for FC
// autodiscovery; rdma, tcp and fc are the transports ("unsupported transport" otherwise).
void read_nvmf_discover(const Arg& a) {
  const auto fields = split(a.value(), ',');
  auto skip = [&](const std::string& why) {
    a.warn(why + ": dracut's 95nvmf skips it (parse_nvmf_discover), and so does rdma-provision");
  };
  if (fields.size() < 2 || fields.size() > 4)
    return skip("not <transport>,<traddr>[,<host_traddr>[,<trsvcid>]] (2 to 4 fields)");
  BootContext::NvmfTarget t;
  t.transport = std::string(fields[0]);
  t.traddr = fields[1].empty() ? "none" : std::string(fields[1]);
  t.host_traddr = fields.size() > 2 && !fields[2].empty() ? std::string(fields[2]) : "none";
  t.trsvcid = fields.size() > 3 && !fields[3].empty() ? std::string(fields[3]) : "4420";
  t.source = a.where;
  if (t.transport == "fc" && t.traddr == "auto") {
    t.trsvcid.clear();
    a.cfg.boot.nvmf.push_back(std::move(t));
    return;
  }
  if (t.traddr == "none") return skip("the target address (traddr) is mandatory");
  if (t.transport == "fc") {
    if (t.host_traddr == "none") return skip("an FC target without the host's address");
    t.trsvcid.clear();
  } else if (t.transport != "rdma" && t.transport != "tcp") {
    return skip("unsupported transport " + shown(t.transport) + " (rdma, tcp or fc)");
  }
  if (!t.trsvcid.empty()) {
    if (auto n = parse_uint(t.trsvcid); n && *n >= 1 && *n <= 65535) {
      t.port = static_cast<uint16_t>(*n);
    } else {
      // dracut passes it on to `nvme connect-all`, which refuses it there.
      a.warn("trsvcid " + shown(t.trsvcid) +
             " is not a port number (1-65535): nvme-cli's connect to this target fails");
    }
  }
  // dracut asks for the network for tcp only (rd.neednet=1 in nvmf-neednet.conf); a
  // target over RDMA needs it as much: its RDMA port is reached through an interface.
  if ((t.transport == "rdma" || t.transport == "tcp") && !a.cfg.boot.network)
    a.cfg.boot.network = a.where;
  a.cfg.boot.nvmf.push_back(std::move(t));
}

// Written as given to /etc/nvme/hostnqn and /etc/nvme/hostid, over the build host's.
void read_nvmf_hostnqn(const Arg& a) {
  if (!a.value().empty())
    a.cfg.boot.nvmf_hostnqn = Sourced<std::string>{std::string(a.value()), a.where};
}
void read_nvmf_hostid(const Arg& a) {
  if (!a.value().empty())
    a.cfg.boot.nvmf_hostid = Sourced<std::string>{std::string(a.value()), a.where};
}

// rd.nonvmf, as getargbool 0 reads it: the key alone is 1; then 95nvmf queues nothing.
void read_nonvmf(const Arg& a) {
  const auto v = a.value();
  if (v.empty() || (v != "0" && v != "no" && v != "off")) {
    a.cfg.boot.nonvmf = a.where;
  } else {
    a.cfg.boot.nonvmf.reset();
  }
}

}  // namespace rp::cmdline_internal
