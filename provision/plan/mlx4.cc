// mlx4 port types and IB port MTUs, through mlx4_core's mlx4_portN and mlx4_portN_mtu
// files (drivers/net/ethernet/mellanox/mlx4/main.c: set_port_type_store,
// set_port_ib_mtu). They come before mlx4_en and mlx4_ib load: a type change unregisters
// and re-registers the whole card.
#include <algorithm>

#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

const PciFunction* function_at(const Inventory& inv, const PciAddress& pci) {
  for (const auto& f : inv.pci)
    if (f.address == pci) return &f;
  return nullptr;
}

const Mlx4PortFile* port_file(const PciFunction& fn, unsigned port) {
  for (const auto& m : fn.mlx4_ports)
    if (m.port == port) return &m;
  return nullptr;
}

std::string sources_of(const Mlx4Setting& s) {
  std::string reason;
  for (const auto& t : s.type) {
    if (t && reason.find(t->source) == std::string::npos) {
      reason += (reason.empty() ? "" : ", ") + t->source;
    }
  }
  return reason;
}

bool present(const Inventory& inv, const PciAddress& pci) {
  return std::find(inv.pci_present.begin(), inv.pci_present.end(), pci) != inv.pci_present.end();
}

}  // namespace

void plan_mlx4_core(PlanBuilder& b) {
  // Port types are set through mlx4_core's sysfs files, before mlx4_en and mlx4_ib. Only
  // for a configured card that is there: a cluster-wide config must not load mlx4 on the
  // nodes without the card.
  for (const auto& n : b.module_needs().needs) {
    if (n.kind == ModuleNeed::Kind::kMlx4Core) {
      b.load_module(n.module, n.why);
      return;
    }
  }
}

void plan_port_types(PlanBuilder& b) {
  for (const auto& entry : b.cfg.mlx4) {
    // Named, not structured bindings: the lambdas below capture them (C++17).
    const PciAddress& pci = entry.first;
    const Mlx4Setting& s = entry.second;
    const PciFunction* fn = function_at(b.inv, pci);
    const std::string reason = sources_of(s);
    PciFunction undriven;  // present, no driver bound yet: mlx4_core will create the files
    if (!fn && present(b.inv, pci)) {
      undriven.address = pci;
      fn = &undriven;
    }
    if (!fn) {
      // rdma-core's mlx4.conf is shared by a cluster and its mlx4-setup.sh skips a card
      // that is not there (redhat/rdma.mlx4-setup.sh: the device's directory is tested
      // first): a note. Our own inputs name this node's cards: a warning with the mlx4
      // functions there are, for a mistyped address.
      const Source first = s.type[0]   ? s.type[0]->source
                           : s.type[1] ? s.type[1]->source
                           : s.mtu[0]  ? s.mtu[0]->source
                           : s.mtu[1]  ? s.mtu[1]->source
                                       : Source();
      if (first.origin == Source::Origin::kMlx4Conf) {
        b.note("mlx4 " + pci.str() + " (" + reason + "): not present");
      } else {
        std::vector<PlanBuilder::Candidate> cards;
        for (const auto& f : b.inv.pci)
          if (f.driver == "mlx4_core") cards.push_back({f.address.str(), f.address.str()});
        b.absent(first, "mlx4 port types", "mlx4 PCI function", pci.str(), cards);
      }
      continue;
    }
    // rdma-core's mlx4-setup.sh reads mlx4.conf against the card: a dual-port card (it has
    // mlx4_port2) with one type on the line is skipped, a single-port card gets port 1
    // only. The same for that file here; our own inputs say which port they mean.
    const bool from_mlx4_conf = s.type[0] && s.type[0]->source.origin == Source::Origin::kMlx4Conf;
    const bool known = !fn->mlx4_ports.empty();
    const bool dual = port_file(*fn, 2) != nullptr;
    if (from_mlx4_conf && known && dual && !s.type[1]) {
      b.diag().warn(s.type[0]->source,
                    "mlx4 " + pci.str() +
                        " has two ports and the line gives one type: rdma-core's "
                        "mlx4-setup.sh skips it, and so does rdma-provision (give both)");
      continue;
    }
    const bool single = known && !dual;
    const std::optional<size_t> loader = b.module_action("mlx4_core");
    if (fn->mlx4_ports.empty() && !loader) {
      b.note("mlx4 " + pci.str() + " (" + reason + "): no mlx4_port files (driver " +
             (fn->driver.empty() ? "none" : fn->driver) + ")");
      continue;
    }
    // What the port is configured as ("auto (eth)" is auto); nullopt when unknown.
    auto current = [&](unsigned port) -> std::optional<Mlx4PortType> {
      const Mlx4PortFile* m = port_file(*fn, port);
      return m ? m->type : std::nullopt;
    };
    auto wanted = [&](unsigned port) -> std::optional<PortType> {
      const auto& t = s.type[port - 1];
      if (t) return t->value;
      if (auto c = current(port)) return c->configured;
      return std::nullopt;
    };
    // eth,eth: the kernel validates a port against the other port's staged type
    // (mlx4_check_port_params), so port 2 goes first; otherwise port 1 first (the executor
    // retries the other order).
    std::vector<unsigned> order = {1, 2};
    if (wanted(1) == PortType::kEth && wanted(2) == PortType::kEth) order = {2, 1};
    auto changes = [&](unsigned port) {
      const auto& t = s.type[port - 1];
      const auto cur = current(port);
      return t && (!cur || cur->configured != t->value);
    };
    const bool both = changes(1) && changes(2) && !single;
    std::optional<size_t> last;
    for (unsigned port : order) {
      if (port == 2 && single && s.type[1]) {
        b.note("mlx4 " + pci.str() + " port 2 (" + s.type[1]->source +
               "): the card has one port; port 2 is left out");
        continue;
      }
      if (!changes(port)) continue;
      const auto& t = s.type[port - 1];
      const auto cur = current(port);
      SetPortType params{pci, port, t->value, std::nullopt, false};
      if (both) {
        params.other = s.type[2 - port]->value;
        params.other_first = port == order[1];
      }
      Action a{params, cur ? cur->str() : "absent", t->source};
      if (fn->mlx4_ports.empty()) a.waiting_for = "mlx4_core to create mlx4_port files";
      PlanBuilder::need(a, loader);
      // The two ports of a card do not depend on each other: a refused port 1 (staged
      // until the other port agrees) must not skip the port 2 write that lets the kernel
      // apply both.
      last = b.add(std::move(a));
      b.add_port_action(*last);
    }
    for (unsigned port = 1; port <= 2; ++port) {
      const auto& mtu = s.mtu[port - 1];
      if (!mtu) continue;
      // mlx4/main.c mlx4_init_port_info creates mlx4_port<N> and mlx4_port<N>_mtu for each
      // of the card's ports only (1..caps.num_ports).
      if (port == 2 && single) {
        b.note("mlx4 " + pci.str() + " port 2 MTU (" + mtu->source +
               "): the card has one port; port 2 is left out");
        continue;
      }
      const Mlx4PortFile* m = port_file(*fn, port);
      const std::optional<unsigned> cur = m ? m->mtu : std::nullopt;
      if (cur == mtu->value) continue;
      Action a{SetPortMtu{pci, port, mtu->value}, cur ? std::to_string(*cur) : "unknown",
               mtu->source};
      PlanBuilder::need(a, last);
      last = b.add(std::move(a));
      b.add_port_action(*last);
    }
    if (!last) continue;
    // A port-type change unregisters and re-registers the whole card: its RDMA devices
    // and netdevs vanish and come back.
    for (const auto& d : b.inv.rdma)
      if (d.pci && *d.pci == pci) b.set_device_producer(d.name, *last);
    for (const auto& n : b.inv.netdevs)
      if (n.pci && *n.pci == pci) b.set_producer(n.name, *last);
  }
}

}  // namespace rp
