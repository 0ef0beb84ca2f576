// rd.rdma.wait: waiting for RDMA ports to become ACTIVE (sysfs ports/N/state, ib_core's
// port attributes) and for interfaces to get carrier (rtnetlink link events).
#include <set>

#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

void wait_port(PlanBuilder& b, std::set<std::string>& waited, const std::string& dev, unsigned port,
               const std::string& reason) {
  const std::string obj = dev + "/" + std::to_string(port);
  if (!waited.insert(obj).second) return;
  const RdmaDevice* d = b.inv.find_rdma(dev);
  const RdmaPort* p = nullptr;
  if (d)
    for (const auto& x : d->ports)
      if (x.num == port) p = &x;
  const std::optional<size_t> producer = b.device_producer(dev);
  if (!p && !producer) {
    b.note("wait for " + obj + " (" + reason + "): no such port is present");
    return;
  }
  if (p && p->state == PortState::kActive && !producer) return;
  Action a{WaitPort{dev, port}, p ? std::string(to_string(p->state)) : "absent", reason};
  if (!p) a.waiting_for = dev;
  PlanBuilder::need(a, producer);
  // The port's link must be up for it to become ACTIVE (Soft-RoCE follows its netdev).
  // A planned soft device sits on the netdev its link action names (maybe by the name it
  // had before a rename).
  std::string netdev = p ? p->netdev : "";
  if (auto soft = b.planned_soft().find(dev); !p && soft != b.planned_soft().end()) {
    netdev = b.final_name(b.action(soft->second.action).get<CreateSoftLink>().netdev);
  }
  PlanBuilder::need(a, b.up_action(netdev));
  b.add(std::move(a));
}

void wait_link(PlanBuilder& b, const std::string& ifname, const std::string& reason) {
  const Iface* f = b.iface(ifname);
  if (!f) {
    b.note("wait for " + ifname + " (" + reason + "): not present");
    return;
  }
  if (f->netdev && f->netdev->carrier && !f->producer) return;
  Action a{WaitLink{ifname}, f->netdev && f->netdev->carrier ? "carrier" : "no carrier", reason};
  if (!f->netdev) a.waiting_for = ifname;
  PlanBuilder::need(a, f->producer);
  PlanBuilder::need(a, b.up_action(ifname));
  b.add(std::move(a));
}

}  // namespace

void plan_waits(PlanBuilder& b) {
  std::set<std::string> waited;
  // "none" cancels every wait given before it (files first, then the command line).
  for (const auto& w : b.cfg.effective_waits()) {
    if (w.value == "all") {
      for (const auto& d : b.inv.rdma)
        for (const auto& p : d.ports) wait_port(b, waited, d.name, p.num, w.source);
      for (const auto& [name, sl] : b.planned_soft()) wait_port(b, waited, name, 1, w.source);
      continue;
    }
    if (auto slash = w.value.find('/'); slash != std::string::npos) {
      const auto port = parse_uint(w.value.substr(slash + 1)).value_or(0);
      wait_port(b, waited, w.value.substr(0, slash), static_cast<unsigned>(port), w.source);
      continue;
    }
    wait_link(b, w.value, w.source);
  }
}

}  // namespace rp
