// RoCE defaults of the RDMA connection manager: default_roce_mode and default_roce_tos
// per device and port in configfs (drivers/infiniband/core/cma_configfs.c). A "*" device
// or port 0 setting applies to every RoCE port; a specific one refines it.
#include <algorithm>

#include "provision/base/strings.h"
#include "provision/plan/builder.h"
#include "provision/plan/rdma_select.h"

namespace rp {
namespace {

using PortKey = std::pair<std::string, unsigned>;

struct PortRef {
  const RdmaPort* present;  // null for a planned soft device
  std::optional<size_t> producer;
  bool v2_only;  // Soft-RoCE, RoCE-v2-only HCAs
  bool v1_only;  // ConnectX-3 without RoCE v2 (MLX4_DEV_CAP_FLAG2_ROCE_V1_V2 unset)
};

// The RoCE ports a setting's device and port mean, present or planned (a planned rxe
// device has one port and RoCE v2 only: drivers/infiniband/sw/rxe).
std::vector<std::pair<PortKey, PortRef>> roce_ports(PlanBuilder& b, const RdmaSelector& sel,
                                                    unsigned port, const std::string& source) {
  std::vector<std::pair<PortKey, PortRef>> out;
  std::string how;
  for (const auto& [d, only] : select_rdma(b, sel, &how)) {
    for (const auto& p : d->ports) {
      if (p.link_layer != LinkLayer::kEthernet) continue;
      if ((port && p.num != port) || (only && p.num != only)) continue;
      // iWARP has no RoCE modes; nor has a port whose GID table shows no RoCE type (a
      // kernel before gid_attrs, 4.4, and before rdma_cm's RoCE mode in configfs).
      if (d->iwarp() || (!p.roce_v1 && !p.roce_v2)) continue;
      out.push_back(
          {{d->name, p.num},
           {&p, b.device_producer(d->name), p.roce_v2 && !p.roce_v1, p.roce_v1 && !p.roce_v2}});
    }
  }
  if (!how.empty()) b.note("RoCE defaults (" + source + "): " + how);
  // Planned devices: every one for "*", by name, or the one made on a netdev- interface.
  const auto on_netdev =
      sel.by == RdmaSelector::By::kNetdev ? planned_soft_on(b, sel.name) : std::nullopt;
  for (const auto& [name, sl] : b.planned_soft()) {
    const bool meant = sel.by == RdmaSelector::By::kAll ||
                       (sel.by == RdmaSelector::By::kName && name == sel.name) || on_netdev == name;
    if (!meant || sl.kind != SoftKind::kRxe || port > 1) continue;
    out.push_back({{name, 1}, {nullptr, sl.action, true, false}});
  }
  // A named device that an RDMA driver load of this run registers (mlx5_ib for an
  // mlx5_core function): planned against the device that will appear, its port as named
  // (port 1 when every port is meant: how many it has is known only then).
  // A device present now is what it is: a driver loading for other hardware does not make
  // it one that has yet to appear.
  if (out.empty() && sel.by == RdmaSelector::By::kName && b.driver_load() &&
      !b.inv.find_rdma(sel.name)) {
    out.push_back({{sel.name, port ? port : 1}, {nullptr, b.driver_load(), false, false}});
  }
  return out;
}

// A RoCE default of one port, after the device (when planned) and rdma_cm.
Action roce_action(ActionParams params, const PortKey& k, const PortRef& r, const std::string& cur,
                   const std::string& source, std::optional<size_t> cm) {
  Action a{std::move(params), cur.empty() ? "unknown" : cur, source};
  if (!r.present) a.waiting_for = k.first;
  PlanBuilder::need(a, r.producer);
  PlanBuilder::need(a, cm);
  return a;
}

// A setting that meets no RoCE port: a warning listing the RoCE ports there are; when the device is
// named by its name and rdma-core's persistent naming has renamed devices here (the name may be
// true only in the other root).
void no_such_port(PlanBuilder& b, const RdmaSelector& sel, unsigned port, const Source& source) {
  const std::string what =
      "RoCE defaults for " + sel.str() + (port ? "/" + std::to_string(port) : "");
  if (const std::string on = b.deferred_iface(sel); !on.empty()) {
    b.note(cat({what, " (", source.str(), "): at ", on, "'s online point, with its soft link"}));
    return;
  }
  const std::string warning =
      sel.by == RdmaSelector::By::kName ? absent_name_warning(b.inv, what) : std::string();
  if (!warning.empty()) {
    b.diag().warn(source, warning);
    return;
  }
  // The port exists but is no RoCE port: rdma_cm's configfs would refuse the write
  // (cma_configfs.c default_roce_mode_store: EINVAL for a GID type the port lacks; an
  // InfiniBand port has none of RoCE's).
  std::string what_it_is;
  for (const auto& [d, only] : select_rdma(b, sel, nullptr)) {
    for (const auto& p : d->ports) {
      if ((port && p.num != port) || (only && p.num != only)) continue;
      const std::string name = "port " + std::to_string(p.num) + " of " + d->name;
      if (p.link_layer == LinkLayer::kInfiniBand) {
        what_it_is = name + " is InfiniBand, not RoCE";
      } else if (d->iwarp()) {
        what_it_is = name + " is iWARP, which has no RoCE modes";
      }
    }
  }
  if (!what_it_is.empty()) {
    b.diag().warn(source, what + ": " + what_it_is + "; not applied");
    return;
  }
  b.absent(source, "RoCE defaults", "RoCE port",
           sel.str() + (port ? "/" + std::to_string(port) : ""), b.present_ports(true));
}

}  // namespace

void plan_roce(PlanBuilder& b) {
  const std::optional<size_t> cm = b.module_action("rdma_cm");
  std::map<PortKey, Sourced<RoceMode>> modes;
  std::map<PortKey, Sourced<unsigned>> toses;
  std::map<PortKey, PortRef> refs;
  // "*" first, then a device, then one port of it: the more specific setting wins.
  for (const auto* e : by_specificity(b.cfg.roce)) {
    const auto& k = e->first;
    const RoceSetting* s = &e->second;
    const std::string src = s->mode ? s->mode->source.str() : s->tos ? s->tos->source.str() : "";
    auto ports = roce_ports(b, k.first, k.second, src);
    if (ports.empty()) {
      if (k.first.by != RdmaSelector::By::kAll) {
        no_such_port(b, k.first, k.second, s->mode ? s->mode->source : s->tos->source);
      }
      continue;
    }
    for (const auto& [pk, r] : ports) {
      refs.insert({pk, r});
      if (s->mode) modes[pk] = *s->mode;
      if (s->tos) toses[pk] = *s->tos;
    }
  }
  std::map<PortKey, size_t> mode_action;
  for (const auto& [k, m] : modes) {
    const PortRef& r = refs.at(k);
    if (m.value == RoceMode::kV1 && r.v2_only && r.present) {
      b.diag().error(m.source, "RoCE v1 is not supported by port " + std::to_string(k.second) +
                                   " of " + k.first + " (its GID table has only RoCE v2)");
      continue;
    }
    if (m.value == RoceMode::kV2 && r.v1_only && r.present) {
      // cma_configfs.c refuses a GID type the port's cache does not support (EINVAL).
      b.diag().error(m.source, "RoCE v2 is not supported by port " + std::to_string(k.second) +
                                   " of " + k.first +
                                   " (its GID table has only IB/RoCE v1: a ConnectX-3 without "
                                   "the Pro's RoCE v2 support, or a kernel without it)");
      continue;
    }
    // A device this run creates starts with the kernel's default: RoCE v2 where the port
    // supports it (cma.c cma_add_one: CMA_PREFERRED_ROCE_GID_TYPE), which a new Soft-RoCE
    // port does.
    const std::string cur = r.present ? r.present->cm_roce_mode : r.v2_only ? "RoCE v2" : "";
    if (cur == configfs_value(m.value)) continue;
    mode_action[k] =
        b.add(roce_action(SetRoceMode{k.first, k.second, m.value}, k, r, cur, m.source, cm));
  }
  for (const auto& [k, t] : toses) {
    const PortRef& r = refs.at(k);
    const std::optional<uint8_t> cur = r.present ? r.present->cm_roce_tos : std::nullopt;
    if (cur == t.value) continue;
    Action a = roce_action(SetRoceTos{k.first, k.second, t.value}, k, r,
                           cur ? std::to_string(*cur) : "", t.source, cm);
    if (auto it = mode_action.find(k); it != mode_action.end()) PlanBuilder::need(a, it->second);
    b.add(std::move(a));
  }
}

}  // namespace rp
