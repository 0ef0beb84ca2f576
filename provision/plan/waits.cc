// rd.rdma.wait: waiting for RDMA ports to become ACTIVE (sysfs ports/N/state, ib_core's
// port attributes) and for interfaces to get carrier (rtnetlink link events).
#include <set>

#include "provision/base/strings.h"
#include "provision/plan/builder.h"
#include "provision/plan/rdma_select.h"
#include "provision/resolve/name_key.h"

namespace rp {
namespace {

// The interface under a RoCE port (present, or the netdev of a soft device this plan
// creates), by the name it will have when the wait runs; "" for an InfiniBand port.
std::string roce_netdev(const PlanBuilder& b, const std::string& dev, const RdmaPort* p) {
  if (p) return p->link_layer == LinkLayer::kEthernet ? b.final_name(p->netdev) : "";
  if (auto soft = b.planned_soft().find(dev); soft != b.planned_soft().end()) {
    return b.final_name(b.action(soft->second.action).get<CreateSoftLink>().netdev);
  }
  return "";
}

void wait_port(PlanBuilder& b, std::set<std::string>& waited, const std::string& dev, unsigned port,
               const std::string& reason) {
  if (!waited.insert(dev + "/" + std::to_string(port)).second) return;
  plan_port_wait(b, dev, port, reason);
}

void wait_link(PlanBuilder& b, const std::string& ifname, const std::string& reason) {
  const Iface* f = b.iface(ifname);
  if (!f) {
    b.absent_iface_wait(Action{WaitLink{ifname}, "absent", reason}, ifname);
    return;
  }
  if (f->netdev && f->netdev->carrier && !f->producer) return;
  // Carrier now, but an earlier action recreates or renames the interface: said so, not
  // "carrier -> carrier".
  std::string now = f->netdev && f->netdev->carrier ? "carrier" : "no carrier";
  if (f->producer) now += " before action " + std::to_string(*f->producer + 1);
  Action a{WaitLink{ifname}, now, reason};
  if (!f->netdev) a.waiting_for = ifname;
  PlanBuilder::need(a, f->producer);
  PlanBuilder::need(a, b.up_action(ifname));
  b.add(std::move(a));
}

}  // namespace

using PortKey = std::pair<std::string, unsigned>;

namespace {

// The RDMA port under an interface the configuration names, present or awaited.
void add_port_of(const PlanBuilder& b, const std::string& ifname, std::set<PortKey>& out) {
  const Iface* f = b.iface(ifname);
  if (f && f->netdev && !f->netdev->rdma_device.empty()) {
    out.insert({f->netdev->rdma_device, f->netdev->rdma_port});
  }
}

}  // namespace

std::set<PortKey> boot_ports(const PlanBuilder& b) {
  std::set<PortKey> out;
  std::set<std::string> names;
  for (const auto& [ifname, src] : b.cfg.boot.ifaces) {
    add_port_of(b, ifname, out);
    names.insert(ifname);
  }
  // A soft device this plan makes on such an interface (it has no RDMA device yet).
  for (const auto& [name, sl] : b.planned_soft()) {
    if (names.count(b.final_name(b.action(sl.action).get<CreateSoftLink>().netdev)))
      out.insert({name, 1});
  }
  return out;
}

// What rd.rdma.wait=all waits for: every port the configuration involves (the interfaces
// it names or configures, those of the boot's network, the devices it gives RoCE defaults
// or soft links, the mlx4 cards it sets), never a port nobody asked about (an unplugged second port
// would run into the deadline) and never a port whose physical state is Disabled.
std::set<PortKey> involved_ports(const PlanBuilder& b) {
  const Config& cfg = b.cfg;
  std::set<PortKey> out;
  for (const auto& [name, key] : cfg.names) {
    add_port_of(b, name, out);
    if (key.value.is_guid()) {  // an IPoIB interface that appears during apply
      for (const auto& d : b.inv.rdma)
        for (const auto& p : d.ports)
          if (p.guid && p.guid->value == key.value.value) out.insert({d.name, p.num});
    } else if (const KeyPort kp = rdma_port_for_key(b.inv, key.value); kp.port) {
      out.insert({kp.device->name, kp.port->num});  // the port a pci- or ibdev/port name means
    }
  }
  for (const auto& [ifname, s] : cfg.ipoib) add_port_of(b, ifname, out);
  for (const auto& [k, c] : cfg.pkeys) add_port_of(b, c.parent, out);
  for (const auto& [ifname, a] : cfg.addresses) add_port_of(b, ifname, out);
  // The boot's network (ip=, bootdev=): DHCP over IPoIB before a subnet manager has made
  // the port ACTIVE races it, and an NFS root over a port still in INIT is not mounted.
  for (const auto& k : boot_ports(b)) out.insert(k);
  for (const auto& [netdev, l] : cfg.soft_links) add_port_of(b, b.final_name(netdev), out);
  for (const auto& [name, sl] : b.planned_soft()) out.insert({name, 1});
  for (const auto& d : b.inv.rdma) {
    if (!d.pci || !cfg.mlx4.count(*d.pci)) continue;
    for (const auto& p : d.ports) out.insert({d.name, p.num});
  }
  // The ports and interfaces rd.rdma.wait names (a check of them is what was asked for).
  for (const auto& [w, source] : cfg.effective_waits()) {
    if (w.kind == WaitItem::Kind::kLink) add_port_of(b, w.ifname, out);
    if (w.kind != WaitItem::Kind::kPort) continue;
    for (const auto& [d, only] : select_rdma(b, w.device, nullptr)) {
      const unsigned port = w.port ? w.port : only;
      for (const auto& p : d->ports)
        if (!port || p.num == port) out.insert({d->name, p.num});
    }
  }
  for (const auto& [k, s] : cfg.roce) {
    for (const auto& [d, only] : select_rdma(b, k.first, nullptr)) {
      for (const auto& p : d->ports) {
        if (p.link_layer != LinkLayer::kEthernet) continue;
        if ((k.second && p.num != k.second) || (only && p.num != only)) continue;
        out.insert({d->name, p.num});
      }
    }
  }
  return out;
}

namespace {

// An InfiniBand port an administrator disabled (ibportstate, the SM). A RoCE port's
// physical state says nothing of the kind: the drivers derive it from the interface
// under it (mlx5_query_port_roce and mlx4's state_to_phys_state report Disabled while the
// netdev is down or has no carrier, rxe_query_port likewise), so a cabled port whose
// interface nobody has set up yet reads Disabled: it is waited for once it is brought up.
bool disabled(const PlanBuilder& b, const PortKey& k) {
  const RdmaDevice* d = b.inv.find_rdma(k.first);
  const RdmaPort* p = d ? d->port(k.second) : nullptr;
  if (!p || p->link_layer == LinkLayer::kEthernet) return false;
  return p->phys_state.find("Disabled") != std::string::npos;
}

}  // namespace

void plan_port_wait(PlanBuilder& b, const std::string& dev, unsigned port,
                    const std::string& reason, bool carrier_grace) {
  if (wait_port_action(b, dev, port)) return;
  const std::string obj = dev + "/" + std::to_string(port);
  const RdmaDevice* d = b.inv.find_rdma(dev);
  const RdmaPort* p = d ? d->port(port) : nullptr;
  std::optional<size_t> producer = b.device_producer(dev);
  // A device an RDMA driver load of this run registers: waited for after it.
  if (!d && !producer) producer = b.driver_load();
  if (!p && !producer) {
    b.absent_wait(Action{WaitPort{dev, port}, "absent", reason}, "RDMA port", obj,
                  b.present_ports(false));
    return;
  }
  // A RoCE port is ACTIVE only while the interface under it is up with carrier: mlx5
  // (hw/mlx5/main.c mlx5_query_port_roce: DOWN / Disabled unless netif_running and
  // netif_carrier_ok), mlx4 (hw/mlx4/main.c eth_link_query_port, state_to_phys_state),
  // and Soft-RoCE (sw/rxe/rxe_net.c rxe_notify: ACTIVE on NETDEV_UP). In an initramfs
  // nothing has set the NIC up yet, so a healthy cabled port reads DOWN until this plan
  // brings its interface up: the wait comes after that.
  const std::string netdev = roce_netdev(b, dev, p);
  const NetDev* n = netdev.empty() ? nullptr : b.inv.find_netdev(netdev);
  const bool ready = p && p->state == PortState::kActive && (!n || n->carrier || !n->admin_up);
  if (ready && !producer) return;
  std::string current = p ? std::string(to_string(p->state)) : "absent";
  if (p && n && !n->admin_up) current += " (" + netdev + " down)";
  // ACTIVE now, but an earlier action re-registers the device: said so, not
  // "ACTIVE -> ACTIVE".
  if (p && producer) current += " before action " + std::to_string(*producer + 1);
  Action a{WaitPort{dev, port, carrier_grace}, current, reason};
  if (!p) a.waiting_for = dev;
  PlanBuilder::need(a, producer);
  if (!netdev.empty()) PlanBuilder::need(a, plan_link_up(b, netdev, reason));
  b.add(std::move(a));
}

void plan_waits(PlanBuilder& b) {
  std::set<std::string> waited;
  // "none" cancels every wait given before it (files first, then the command line).
  for (const auto& [w, source] : b.cfg.effective_waits()) {
    switch (w.kind) {
      case WaitItem::Kind::kNone:
        break;
      case WaitItem::Kind::kAll:
        for (const auto& k : involved_ports(b)) {
          if (disabled(b, k)) {
            b.note("wait for " + k.first + "/" + std::to_string(k.second) + " (" + source +
                   "): the port is Disabled; name it to wait for it anyway");
            continue;
          }
          wait_port(b, waited, k.first, k.second, source);
        }
        break;
      case WaitItem::Kind::kLink:
        wait_link(b, w.ifname, source);
        break;
      case WaitItem::Kind::kPort: {
        std::string how;
        auto devices = select_rdma(b, w.device, &how);
        if (!how.empty()) b.note("wait for " + w.str() + " (" + source + "): " + how);
        for (const auto& [d, only] : devices) {
          wait_port(b, waited, d->name, w.port ? w.port : only, source);
        }
        if (!devices.empty()) break;
        if (const std::string on = b.deferred_iface(w.device); !on.empty()) {
          b.note(cat({"wait for ", w.str(), " (", source.str(), "): at ", on,
                      "'s online point, with its soft link"}));
          break;
        }
        if (w.device.by == RdmaSelector::By::kNetdev) {
          if (auto soft = planned_soft_on(b, w.device.name)) {  // made by this plan
            wait_port(b, waited, *soft, 1, source);
            break;
          }
        }
        if (w.device.by == RdmaSelector::By::kName) {
          const std::string warning = absent_name_warning(b.inv, "wait for " + w.str());
          if (!warning.empty() && !b.device_producer(w.device.name) && !b.driver_load()) {
            b.diag().warn(source, warning);
            break;
          }
          wait_port(b, waited, w.device.name, w.port, source);  // planned, or fails
          break;
        }
        b.absent_wait(Action{WaitPort{w.device.str(), w.port}, "absent", source}, "RDMA device",
                      w.device.str(), b.present_ports(false));
        break;
      }
    }
  }
  // The boot's network over IPoIB (ip=, bootdev= naming an IPoIB interface): its port
  // waited for ACTIVE before dracut's ifup starts, unless rd.rdma.wait=none says
  // otherwise. Until a subnet manager has made the port ACTIVE, IPoIB has not joined its
  // broadcast group (ulp/ipoib/ipoib_multicast.c ipoib_mcast_join_task runs on the port's
  // ACTIVE event), so DHCP's broadcasts go nowhere and dracut's dhclient gives up after
  // its own timeout with no reason; the wait says "no subnet manager has configured it".
  for (const auto& w : b.cfg.wait)
    if (w.value.kind == WaitItem::Kind::kNone) return;
  std::vector<std::pair<std::string, Source>> boot;
  for (const auto& [ifname, src] : b.cfg.boot.ifaces) {
    boot.push_back({ifname, src});
    // A bond (dracut's bond=): its IPoIB slaves carry the boot's network.
    for (const auto& s : ipoib_bond_slaves(b, ifname)) boot.push_back({s, src});
  }
  for (const auto& [ifname, src] : boot) {
    std::set<PortKey> ports;
    add_port_of(b, ifname, ports);
    // Named by its GUID and not made yet (ib_ipoib loads during apply).
    if (auto n = b.cfg.names.find(ifname); ports.empty() && n != b.cfg.names.end()) {
      for (const auto& d : b.inv.rdma)
        for (const auto& p : d.ports)
          if (n->second.value.is_guid() && p.guid && p.guid->value == n->second.value.value)
            ports.insert({d.name, p.num});
    }
    for (const auto& [dev, port] : ports) {
      const RdmaDevice* d = b.inv.find_rdma(dev);
      const RdmaPort* p = d ? d->port(port) : nullptr;
      if (!p || p->link_layer != LinkLayer::kInfiniBand) continue;
      wait_port(b, waited, dev, port, src.str() + " (the boot's network over IPoIB)");
    }
  }
}

}  // namespace rp
