#include "provision/inputs/cmdline.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "provision/base/strings.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The token as written with control characters escaped, so every message stays one line.
std::string printable(std::string_view s) {
  std::string q = quote(s);
  return q.substr(1, q.size() - 2);
}

// One of our parameters being read: its text, its source and where the results go.
struct Arg {
  const CmdlineParam& param;
  const std::string& where;  // "cmdline: <token>"
  std::string_view form;     // what the value should look like, for messages
  Config& cfg;
  Diagnostics& diag;

  std::string_view value() const { return param.value; }
  void error(std::string what) const { diag.error(where, std::move(what)); }
  void warn(std::string what) const { diag.warn(where, std::move(what)); }
  void bad_form() const {
    error("value " + quote(param.value) + " is not of the form " + std::string(form));
  }
};

std::optional<bool> read_bool(const Arg& a) {
  auto b = parse_bool(a.value());
  if (!b) {
    a.error("value " + quote(a.value()) + " is not a boolean (1/0, yes/no, on/off, true/false)");
  }
  return b;
}

void read_enabled(const Arg& a) {
  if (!a.param.has_value) {  // "rd.rdma" alone, like dracut's getargbool
    a.cfg.enabled = {true, a.where};
  } else if (auto b = read_bool(a)) {
    a.cfg.enabled = {*b, a.where};
  }
}

void read_required(const Arg& a) {
  if (auto b = read_bool(a)) a.cfg.required = {*b, a.where};
}

void read_timeout(const Arg& a) {
  if (auto t = parse_timeout(a.value(), a.where, a.diag)) a.cfg.timeout_s = {*t, a.where};
}

void read_modules(const Arg& a) {
  auto list = split_list(a.value());
  if (list.empty()) return a.bad_form();  // only separators, e.g. ","
  for (auto m : list) {
    if (auto e = check_module_name(m); !e.empty())
      a.error(e);
    else
      add_module(a.cfg, normalize_module(m), a.where);
  }
}

void read_mlx4(const Arg& a) {
  auto slash = a.value().find('/');
  if (slash == std::string_view::npos) return a.bad_form();
  auto pci_text = a.value().substr(0, slash);
  auto types = split(a.value().substr(slash + 1), ',');
  auto pci = PciAddress::parse(pci_text);
  bool ok = pci.has_value();
  if (!pci) a.error("PCI address " + quote(pci_text) + " is not of the form DDDD:BB:DD.F");
  if (types.size() > 2) {
    return a.error(quote(a.value().substr(slash + 1)) + " gives " + std::to_string(types.size()) +
                   " port types; an mlx4 card has 2 ports");
  }
  std::optional<PortType> type[2];
  for (size_t i = 0; i < types.size(); ++i) {
    type[i] = parse_port_type(types[i]);
    if (!type[i]) {
      a.error("port type " + quote(types[i]) + " is not one of ib, eth, auto");
      ok = false;
    }
  }
  if (!ok) return;
  auto& card = a.cfg.mlx4[*pci];
  for (size_t i = 0; i < types.size(); ++i) card.type[i] = Sourced<PortType>{*type[i], a.where};
}

void read_pfc(const Arg& a) {
  auto masks = split(a.value(), '/');
  if (masks.size() > 2) return a.bad_form();
  auto tx = parse_pfc_mask(masks[0], "pfc tx", a.where, a.diag);
  auto rx = masks.size() == 2 ? parse_pfc_mask(masks[1], "pfc rx", a.where, a.diag) : tx;
  if (!tx || !rx) return;
  a.cfg.pfc_tx = Sourced<unsigned>{*tx, a.where};
  a.cfg.pfc_rx = Sourced<unsigned>{*rx, a.where};
}

std::string bad_hw_key(std::string_view s) {
  // The commonest mistake: a udev-style match on the whole IPoIB address.
  auto full = HwAddress::parse(s);
  if (full && full->len == 20) {
    return "address " + quote(s) +
           " is a whole 20-byte IPoIB address, whose first 12 bytes change between boots; "
           "give the port GUID (its last 8 bytes, " +
           full->ipoib_guid()->colon_bytes() + ")";
  }
  return "address " + quote(s) +
         " is neither a port GUID (0002:c903:0031:78f2) nor a MAC address (aa:bb:cc:dd:ee:ff)";
}

void read_name(const Arg& a) {
  // Split at the first ':' like dracut's ifname=: the rest is the address.
  auto colon = a.value().find(':');
  if (colon == std::string_view::npos) return a.bad_form();
  auto name = a.value().substr(0, colon);
  auto hw = a.value().substr(colon + 1);
  bool ok = true;
  if (auto e = check_ifname(name); !e.empty()) {
    a.error(e);
    ok = false;
  }
  auto key = HwKey::parse(hw);
  if (!key) {
    a.error(bad_hw_key(hw));
    ok = false;
  }
  if (ok) set_name(a.cfg, std::string(name), *key, a.where, a.diag);
}

void read_ipoib(const Arg& a) {
  auto f = split(a.value(), ':');
  if (f.size() < 2 || f.size() > 3) return a.bad_form();
  bool ok = true;
  if (auto e = check_ifname_syntax(f[0]); !e.empty()) {
    a.error(e);
    ok = false;
  }
  auto mode = parse_ipoib_mode(f[1]);
  if (!mode) {
    a.error("IPoIB mode " + quote(f[1]) + " is not one of datagram, connected");
    ok = false;
  }
  std::optional<unsigned> mtu;
  if (f.size() == 3) {
    mtu = parse_netdev_mtu(f[2], a.where, a.diag);
    ok = ok && mtu.has_value();
  }
  if (!ok) return;
  auto& s = a.cfg.ipoib[std::string(f[0])];
  s.mode = Sourced<IpoibMode>{*mode, a.where};
  if (mtu) s.mtu = Sourced<unsigned>{*mtu, a.where};
}

// Records a P_Key child; `name` empty keeps the name given earlier (or the default).
void add_pkey(const Arg& a, std::string_view parent, uint16_t pkey, const std::string& name) {
  const std::pair<std::string, uint16_t> id(parent, pkey);
  if (!name.empty()) {
    for (const auto& [other, child] : a.cfg.pkeys) {
      if (other != id && child.name == name) {
        return a.error("child name " + quote(name) + " is already used for " + child.parent +
                       " P_Key 0x" + hex(child.pkey, 4) + " at " + child.source);
      }
    }
  }
  auto& c = a.cfg.pkeys[id];
  c.parent = id.first;
  c.pkey = pkey;
  if (!name.empty()) c.name = name;
  c.source = a.where;
}

void read_pkey(const Arg& a) {
  auto f = split(a.value(), ':');
  if (f.size() < 2 || f.size() > 3) return a.bad_form();
  bool ok = true;
  if (auto e = check_ifname_syntax(f[0]); !e.empty()) {
    a.error(e);
    ok = false;
  }
  // Always hexadecimal, "0x" or not: admins and every tool write P_Keys in hex.
  auto pkey = parse_pkey(f[1], a.where, a.diag);
  ok = ok && pkey.has_value();
  if (f.size() == 3) {
    if (auto e = check_ifname(f[2]); !e.empty()) {
      a.error(e);
      ok = false;
    }
  }
  if (ok) add_pkey(a, f[0], *pkey, f.size() == 3 ? std::string(f[2]) : std::string());
}

// NetworkManager's form: ib.pkey=<parent>.<hex pkey>. As there, the parent ends at the
// first '.', the child is named exactly as written, and ':<options>' are ignored.
void read_nm_pkey(const Arg& a) {
  auto v = a.value();
  if (auto colon = v.find(':'); colon != std::string_view::npos) {
    a.warn("ignoring " + quote(v.substr(colon)) + ": only <parent>.<pkey> is read");
    v = v.substr(0, colon);
  }
  auto dot = v.find('.');
  if (dot == std::string_view::npos) return a.bad_form();
  auto parent = v.substr(0, dot);
  bool ok = true;
  if (auto e = check_ifname_syntax(parent); !e.empty()) {
    a.error(e);
    ok = false;
  }
  auto pkey = parse_pkey(v.substr(dot + 1), a.where, a.diag);
  ok = ok && pkey.has_value();
  if (ok) {
    if (auto e = check_ifname(v); !e.empty()) {
      a.error(e);
      ok = false;
    }
  }
  if (ok) add_pkey(a, parent, *pkey, std::string(v));
}

void read_roce(const Arg& a) {
  auto colon = a.value().find(':');
  if (colon == std::string_view::npos) return a.bad_form();
  auto f = split(a.value().substr(colon + 1), ':');
  if (f.size() > 2) return a.bad_form();
  auto target = parse_roce_target(a.value().substr(0, colon), a.where, a.diag);
  auto mode = parse_roce_mode(f[0]);
  if (!mode) a.error("RoCE mode " + quote(f[0]) + " is not one of v1, v2");
  std::optional<unsigned> tos;
  if (f.size() == 2 && !(tos = parse_tos(f[1], a.where, a.diag))) return;
  if (!target || !mode) return;
  auto& r = a.cfg.roce[*target];
  r.mode = Sourced<RoceMode>{*mode, a.where};
  if (tos) r.tos = Sourced<unsigned>{*tos, a.where};
}

void read_soft(const Arg& a, SoftKind kind) {
  auto f = split(a.value(), ':');
  if (f.size() > 2) return a.bad_form();
  bool ok = true;
  if (auto e = check_ifname_syntax(f[0]); !e.empty()) {
    a.error(e);
    ok = false;
  }
  std::string name;
  if (f.size() == 2) {
    if (auto e = check_rdma_name(f[1]); !e.empty()) {
      a.error(e);
      ok = false;
    }
    name = std::string(f[1]);
  }
  if (!ok) return;
  for (const auto& [netdev, link] : a.cfg.soft_links) {
    if (!name.empty() && netdev != f[0] && link.name == name) {
      return a.error("RDMA device name " + quote(name) + " is already asked for " + netdev +
                     " at " + link.source);
    }
  }
  auto& link = a.cfg.soft_links[std::string(f[0])];
  link.kind = kind;
  if (!name.empty()) link.name = name;
  link.source = a.where;
}

void read_rxe(const Arg& a) { read_soft(a, SoftKind::kRxe); }
void read_siw(const Arg& a) { read_soft(a, SoftKind::kSiw); }

void read_wait(const Arg& a) {
  // The command line's list replaces the files' list (rd.rdma.wait=none must win over a
  // file's "all"); several rd.rdma.wait parameters add up.
  auto& w = a.cfg.wait;
  w.erase(std::remove_if(
              w.begin(), w.end(),
              [](const Sourced<std::string>& s) { return source_file(s.source) != "cmdline"; }),
          w.end());
  parse_wait_list(a.value(), a.where, a.cfg, a.diag);
}

struct Known {
  std::string_view key;
  std::string_view form;
  void (*read)(const Arg&);
  bool bare_ok;  // may be given without '=' ("rd.rdma")
};

constexpr Known kKnown[] = {
    {"rd.rdma", "<boolean>", read_enabled, true},
    {"rd.rdma.modules", "<module>[,<module>...]", read_modules, false},
    {"rd.rdma.mlx4", "<pci>/<type1>[,<type2>]", read_mlx4, false},
    {"rd.rdma.mlx4.pfc", "<txmask>[/<rxmask>]", read_pfc, false},
    {"rd.rdma.name", "<ifname>:<guid|mac>", read_name, false},
    {"rd.rdma.ipoib", "<ifname>:<datagram|connected>[:<mtu>]", read_ipoib, false},
    {"rd.rdma.pkey", "<parent>:<pkey>[:<childname>]", read_pkey, false},
    {"rd.rdma.roce", "<ibdev|*>[/<port>]:<v1|v2>[:<tos>]", read_roce, false},
    {"rd.rdma.rxe", "<netdev>[:<name>]", read_rxe, false},
    {"rd.rdma.siw", "<netdev>[:<name>]", read_siw, false},
    {"rd.rdma.wait", "<all|none|<ibdev>/<port>|<ifname>>[,...]", read_wait, false},
    {"rd.rdma.timeout", "<seconds>", read_timeout, false},
    {"rd.rdma.required", "<boolean>", read_required, false},
    {"ib.pkey", "<parent>.<hex pkey>", read_nm_pkey, false},
};

// Levenshtein distance, or limit+1 once it is certainly above `limit`.
size_t distance(std::string_view s, std::string_view t, size_t limit) {
  if ((s.size() > t.size() ? s.size() - t.size() : t.size() - s.size()) > limit) return limit + 1;
  std::vector<size_t> prev(t.size() + 1);
  std::vector<size_t> cur(t.size() + 1);
  for (size_t j = 0; j <= t.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= s.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= t.size(); ++j) {
      size_t subst = prev[j - 1] + (s[i - 1] == t[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[t.size()];
}

// The closest of our rd.rdma keys within 2 edits, or "".
std::string_view closest_key(std::string_view key) {
  std::string_view best;
  size_t best_d = 3;
  for (const auto& k : kKnown) {
    if (!starts_with(k.key, "rd.rdma")) continue;
    size_t d = distance(key, k.key, 2);
    if (d < best_d) best = k.key, best_d = d;
  }
  return best;
}

void unknown_key(const CmdlineParam& p, const std::string& where, Diagnostics& diag) {
  std::string key = quote(p.key);
  if (p.key == "rd.rdma" || starts_with(p.key, "rd.rdma.")) {
    if (auto near = closest_key(p.key); !near.empty()) {
      return diag.error(where, "unknown parameter " + key + " (did you mean " + quote(near) + "?)");
    }
    std::string known;
    for (const auto& k : kKnown)
      known += std::string(known.empty() ? "" : ", ") + std::string(k.key);
    return diag.error(where, "unknown parameter " + key + " (known: " + known + ")");
  }
  // Other parameters belong to the kernel, dracut and friends. Only an rd.* near miss of
  // ours is worth a word (short keys like rd.dm are too close to everything to guess).
  if (starts_with(p.key, "rd.") && p.key.size() >= 7) {
    if (auto near = closest_key(p.key); !near.empty()) {
      diag.warn(where, "parameter " + key + " is not read by rdma-provision (did you mean " +
                           quote(near) + "?)");
    }
  }
}

}  // namespace

std::vector<CmdlineParam> split_cmdline(std::string_view text) {
  std::vector<CmdlineParam> out;
  size_t i = 0;
  for (;;) {
    while (i < text.size() && is_space(text[i])) ++i;
    if (i == text.size()) return out;
    CmdlineParam p;
    std::string unquoted;
    bool in_quote = false;
    const size_t begin = i;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == '"') {
        in_quote = !in_quote;
      } else if (!in_quote && is_space(c)) {
        break;
      } else {
        unquoted += c;
      }
    }
    p.raw = std::string(text.substr(begin, i - begin));
    p.unterminated_quote = in_quote;
    auto eq = unquoted.find('=');
    p.key = unquoted.substr(0, eq);
    if (eq != std::string::npos) {
      p.has_value = true;
      p.value = unquoted.substr(eq + 1);
    }
    out.push_back(std::move(p));
  }
}

void parse_cmdline(std::string_view text, Config& cfg, Diagnostics& diag) {
  for (const CmdlineParam& p : split_cmdline(text)) {
    const std::string where = "cmdline: " + printable(p.raw);
    if (p.unterminated_quote) {
      diag.warn(where,
                "the opening '\"' is never closed: this parameter runs to the end of "
                "the command line");
    }
    const Known* known = nullptr;
    for (const auto& k : kKnown)
      if (p.key == k.key) known = &k;
    if (!known) {
      unknown_key(p, where, diag);
      continue;
    }
    Arg a{p, where, known->form, cfg, diag};
    if (p.value.empty() && !(known->bare_ok && !p.has_value)) {
      a.error("missing value; expected " + std::string(known->key) + "=" +
              std::string(known->form));
      continue;
    }
    known->read(a);
  }
}

}  // namespace rp
