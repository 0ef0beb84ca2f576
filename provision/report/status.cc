#include "provision/report/status.h"

#include <cerrno>

#include "provision/base/json.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

std::string opt_guid(const std::optional<PortGuid>& g) { return g ? g->str() : "-"; }

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

// What discovery found at `path` ("-" when empty), or, where reading the file failed,
// "unknown (<path>: <why>)": never a value it did not read (Inventory::unreadable).
std::string shown(const Inventory& inv, const std::string& path, const std::string& value) {
  if (auto it = inv.unreadable.find(path); it != inv.unreadable.end())
    return "unknown (" + path + ": " + it->second + ")";
  return or_dash(value);
}

// A RoCE port's rdma_cm defaults (drivers/infiniband/core/cma_configfs.c): readable only
// where the device's configfs directory exists, which reading must not create.
std::string roce_line(const std::string& dev, const RdmaPort& p) {
  if (p.cm_roce_mode.empty() && !p.cm_roce_tos) {
    return "      RoCE defaults: the kernel's (no /sys/kernel/config/rdma_cm/" + dev + ")\n";
  }
  return "      RoCE defaults: mode " + or_dash(p.cm_roce_mode) + ", ToS " +
         (p.cm_roce_tos ? std::to_string(*p.cm_roce_tos) : "-") + "\n";
}

// A RoCE port's interface's DCB (read over DCB netlink on the running system): trust, the
// lossless priorities, and the priority the port's RoCE v2 traffic goes at
// (DcbState::roce_priority), which PFC should make lossless.
std::string dcb_line(const NetDev& n, const RdmaPort& p) {
  if (n.dcb_errno == EOPNOTSUPP) return "      DCB: none (" + n.name + "'s driver has no DCB)\n";
  if (!n.dcb) return "";
  const DcbState& s = *n.dcb;
  const unsigned tos = p.cm_roce_tos.value_or(0);
  const auto prio = s.roce_priority(tos);
  std::string o = "      DCB: trust " + std::string(to_string(s.effective_trust())) + ", PFC on " +
                  s.pfc_text() + "; RoCE ToS " + std::to_string(tos) + " -> priority " +
                  (prio ? std::to_string(*prio) : std::string("unknown (the device's DSCP table)"));
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
  return std::string(to_string(p.state)) + (phys.empty() ? "" : "/" + phys);
}

}  // namespace

std::string status_text(const Inventory& inv) {
  std::string o;
  if (inv.rdma.empty()) {
    o += "no RDMA devices\n";
  } else {
    o += "RDMA devices (" + std::to_string(inv.rdma.size()) + "):\n";
    for (const auto& d : inv.rdma) {
      o += "  " + d.name + "  driver " + or_dash(d.driver);
      if (d.pci) o += "  pci " + d.pci->str();
      if (!d.parent_netdev.empty()) o += "  on " + d.parent_netdev;
      const std::string dev = "/sys/class/infiniband/" + d.name;
      o += "  fw " + shown(inv, dev + "/fw_ver", d.fw_ver) + "  board " +
           shown(inv, dev + "/board_id", d.board_id) + "  node_guid " +
           shown(inv, dev + "/node_guid", opt_guid(d.node_guid)) + "\n";
      for (const auto& p : d.ports) {
        const std::string dir = dev + "/ports/" + std::to_string(p.num);
        o += "    port " + std::to_string(p.num) + "  " + port_state_word(inv, dir, p) + "  " +
             std::string(to_string(p.link_layer)) + "  " + shown(inv, dir + "/rate", p.rate) +
             "  guid " + shown(inv, dir + "/gids/0", opt_guid(p.guid));
        if (p.link_layer == LinkLayer::kInfiniBand) {
          // Unreadable or absent is said so with its path, never shown as 0.
          auto lid = [&](const char* name, const std::optional<unsigned>& v) {
            const std::string path = dir + "/" + name;
            return std::string("  ") + name + " " +
                   (v                            ? "0x" + hex(*v, 0)
                    : inv.unreadable.count(path) ? shown(inv, path, "")
                                                 : "unknown (" + path + " absent)");
          };
          o += lid("lid", p.lid) + lid("sm_lid", p.sm_lid);
        }
        if (p.active_mtu) {
          o += "  mtu " + std::to_string(p.active_mtu) + "/" + std::to_string(p.max_mtu);
        }
        o += "  ==> " + or_dash(p.netdev) + "\n";
        if (p.link_layer == LinkLayer::kEthernet && !d.iwarp()) {
          o += roce_line(d.name, p);
          if (const NetDev* n = inv.find_netdev(p.netdev)) o += dcb_line(*n, p);
        }
      }
    }
  }
  bool any_mlx4 = false;
  for (const auto& f : inv.pci) any_mlx4 |= !f.mlx4_ports.empty();
  if (any_mlx4) {
    o += "mlx4 port types:\n";
    for (const auto& f : inv.pci) {
      if (f.mlx4_ports.empty()) continue;
      o += "  " + f.address.str();
      for (const auto& m : f.mlx4_ports) {
        o += "  port " + std::to_string(m.port) + " " + type_shown(m) +
             (m.writable ? "" : " (read-only)");
        if (m.mtu) o += " mtu " + std::to_string(*m.mtu);
      }
      o += "\n";
    }
  }
  o += "network links (" + inv.netdev_source + ", " + std::to_string(inv.netdevs.size()) + "):\n";
  for (const auto& n : inv.netdevs) {
    const std::string dir = "/sys/class/net/" + n.name;
    o += "  " + n.name + "  " + arphrd_name(n.type) + "  " +
         shown(inv, dir + "/address", n.address.str()) + "  mtu " +
         shown(inv, dir + "/mtu", n.mtu ? std::to_string(*n.mtu) : "") + "  " +
         (n.admin_up ? "up" : "down") + "/" + shown(inv, dir + "/operstate", n.operstate);
    if (n.carrier) o += "  carrier";
    if (!n.driver.empty()) o += "  driver " + n.driver;
    if (n.ipoib_mode) o += "  mode " + std::string(to_string(*n.ipoib_mode));
    if (n.pkey) o += "  pkey 0x" + hex(*n.pkey, 4);
    if (!n.parent.empty()) o += "  parent " + n.parent;
    if (!n.rdma_device.empty()) o += "  <== " + n.rdma_device + "/" + std::to_string(n.rdma_port);
    o += "\n";
  }
  o += "modules: " + std::to_string(inv.modules.size()) + " loaded";
  if (!inv.shown_present.empty()) {
    o += "; present without a /proc/modules line:";
    for (const auto& [m, why] : inv.shown_present) o += " " + m + " (" + why + ")";
  }
  o += std::string("; configfs ") + (inv.configfs_mounted ? "mounted" : "not mounted");
  o += std::string("; rdma_cm configfs ") + (inv.rdma_cm_configfs ? "present" : "absent") + "\n";
  for (const auto& n : inv.notes) o += "note: " + n + "\n";
  return o;
}

std::string status_json(const Inventory& inv) {
  JsonWriter w;
  w.begin_object();
  w.key("rdma_devices").begin_array();
  for (const auto& d : inv.rdma) {
    w.begin_object();
    w.field("name", d.name).field("driver", d.driver);
    w.key("pci");
    d.pci ? w.value(d.pci->str()) : w.null();
    w.field("parent_netdev", d.parent_netdev).field("node_type", d.node_type);
    w.key("node_guid");
    d.node_guid ? w.value(d.node_guid->str()) : w.null();
    w.field("fw_ver", d.fw_ver).field("board_id", d.board_id).field("hca_type", d.hca_type);
    w.field("seen_by_verbs", d.seen_by_verbs);
    w.key("ports").begin_array();
    for (const auto& p : d.ports) {
      w.begin_object();
      w.field("port", p.num).field("state", to_string(p.state)).field("phys_state", p.phys_state);
      w.field("link_layer", to_string(p.link_layer)).field("rate", p.rate);
      w.key("guid");
      p.guid ? w.value(p.guid->str()) : w.null();
      w.key("lid");
      p.lid ? w.value(*p.lid) : w.null();
      w.key("sm_lid");
      p.sm_lid ? w.value(*p.sm_lid) : w.null();
      w.field("netdev", p.netdev);
      w.field("active_mtu", p.active_mtu).field("max_mtu", p.max_mtu);
      w.key("roce_mode");
      p.cm_roce_mode.empty() ? w.null() : w.value(p.cm_roce_mode);
      w.key("roce_tos");
      p.cm_roce_tos ? w.value(static_cast<uint64_t>(*p.cm_roce_tos)) : w.null();
      // DCB of the port's interface: null where it was not read or the driver has none.
      const NetDev* n = inv.find_netdev(p.netdev);
      w.key("dcb");
      if (n && n->dcb && p.link_layer == LinkLayer::kEthernet) {
        const auto prio = n->dcb->roce_priority(p.cm_roce_tos.value_or(0));
        w.begin_object().field("trust", to_string(n->dcb->effective_trust()));
        w.key("pfc").begin_array();
        for (unsigned i = 0; i < 8; ++i)
          if (n->dcb->pfc_en && (*n->dcb->pfc_en & (1u << i))) w.value(static_cast<uint64_t>(i));
        w.end_array();
        w.key("roce_priority");
        prio ? w.value(static_cast<uint64_t>(*prio)) : w.null();
        w.end_object();
      } else {
        w.null();
      }
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("mlx4").begin_array();
  for (const auto& f : inv.pci) {
    if (f.mlx4_ports.empty()) continue;
    w.begin_object().field("pci", f.address.str()).field("driver", f.driver);
    w.key("ports").begin_array();
    for (const auto& m : f.mlx4_ports) {
      w.begin_object().field("port", m.port).field("type", type_shown(m));
      w.field("writable", m.writable).field("mtu", m.mtu ? std::to_string(*m.mtu) : "");
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.field("netdev_source", inv.netdev_source);
  w.key("netdevs").begin_array();
  for (const auto& n : inv.netdevs) {
    w.begin_object().field("name", n.name).field("ifindex", n.ifindex);
    w.field("type", n.type).field("type_name", arphrd_name(n.type));
    w.field("address", n.address.str());
    w.key("mtu");
    n.mtu ? w.value(*n.mtu) : w.null();
    w.field("operstate", n.operstate);
    w.field("admin_up", n.admin_up).field("carrier", n.carrier).field("driver", n.driver);
    w.field("rdma_device", n.rdma_device).field("rdma_port", n.rdma_port);
    if (n.type == kArphrdInfiniband) {
      w.field("ipoib_mode", n.ipoib_mode ? to_string(*n.ipoib_mode) : "");
      w.key("pkey");
      n.pkey ? w.value("0x" + hex(*n.pkey, 4)) : w.null();
      w.field("parent", n.parent);
      auto g = n.address.ipoib_guid();
      w.key("port_guid");
      g ? w.value(g->str()) : w.null();
    }
    w.end_object();
  }
  w.end_array();
  w.key("modules").begin_array();
  for (const auto& m : inv.modules) w.value(m);
  w.end_array();
  w.key("modules_shown_present").begin_object();
  for (const auto& [m, why] : inv.shown_present) w.field(m, why);
  w.end_object();
  w.field("configfs_mounted", inv.configfs_mounted).field("rdma_cm_configfs", inv.rdma_cm_configfs);
  w.key("notes").begin_array();
  for (const auto& n : inv.notes) w.value(n);
  w.end_array();
  // Files that exist but could not be read: their values above are unknown ("" or null).
  w.key("unreadable").begin_object();
  for (const auto& [path, why] : inv.unreadable) w.field(path, why);
  w.end_object();
  w.end_object();
  return w.str();
}

}  // namespace rp
