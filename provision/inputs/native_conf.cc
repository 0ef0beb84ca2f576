#include "provision/inputs/native_conf.h"

#include "provision/base/strings.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

struct Parser {
  const std::string& file;
  Config& cfg;
  Diagnostics& diag;
  std::string where;  // "file:line" of the current line
  // Current section: kind and its argument(s).
  std::string kind;
  std::vector<std::string> args;
  bool section_ok = false;
  std::string module;  // [module <name>], normalised

  void error(const std::string& what) { diag.error(where, what); }

  void section(std::string_view header) {
    auto words = split_ws(header);
    section_ok = false;
    kind.clear();
    args.clear();
    if (words.empty()) return error("empty section header '[]'");
    kind = std::string(words[0]);
    for (size_t i = 1; i < words.size(); ++i) args.emplace_back(words[i]);
    struct Shape {
      const char* kind;
      size_t nargs;
      const char* usage;
    };
    static const Shape kShapes[] = {
        {"general", 0, "[general]"},
        {"modules", 0, "[modules]"},
        {"module", 1, "[module <name>]"},
        {"mlx4", 1, "[mlx4 <pci address>]"},
        {"pfc", 0, "[pfc]"},
        {"roce", 1, "[roce <ibdev|*>[/<port>]]"},
        {"ipoib", 1, "[ipoib <ifname>]"},
        {"pkey", 2, "[pkey <parent> <pkey>]"},
        {"name", 1, "[name <ifname>]"},
        {"rxe", 1, "[rxe <netdev>]"},
        {"siw", 1, "[siw <netdev>]"},
        {"address", 1, "[address <ifname>]"},
        {"nodes", 0, "[nodes]"},
    };
    for (const auto& s : kShapes) {
      if (kind != s.kind) continue;
      if (args.size() != s.nargs) {
        return error("section " + quote("[" + std::string(header) + "]") + " must be written " +
                     s.usage);
      }
      section_ok = check_section_args();
      return;
    }
    std::string known;
    for (const auto& s : kShapes) known += std::string(known.empty() ? "" : ", ") + s.kind;
    error("unknown section " + quote(kind) + " (known: " + known + ")");
  }

  bool check_section_args() {
    if (kind == "module") {
      auto name = parse_module_name(args[0], where, diag);
      if (!name) return false;
      module = *name;
    } else if (kind == "mlx4") {
      if (!parse_pci_address(args[0], where, diag)) return false;
    } else if (kind == "roce") {
      if (!parse_roce_target(args[0], where, diag)) return false;
    } else if (kind == "ipoib" || kind == "name" || kind == "address") {
      if (!(kind == "name" ? parse_new_ifname(args[0], where, diag)
                           : parse_ifname(args[0], where, diag))) {
        return false;
      }
    } else if (kind == "pkey") {
      auto parent = parse_ifname(args[0], where, diag);
      auto pkey = parse_pkey(args[1], where, diag);
      if (!parent || !pkey) return false;
      // The section alone asks for the child; its keys only refine it.
      auto& c = cfg.pkeys[{args[0], *pkey}];
      c.parent = args[0];
      c.pkey = *pkey;
      c.source = where;
    } else if (kind == "rxe" || kind == "siw") {
      if (!parse_ifname(args[0], where, diag)) return false;
      auto& l = cfg.soft_links[args[0]];
      l.kind = kind == "rxe" ? SoftKind::kRxe : SoftKind::kSiw;
      l.source = where;
    }
    return true;
  }

  void assignment(std::string_view key, std::string_view value) {
    if (!section_ok) return;  // the section header was already reported
    const std::string k(key);
    auto unknown = [&](const char* known) {
      error("unknown key " + quote(key) + " in [" + kind + "] (known: " + known + ")");
    };
    if (kind == "general") {
      if (k == "enabled")
        set_bool(cfg.enabled, key, value);
      else if (k == "required")
        set_bool(cfg.required, key, value);
      else if (k == "allow_reload")
        set_bool(cfg.allow_reload, key, value);
      else if (k == "timeout") {
        if (auto t = parse_timeout(value, where, diag)) cfg.timeout_s = {*t, where};
      } else if (k == "wait") {
        parse_wait_list(value, where, cfg, diag);
      } else
        unknown("enabled, required, allow_reload, timeout, wait");
    } else if (kind == "modules") {
      if (k == "load") {
        for (auto m : split_list(value))
          if (auto name = parse_module_name(m, where, diag)) add_module(cfg, *name, where);
      } else if (k == "blacklist") {
        for (auto m : split_list(value))
          if (auto name = parse_module_name(m, where, diag)) add_blacklist(cfg, *name, where);
      } else
        unknown("load, blacklist");
    } else if (kind == "module") {
      if (k == "options")
        cfg.module_options[module] = {std::string(value), where};
      else if (k == "load") {
        if (parse_bool(value, where, diag).value_or(false)) add_module(cfg, module, where);
      } else
        unknown("options, load");
    } else if (kind == "mlx4") {
      auto& m = cfg.mlx4[*PciAddress::parse(args[0])];
      if (k == "port1" || k == "port2") {
        auto t = parse_port_type(value, where, diag);
        if (!t) return;
        m.type[k == "port1" ? 0 : 1] = Sourced<PortType>{*t, where};
      } else if (k == "port1_mtu" || k == "port2_mtu") {
        if (auto mtu = parse_ib_mtu(value, where, diag))
          m.mtu[k == "port1_mtu" ? 0 : 1] = {*mtu, where};
      } else
        unknown("port1, port2, port1_mtu, port2_mtu");
    } else if (kind == "pfc") {
      if (k == "tx" || k == "rx") {
        if (auto v = parse_pfc_mask(value, k == "tx" ? PfcDirection::kTx : PfcDirection::kRx, where,
                                    diag)) {
          (k == "tx" ? cfg.pfc_tx : cfg.pfc_rx) = Sourced<unsigned>{*v, where};
        }
      } else
        unknown("tx, rx");
    } else if (kind == "roce") {
      auto target = parse_roce_target(args[0], where, diag);
      auto& r = cfg.roce[*target];
      if (k == "mode") {
        auto m = parse_roce_mode(value, where, diag);
        if (!m) return;
        r.mode = Sourced<RoceMode>{*m, where};
      } else if (k == "tos") {
        if (auto t = parse_tos(value, where, diag)) r.tos = Sourced<unsigned>{*t, where};
      } else
        unknown("mode, tos");
    } else if (kind == "ipoib") {
      auto& s = cfg.ipoib[args[0]];
      if (k == "mode") {
        auto m = parse_ipoib_mode(value, where, diag);
        if (!m) return;
        s.mode = Sourced<IpoibMode>{*m, where};
      } else if (k == "mtu") {
        if (auto mtu = parse_netdev_mtu(value, where, diag)) s.mtu = Sourced<unsigned>{*mtu, where};
      } else
        unknown("mode, mtu");
    } else if (kind == "pkey") {
      auto pkey = parse_pkey(args[1], where, diag);
      auto& c = cfg.pkeys[{args[0], *pkey}];
      c.parent = args[0];
      c.pkey = *pkey;
      if (c.source.empty()) c.source = where;
      if (k == "name") {
        if (auto name = parse_new_ifname(value, where, diag)) c.name = *name;
      } else if (k == "mode") {
        if (auto m = parse_ipoib_mode(value, where, diag)) c.mode = *m;
      } else
        unknown("name, mode");
    } else if (kind == "name") {
      if (k == "match") {
        if (auto hw = parse_hw_key(value, where, diag)) set_name(cfg, args[0], *hw, where, diag);
      } else
        unknown("match");
    } else if (kind == "rxe" || kind == "siw") {
      if (k == "name") {
        if (auto name = parse_rdma_name(value, where, diag)) cfg.soft_links[args[0]].name = *name;
      } else
        unknown("name");
    } else if (kind == "address") {
      if (k == "address") {
        if (auto prefix = parse_prefix(value, where, diag))
          cfg.addresses[args[0]].push_back({*prefix, where});
      } else if (k == "route") {
        auto r = parse_route(value, where, diag);
        if (r) cfg.routes[args[0]].push_back(*r);
      } else
        unknown("address, route");
    }
  }

  void node_row(std::string_view line) {
    auto fields = split_ws(line);
    auto key = parse_hw_key(fields[0], where, diag);
    if (!key) return;
    NodeEntry e;
    e.key = *key;
    e.source = where;
    for (size_t i = 1; i < fields.size(); ++i) {
      auto eq = fields[i].find('=');
      if (eq == std::string_view::npos) {
        error("node field " + quote(fields[i]) + " is not of the form key=value");
        continue;
      }
      auto k = fields[i].substr(0, eq), v = fields[i].substr(eq + 1);
      if (k == "name") {
        if (auto name = parse_new_ifname(v, where, diag)) e.name = *name;
      } else if (k == "address") {
        for (auto a : split_list(v))
          if (auto prefix = parse_prefix(a, where, diag)) e.addresses.push_back(*prefix);
      } else if (k == "pkeys") {
        for (auto p : split_list(v))
          if (auto pk = parse_pkey(p, where, diag)) e.pkeys.push_back(*pk);
      } else if (k == "mode") {
        if (auto m = parse_ipoib_mode(v, where, diag)) e.mode = m;
      } else if (k == "mtu") {
        if (auto mtu = parse_netdev_mtu(v, where, diag)) e.mtu = mtu;
      } else {
        error("unknown node field " + quote(k) + " (known: name, address, pkeys, mode, mtu)");
      }
    }
    auto& table = key->is_guid ? cfg.nodes_by_guid : cfg.nodes_by_mac;
    auto [it, inserted] = table.emplace(key->value, e);
    if (!inserted) {
      error("node " + key->str() + " is already listed at " + it->second.source);
    }
  }

  void set_bool(Sourced<bool>& out, std::string_view key, std::string_view value) {
    if (auto b = parse_bool(value, where, diag)) out = {*b, where};
  }
};

}  // namespace

void parse_native_conf(std::string_view text, const std::string& file, Config& cfg,
                       Diagnostics& diag) {
  Parser p{file, cfg, diag, "", "", {}, false, ""};
  size_t lineno = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++lineno;
    p.where = file + ":" + std::to_string(lineno);
    std::string_view line = trim(strip_comment(raw));
    if (line.empty()) continue;
    if (line.find('\0') != std::string_view::npos) {
      p.error("line contains a NUL byte");
      continue;
    }
    if (line.front() == '[') {
      if (line.back() != ']') {
        p.error("section header " + quote(line) + " is missing its closing ']'");
        p.section_ok = false;
        continue;
      }
      p.section(trim(line.substr(1, line.size() - 2)));
      continue;
    }
    if (p.kind.empty()) {
      p.error("setting " + quote(line) + " is outside of any [section]");
      continue;
    }
    if (p.kind == "nodes") {
      if (p.section_ok) p.node_row(line);
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      p.error("line " + quote(line) + " is not of the form key = value");
      continue;
    }
    auto key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key.empty()) {
      p.error("line " + quote(line) + " has no key before '='");
      continue;
    }
    if (value.empty()) {
      p.error("key " + quote(key) + " has no value");
      continue;
    }
    p.assignment(key, value);
  }
}

}  // namespace rp
