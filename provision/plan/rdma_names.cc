#include "provision/plan/rdma_names.h"

#include <map>

#include "provision/plan/builder.h"
#include "provision/plan/rename_solver.h"
#include "provision/resolve/name_key.h"

namespace rp {
namespace {

// The present devices a selector means (config.h RdmaSelector), for a name given before
// anything else is planned: by name, PCI function (not a soft device on its netdev), node
// GUID, or the interface one of its ports sits on.
std::vector<const RdmaDevice*> selected(const Config& cfg, const Inventory& inv,
                                        const RdmaSelector& sel) {
  std::vector<const RdmaDevice*> out;
  // netdev-<name>: the interface by its name now, or the one this configuration names so.
  std::string netdev = sel.name;
  if (sel.by == RdmaSelector::By::kNetdev && !inv.find_netdev(netdev)) {
    if (auto it = cfg.names.find(netdev); it != cfg.names.end())
      if (const NetDev* n = netdev_for_key(inv, it->second.value)) netdev = n->name;
  }
  for (const auto& d : inv.rdma) {
    bool meant = false;
    switch (sel.by) {
      case RdmaSelector::By::kName:
        meant = d.name == sel.name;
        break;
      case RdmaSelector::By::kPci:
        meant = d.pci == sel.pci && d.parent_netdev.empty() && !d.soft_iwarp;
        break;
      case RdmaSelector::By::kNodeGuid:
        meant = d.node_guid == sel.guid;
        break;
      case RdmaSelector::By::kNetdev:
        for (const auto& p : d.ports) meant |= p.netdev == netdev;
        meant |= d.parent_netdev == netdev;
        break;
      case RdmaSelector::By::kAll:
        break;
    }
    if (meant) out.push_back(&d);
  }
  return out;
}

// The present devices, each by the form `by` names it ("pci-0000:af:00.0"), for the
// absent message and its did-you-mean.
std::vector<PlanBuilder::Candidate> present_devices(const Inventory& inv, RdmaSelector::By by) {
  std::vector<PlanBuilder::Candidate> out;
  for (const auto& d : inv.rdma) {
    std::string key = d.name;
    if (by == RdmaSelector::By::kPci && d.pci && d.parent_netdev.empty())
      key = "pci-" + d.pci->str();
    if (by == RdmaSelector::By::kNodeGuid && d.node_guid) key = "guid-" + d.node_guid->str();
    out.push_back({key, key == d.name ? key : key + " (" + d.name + ")"});
  }
  return out;
}

}  // namespace

RdmaNameMoves rdma_name_moves(const Config& cfg, const Inventory& inv, Diagnostics& diag) {
  RdmaNameMoves result;
  std::vector<RdmaNameMove> moves;
  std::map<std::string, std::string> given;  // device -> the name a setting gives it
  for (const auto& [name, sel] : cfg.rdma_names) {
    const auto devices = selected(cfg, inv, sel.value);
    const std::string what = "RDMA device name " + name + " for " + sel.value.str();
    if (devices.empty()) {
      // Named by the name it had: renamed already (the real root's run after the
      // initramfs's, a second apply), when a device holds the name and no setting means it.
      const RdmaDevice* holder = inv.find_rdma(name);
      bool held = sel.value.by == RdmaSelector::By::kName && holder;
      for (const auto& [other, other_sel] : cfg.rdma_names)
        if (held && other != name)
          for (const auto* d : selected(cfg, inv, other_sel.value)) held &= d != holder;
      if (!held) result.absent.emplace_back(name, sel);
      continue;
    }
    if (devices.size() > 1) {
      std::string list;
      for (const auto* d : devices) list += (list.empty() ? "" : ", ") + d->name;
      diag.error(sel.source, what + ": " + sel.value.str() + " means " +
                                 std::to_string(devices.size()) + " devices (" + list +
                                 "): one name names one device");
      continue;
    }
    const RdmaDevice& d = *devices.front();
    if (auto [it, fresh] = given.emplace(d.name, name); !fresh) {
      diag.error(sel.source, what + ": " + d.name + " is given the name " + it->second +
                                 " as well: one device has one name");
      continue;
    }
    if (d.name != name) moves.push_back({d.name, name, sel.source});
  }
  // A name held by a device no setting renames: moving that one out of the way would give
  // it a name nobody asked for (an interface is moved only with allow_rename_other).
  std::vector<RdmaNameMove>& out = result.moves;
  for (const auto& m : moves) {
    const RdmaDevice* holder = inv.find_rdma(m.to);
    const bool moved_away =
        holder && given.count(holder->name) && given.at(holder->name) != holder->name;
    if (holder && !moved_away) {
      diag.error(m.source, "RDMA device name " + m.to + " for " + m.from + ": " + m.to +
                               " is the name of another device here, which keeps it; give "
                               "that one a name too (rd.rdma.devname)");
      continue;
    }
    out.push_back(m);
  }
  return result;
}

Inventory renamed_view(const Inventory& inv, const std::vector<RdmaNameMove>& moves) {
  Inventory view = inv;
  for (auto& d : view.rdma) {
    for (const auto& m : moves)
      if (d.name == m.from) {
        d.name = m.to;
        break;
      }
  }
  for (auto& n : view.netdevs) {
    for (const auto& m : moves)
      if (n.rdma_device == m.from) {
        n.rdma_device = m.to;
        break;
      }
  }
  return view;
}

void plan_rdma_names(PlanBuilder& b, const RdmaNameMoves& planned, const Inventory& before) {
  for (const auto& [name, sel] : planned.absent)
    b.absent(sel.source, "RDMA device name " + name, "RDMA device", sel.value.str(),
             present_devices(before, sel.value.by));
  const auto& moves = planned.moves;
  if (moves.empty()) return;
  // Swaps and names held by devices that keep them: the order of interface renames
  // (plan/rename_solver.h), a device's place in the inventory its id.
  std::map<std::string, int> holders;
  for (size_t i = 0; i < before.rdma.size(); ++i)
    holders[before.rdma[i].name] = static_cast<int>(i);
  std::vector<RenameMove> solver;
  for (const auto& m : moves) solver.push_back({holders.at(m.from), m.from, m.to});
  std::optional<size_t> last;
  for (const auto& step : solve_renames(solver, holders)) {
    const RdmaNameMove& m = moves[step.move];
    Action a{RenameRdmaDevice{step.from, step.to}, step.from, m.source.str()};
    if (step.why == RenameStep::Why::kUnrelated)
      a.reason += " (" + step.from + " holds " + m.to + ": moved out of its way)";
    PlanBuilder::need(a, last);  // one after another: a swap's temporary name comes first
    last = b.add(std::move(a));
    if (step.why == RenameStep::Why::kWanted) b.set_device_producer(step.to, *last);
  }
}

}  // namespace rp
