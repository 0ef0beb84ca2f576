// rd.rdma.expect, [expect <device>[/<port>]]: the link the fabric expects of a port (rate,
// width, link layer, physical state, a subnet manager) or of an HCA (firmware, PCIe
// link), checked by apply/check_link.cc once the ports are up: a port that trained at the
// wrong speed, or an HCA whose slot trained narrow, is named at boot instead of slowing
// the job it joins. A "*" device or port 0 applies to every device or port; a more
// specific setting refines it, key by key.
#include "provision/plan/builder.h"
#include "provision/plan/rdma_select.h"

namespace rp {
namespace {

using Key = std::pair<std::string, unsigned>;  // (device, port; 0: the device)

struct Wanted {
  ExpectedLink want;
  std::string reason;
};

template <typename T, typename U>
void over(std::optional<U>& to, const std::optional<Sourced<T>>& from, std::string& reason) {
  if (!from) return;
  to = from->value;
  reason = from->source.str();
}

void merge(Wanted& w, const ExpectSetting& s, bool port) {
  if (port) {
    over(w.want.rate, s.rate, w.reason);
    over(w.want.width, s.width, w.reason);
    over(w.want.link_layer, s.link_layer, w.reason);
    over(w.want.phys_state, s.phys_state, w.reason);
    over(w.want.sm, s.sm, w.reason);
  } else {
    over(w.want.fw, s.fw, w.reason);
    over(w.want.pcie_speed, s.pcie_speed, w.reason);
    over(w.want.pcie_width, s.pcie_width, w.reason);
  }
}

}  // namespace

void plan_expect(PlanBuilder& b) {
  // "*" first, then a device, then one port of it (as RoCE defaults).
  std::map<Key, Wanted> wanted;
  for (const auto* e : by_specificity(b.cfg.expect)) {
    const auto& k = e->first;
    const ExpectSetting* s = &e->second;
    std::string how;
    const auto devices = select_rdma(b, k.first, &how);
    if (!how.empty()) b.note("expected link (" + s->source().str() + "): " + how);
    // A soft device this plan creates (one port; not on PCI, so no HCA keys): "*", by its
    // name, or by the interface it is made on.
    bool planned = false;
    const auto on_netdev =
        k.first.by == RdmaSelector::By::kNetdev ? planned_soft_on(b, k.first.name) : std::nullopt;
    for (const auto& [name, sl] : b.planned_soft()) {
      const bool meant = k.first.by == RdmaSelector::By::kAll ||
                         (k.first.by == RdmaSelector::By::kName && name == k.first.name) ||
                         on_netdev == name;
      if (!meant || k.second > 1 || !s->port_keys()) continue;
      Wanted& w = wanted[{name, 1}];
      const auto sm = w.want.sm;
      merge(w, *s, true);
      if (k.first.by == RdmaSelector::By::kAll) w.want.sm = sm;  // Ethernet: no subnet manager
      planned = true;
    }
    if (devices.empty() && !planned && k.first.by != RdmaSelector::By::kAll) {
      b.absent(s->source(), "expected link", "RDMA port",
               k.first.str() + (k.second ? "/" + std::to_string(k.second) : ""),
               b.present_ports(false));
      continue;
    }
    const bool every = k.first.by == RdmaSelector::By::kAll;
    for (const auto& [d, only] : devices) {
      // "*": the HCA's keys for the devices on a PCI function of their own (a Soft-RoCE or
      // Soft-iWARP device has no firmware or PCIe link to compare).
      const bool hca = d->pci && d->parent_netdev.empty() && !d->soft_iwarp;
      if (s->device_keys() && (hca || !every)) merge(wanted[{d->name, 0}], *s, false);
      if (!s->port_keys()) continue;
      bool any = false;
      for (const auto& p : d->ports) {
        if ((k.second && p.num != k.second) || (only && p.num != only)) continue;
        Wanted& w = wanted[{d->name, p.num}];
        const auto sm = w.want.sm;
        merge(w, *s, true);
        // "*": a subnet manager for the InfiniBand ports (an Ethernet port has none).
        if (every && p.link_layer == LinkLayer::kEthernet) w.want.sm = sm;
        any = true;
      }
      if (!any) {
        b.absent(s->source(), "expected link", "RDMA port",
                 d->name + "/" + std::to_string(k.second ? k.second : only),
                 b.present_ports(false));
      }
    }
  }
  for (auto& [k, w] : wanted) {
    if (w.want.empty()) continue;
    const auto& [dev, port] = k;
    // The rate, width and subnet manager are those of a port that is up: it is waited
    // for first (bounded, as every wait), brought up where it is a RoCE port.
    if (port && (w.want.rate || w.want.width || w.want.sm)) plan_port_wait(b, dev, port, w.reason);
    const RdmaDevice* present = b.inv.find_rdma(dev);
    Action a{CheckLink{dev, port, w.want}, present ? "not checked" : "absent", w.reason};
    if (!present) a.waiting_for = dev;
    if (port) {
      PlanBuilder::need(a, wait_port_action(b, dev, port));
    } else if (present) {
      for (const auto& p : present->ports) PlanBuilder::need(a, wait_port_action(b, dev, p.num));
    }
    PlanBuilder::need(a, b.device_producer(dev));
    b.add(std::move(a));
  }
}

}  // namespace rp
