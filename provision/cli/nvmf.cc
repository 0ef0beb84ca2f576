// nvmf: the NVMe over Fabrics targets over RDMA the boot asks for (dracut's
// rd.nvmf.discover=rdma,...) connected at the network-online point, by the binary itself
// (kernel/nvme_fabrics.h); dracut's 95nvmf keeps tcp and fc. --boot writes the result to
// /run beside verify's.
#include <cstdio>

#include "provision/apply/apply.h"
#include "provision/base/root.h"
#include "provision/base/strings.h"
#include "provision/cli/commands.h"
#include "provision/kernel/files.h"
#include "provision/kernel/rtnl.h"
#include "provision/plan/plan.h"
#include "provision/report/handoff.h"

namespace rp {
namespace {

// The host's NQN and ID (rd.nvmf.hostnqn/hostid, else /etc/nvme/hostnqn and hostid as
// nvme-cli reads them: inputs/load.cc), both or neither: the kernel pairs them (6.12
// nvmf_host_add refuses an NQN with another ID); an NQN of the
// "nqn.2014-08.org.nvmexpress:uuid:<uuid>" form gives its ID when none is given.
void host_identity(const Config& cfg, NvmfRequest& r, Log& log) {
  std::string nqn_from, id_from;
  if (cfg.boot.nvmf_hostnqn) {
    r.hostnqn = cfg.boot.nvmf_hostnqn->value;
    nqn_from = cfg.boot.nvmf_hostnqn->source.str();
  }
  if (cfg.boot.nvmf_hostid) {
    r.hostid = cfg.boot.nvmf_hostid->value;
    id_from = cfg.boot.nvmf_hostid->source.str();
  }
  const std::string uuid_form = "nqn.2014-08.org.nvmexpress:uuid:";
  if (!r.hostnqn.empty() && r.hostid.empty() && r.hostnqn.rfind(uuid_form, 0) == 0) {
    r.hostid = r.hostnqn.substr(uuid_form.size());
    id_from = "its NQN";
  }
  if (r.hostnqn.empty() != r.hostid.empty()) {
    log.warn("nvmf: the host's " + std::string(r.hostnqn.empty() ? "ID" : "NQN") + " (" +
             (r.hostnqn.empty() ? id_from : nqn_from) + ") without its " +
             (r.hostnqn.empty() ? "NQN" : "ID") +
             ": the kernel pairs them, so neither is sent and the kernel's default host "
             "connects (a target that allows only this host refuses it); give both "
             "(rd.nvmf.hostnqn= and rd.nvmf.hostid=)");
    r.hostnqn.clear();
    r.hostid.clear();
    return;
  }
  if (!r.hostnqn.empty())
    r.identity_source = r.hostnqn + " (" + nqn_from + ", ID from " + id_from + ")";
}

}  // namespace

int cmd_nvmf(const Options& o) {
  if (!o.online.empty() && !o.boot) {
    std::fprintf(stderr, "rdma-provision: nvmf: --online goes with --boot\n");
    return kExitUsage;
  }
  // The inputs only: the targets come from the command line, the path is the route's, and
  // the connect reads sysfs as it goes (no inventory walk, no libibverbs at the online point).
  auto p = prepare(o, "nvmf", false);
  if (!p) return kExitUsage;
  const Root& root = p->root;
  Inputs& in = p->in;
  Log log(make_sink(root, o.log));
  if (!o.boot)
    for (const auto& w : in.diag.warnings) log.warn(w.str());
  if (!in.diag.ok()) {
    for (const auto& e : in.diag.errors) log.error(e.str());
    log.error("invalid input: nothing connected");
    return kExitInvalid;
  }
  const Config& cfg = in.config;
  if (!cfg.enabled.value) return kExitOk;
  NvmfRequest r;
  bool later = false;
  for (const auto* t : cfg.boot.nvmf_rdma()) {
    // dracut sources the online hook once per interface as each comes up: a target is
    // connected at the interface its route goes through, the others later.
    if (!o.online.empty() && root.is_live()) {
      const auto addr = IpAddress::parse(t->traddr);
      const std::string via = addr ? rtnl_route_via(*addr) : "";
      if (via != o.online) {
        log.notice("nvmf: " + o.online + " is online, but the route to " + t->traddr + " " +
                   (via.empty() ? std::string("does not exist yet") : "goes through " + via) +
                   ": connected when that interface is online");
        later = true;
        continue;
      }
    }
    r.targets.push_back(t);
  }
  // Quiet when nothing is asked: the hook runs on every boot.
  if (r.targets.empty()) return later ? kExitLater : kExitOk;
  host_identity(cfg, r, log);
  Plan plan = make_nvmf_plan(cfg, r);
  RealFileOps files(root);
  ApplyContext ctx{files, root.is_live(), Deadline(std::chrono::seconds(plan.timeout_s)), log};
  ApplyReport report = apply_plan(plan, ctx);
  const int rc = report.exit_code();
  if (o.boot) {
    std::string err;
    if (!write_run_file(root, kNvmfPath, state_json(cfg, plan, &report), err)) log.error(err);
    if (!write_run_file(root, kNvmfEnvPath, state_env(cfg, plan, &report), err)) log.error(err);
  }
  return rc == kExitOk && later ? kExitLater : rc;
}

}  // namespace rp
