#include "provision/inputs/native_conf.h"

#include <utility>
#include <vector>

#include "provision/base/strings.h"
#include "provision/inputs/record.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

using Words = std::vector<std::string_view>;

// The reader's state: the current line, and the current section with its argument, parsed
// once when the header is read so that every key finds it typed.
struct Parser {
  Config& cfg;
  Diagnostics& diag;
  Source where;             // the current line
  std::string kind;         // the current section ("" before the first header)
  bool section_ok = false;  // its header is valid: its keys are read
  std::string name;         // [module], [ipoib], [name], [devname], [rxe], [siw], [address]
  PciAddress pci;           // [mlx4]
  std::pair<RdmaSelector, unsigned> roce_target;  // [roce], [expect]
  std::pair<std::string, uint16_t> pkey;          // [pkey]

  void error(const std::string& what) { diag.error(where, what); }
};

// Keeps a parsed value; false when there is none (the parser has reported why).
template <typename T>
bool keep(T& out, std::optional<T> v) {
  if (v) out = std::move(*v);
  return v.has_value();
}

// ---- Sections ----------------------------------------------------------------------------

struct Section {
  std::string_view kind;
  std::string_view usage;  // the header as it must be written
  size_t nargs;
  bool (*open)(Parser& p, const Words& args);  // reads the arguments; false when bad
};

bool no_args(Parser&, const Words&) { return true; }

bool open_module(Parser& p, const Words& a) {
  return keep(p.name, parse_module_name(a[0], p.where, p.diag));
}
bool open_mlx4(Parser& p, const Words& a) {
  return keep(p.pci, parse_pci_address(a[0], p.where, p.diag));
}
bool open_roce(Parser& p, const Words& a) {
  return keep(p.roce_target, parse_roce_target(a[0], p.where, p.diag));
}
bool open_ifname(Parser& p, const Words& a) {
  return keep(p.name, parse_ifname(a[0], p.where, p.diag));
}
bool open_name(Parser& p, const Words& a) {
  return keep(p.name, parse_new_ifname(a[0], p.where, p.diag));
}

bool open_devname(Parser& p, const Words& a) {
  return keep(p.name, parse_rdma_name(a[0], p.where, p.diag));
}

bool open_pkey(Parser& p, const Words& a) {
  auto parent = parse_ifname(a[0], p.where, p.diag);
  auto pkey = parse_pkey(a[1], p.where, p.diag);
  if (!parent || !pkey) return false;
  p.pkey = {*parent, *pkey};
  // The section alone asks for the child; its keys only refine it.
  set_pkey_child(p.cfg, *parent, *pkey, "", p.where, p.diag);
  return true;
}

template <SoftKind kKind>
bool open_soft(Parser& p, const Words& a) {
  if (!keep(p.name, parse_ifname(a[0], p.where, p.diag))) return false;
  set_soft_link(p.cfg, p.name, kKind, "", p.where, p.diag);  // the section alone asks for it
  return true;
}

template <SoftKind kKind>
void read_soft_name(Parser& p, std::string_view v) {
  if (auto name = parse_rdma_name(v, p.where, p.diag)) {
    set_soft_link(p.cfg, p.name, kKind, *name, p.where, p.diag);
  }
}

constexpr Section kSections[] = {
    {"general", "[general]", 0, no_args},
    {"modules", "[modules]", 0, no_args},
    {"module", "[module <name>]", 1, open_module},
    {"mlx4", "[mlx4 <pci address>]", 1, open_mlx4},
    {"pfc", "[pfc]", 0, no_args},
    {"roce", "[roce <ibdev|pci-<bdf>|guid-<guid>|netdev-<if>|*>[/<port>]]", 1, open_roce},
    {"ipoib", "[ipoib <ifname>]", 1, open_ifname},
    {"pkey", "[pkey <parent> <pkey>]", 2, open_pkey},
    {"name", "[name <ifname>]", 1, open_name},
    {"devname", "[devname <RDMA device name>]", 1, open_devname},
    {"rxe", "[rxe <netdev>]", 1, open_soft<SoftKind::kRxe>},
    {"siw", "[siw <netdev>]", 1, open_soft<SoftKind::kSiw>},
    {"address", "[address <ifname>]", 1, open_ifname},
    {"dcb", "[dcb <ifname>]", 1, open_ifname},
    {"expect", "[expect <ibdev|pci-<bdf>|guid-<guid>|netdev-<if>|*>[/<port>]]", 1, open_roce},
    {"nodes", "[nodes]", 0, no_args},
};

// ---- Keys --------------------------------------------------------------------------------

struct Key {
  std::string_view section;
  std::string_view key;
  void (*read)(Parser& p, std::string_view value);
};

// Stores a parsed value with this line as its source; nothing when the parser refused it.
template <typename T>
void put(const Parser& p, std::optional<T> v, Sourced<T>& out) {
  if (v) out = {*v, p.where};
}
template <typename T>
void put(const Parser& p, std::optional<T> v, std::optional<Sourced<T>>& out) {
  if (v) out = Sourced<T>{*v, p.where};
}

using P = Parser&;
using V = std::string_view;

void expect_key(P p, std::string_view key, V v) {
  set_expect_key(p.cfg.expect[p.roce_target], key, v, p.where, p.diag);
}

constexpr Key kKeys[] = {
    {"general", "enabled", [](P p, V v) { put(p, parse_bool(v, p.where, p.diag), p.cfg.enabled); }},
    {"general", "required",
     [](P p, V v) { put(p, parse_bool(v, p.where, p.diag), p.cfg.required); }},
    {"general", "allow_reload",
     [](P p, V v) { put(p, parse_bool(v, p.where, p.diag), p.cfg.allow_reload); }},
    {"general", "allow_rename_other",
     [](P p, V v) { put(p, parse_bool(v, p.where, p.diag), p.cfg.allow_rename_other); }},
    {"general", "timeout",
     [](P p, V v) { put(p, parse_timeout(v, p.where, p.diag), p.cfg.timeout_s); }},
    {"general", "verify", [](P p, V v) { put(p, parse_verify(v, p.where, p.diag), p.cfg.verify); }},
    {"general", "wait", [](P p, V v) { parse_wait_list(v, p.where, p.cfg, p.diag); }},
    {"modules", "load",
     [](P p, V v) {
       for (auto m : split_list(v))
         if (auto name = parse_module_name(m, p.where, p.diag)) add_module(p.cfg, *name, p.where);
     }},
    {"modules", "defer",
     [](P p, V v) { put(p, parse_bool(v, p.where, p.diag), p.cfg.defer_lists); }},
    {"modules", "blacklist",
     [](P p, V v) {
       for (auto m : split_list(v))
         if (auto name = parse_module_name(m, p.where, p.diag))
           add_blacklist(p.cfg, *name, p.where);
     }},
    {"module", "options",
     [](P p, V v) { put(p, std::optional<std::string>(v), p.cfg.module_options[p.name]); }},
    {"module", "load",
     [](P p, V v) {
       if (parse_bool(v, p.where, p.diag).value_or(false)) add_module(p.cfg, p.name, p.where);
     }},
    {"mlx4", "port1",
     [](P p, V v) { put(p, parse_port_type(v, p.where, p.diag), p.cfg.mlx4[p.pci].type[0]); }},
    {"mlx4", "port2",
     [](P p, V v) { put(p, parse_port_type(v, p.where, p.diag), p.cfg.mlx4[p.pci].type[1]); }},
    {"mlx4", "port1_mtu",
     [](P p, V v) { put(p, parse_ib_mtu(v, p.where, p.diag), p.cfg.mlx4[p.pci].mtu[0]); }},
    {"mlx4", "port2_mtu",
     [](P p, V v) { put(p, parse_ib_mtu(v, p.where, p.diag), p.cfg.mlx4[p.pci].mtu[1]); }},
    {"pfc", "tx",
     [](P p, V v) { put(p, parse_pfc_mask(v, PfcDirection::kTx, p.where, p.diag), p.cfg.pfc_tx); }},
    {"pfc", "rx",
     [](P p, V v) { put(p, parse_pfc_mask(v, PfcDirection::kRx, p.where, p.diag), p.cfg.pfc_rx); }},
    {"roce", "mode",
     [](P p, V v) { put(p, parse_roce_mode(v, p.where, p.diag), p.cfg.roce[p.roce_target].mode); }},
    {"roce", "tos",
     [](P p, V v) { put(p, parse_tos(v, p.where, p.diag), p.cfg.roce[p.roce_target].tos); }},
    {"ipoib", "mode",
     [](P p, V v) { put(p, parse_ipoib_mode(v, p.where, p.diag), p.cfg.ipoib[p.name].mode); }},
    {"ipoib", "mtu",
     [](P p, V v) { put(p, parse_netdev_mtu(v, p.where, p.diag), p.cfg.ipoib[p.name].mtu); }},
    {"pkey", "name",
     [](P p, V v) {
       if (auto name = parse_new_ifname(v, p.where, p.diag)) {
         set_pkey_child(p.cfg, p.pkey.first, p.pkey.second, *name, p.where, p.diag);
       }
     }},
    {"pkey", "mode",
     [](P p, V v) {
       if (auto m = parse_ipoib_mode(v, p.where, p.diag)) p.cfg.pkeys[p.pkey].mode = *m;
     }},
    {"devname", "match",
     [](P p, V v) {
       if (auto sel = parse_rdma_selector(v, false, p.where, p.diag))
         p.cfg.rdma_names[p.name] = {*sel, p.where};
     }},
    {"name", "match",
     [](P p, V v) {
       if (auto key = parse_hw_key(v, p.where, p.diag))
         set_name(p.cfg, p.name, *key, p.where, p.diag);
     }},
    {"dcb", "trust", [](P p, V v) { set_dcb_key(p.cfg.dcb[p.name], "trust", v, p.where, p.diag); }},
    {"dcb", "pfc", [](P p, V v) { set_dcb_key(p.cfg.dcb[p.name], "pfc", v, p.where, p.diag); }},
    {"dcb", "tc_bw", [](P p, V v) { set_dcb_key(p.cfg.dcb[p.name], "tc_bw", v, p.where, p.diag); }},
    {"dcb", "prio_tc",
     [](P p, V v) { set_dcb_key(p.cfg.dcb[p.name], "prio_tc", v, p.where, p.diag); }},
    {"dcb", "dscp_prio",
     [](P p, V v) { set_dcb_key(p.cfg.dcb[p.name], "dscp_prio", v, p.where, p.diag); }},
    {"expect", "rate", [](P p, V v) { expect_key(p, "rate", v); }},
    {"expect", "width", [](P p, V v) { expect_key(p, "width", v); }},
    {"expect", "link_layer", [](P p, V v) { expect_key(p, "link_layer", v); }},
    {"expect", "phys_state", [](P p, V v) { expect_key(p, "phys_state", v); }},
    {"expect", "sm", [](P p, V v) { expect_key(p, "sm", v); }},
    {"expect", "fw", [](P p, V v) { expect_key(p, "fw", v); }},
    {"expect", "pcie_speed", [](P p, V v) { expect_key(p, "pcie_speed", v); }},
    {"expect", "pcie_width", [](P p, V v) { expect_key(p, "pcie_width", v); }},
    {"rxe", "name", read_soft_name<SoftKind::kRxe>},
    {"siw", "name", read_soft_name<SoftKind::kSiw>},
    {"address", "address",
     [](P p, V v) {
       if (auto a = parse_prefix(v, p.where, p.diag))
         p.cfg.addresses[p.name].push_back({*a, p.where});
     }},
    {"address", "route",
     [](P p, V v) {
       if (auto r = parse_route(v, p.where, p.diag)) p.cfg.routes[p.name].push_back(*r);
     }},
};

// [nodes]: a row is "<guid|mac> field=value ...".
struct NodeField {
  std::string_view field;
  void (*read)(Parser& p, std::string_view value, NodeEntry& e);
};

using E = NodeEntry&;

constexpr NodeField kNodeFields[] = {
    {"name", [](P p, V v, E e) { keep(e.name, parse_new_ifname(v, p.where, p.diag)); }},
    {"address",
     [](P p, V v, E e) {
       for (auto a : split_list(v))
         if (auto prefix = parse_prefix(a, p.where, p.diag)) e.addresses.push_back(*prefix);
     }},
    {"pkeys",
     [](P p, V v, E e) {
       for (auto k : split_list(v))
         if (auto pkey = parse_pkey(k, p.where, p.diag)) e.pkeys.push_back(*pkey);
     }},
    {"mode",
     [](P p, V v, E e) {
       if (auto m = parse_ipoib_mode(v, p.where, p.diag)) e.mode = m;
     }},
    {"mtu",
     [](P p, V v, E e) {
       if (auto mtu = parse_netdev_mtu(v, p.where, p.diag)) e.mtu = mtu;
     }},
    {"rxe",
     [](P p, V v, E e) {
       if (auto n = parse_rdma_name(v, p.where, p.diag))
         e.soft = SoftLink{SoftKind::kRxe, *n, p.where};
     }},
    {"siw",
     [](P p, V v, E e) {
       if (auto n = parse_rdma_name(v, p.where, p.diag))
         e.soft = SoftLink{SoftKind::kSiw, *n, p.where};
     }},
    {"devname", [](P p, V v, E e) { keep(e.devname, parse_rdma_name(v, p.where, p.diag)); }},
    {"lease",
     [](P p, V v, E e) {
       if (auto a = parse_dhcp_address(v, p.where, p.diag)) e.lease = a;
     }},
    {"host", [](P p, V v, E e) { keep(e.host, parse_hostname(v, p.where, p.diag)); }},
};

// ---- Lines -------------------------------------------------------------------------------

void section(Parser& p, std::string_view header) {
  Words words = split_ws(header);
  p.section_ok = false;
  p.kind.clear();
  if (words.empty()) return p.error("empty section header '[]'");
  p.kind = std::string(words[0]);
  const Words args(words.begin() + 1, words.end());
  for (const auto& s : kSections) {
    if (p.kind != s.kind) continue;
    if (args.size() != s.nargs) {
      return p.error("section " + shown("[" + std::string(header) + "]") + " must be written " +
                     std::string(s.usage));
    }
    p.section_ok = s.open(p, args);
    return;
  }
  p.error("unknown section " + shown(p.kind) + " " + did_you_mean(p.kind, native_conf_sections()));
}

void assignment(Parser& p, std::string_view key, std::string_view value) {
  Words known;
  for (const auto& k : kKeys) {
    if (k.section != p.kind) continue;
    if (k.key == key) return k.read(p, value);
    known.push_back(k.key);
  }
  p.error("unknown key " + shown(key) + " in [" + p.kind + "] " + did_you_mean(key, known));
}

void node_row(Parser& p, std::string_view line) {
  Words fields = split_ws(line);
  auto key = parse_hw_key(fields[0], p.where, p.diag);
  if (!key) return;
  if (!key->is_address()) {
    // A row is one node's: a PCI function or an RDMA port is the same on every node.
    return p.error("node " + key->str() +
                   ": a row is keyed by a port GUID or a MAC address, one node's own; a name by "
                   "PCI function or RDMA port is the same on every node: give it with "
                   "rd.rdma.name= or [name <ifname>]");
  }
  NodeEntry e;
  e.key = *key;
  e.source = p.where;
  for (size_t i = 1; i < fields.size(); ++i) {
    auto eq = fields[i].find('=');
    if (eq == std::string_view::npos) {
      p.error("node field " + shown(fields[i]) + " is not of the form key=value");
      continue;
    }
    auto k = fields[i].substr(0, eq), v = fields[i].substr(eq + 1);
    const NodeField* field = nullptr;
    for (const auto& f : kNodeFields)
      if (f.field == k) field = &f;
    if (field) {
      field->read(p, v, e);
      continue;
    }
    Words known;  // built only for the message: a 10,000-row table is read at every boot
    for (const auto& f : kNodeFields) known.push_back(f.field);
    p.error("unknown node field " + shown(k) + " " + did_you_mean(k, known));
  }
  auto& table = key->is_guid() ? p.cfg.nodes_by_guid : p.cfg.nodes_by_mac;
  auto [it, inserted] = table.emplace(key->value, std::move(e));
  if (!inserted) p.error("node " + key->str() + " is already listed at " + it->second.source);
}

}  // namespace

std::vector<std::string_view> native_conf_sections() {
  std::vector<std::string_view> out;
  for (const auto& s : kSections) out.push_back(s.kind);
  return out;
}

std::vector<NativeConfKey> native_conf_keys() {
  std::vector<NativeConfKey> out;
  for (const auto& k : kKeys) out.push_back({k.section, k.key});
  for (const auto& f : kNodeFields) out.push_back({"nodes", f.field});
  return out;
}

namespace {

// `nodes_only`: a nodes.d file, which starts in [nodes] and has no other section.
void parse(std::string_view text, const std::string& file, Config& cfg, Diagnostics& diag,
           bool nodes_only) {
  Parser p{cfg, diag, {}, "", false, "", {}, {}, {}};
  if (nodes_only) p.kind = "nodes", p.section_ok = true;
  size_t lineno = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++lineno;
    p.where = Source::at(Source::Origin::kNative, file, lineno);
    std::string_view line = trim(strip_comment(raw));
    if (line.empty()) continue;
    if (line.find('\0') != std::string_view::npos) {
      p.error("line contains a NUL byte");
      continue;
    }
    if (line.front() == '[') {
      if (line.back() != ']') {
        p.error("section header " + shown(line) + " is missing its closing ']'");
        p.section_ok = false;
        continue;
      }
      if (nodes_only && trim(line.substr(1, line.size() - 2)) != "nodes") {
        p.error("section " + shown(line) + " in a nodes.d file, which holds node-table rows only");
        p.kind = "nodes", p.section_ok = false;  // its lines are not rows: not read
        continue;
      }
      section(p, trim(line.substr(1, line.size() - 2)));
      continue;
    }
    if (p.kind.empty()) {
      p.error("setting " + shown(line) + " is outside of any [section]");
      continue;
    }
    if (p.kind == "nodes") {
      if (p.section_ok) node_row(p, line);
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      p.error("line " + shown(line) + " is not of the form key = value");
      continue;
    }
    auto key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key.empty()) {
      p.error("line " + shown(line) + " has no key before '='");
    } else if (value.empty()) {
      p.error("key " + shown(key) + " has no value");
    } else if (p.section_ok) {  // else the section header was already reported
      assignment(p, key, value);
    }
  }
}

}  // namespace

void parse_native_conf(std::string_view text, const std::string& file, Config& cfg,
                       Diagnostics& diag) {
  parse(text, file, cfg, diag, false);
}

void parse_node_table_file(std::string_view text, const std::string& file, Config& cfg,
                           Diagnostics& diag) {
  parse(text, file, cfg, diag, true);
}

}  // namespace rp
