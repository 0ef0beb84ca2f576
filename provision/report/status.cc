#include "provision/report/status.h"

#include <cerrno>

#include "provision/base/print.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

std::string opt_guid(const std::optional<PortGuid>& g) { return g ? g->str() : "-"; }

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

// What discovery found at `path` ("-" when empty), or, where reading the file failed,
// "unknown (<path>: <why>)": never a value it did not read (Inventory::unreadable).
std::string shown(const Inventory& inv, const std::string& path, const std::string& value) {
  if (auto it = inv.unreadable.find(path); it != inv.unreadable.end())
    return cat({"unknown (", path, ": ", it->second, ")"});
  return or_dash(value);
}

// A RoCE port's rdma_cm defaults (drivers/infiniband/core/cma_configfs.c): readable only
// where the device's configfs directory exists, which reading must not create.
std::string roce_line(const std::string& dev, const RdmaPort& p) {
  if (p.cm_roce_mode.empty() && !p.cm_roce_tos) {
    return cat({"      RoCE defaults: the kernel's (no /sys/kernel/config/rdma_cm/", dev, ")\n"});
  }
  return cat({"      RoCE defaults: mode ", or_dash(p.cm_roce_mode), ", ToS ",
              p.cm_roce_tos ? std::to_string(*p.cm_roce_tos) : "-", "\n"});
}

// A RoCE port's interface's DCB (read over DCB netlink on the running system): trust, the
// lossless priorities, and the priority the port's RoCE v2 traffic goes at
// (DcbState::roce_priority), which PFC should make lossless.
std::string dcb_line(const NetDev& n, const RdmaPort& p) {
  if (n.dcb_errno == EOPNOTSUPP)
    return cat({"      DCB: none (", n.name, "'s driver has no DCB)\n"});
  if (!n.dcb) return "";
  const DcbState& s = *n.dcb;
  const unsigned tos = p.cm_roce_tos.value_or(0);
  const auto prio = s.roce_priority(tos);
  std::string o = cat({"      DCB: trust ", to_string(s.effective_trust()), ", PFC on ",
                       s.pfc_text(), "; RoCE ToS ", std::to_string(tos), " -> priority ",
                       prio ? std::to_string(*prio) : "unknown (the device's DSCP table)"});
  if (prio && s.pfc_en) o += *s.pfc_en & (1u << *prio) ? " (lossless)" : " (not lossless)";
  return o + "\n";
}

// As mlx4_port<N> shows it ("auto (eth)"); "" when it was unreadable.
std::string type_shown(const Mlx4PortFile& m) { return m.type ? m.type->str() : ""; }

std::string port_state_word(const Inventory& inv, const std::string& dir, const RdmaPort& p) {
  if (inv.unreadable.count(dir + "/state")) return shown(inv, dir + "/state", "");
  // phys_state "5: LinkUp" -> "LinkUp"
  auto colon = p.phys_state.find(':');
  std::string phys =
      colon == std::string::npos ? p.phys_state : std::string(trim(p.phys_state.substr(colon + 1)));
  if (inv.unreadable.count(dir + "/phys_state")) phys = shown(inv, dir + "/phys_state", "");
  return cat({to_string(p.state), phys.empty() ? "" : "/", phys});
}

// A link's health under its device or port line: "degraded: <difference>; ..." or what
// was expected, as expected; in JSON, null where nothing is expected.
void print_health(Printer& o, const LinkHealthMap& health, const std::string& dev, unsigned port,
                  const char* indent) {
  auto it = health.find({dev, port});
  if (it == health.end()) {
    o.json("expected", std::optional<bool>());
    return;
  }
  const LinkHealth& h = it->second;
  o.open_object("expected").json("wanted", h.expected).json("as_expected", h.differences.empty());
  o.open_array("differences");
  for (const auto& d : h.differences) o.item(d);
  o.close_array().close_object();
  if (h.differences.empty()) {
    o.text(cat({indent, "as expected: ", h.expected, "\n"}));
  } else {
    o.text(cat({indent, "degraded: ", join(h.differences, "; "), "\n"}));
  }
}

// The device's fixed name under its line: "fixed name [source]" or "to be renamed X
// [source]"; in JSON, null where the configuration gives it none.
void print_fixed_name(Printer& o, const FixedNameMap& names, const std::string& dev) {
  auto it = names.find(dev);
  if (it == names.end()) {
    o.json("fixed_name", std::optional<bool>());
    return;
  }
  const FixedName& f = it->second;
  o.open_object("fixed_name").json("wanted", f.wanted).json("held", f.held);
  o.json("source", f.source).close_object();
  o.text(cat({"    ", f.held ? "fixed name" : "to be renamed ", f.held ? "" : f.wanted, "  [",
              f.source, "]\n"}));
}

// The walk both forms come from (base/print.h): text like ibstat + ibdev2netdev, JSON
// with every field the text shows and the raw values behind it.
void print_status(Printer& o, const Inventory& inv, const StatusNotes& notes) {
  const LinkHealthMap& health = notes.health;
  o.open_object();
  o.text(inv.rdma.empty() ? std::string("no RDMA devices\n")
                          : "RDMA devices (" + std::to_string(inv.rdma.size()) + "):\n");
  o.open_array("rdma_devices");
  for (const auto& d : inv.rdma) {
    const std::string dev = "/sys/class/infiniband/" + d.name;
    o.open_object().any("name", d.name, cat({"  ", d.name}));
    o.any("driver", d.driver, cat({"  driver ", or_dash(d.driver)}));
    o.json("pci", d.pci ? std::optional(d.pci->str()) : std::nullopt);
    if (d.pci) o.text(cat({"  pci ", d.pci->str()}));
    o.json("parent_netdev", d.parent_netdev).json("node_type", d.node_type);
    if (!d.parent_netdev.empty()) o.text(cat({"  on ", d.parent_netdev}));
    o.any("fw_ver", d.fw_ver, cat({"  fw ", shown(inv, cat({dev, "/fw_ver"}), d.fw_ver)}));
    o.any("board_id", d.board_id,
          cat({"  board ", shown(inv, cat({dev, "/board_id"}), d.board_id)}));
    o.any("node_guid", d.node_guid ? std::optional(d.node_guid->str()) : std::nullopt,
          cat({"  node_guid ", shown(inv, cat({dev, "/node_guid"}), opt_guid(d.node_guid)), "\n"}));
    o.json("hca_type", d.hca_type).json("seen_by_verbs", d.seen_by_verbs);
    // The PCI function's link (pci-sysfs.c), where it has one.
    o.json("pcie_speed", d.pcie_speed).json("pcie_width", d.pcie_width);
    o.json("pcie_max_speed", d.pcie_max_speed).json("pcie_max_width", d.pcie_max_width);
    if (!d.pcie_speed.empty() || !d.pcie_width.empty()) {
      o.text(cat({"    PCIe ", or_dash(d.pcie_speed), " x", or_dash(d.pcie_width), " (of ",
                  or_dash(d.pcie_max_speed), " x", or_dash(d.pcie_max_width), ")\n"}));
    }
    // A RoCE LAG (Inventory::roce_lag): the bond and the PFs it took over.
    if (const auto lag = inv.roce_lag(d)) {
      o.open_object("roce_lag").json("bond", lag->bond->name).json("mode", lag->bond->bond_mode);
      o.text(cat({"    RoCE LAG of ", lag->bond->name, " (", or_dash(lag->bond->bond_mode), "):"}));
      o.open_array("slaves");
      for (const NetDev* s : lag->slaves) {
        o.open_object().json("pci", s->pci->str()).json("netdev", s->name).close_object();
        o.text(std::string(s == lag->slaves.front() ? " " : ", ") + "PF " + s->pci->str() + " " +
               s->name + (s->name == lag->bond->bond_active_slave ? " (active)" : ""));
      }
      o.close_array().close_object().text("\n");
    }
    print_fixed_name(o, notes.names, d.name);
    print_health(o, health, d.name, 0, "    ");
    o.open_array("ports");
    for (const auto& p : d.ports) {
      const std::string num = std::to_string(p.num);
      const std::string dir = cat({dev, "/ports/", num});
      o.open_object().any("port", p.num, cat({"    port ", num}));
      o.any("state", to_string(p.state), cat({"  ", port_state_word(inv, dir, p)}));
      o.json("phys_state", p.phys_state);
      o.any("link_layer", to_string(p.link_layer), cat({"  ", to_string(p.link_layer)}));
      o.any("rate", p.rate, cat({"  ", shown(inv, cat({dir, "/rate"}), p.rate)}));
      o.any("guid", p.guid ? std::optional(p.guid->str()) : std::nullopt,
            cat({"  guid ", shown(inv, cat({dir, "/gids/0"}), opt_guid(p.guid))}));
      // Unreadable or absent is said so with its path, never shown as 0.
      auto lid = [&](const char* name, const std::optional<unsigned>& v) {
        const std::string path = dir + "/" + name;
        o.json(name, v);
        if (p.link_layer != LinkLayer::kInfiniBand) return;
        o.text(std::string("  ") + name + " " +
               (v                            ? "0x" + hex(*v, 0)
                : inv.unreadable.count(path) ? shown(inv, path, "")
                                             : "unknown (" + path + " absent)"));
      };
      lid("lid", p.lid);
      lid("sm_lid", p.sm_lid);
      o.json("active_mtu", p.active_mtu).json("max_mtu", p.max_mtu);
      if (p.active_mtu) {
        o.text(cat({"  mtu ", std::to_string(p.active_mtu), "/", std::to_string(p.max_mtu)}));
      }
      o.any("netdev", p.netdev, cat({"  ==> ", or_dash(p.netdev), "\n"}));
      const bool roce = p.link_layer == LinkLayer::kEthernet && !d.iwarp();
      o.json("roce_mode", p.cm_roce_mode.empty() ? std::nullopt : std::optional(p.cm_roce_mode));
      o.json("roce_tos", p.cm_roce_tos);
      if (roce) o.text(roce_line(d.name, p));
      // DCB of the port's interface: null where it was not read or the driver has none.
      const NetDev* n = inv.find_netdev(p.netdev);
      if (roce && n) o.text(dcb_line(*n, p));
      print_health(o, health, d.name, p.num, "      ");
      if (n && n->dcb && p.link_layer == LinkLayer::kEthernet) {
        const auto prio = n->dcb->roce_priority(p.cm_roce_tos.value_or(0));
        o.open_object("dcb").json("trust", to_string(n->dcb->effective_trust()));
        o.open_array("pfc");
        for (unsigned i = 0; i < 8; ++i)
          if (n->dcb->pfc_en && (*n->dcb->pfc_en & (1u << i))) o.item(i);
        o.close_array().json("roce_priority", prio).close_object();
      } else {
        o.json("dcb", std::optional<bool>());
      }
      o.close_object();
    }
    o.close_array().close_object();
  }
  o.close_array();
  bool any_mlx4 = false;
  for (const auto& f : inv.pci) any_mlx4 |= !f.mlx4_ports.empty();
  if (any_mlx4) o.text("mlx4 port types:\n");
  o.open_array("mlx4");
  for (const auto& f : inv.pci) {
    if (f.mlx4_ports.empty()) continue;
    o.open_object().any("pci", f.address.str(), "  " + f.address.str()).json("driver", f.driver);
    o.open_array("ports");
    for (const auto& m : f.mlx4_ports) {
      o.open_object().any("port", m.port, "  port " + std::to_string(m.port));
      o.any("type", type_shown(m), " " + type_shown(m));
      o.any("writable", m.writable, m.writable ? "" : " (read-only)");
      o.json("mtu", m.mtu ? std::to_string(*m.mtu) : "");
      if (m.mtu) o.text(" mtu " + std::to_string(*m.mtu));
      o.close_object();
    }
    o.close_array().close_object().text("\n");
  }
  o.close_array();
  o.any("netdev_source", inv.netdev_source,
        cat({"network links (", inv.netdev_source, ", ", std::to_string(inv.netdevs.size()),
             "):\n"}));
  o.open_array("netdevs");
  for (const auto& n : inv.netdevs) {
    const std::string dir = cat({"/sys/class/net/", n.name});
    o.open_object().any("name", n.name, cat({"  ", n.name})).json("ifindex", n.ifindex);
    o.any("type", n.type, cat({"  ", arphrd_name(n.type)})).json("type_name", arphrd_name(n.type));
    o.any("address", n.address.str(),
          cat({"  ", shown(inv, cat({dir, "/address"}), n.address.str())}));
    o.any("mtu", n.mtu,
          cat({"  mtu ", shown(inv, cat({dir, "/mtu"}), n.mtu ? std::to_string(*n.mtu) : "")}));
    o.any("admin_up", n.admin_up, n.admin_up ? "  up/" : "  down/");
    o.any("operstate", n.operstate, shown(inv, dir + "/operstate", n.operstate));
    o.any("carrier", n.carrier, n.carrier ? "  carrier" : "");
    o.any("driver", n.driver, cat({n.driver.empty() ? "" : "  driver ", n.driver}));
    o.any("master", n.master, cat({n.master.empty() ? "" : "  slave of ", n.master}));
    if (n.type == kArphrdInfiniband) {
      o.json("ipoib_mode", n.ipoib_mode ? to_string(*n.ipoib_mode) : "");
      o.json("pkey", n.pkey ? std::optional("0x" + hex(*n.pkey, 4)) : std::nullopt);
      o.json("parent", n.parent);
      auto g = n.address.ipoib_guid();
      o.json("port_guid", g ? std::optional(g->str()) : std::nullopt);
    }
    if (n.ipoib_mode) o.text("  mode " + std::string(to_string(*n.ipoib_mode)));
    if (n.pkey) o.text("  pkey 0x" + hex(*n.pkey, 4));
    if (!n.parent.empty()) o.text("  parent " + n.parent);
    o.json("rdma_device", n.rdma_device).json("rdma_port", n.rdma_port);
    if (!n.rdma_device.empty())
      o.text(cat({"  <== ", n.rdma_device, "/", std::to_string(n.rdma_port)}));
    o.close_object().text("\n");
  }
  o.close_array();
  // NVMe over Fabrics controllers (a root on NVMe/RDMA: rdma-provision nvmf), where any.
  if (!inv.nvme.empty()) o.text("NVMe controllers (" + std::to_string(inv.nvme.size()) + "):\n");
  o.open_array("nvme");
  for (const auto& c : inv.nvme) {
    o.open_object().any("name", "nvme" + std::to_string(c.instance),
                        "  nvme" + std::to_string(c.instance));
    o.any("transport", c.transport, "  " + or_dash(c.transport));
    o.any("address", c.address, c.address.empty() ? "" : "  " + c.address);
    o.any("state", c.state, "  " + or_dash(c.state));
    o.any("subsysnqn", c.subsysnqn, "  " + or_dash(c.subsysnqn));
    o.open_array("block_devices");
    for (const auto& b : c.block_devices) o.item(b).text("  " + b);
    o.close_array();
    auto via = notes.nvme_via.find(c.instance);
    o.any("via", via == notes.nvme_via.end() ? "" : via->second,
          via == notes.nvme_via.end() ? "" : "  via " + via->second);
    o.close_object().text("\n");
  }
  o.close_array();
  o.text("modules: " + std::to_string(inv.modules.size()) + " loaded");
  o.open_array("modules");
  for (const auto& m : inv.modules) o.item(m);
  o.close_array();
  if (!inv.shown_present.empty()) o.text("; present without a /proc/modules line:");
  o.open_object("modules_shown_present");
  for (const auto& [m, why] : inv.shown_present) o.any(m, why, " " + m + " (" + why + ")");
  o.close_object();
  o.any("configfs_mounted", inv.configfs_mounted,
        std::string("; configfs ") + (inv.configfs_mounted ? "mounted" : "not mounted"));
  o.any("rdma_cm_configfs", inv.rdma_cm_configfs,
        std::string("; rdma_cm configfs ") + (inv.rdma_cm_configfs ? "present" : "absent") + "\n");
  o.open_array("notes");
  for (const auto& n : inv.notes) o.item(n).text("note: " + n + "\n");
  o.close_array();
  // Files that exist but could not be read: their values above are unknown ("" or null).
  o.open_object("unreadable");
  for (const auto& [path, why] : inv.unreadable) o.json(path, why);
  o.close_object().close_object();
}

}  // namespace

std::string status_text(const Inventory& inv, const StatusNotes& notes) {
  Printer o(Printer::Mode::kText);
  print_status(o, inv, notes);
  return o.str();
}

std::string status_json(const Inventory& inv, const StatusNotes& notes) {
  Printer o(Printer::Mode::kJson);
  print_status(o, inv, notes);
  return o.str();
}

}  // namespace rp
