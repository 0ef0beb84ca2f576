#include "provision/inputs/rdma_core_files.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "provision/base/strings.h"
#include "provision/base/types.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

constexpr std::string_view kMlx4Usage = " (expected <pci address> <port1 type> [<port2 type>])";

std::string at(const std::string& file, size_t line) { return file + ":" + std::to_string(line); }

// quote(), cut short: one absurd line must not turn into an absurd message.
constexpr size_t kShownMax = 64;
std::string shown(std::string_view s) {
  if (s.size() <= kShownMax) return quote(s);
  return quote(s.substr(0, kShownMax)) + "... (" + std::to_string(s.size()) + " bytes)";
}

// A logical line: continuations joined, numbered by its first physical line.
struct Line {
  size_t number = 0;
  std::string text;
};

// Calls f(number, line) for each physical line; the '\r' of CRLF files is dropped.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  size_t number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(++number, line);
    pos = end + 1;
  }
}

// check_module_name(), with the message kept short for absurdly long words.
std::string module_name_problem(std::string_view name) {
  if (name.size() > kShownMax) return "module name " + shown(name) + " is longer than 55 bytes";
  return check_module_name(name);
}

// ---------------------------------------------------------------------------------------
// /etc/rdma/mlx4.conf

void mlx4_line(std::string_view line, const std::string& where,
               std::map<PciAddress, std::string>& seen, Config& cfg, Diagnostics& diag) {
  auto fields = split_ws(strip_comment(line));
  if (fields.empty()) return;
  const size_t errors_before = diag.errors.size();

  auto pci = PciAddress::parse(fields[0]);
  if (!pci) {
    diag.error(where, "PCI address " + shown(fields[0]) + " is not of the form DDDD:BB:DD.F");
  }
  if (fields.size() == 1) {
    diag.error(where, "no port type after " + shown(fields[0]) + std::string(kMlx4Usage));
  }
  if (fields.size() > 3) {
    diag.error(where, "too many fields: " + shown(fields[3]) + " after the port 2 type" +
                          std::string(kMlx4Usage));
  }
  std::optional<PortType> types[2];
  for (size_t i = 1; i < fields.size() && i <= 2; ++i) {
    types[i - 1] = parse_port_type(fields[i]);
    if (!types[i - 1]) {
      diag.error(where, "port type " + shown(fields[i]) + " is not one of ib, eth, auto");
    }
  }
  if (pci) {
    auto [first, fresh] = seen.emplace(*pci, where);
    if (!fresh) {
      diag.error(where, "PCI address " + shown(fields[0]) + " is already set at " + first->second);
    }
  }
  if (diag.errors.size() != errors_before) return;

  Mlx4Setting& card = cfg.mlx4[*pci];
  for (int i = 0; i < 2; ++i) {
    if (types[i]) card.type[i] = Sourced<PortType>{*types[i], where};
  }
  if (types[0] == PortType::kEth && types[1] == PortType::kIb) {
    diag.warn(where,
              "port 1 eth with port 2 ib: older kernels and HCAs without per-port types "
              "refuse this pair (rdma-core's mlx4-setup.sh refuses it too)");
  }
}

// ---------------------------------------------------------------------------------------
// /etc/modprobe.d/*.conf

// Logical lines as libkmod reads them: a backslash before the newline joins the next
// physical line; a backslash before any other character stands for that character. Unlike
// libkmod, CRLF line ends are taken as line ends. Empty lines are left out.
std::vector<Line> modprobe_lines(std::string_view text) {
  auto newline_at = [&](size_t i) -> size_t {
    if (i < text.size() && text[i] == '\n') return 1;
    if (i + 1 < text.size() && text[i] == '\r' && text[i + 1] == '\n') return 2;
    return 0;
  };
  std::vector<Line> out;
  size_t physical = 1;
  Line cur{1, {}};
  for (size_t i = 0; i < text.size(); ++i) {
    if (size_t nl = newline_at(i)) {
      if (!cur.text.empty()) out.push_back(std::move(cur));
      cur = Line{++physical, {}};
      i += nl - 1;
    } else if (text[i] == '\\') {
      if (size_t nl2 = newline_at(i + 1)) {
        ++physical;
        i += nl2;
      } else if (i + 1 < text.size()) {
        cur.text += text[++i];
      }  // else: a backslash at the very end escapes nothing
    } else {
      cur.text += text[i];
    }
  }
  if (!cur.text.empty()) out.push_back(std::move(cur));
  return out;
}

// Next word of a modprobe line: libkmod splits at spaces and tabs only.
std::string_view next_word(std::string_view& rest) {
  size_t b = rest.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(b);
  size_t e = std::min(rest.find_first_of(" \t"), rest.size());
  std::string_view word = rest.substr(0, e);
  rest.remove_prefix(e);
  return word;
}

// One module parameter as the kernel splits them (kernel/params.c, next_arg): at
// whitespace outside double quotes; quotes around the value are not part of it.
struct ModuleParam {
  std::string_view text;  // the whole "key=value" as written
  std::string_view key;
  std::optional<std::string_view> value;
};

std::vector<ModuleParam> module_params(std::string_view s) {
  std::vector<ModuleParam> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i == s.size()) break;
    const size_t start = i;
    bool in_quote = false;
    size_t equals = std::string_view::npos;
    for (; i < s.size(); ++i) {
      if (!in_quote && std::isspace(static_cast<unsigned char>(s[i]))) break;
      if (equals == std::string_view::npos && s[i] == '=') equals = i;
      if (s[i] == '"') in_quote = !in_quote;
    }
    ModuleParam p;
    p.text = s.substr(start, i - start);
    std::string_view body = p.text;
    if (!body.empty() && body.front() == '"') body.remove_prefix(1);
    if (equals == std::string_view::npos) {
      p.key = body;
    } else {
      size_t eq = equals - static_cast<size_t>(body.data() - s.data());
      p.key = body.substr(0, eq);
      std::string_view v = body.substr(eq + 1);
      if (!v.empty() && v.front() == '"') v.remove_prefix(1);
      if (!v.empty() && v.back() == '"') v.remove_suffix(1);
      p.value = v;
    }
    out.push_back(p);
  }
  return out;
}

// mlx4_en pfctx/pfcrx as the kernel reads them (kstrtouint, base 0): decimal, 0x hex, and
// octal when written with a leading zero.
std::optional<unsigned> pfc_value(std::string_view key, std::optional<std::string_view> value,
                                  const std::string& where, Diagnostics& diag) {
  const std::string what(key);
  if (!value) {
    diag.error(where, what + " has no value (write " + what + "=0x08 for priority 3)");
    return std::nullopt;
  }
  std::string_view s = *value;
  if (s.size() > 1 && s[0] == '0' && s[1] != 'x' && s[1] != 'X') {
    if (s.size() > kShownMax || s.find_first_not_of("01234567") != std::string_view::npos) {
      diag.error(where, what + " " + shown(s) +
                            " is not a number: with a leading zero the kernel reads octal");
      return std::nullopt;
    }
    uint64_t v = 0;
    for (char c : s) v = std::min<uint64_t>(v * 8 + static_cast<uint64_t>(c - '0'), 0x1000);
    if (v > 0xff) {
      diag.error(where, what + " " + quote(s) + " is out of range 0..0xff");
      return std::nullopt;
    }
    if (v >= 8) {
      diag.warn(where, what + " " + quote(s) +
                           " has a leading zero: the kernel reads it as octal, 0x" + hex(v, 2));
    }
    return static_cast<unsigned>(v);
  }
  if (s.size() > kShownMax) {
    diag.error(where, what + " " + shown(s) + " is not a number (a priority bitmask, e.g. 0x08)");
    return std::nullopt;
  }
  return parse_pfc_mask(s, what, where, diag);
}

void modprobe_options(std::string_view rest, const std::string& where, Config& cfg,
                      Diagnostics& diag) {
  std::string_view module = next_word(rest);
  if (module.empty()) {
    return diag.warn(where, "'options' without a module name; modprobe ignores this line");
  }
  if (auto e = module_name_problem(module); !e.empty()) return diag.error(where, e);
  const std::string name = normalize_module(module);

  std::string_view options = trim(rest);
  auto params = module_params(options);
  for (const auto& p : params) {
    if (p.text.front() != '#') continue;
    // libkmod has comments only at the start of a line: it would hand the rest to the
    // module, and the kernel ignores unknown parameters.
    size_t cut = static_cast<size_t>(p.text.data() - options.data());
    diag.warn(where, "'#' starts a comment only at the start of a line; modprobe passes " +
                         shown(options.substr(cut)) + " to " + quote(name) +
                         ", which ignores it; dropped here");
    options = trim(options.substr(0, cut));
    params = module_params(options);
    break;
  }
  if (options.empty()) {
    if (!starts_with(trim(rest), "#")) {
      diag.warn(where,
                "'options' for " + quote(name) + " has no parameters; modprobe ignores this line");
    }
    return;
  }

  auto [it, fresh] = cfg.module_options.emplace(name, Sourced<std::string>{});
  Sourced<std::string>& slot = it->second;
  if (fresh) {
    slot = {std::string(options), where};
  } else {
    // modprobe passes the options of every line naming the module, in order.
    slot.value += " " + std::string(options);
    slot.source += ", " + where;
  }

  if (name != "mlx4_en") return;
  for (const auto& p : params) {
    if (p.key != "pfctx" && p.key != "pfcrx") continue;
    if (auto v = pfc_value(p.key, p.value, where, diag)) {
      (p.key == "pfctx" ? cfg.pfc_tx : cfg.pfc_rx) = Sourced<unsigned>{*v, where};
    }
  }
}

void modprobe_blacklist(std::string_view rest, const std::string& where, Config& cfg,
                        Diagnostics& diag) {
  std::string_view module = next_word(rest);
  if (module.empty()) {
    return diag.warn(where, "'blacklist' without a module name; modprobe ignores this line");
  }
  if (auto e = module_name_problem(module); !e.empty()) return diag.error(where, e);
  if (!trim(rest).empty()) {
    diag.warn(where, "text after the module name is ignored: " + shown(trim(rest)));
  }
  add_blacklist(cfg, normalize_module(module), where);
}

// ---------------------------------------------------------------------------------------
// /etc/udev/rules.d/70-persistent-ipoib.rules

// Logical lines of a udev rules file: a trailing backslash continues on the next line.
std::vector<Line> udev_lines(std::string_view text) {
  std::vector<Line> out;
  bool continuing = false;
  for_each_line(text, [&](size_t n, std::string_view line) {
    if (!continuing) out.push_back(Line{n, {}});
    continuing = !line.empty() && line.back() == '\\';
    if (continuing) line.remove_suffix(1);
    out.back().text += line;
  });
  return out;
}

struct UdevKey {
  std::string key;  // "NAME", "ATTR{address}"
  std::string op;   // ==, !=, =, +=, -=, :=
  std::string value;
};

// Reads `KEY[{attr}] <op> "value"` pairs separated by commas. On a syntax error returns
// false with the reason in `why`.
bool read_udev_rule(std::string_view s, std::vector<UdevKey>& out, std::string& why) {
  size_t i = 0;
  auto skip = [&](std::string_view set) {
    while (i < s.size() && set.find(s[i]) != std::string_view::npos) ++i;
  };
  auto fail = [&](size_t from, const char* reason) {
    why = "cannot read the rule at " + shown(s.substr(from)) + ": " + reason;
    return false;
  };
  for (;;) {
    skip(" \t,");
    if (i == s.size()) return true;
    const size_t start = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    if (i == start) return fail(start, "expected a key such as NAME or ATTR{address}");
    UdevKey k;
    k.key = std::string(s.substr(start, i - start));
    if (i < s.size() && s[i] == '{') {
      size_t close = s.find('}', i);
      if (close == std::string_view::npos) return fail(start, "'{' has no closing '}'");
      k.key += s.substr(i, close + 1 - i);
      i = close + 1;
    }
    skip(" \t");
    for (const char* op : {"==", "!=", "+=", "-=", ":=", "="}) {
      std::string_view o(op);
      if (s.substr(i, o.size()) == o) {
        k.op = std::string(o);
        i += o.size();
        break;
      }
    }
    if (k.op.empty()) return fail(start, "expected an operator (==, !=, =, +=, -=, :=)");
    skip(" \t");
    // e"..." (newer udev): C escapes inside; the prefix does not change what we read.
    if (i + 1 < s.size() && s[i] == 'e' && s[i + 1] == '"') ++i;
    if (i == s.size() || s[i] != '"') return fail(start, "expected a value in double quotes");
    ++i;
    bool closed = false;
    while (i < s.size()) {
      char c = s[i++];
      if (c == '"') {
        closed = true;
        break;
      }
      if (c == '\\' && i < s.size() && (s[i] == '"' || s[i] == '\\')) c = s[i++];
      k.value += c;
    }
    if (!closed) return fail(start, "the value has no closing '\"'");
    out.push_back(std::move(k));
  }
}

// The link type a rule asks for with ATTR{type}; kAny: not said, the address length tells.
enum class RuleType { kAny, kIpoib, kEthernet };

// What the rule's ATTR{address} match names, or nullopt (reported) when it names nothing
// stable.
std::optional<HwKey> address_key(const std::string& match, RuleType type, const std::string& where,
                                 Diagnostics& diag) {
  std::string_view v = match;
  bool wildcard = true;
  if (starts_with(v, "?*")) {
    v.remove_prefix(2);
  } else if (starts_with(v, "*")) {
    v.remove_prefix(1);
  } else {
    wildcard = false;
  }
  // 20 bytes: 59 characters; anything longer is not an address.
  std::optional<HwAddress> addr;
  if (v.size() <= 59 && v == trim(v)) addr = HwAddress::parse(v);
  if (!addr) {
    diag.error(where, "ATTR{address} match " + shown(match) +
                          " is not a port GUID or MAC address (only a leading '?*' wildcard is "
                          "understood)");
    return std::nullopt;
  }
  if (v != to_lower(v)) {
    diag.warn(where, "ATTR{address} match " + quote(match) +
                         " has upper-case letters: udev compares case-sensitively with the "
                         "lower-case sysfs address and never matched this rule");
  }
  if (type == RuleType::kEthernet || (type == RuleType::kAny && addr->len == 6)) {
    if (addr->len != 6) {
      diag.error(where, "Ethernet (type 1) address match " + quote(match) + " has " +
                            std::to_string(addr->len) + " bytes; a MAC address has 6");
      return std::nullopt;
    }
    return HwKey::of_mac(*addr->mac());
  }
  if (addr->len == 20) {
    PortGuid g = *addr->ipoib_guid();
    diag.warn(where, "ATTR{address} match " + quote(match) +
                         " is a full 20-byte IPoIB address: its first 12 bytes (QPN, subnet "
                         "prefix) change, which breaks the match; only the port GUID " +
                         g.str() + " is used (write ATTR{address}==\"?*" + g.colon_bytes() + "\")");
    return HwKey::of_guid(g);
  }
  if (addr->len == 8) {
    uint64_t g = 0;
    for (size_t i = 0; i < 8; ++i) g = (g << 8) | addr->bytes[i];
    if (!wildcard) {
      diag.warn(where, "ATTR{address} match " + quote(match) +
                           " has no leading '?*': udev compares it with the whole 20-byte "
                           "address and never matched this rule; the port GUID is used");
    }
    return HwKey::of_guid(PortGuid{g});
  }
  const std::string bytes = " has " + std::to_string(addr->len) + " bytes; expected ";
  if (type == RuleType::kIpoib) {
    diag.error(where, "IPoIB (type 32) address match " + quote(match) + bytes +
                          "'?*' and the 8 bytes of the port GUID");
  } else {
    diag.error(where, "ATTR{address} match " + quote(match) + bytes +
                          "'?*' and the 8 bytes of a port GUID, or a 6-byte MAC address");
  }
  return std::nullopt;
}

std::string udev_name_problem(const std::string& name) {
  if (name.find_first_of("%$") != std::string::npos) {
    return "NAME " + shown(name) +
           " uses udev substitutions ('%' or '$'); only fixed names are read here";
  }
  if (name.size() > kShownMax) return "interface name " + shown(name) + " is longer than 15 bytes";
  return check_ifname(name);
}

void udev_rule(std::string_view body, const std::string& where, Config& cfg, Diagnostics& diag) {
  std::vector<UdevKey> keys;
  std::string why;
  if (!read_udev_rule(body, keys, why)) return diag.error(where, why);

  const UdevKey *address = nullptr, *type = nullptr, *name = nullptr, *subsystem = nullptr;
  std::string unused;
  for (const auto& k : keys) {
    if (k.key == "ATTR{address}" && k.op == "==") {
      address = &k;
    } else if (k.key == "ATTR{type}" && k.op == "==") {
      type = &k;
    } else if (k.key == "NAME" && (k.op == "=" || k.op == ":=")) {
      name = &k;
    } else if (k.key == "SUBSYSTEM" && k.op == "==") {
      subsystem = &k;
    } else if (k.key != "ACTION" && k.key != "DRIVERS" && k.key != "KERNEL") {
      unused += (unused.empty() ? "" : ", ") + k.key + k.op;
    }
  }
  if (!name) return diag.warn(where, "rule has no NAME= assignment; ignored");
  if (!address) {
    return diag.warn(where, "rule for NAME " + shown(name->value) +
                                " has no ATTR{address}== match; ignored (names are read here by "
                                "address only)");
  }
  if (subsystem && subsystem->value != "net") {
    return diag.warn(where, "rule for SUBSYSTEM " + shown(subsystem->value) +
                                " is not about network interfaces; ignored");
  }
  RuleType rule_type = RuleType::kAny;
  if (type && type->value == "32") {
    rule_type = RuleType::kIpoib;
  } else if (type && type->value == "1") {
    rule_type = RuleType::kEthernet;
  } else if (type) {
    return diag.warn(where, "ATTR{type} " + shown(type->value) +
                                " is neither 32 (IPoIB) nor 1 (Ethernet); rule ignored");
  }
  if (!unused.empty()) {
    diag.warn(where, "only ATTR{address} decides which device gets " + shown(name->value) +
                         "; not used here: " + shown(unused));
  }

  auto key = address_key(address->value, rule_type, where, diag);
  std::string problem = udev_name_problem(name->value);
  if (!problem.empty()) diag.error(where, problem);
  if (!key || !problem.empty()) return;

  auto existing = cfg.names.find(name->value);
  if (existing != cfg.names.end() && existing->second.value == *key &&
      source_file(existing->second.source) == source_file(where)) {
    return diag.warn(
        where, "the same name for " + key->str() + " is already at " + existing->second.source);
  }
  set_name(cfg, name->value, *key, where, diag);
}

}  // namespace

void parse_mlx4_conf(std::string_view text, const std::string& file, Config& cfg,
                     Diagnostics& diag) {
  std::map<PciAddress, std::string> seen;  // card -> "file:line" that set it
  for_each_line(text, [&](size_t n, std::string_view line) {
    mlx4_line(line, at(file, n), seen, cfg, diag);
  });
}

void parse_modules_conf(std::string_view text, const std::string& file, Config& cfg,
                        Diagnostics& diag) {
  for_each_line(text, [&](size_t n, std::string_view line) {
    std::string_view name = trim(strip_comment(line));
    // systemd-modules-load also takes ';' as a comment at the start of a line.
    if (name.empty() || name.front() == ';') return;
    const std::string where = at(file, n);
    if (name.size() <= kShownMax && name.find_first_of(" \t\v\f\r") != std::string_view::npos) {
      return diag.error(
          where, "module name " + quote(name) + " contains a space: write one module per line");
    }
    if (auto e = module_name_problem(name); !e.empty()) return diag.error(where, e);
    add_module(cfg, normalize_module(name), where);
  });
}

void parse_modprobe_conf(std::string_view text, const std::string& file, Config& cfg,
                         Diagnostics& diag) {
  for (const Line& line : modprobe_lines(text)) {
    std::string_view rest = line.text;
    std::string_view directive = next_word(rest);
    if (directive.empty() || directive.front() == '#') continue;
    const std::string where = at(file, line.number);
    if (directive == "options") {
      modprobe_options(rest, where, cfg, diag);
    } else if (directive == "blacklist") {
      modprobe_blacklist(rest, where, cfg, diag);
    } else if (directive == "install" || directive == "remove" || directive == "softdep" ||
               directive == "alias") {
      // modprobe's own business: commands, soft dependencies and aliases.
    } else if (directive == "include" || directive == "config") {
      diag.warn(where, quote(directive) + " is no longer supported by modprobe; line ignored");
    } else {
      diag.warn(where, "unknown directive " + shown(directive) + "; modprobe ignores this line");
    }
  }
}

void parse_ipoib_rules(std::string_view text, const std::string& file, Config& cfg,
                       Diagnostics& diag) {
  for (const Line& line : udev_lines(text)) {
    std::string_view body = trim(line.text);
    if (body.empty() || body.front() == '#') continue;
    udev_rule(body, at(file, line.number), cfg, diag);
  }
}

}  // namespace rp
