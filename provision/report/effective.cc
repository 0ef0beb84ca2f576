#include "provision/report/effective.h"

#include <algorithm>
#include <cstdio>

#include "provision/base/json.h"

namespace rp {
namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string hex2(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}

std::string hex4(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

struct Out {
  std::vector<EffectiveValue>& v;
  void add(std::string section, std::string key, std::string value, const Source& s,
           bool foreign = false) {
    v.push_back({std::move(section), std::move(key), std::move(value), s, foreign});
  }
  // A list of values, one line per source in order (the native keys that take lists
  // add to what is there: [modules] load and blacklist, [general] wait).
  template <typename T, typename Str>
  void list(const std::string& section, const std::string& key, const std::vector<T>& items,
            Str str) {
    std::string line;
    const Source* src = nullptr;
    for (const auto& i : items) {
      if (src && !(*src == i.source)) {
        add(section, key, line, *src);
        line.clear();
      }
      line += (line.empty() ? "" : ", ") + str(i);
      src = &i.source;
    }
    if (src) add(section, key, line, *src);
  }
};

void general(const Config& c, Out& o) {
  o.add("general", "enabled", yes_no(c.enabled.value), c.enabled.source);
  o.add("general", "required", yes_no(c.required.value), c.required.source);
  o.add("general", "timeout", std::to_string(c.timeout_s.value), c.timeout_s.source);
  o.add("general", "allow_reload", yes_no(c.allow_reload.value), c.allow_reload.source);
  o.add("general", "allow_rename_other", yes_no(c.allow_rename_other.value),
        c.allow_rename_other.source);
  o.add("general", "verify", c.verify.value.str(), c.verify.source);
  o.list("general", "wait", c.effective_waits(),
         [](const Sourced<WaitItem>& w) { return w.value.str(); });
}

void modules(const Config& c, Out& o) {
  o.list("modules", "load", c.modules, [](const Sourced<std::string>& m) { return m.value; });
  o.add("modules", "defer", yes_no(c.defer_lists.value), c.defer_lists.source);
  o.list("modules", "blacklist", c.blacklist,
         [](const Sourced<std::string>& m) { return m.value; });
  for (const auto& [m, opts] : c.module_options)
    o.add("module " + m, "options", opts.value, opts.source);
}

void mlx4(const Config& c, Out& o) {
  for (const auto& [pci, s] : c.mlx4) {
    const std::string sec = "mlx4 " + pci.str();
    for (int i = 0; i < 2; ++i) {
      const std::string port = "port" + std::to_string(i + 1);
      if (s.type[i]) o.add(sec, port, std::string(to_string(s.type[i]->value)), s.type[i]->source);
      if (s.mtu[i]) o.add(sec, port + "_mtu", std::to_string(s.mtu[i]->value), s.mtu[i]->source);
    }
  }
  if (c.pfc_tx) o.add("pfc", "tx", hex2(c.pfc_tx->value), c.pfc_tx->source);
  if (c.pfc_rx) o.add("pfc", "rx", hex2(c.pfc_rx->value), c.pfc_rx->source);
}

void interfaces(const Config& c, Out& o) {
  for (const auto& [key, s] : c.roce) {
    const std::string sec =
        "roce " + key.first.str() + (key.second ? "/" + std::to_string(key.second) : "");
    if (s.mode) o.add(sec, "mode", std::string(to_string(s.mode->value)), s.mode->source);
    if (s.tos) o.add(sec, "tos", std::to_string(s.tos->value), s.tos->source);
  }
  for (const auto& [ifname, s] : c.ipoib) {
    if (s.mode)
      o.add("ipoib " + ifname, "mode", std::string(to_string(s.mode->value)), s.mode->source);
    if (s.mtu) o.add("ipoib " + ifname, "mtu", std::to_string(s.mtu->value), s.mtu->source);
  }
  for (const auto& [key, p] : c.pkeys) {
    const std::string sec = "pkey " + p.parent + " " + hex4(p.pkey);
    o.add(sec, "", "", p.source);  // the section alone asks for the child
    if (!p.name.empty()) o.add(sec, "name", p.name, p.source);
    if (p.mode) o.add(sec, "mode", std::string(to_string(*p.mode)), p.source);
  }
  for (const auto& [name, key] : c.names)
    o.add("name " + name, "match", key.value.str(), key.source);
  for (const auto& [name, sel] : c.rdma_names)
    o.add("devname " + name, "match", sel.value.str(), sel.source);
  for (const auto& [netdev, l] : c.soft_links) {
    const std::string sec = std::string(to_string(l.kind)) + " " + netdev;
    o.add(sec, "", "", l.source);
    if (!l.name.empty()) o.add(sec, "name", l.name, l.source);
  }
  for (const auto& [ifname, s] : c.dcb) {
    // As the native section reads them: lists separated by spaces.
    const std::string sec = "dcb " + ifname;
    auto pairs = [](const std::map<uint8_t, uint8_t>& m) {
      std::string out;
      for (const auto& [a, b] : m)
        out += (out.empty() ? "" : " ") + std::to_string(a) + ":" + std::to_string(b);
      return out;
    };
    if (s.trust) o.add(sec, "trust", std::string(to_string(s.trust->value)), s.trust->source);
    if (s.pfc) {
      std::string prios;
      for (unsigned p = 0; p < 8; ++p)
        if (s.pfc->value & (1u << p)) prios += (prios.empty() ? "" : " ") + std::to_string(p);
      o.add(sec, "pfc", prios.empty() ? "none" : prios, s.pfc->source);
    }
    if (s.tc_bw) {
      std::map<uint8_t, uint8_t> bw;
      for (uint8_t tc = 0; tc < 8; ++tc)
        if (s.tc_bw->value[tc]) bw[tc] = s.tc_bw->value[tc];
      o.add(sec, "tc_bw", pairs(bw), s.tc_bw->source);
    }
    if (s.prio_tc) o.add(sec, "prio_tc", pairs(s.prio_tc->value), s.prio_tc->source);
    if (s.dscp_prio) o.add(sec, "dscp_prio", pairs(s.dscp_prio->value), s.dscp_prio->source);
  }
  for (const auto& [key, s] : c.expect) {
    // As [expect] reads them back: tenths as a decimal, 0 as "max".
    const std::string sec =
        "expect " + key.first.str() + (key.second ? "/" + std::to_string(key.second) : "");
    auto tenths = [](unsigned v) {
      return std::to_string(v / 10) + (v % 10 ? "." + std::to_string(v % 10) : "");
    };
    auto or_max = [](unsigned v, const std::string& text) { return v ? text : "max"; };
    if (s.rate) o.add(sec, "rate", tenths(s.rate->value), s.rate->source);
    if (s.width) o.add(sec, "width", std::to_string(s.width->value) + "x", s.width->source);
    if (s.link_layer) {
      o.add(sec, "link_layer", std::string(to_string(s.link_layer->value)), s.link_layer->source);
    }
    if (s.phys_state) o.add(sec, "phys_state", s.phys_state->value, s.phys_state->source);
    if (s.sm) o.add(sec, "sm", s.sm->value ? "yes" : "no", s.sm->source);
    if (s.fw) o.add(sec, "fw", s.fw->value, s.fw->source);
    if (s.pcie_speed) {
      o.add(sec, "pcie_speed", or_max(s.pcie_speed->value, tenths(s.pcie_speed->value)),
            s.pcie_speed->source);
    }
    if (s.pcie_width) {
      o.add(sec, "pcie_width", or_max(s.pcie_width->value, std::to_string(s.pcie_width->value)),
            s.pcie_width->source);
    }
  }
  for (const auto& [ifname, list] : c.addresses)
    for (const auto& a : list) o.add("address " + ifname, "address", a.prefix.str(), a.source);
  for (const auto& [ifname, list] : c.routes) {
    for (const auto& r : list) {
      o.add("address " + ifname, "route",
            (r.destination ? r.destination->str() : std::string("default")) + " via " +
                r.gateway.str(),
            r.source);
    }
  }
}

// What other projects' inputs say that the plan reads but the native configuration
// cannot set.
void foreign(const Config& c, Out& o) {
  for (const auto& [m, cmd] : c.forbidden)
    o.add("modprobe.d", "install " + m, cmd.value, cmd.source, true);
  for (const auto& [name, key] : c.boot.dracut_ifnames)
    o.add("dracut", "ifname", name + ":" + key.value.str(), key.source, true);
  for (const auto& i : c.boot.ifaces) o.add("dracut", "boot interface", i.value, i.source, true);
  if (c.boot.network) o.add("dracut", "network", "asked for", *c.boot.network, true);
  if (c.boot.nfs_server)
    o.add("dracut", "nfs server", c.boot.nfs_server->value.str(), c.boot.nfs_server->source, true);
  if (c.boot.nfs_server_unknown) {
    const auto& u = *c.boot.nfs_server_unknown;
    o.add("dracut", "nfs server", u.value.empty() ? "from DHCP" : u.value + " (a host name)",
          u.source, true);
  }
  if (c.boot.rdma_rename_rules)
    o.add("udev", "rdma_rename rules", c.boot.rdma_rename_rules->source.file,
          c.boot.rdma_rename_rules->source, true);
}

std::string line_of(const EffectiveValue& v) {
  if (v.foreign) return "# " + v.section + " " + v.key + " = " + v.value;
  if (v.key.empty()) return "";
  return v.key + " = " + v.value;
}

size_t node_rows(const Config& c) { return c.nodes_by_guid.size() + c.nodes_by_mac.size(); }

}  // namespace

std::vector<EffectiveValue> effective_values(const Config& cfg) {
  std::vector<EffectiveValue> v;
  Out o{v};
  general(cfg, o);
  modules(cfg, o);
  mlx4(cfg, o);
  interfaces(cfg, o);
  foreign(cfg, o);
  return v;
}

std::string effective_text(const Config& cfg, const std::vector<std::string>& files) {
  std::string out =
      "# The effective configuration: every value after all inputs are merged, in the\n"
      "# native syntax, each followed by where it came from.\n# Read:";
  for (const auto& f : files) out += " " + f;
  if (files.empty()) out += " no files";
  out += "\n";
  if (const size_t rows = node_rows(cfg)) {
    out += "# The node table has " + std::to_string(rows) + " row" + (rows == 1 ? "" : "s") +
           "; what this node's row gives is shown below, \"(node table)\".\n";
  }
  std::string section;
  bool foreign_head = false;
  for (const auto& v : effective_values(cfg)) {
    if (v.foreign) {
      if (!foreign_head) out += "\n# Read from other inputs, not settable here:\n";
      foreign_head = true;
    } else if (v.section != section) {
      section = v.section;
      out += "\n[" + section + "]" + (v.key.empty() ? "  # " + v.source.str() : "") + "\n";
      if (v.key.empty()) continue;
    }
    std::string line = line_of(v);
    if (line.size() < 38) line.resize(38, ' ');
    out += line + "  # " + v.source.str() + "\n";
  }
  return out;
}

std::string effective_json(const Config& cfg, const std::vector<std::string>& files) {
  JsonWriter j;
  j.begin_object();
  j.key("files").begin_array();
  for (const auto& f : files) j.value(f);
  j.end_array();
  j.field("node_table_rows", static_cast<uint64_t>(node_rows(cfg)));
  j.key("values").begin_array();
  for (const auto& v : effective_values(cfg)) {
    j.begin_object();
    j.field("section", v.section).field("key", v.key).field("value", v.value);
    j.field("source", v.source.str()).field("default", v.source.is_default());
    j.field("settable", !v.foreign);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

std::string not_applied_summary(const Config& cfg) {
  std::vector<std::string> sections;
  size_t loads = 0;
  for (const auto& v : effective_values(cfg)) {
    if (v.foreign || v.source.is_default()) continue;
    if (v.section == "general" && v.key != "wait" && v.key != "verify") continue;
    if (v.section == "modules") {
      if (v.key == "load") loads += std::count(v.value.begin(), v.value.end(), ',') + 1;
      continue;
    }
    const std::string s = "[" + v.section + "]" + (v.section == "general" ? " " + v.key : "");
    if (sections.empty() || sections.back() != s) sections.push_back(s);
  }
  std::string out;
  for (const auto& s : sections) out += (out.empty() ? "" : ", ") + s;
  if (loads) {
    out += (out.empty() ? "" : ", ") + std::to_string(loads) + " module load" +
           (loads == 1 ? "" : "s");
  }
  return out;
}

}  // namespace rp
