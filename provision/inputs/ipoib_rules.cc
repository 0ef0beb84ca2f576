// /etc/udev/rules.d/70-persistent-ipoib.rules: the NAME= rules rdma-core ships for IPoIB,
// read as systemd-udevd reads and applies them (src/udev/udev-rules.c, udev-event.c), for
// the port GUID (or MAC) each one names and the name udev gives it. udev's file, not ours:
// what udev skips is skipped here with a warning that names udev's function, never
// refused; what udev never matches on a network interface's "add" event renames nothing.
#include <fnmatch.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "provision/base/strings.h"
#include "provision/base/types.h"
#include "provision/inputs/file_lines.h"
#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/record.h"
#include "provision/inputs/text.h"
#include "provision/inputs/udev_rules.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

// The interface kinds a rule can be about, each with what udev sees on its "add" event.
struct Kind {
  const char* what;         // "IPoIB", "Ethernet"
  const char* type;         // ATTR{type}: ARPHRD_INFINIBAND 32, ARPHRD_ETHER 1
  const char* kernel_name;  // the kernel's name template: ipoib_main.c ipoib_add_one
                            // "ib%d"; alloc_etherdev "eth%d"
};
constexpr Kind kIpoib{"IPoIB", "32", "ib"};
constexpr Kind kEthernet{"Ethernet", "1", "eth"};

// What an ATTR{address}== alternative names, as udev compares it with the lower-case
// address sysfs shows (net-sysfs.c address_show: %*phC): a port GUID after "?*" or "*",
// a whole 20-byte address (its GUID used, said), a 6-byte MAC. nullopt with `why` when
// udev never matches it (`never`) or when it is a pattern this reader does not resolve to
// one port.
std::optional<HwKey> address_alternative(const std::string& alt, bool fold, const Kind*& kind,
                                         std::string& why, bool& never, std::string& note) {
  std::string v = fold ? to_lower(alt) : alt;
  never = false;
  if (v != to_lower(v)) {
    never = true;
    why =
        "has upper-case letters: udev compares case-sensitively with the lower-case sysfs "
        "address and never matches it (write it in lower case, or i\"...\")";
    return std::nullopt;
  }
  bool wildcard = true;
  if (starts_with(v, "?*")) {
    v.erase(0, 2);
  } else if (starts_with(v, "*")) {
    v.erase(0, 1);
  } else {
    wildcard = false;
  }
  std::optional<HwAddress> addr;
  if (v.find_first_of("*?[\\") == std::string::npos && v.size() <= 59 && v == trim(v))
    addr = HwAddress::parse(v);
  if (!addr && v.find_first_of("*?[\\") == std::string::npos) {
    never = true;
    why = "is not an address sysfs shows (hex bytes separated by ':'), so udev never matches it";
    return std::nullopt;
  }
  if (addr && wildcard && addr->len == 8) {
    uint64_t g = 0;
    for (size_t i = 0; i < 8; ++i) g = (g << 8) | addr->bytes[i];
    kind = &kIpoib;
    return HwKey::of_guid(PortGuid{g});
  }
  if (addr && !wildcard && addr->len == 20) {
    PortGuid g = *addr->ipoib_guid();
    note = shown(alt) +
           " is a full 20-byte IPoIB address: its first 12 bytes (QPN, subnet prefix) change, "
           "which breaks the match; only the port GUID " +
           g.str() + " is used (write ATTR{address}==\"?*" + g.colon_bytes() + "\")";
    kind = &kIpoib;
    return HwKey::of_guid(g);
  }
  if (addr && wildcard && addr->len == 6) {
    never = true;
    why =
        "puts '?*' before a 6-byte MAC: the MAC sysfs shows has nothing before it, so udev "
        "never matches an Ethernet interface with it (drop the '?*')";
    return std::nullopt;
  }
  if (addr && !wildcard && addr->len == 6) {
    kind = &kEthernet;
    return HwKey::of_mac(*addr->mac());
  }
  if (addr && !wildcard) {
    never = true;
    why = "has " + std::to_string(addr->len) +
          " bytes and no leading '?*': an IPoIB address has 20, a MAC 6, so udev never "
          "matches it (write '?*' and the 8 bytes of the port GUID)";
    return std::nullopt;
  }
  why =
      "is a pattern that does not name one port GUID ('?*' and 8 bytes) or one address; "
      "udev applies it to whatever matches, this reader does not resolve it";
  return std::nullopt;
}

// One NAME= of the file, per port: udev's last assignment wins, NAME:= is final.
struct Assigned {
  std::string name;
  bool final = false;
  Source source;
};

class RuleReader {
 public:
  explicit RuleReader(Diagnostics& diag) : diag_(diag) {}

  void rule(std::string_view body, const Source& where) {
    std::vector<UdevKey> keys;
    std::string why;
    if (!read_udev_rule(body, keys, why)) return skip(where, why, "parse_line");
    for (auto& k : keys) {
      std::string note;
      if (auto err = udev_token_error(k, note); !err.empty())
        return skip(where, err, "parse_token");
      if (!note.empty()) diag_.warn(where, note + " (udev's parse_token says the same)");
    }
    const UdevKey* address = nullptr;
    const UdevKey* name = nullptr;
    for (const auto& k : keys) {
      if (k.key == "ATTR" && k.attr == "address" && k.op == "==") address = &k;
      if (k.key == "NAME" && (k.op == "=" || k.op == ":=")) name = &k;
    }
    if (!name) return diag_.warn(where, "rule has no NAME= assignment; ignored");
    if (!address) {
      return diag_.warn(where, "rule for NAME " + shown(name->value) +
                                   " has no ATTR{address}== match; ignored (names are read "
                                   "here by address only)");
    }
    const Kind* kind = nullptr;
    std::optional<HwKey> key;
    std::string alt_note;
    for (auto alt : split(address->value, '|')) {
      if (alt.empty()) continue;
      bool never = false;
      const Kind* k = nullptr;
      std::string alt_why, n;
      auto got = address_alternative(std::string(alt), address->fold, k, alt_why, never, n);
      if (!got) {
        diag_.warn(where, "ATTR{address} match " + shown(alt) + " " + alt_why +
                              "; this alternative renames nothing here");
        continue;
      }
      if (key) {
        diag_.warn(where, "ATTR{address} alternative " + shown(alt) +
                              " names a second port; only the first, " + key->str() +
                              ", is named here");
        continue;
      }
      key = got;
      kind = k;
      alt_note = n;
    }
    if (!key) return;
    if (!alt_note.empty()) diag_.warn(where, "ATTR{address} match " + alt_note);
    if (!this_event_matches(keys, *kind, *key, where)) return;
    give(*name, *key, where);
  }

  // The names, into the configuration: per port the last assignment, in file order.
  void finish(Config& cfg) {
    for (const auto& key : order_) {
      const Assigned& a = assigned_.at(key);
      set_name(cfg, a.name, key, a.source, diag_);
    }
  }

 private:
  void skip(const Source& where, const std::string& why, const char* udev_fn) {
    diag_.warn(where, why + ": udev ignores this rule (udev-rules.c " + std::string(udev_fn) +
                          "), and so does rdma-provision");
  }

  // Whether the other matches hold on the "add" event of the interface `key` names
  // (udev_rule_apply_line_to_event; the rename itself happens on "add" only, udev-event.c
  // udev_event_execute_rules). Said, and false, when udev never matches them there.
  bool this_event_matches(const std::vector<UdevKey>& keys, const Kind& kind, const HwKey& key,
                          const Source& where) {
    std::string unchecked;
    for (const auto& k : keys) {
      if (k.op != "==" && k.op != "!=") continue;
      std::string seen;
      if (k.key == "ACTION") {
        seen = "add";
      } else if (k.key == "SUBSYSTEM") {
        seen = "net";
      } else if (k.key == "ATTR" && k.attr == "type") {
        seen = kind.type;
      } else if (k.key == "NAME") {
        auto it = assigned_.find(key);
        seen = it == assigned_.end() ? "" : it->second.name;
      } else if (k.key == "KERNEL") {
        // The kernel's name on "add": <template><N>, N in order of registration.
        int hits = 0;
        for (int n = 0; n < 32; ++n)
          hits += udev_matches(k, kind.kernel_name + std::to_string(n)) ? 1 : 0;
        if (hits == 0) {
          return never(where, k,
                       "the kernel names an " + std::string(kind.what) + " interface " +
                           kind.kernel_name + "<N>");
        }
        if (hits < 32) {
          diag_.warn(where, k.pair() +
                                ": udev gives the name only when the kernel named the port "
                                "so, which depends on the order the ports registered; here "
                                "the address alone decides");
        }
        continue;
      } else if (k.key == "ATTR" && k.attr == "address") {
        continue;
      } else if (k.key == "DRIVERS" && (k.value == "?*" || k.value == "*") && k.op == "==") {
        continue;  // the HCA's PCI function above the interface has a driver
      } else {
        unchecked += (unchecked.empty() ? "" : ", ") + k.pair();
        continue;
      }
      if (!udev_matches(k, seen)) {
        return never(
            where, k,
            std::string("on the ") + kind.what + " interface's add event it is " + quote(seen));
      }
    }
    if (!unchecked.empty()) {
      diag_.warn(where, "not checked here (the address decides): " + unchecked);
    }
    return true;
  }

  bool never(const Source& where, const UdevKey& k, const std::string& seen) {
    diag_.warn(where, k.pair() + " never matches (" + seen +
                          "): udev renames nothing with this rule, and neither does "
                          "rdma-provision");
    return false;
  }

  // TK_A_NAME: a name made of the characters udev keeps (udev_replace_ifname turns any
  // other into '_'), then given only when rename_netif takes it (ifname_valid).
  void give(const UdevKey& k, const HwKey& key, const Source& where) {
    if (k.value.find_first_of("%$") != std::string::npos) {
      return diag_.warn(where, "NAME " + shown(k.value) +
                                   " uses udev substitutions ('%' or '$'), which are not "
                                   "evaluated here; this rule names nothing here");
    }
    auto it = assigned_.find(key);
    if (it != assigned_.end() && it->second.final) {
      return diag_.warn(where, "NAME for " + key.str() + " was given with ':=' at " +
                                   it->second.source.str() +
                                   ", which is final: udev ignores this one, and so does "
                                   "rdma-provision");
    }
    std::string name = k.value;
    for (char& c : name) {
      const auto u = static_cast<unsigned char>(c);
      if (u <= 32 || u >= 127 || c == ':' || c == '/') c = '_';
    }
    if (name != k.value) {
      diag_.warn(where, "NAME " + shown(k.value) + " becomes " + shown(name) +
                            ": udev replaces each character an interface name cannot have "
                            "with '_' (udev_replace_ifname)");
    }
    if (auto why = udev_refuses_ifname(name); !why.empty()) {
      return diag_.warn(where, "NAME " + shown(name) + " " + why +
                                   "; udev ignores this rule's NAME= (rename_netif), and so "
                                   "does rdma-provision");
    }
    Diagnostics local;
    auto ok = is_kernel_own_name(name) ? parse_ifname(name, where, local)
                                       : parse_new_ifname(name, where, local);
    if (!ok) {
      for (const auto& e : local.errors) diag_.warn(e.where, e.what + "; not given here");
      return;
    }
    // rdma-core's own example names ports ib0/ib1 and udev applies such a rule; the guides
    // call it "not recommended". A warning here, an error only in our own inputs.
    if (is_kernel_own_name(name)) {
      diag_.warn(where, "interface name " + shown(name) +
                            " is of the kernel's own form and may collide with an unrenamed "
                            "device (not recommended; kept as udev would apply it)");
    }
    for (const auto& [other, a] : assigned_) {
      if (!(other == key) && a.name == name) {
        return diag_.warn(where, "name " + quote(name) + " is already given to " + other.str() +
                                     " at " + a.source.str() +
                                     ": where both are present, the one udev handles second "
                                     "keeps its kernel name (rename_netif: File exists); "
                                     "only the first is named here");
      }
    }
    if (it == assigned_.end()) {
      order_.push_back(key);
    } else if (it->second.name != name) {
      diag_.warn(where, "a second NAME for " + key.str() + " (" + quote(it->second.name) + " at " +
                            it->second.source.str() + "): udev's last assignment wins, " +
                            quote(name));
    }
    assigned_[key] = Assigned{name, k.op == ":=", where};
  }

  Diagnostics& diag_;
  std::map<HwKey, Assigned> assigned_;
  std::vector<HwKey> order_;
};

}  // namespace

void parse_ipoib_rules(std::string_view text, const std::string& file, Config& cfg,
                       Diagnostics& diag) {
  RuleReader reader(diag);
  for (const Line& line : udev_lines(text, file, diag))
    reader.rule(trim(line.text), Source::at(Source::Origin::kUdevRules, file, line.number));
  reader.finish(cfg);
}

}  // namespace rp
