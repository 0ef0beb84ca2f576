// /etc/udev/rules.d/70-persistent-ipoib.rules: the NAME= rules rdma-core ships for
// IPoIB, read for the port GUID (or MAC) each one matches and the name it gives.
#include <cctype>
#include <cstdint>
#include <optional>
#include <vector>

#include "provision/base/strings.h"
#include "provision/base/types.h"
#include "provision/inputs/file_lines.h"
#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/record.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

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
std::optional<HwKey> address_key(const std::string& match, RuleType type, const Source& where,
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

// The rule's NAME=, when it is a fixed name we can give.
std::optional<std::string> udev_name(const std::string& name, const Source& where,
                                     Diagnostics& diag) {
  if (name.find_first_of("%$") != std::string::npos) {
    diag.error(where, "NAME " + shown(name) +
                          " uses udev substitutions ('%' or '$'); only fixed names are read here");
    return std::nullopt;
  }
  // A name udev refuses is one it skips, with its own warning (udev-event.c rename_netif
  // under the NAMING_REPLACE_STRICTLY naming schemes: "Invalid network interface name,
  // ignoring"): so does this reader, and the boot goes on.
  if (auto why = udev_refuses_ifname(name); !why.empty()) {
    diag.warn(where, "NAME " + shown(name) + " " + why +
                         "; udev ignores this rule's NAME=, "
                         "and so does rdma-provision");
    return std::nullopt;
  }
  // rdma-core's own example names ports ib0/ib1 and udev applies such a rule; the guides
  // call it "not recommended". A warning here, an error only in our own inputs.
  if (is_kernel_own_name(name)) {
    auto ok = parse_ifname(name, where, diag);
    if (ok) {
      diag.warn(where, "interface name " + shown(name) +
                           " is of the kernel's own form and may collide with an unrenamed "
                           "device (not recommended; kept as udev would apply it)");
    }
    return ok;
  }
  return parse_new_ifname(name, where, diag);
}

void udev_rule(std::string_view body, const Source& where, Config& cfg, Diagnostics& diag) {
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
  auto ifname = udev_name(name->value, where, diag);
  if (!key || !ifname) return;

  auto existing = cfg.names.find(*ifname);
  if (existing != cfg.names.end() && existing->second.value == *key &&
      existing->second.source.same_input(where)) {
    return diag.warn(
        where, "the same name for " + key->str() + " is already at " + existing->second.source);
  }
  set_name(cfg, *ifname, *key, where, diag);
}

}  // namespace

void parse_ipoib_rules(std::string_view text, const std::string& file, Config& cfg,
                       Diagnostics& diag) {
  for (const Line& line : udev_lines(text)) {
    std::string_view body = trim(line.text);
    if (body.empty() || body.front() == '#') continue;
    udev_rule(body, Source::at(Source::Origin::kUdevRules, file, line.number), cfg, diag);
  }
}

}  // namespace rp
