// make_plan(): Config + Inventory -> ordered actions. The order is the one the kernel
// implies (see DOMAIN.md), one capability planner per step: port types before mlx4_en
// and the RDMA drivers load, names before anything configures an interface, Soft-RoCE
// links and RoCE defaults after renames and re-registration, P_Key children before mode,
// mode before MTU, links up, addresses, then waiting for the ports.
#include "provision/plan/plan.h"

#include <map>
#include <set>

#include "provision/base/strings.h"
#include "provision/plan/builder.h"
#include "provision/plan/rdma_names.h"

namespace rp {
namespace {

void build(PlanBuilder& b) {
  plan_mlx4_core(b);
  plan_port_types(b);
  plan_modules(b);
  plan_renames(b);
  check_boot_ifaces(b);
  plan_bonds(b);
  plan_soft_links(b);
  plan_roce(b);
  plan_pkey_children(b);
  plan_ipoib(b);
  plan_dcb(b);
  plan_links_up(b);
  plan_addresses(b);
  plan_waits(b);
  plan_verify(b);
  plan_expect(b);
  plan_nvmf_path(b);
  plan_bootif(b);
}

}  // namespace

void validate(const Config& cfg, Diagnostics& diag) {
  for (const auto& [pci, s] : cfg.mlx4) {
    if (s.type[0] && s.type[1] && s.type[0]->value == PortType::kEth &&
        s.type[1]->value == PortType::kIb) {
      diag.warn(s.type[1]->source, "mlx4 " + pci.str() +
                                       ": port 1 eth with port 2 ib is refused by older HCAs and "
                                       "kernels (EOPNOTSUPP); only the hardware can tell");
    }
    for (int i = 0; i < 2; ++i) {
      if (s.type[i] && s.type[i]->value == PortType::kAuto) {
        diag.warn(s.type[i]->source, "mlx4 " + pci.str() + " port " + std::to_string(i + 1) +
                                         ": auto needs port sensing, which only some HCAs have "
                                         "(the kernel refuses it with EOPNOTSUPP otherwise)");
      }
    }
  }
  // A static address of ours and dracut's ip= on one interface: apply adds ours before
  // dracut's ifup runs, and ifup then adds its own (ifup.sh do_static `ip addr add`,
  // dhclient-script.sh setup_interface) and replaces the default route (`ip route
  // replace default`): the interface ends with both addresses.
  for (const auto& [name, src] : cfg.boot.ifaces) {
    auto it = cfg.addresses.find(name);
    if (it == cfg.addresses.end() || it->second.empty() || !starts_with(src.file, "ip=")) continue;
    const AddressSetting& ours = it->second.front();
    diag.warn(ours.source,
              name + " gets " + ours.prefix.str() + " here and is configured by dracut's " +
                  src.file + " too: the kernel ends with both addresses on " + name +
                  ", and a default route dracut sets replaces one given here; keep one of "
                  "them");
  }
  // Datagram IPoIB carries at most IPOIB_UD_MTU(4096) = 4092 bytes (ipoib.h: the largest IB
  // MTU minus the 4-byte IPoIB header), whatever the machine.
  for (const auto& [ifname, s] : cfg.ipoib) {
    if (s.mode && s.mode->value == IpoibMode::kDatagram && s.mtu && s.mtu->value > 4092) {
      diag.error(s.mtu->source, "MTU " + std::to_string(s.mtu->value) + " of " + ifname +
                                    " exceeds 4092, the largest in datagram mode (IB MTU 4096 "
                                    "- 4); connected mode allows up to 65520");
    }
  }
  // Names: one name per device, one device per name, never two identical names.
  std::map<HwKey, std::string> by_key;
  for (const auto& [name, key] : cfg.names) {
    auto [it, fresh] = by_key.emplace(key.value, name);
    if (!fresh) {
      diag.error(key.source, key.value.str() + " is given two names, " + quote(it->second) +
                                 " and " + quote(name));
    }
  }
  // dracut names interfaces too (ifname=): both naming one interface differently, or one
  // name for two interfaces, cannot both hold.
  for (const auto& [dname, dkey] : cfg.boot.dracut_ifnames) {
    for (const auto& [name, key] : cfg.names) {
      const bool same_key = key.value == dkey.value;
      if (same_key != (name == dname)) {
        diag.error(key.source, "clashes with dracut's " + dkey.source.file + ": " +
                                   (same_key ? dkey.value.str() + " is named " + quote(dname) +
                                                   " there and " + quote(name) + " here"
                                             : quote(name) + " names " + dkey.value.str() +
                                                   " there and " + key.value.str() + " here"));
      }
    }
  }
  std::set<std::string> children;
  std::map<std::pair<std::string, uint16_t>, std::string> full;
  for (const auto& [k, c] : cfg.pkeys) {
    auto [it, fresh] = full.emplace(std::pair(c.parent, c.full_pkey()), c.source);
    if (!fresh) {
      diag.error(c.source, "P_Key 0x" + hex(c.pkey, 4) + " on " + c.parent +
                               " is the same partition as the one at " + it->second +
                               " (children are full members: 0x8000 is ORed in)");
      continue;
    }
    const std::string name = c.child_name();
    if (c.name.empty() && name.size() > 15) {
      // IFNAMSIZ (16 with the NUL): the kernel refuses it (dev_valid_name).
      diag.error(c.source, "the default name of the P_Key child, " + quote(name) + ", is " +
                               std::to_string(name.size()) +
                               " bytes, longer than 15: give the child a name");
      continue;
    }
    if (!children.insert(name).second || cfg.names.count(name)) {
      diag.error(c.source, "interface name " + quote(name) + " is used twice");
    }
  }
}

Plan make_plan(const Config& cfg, const Inventory& inv) {
  Plan plan;
  plan.timeout_s = cfg.timeout_s.value;
  if (!cfg.enabled.value) {
    plan.enabled = false;
    plan.notes.push_back("disabled by " + cfg.enabled.source + ": nothing to do");
    return plan;
  }
  if (!cfg.node_table_unmatched.empty()) {
    // Said against the table's file: a mistyped MAC there leaves the node unnamed.
    const auto& rows = cfg.nodes_by_mac.empty() ? cfg.nodes_by_guid : cfg.nodes_by_mac;
    const Source& row = rows.begin()->second.source;
    plan.diag.warn(Source::at(row.origin, row.file), cfg.node_table_unmatched);
    plan.absent.push_back(cfg.node_table_unmatched);
  }
  validate(cfg, plan.diag);
  // Fixed RDMA device names first: everything else names the devices as they will be.
  const RdmaNameMoves names = rdma_name_moves(cfg, inv, plan.diag);
  const bool renamed = !names.moves.empty();
  const Inventory view = renamed ? renamed_view(inv, names.moves) : Inventory{};
  PlanBuilder b(cfg, renamed ? view : inv, plan);
  plan_rdma_names(b, names, inv);
  if (!cfg.node_table_unmatched.empty() && cfg.required.value) {
    // Under rd.rdma.required=1 a node the table does not know is a failed boot: its names,
    // soft devices and addresses are missing, and dracut would wait for them in vain.
    Action a{Require{"the node table's names and settings", "node-table row", "for this node"},
             "absent", cfg.required.source.str()};
    a.never = cfg.node_table_unmatched;
    b.add(std::move(a));
  }
  build(b);
  return plan;
}

}  // namespace rp
