// systemd .link files, as udev's net_setup_link builtin reads and applies them
// (src/udev/net/link-config.c link_config_load, link_load_one, link_get_config,
// link_generate_new_name; the ini grammar of src/shared/conf-parser.c config_parse), for
// the names they give IPoIB and Ethernet ports by address. RHEL 9 and 10 name IPoIB
// interfaces with such files. udev's file, not ours: what it drops is dropped here with a
// warning; a file that would not name the port names nothing here either.
#include <arpa/inet.h>
#include <fnmatch.h>

#include <algorithm>
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

// One pattern of a [Match] list; a '!' before a line's value negates all its words
// (net-condition.c net_condition_test_strv).
struct Pattern {
  std::string glob;
  bool negated = false;
};

struct Address {
  std::vector<uint8_t> bytes;  // 6 or 20 (4 or 16: an IP address form, never an interface's)
  Source where;
};

struct LinkFile {
  std::string path;
  std::vector<Address> macs;  // MACAddress= (PermanentMACAddress= is not checked here)
  std::vector<Pattern> original_name, type;
  std::vector<std::string> unchecked;  // the other [Match] keys given: "Driver=", ...
  std::optional<Sourced<std::string>> name;
  std::string name_policy;
};

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

// ether-addr-util.c parse_hw_addr_full with no expected length: an IPv4 or IPv6 address
// first (in_addr_from_string: "12:34:56:78:90:ab:cd:ef" is IPv6), else hex fields split by
// ':' or '-' (1 byte each) or '.' (2 bytes each), 6 or 20 bytes in all.
std::optional<std::vector<uint8_t>> parse_hw_addr(const std::string& s) {
  unsigned char ip[16];
  if (::inet_pton(AF_INET, s.c_str(), ip) == 1) return std::vector<uint8_t>(ip, ip + 4);
  if (::inet_pton(AF_INET6, s.c_str(), ip) == 1) return std::vector<uint8_t>(ip, ip + 16);
  const size_t first = s.find_first_not_of("0123456789abcdefABCDEF");
  if (first == std::string::npos) return std::nullopt;
  const char sep = s[first];
  if (sep != ':' && sep != '-' && sep != '.') return std::nullopt;
  const size_t width = sep == '.' ? 2 : 1;
  std::vector<uint8_t> out;
  for (auto field : split(s, sep)) {
    if (field.empty() || field.size() > 2 * width ||
        field.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
      return std::nullopt;
    const unsigned long v = std::stoul(std::string(field), nullptr, 16);
    if (width == 2) out.push_back(static_cast<uint8_t>(v >> 8));
    out.push_back(static_cast<uint8_t>(v & 0xff));
  }
  if (out.size() != 6 && out.size() != 20) return std::nullopt;
  return out;
}

// systemd's ifname_valid (socket-util.c ifname_valid_full), as config_parse_ifname
// applies it to Name=: the one check udev's NAME= gets too (values.h).
bool ifname_valid(const std::string& n) { return udev_refuses_ifname(n).empty(); }

void add_patterns(std::vector<Pattern>& list, std::string_view value) {
  if (value.empty()) return list.clear();  // an empty assignment resets the list
  const bool neg = value.front() == '!';
  if (neg) value.remove_prefix(1);
  for (auto w : split_ws(value))  // config_parse_match_strv: whitespace only
    if (!w.empty()) list.push_back({std::string(w), neg});
}

// One file, as config_parse reads it; nullopt (said) when udev drops the whole file.
std::optional<LinkFile> read_file(std::string_view text, const std::string& path,
                                  Diagnostics& diag) {
  LinkFile f;
  f.path = path;
  std::string section, pending;
  std::optional<Sourced<std::string>> name;
  bool dropped = false;
  size_t last = 0;
  // One logical line, numbered by its last physical line.
  auto logical = [&](size_t n, const std::string& l) {
    const Source where = Source::at(Source::Origin::kUdevRules, path, n);
    auto drop = [&](const std::string& why) {
      diag.warn(where, why +
                           ": udev ignores the whole file (conf-parser.c config_parse, "
                           "link-config.c link_load_one), and so does rdma-provision");
      dropped = true;
    };
    if (!valid_utf8(l)) return drop("a line that is not UTF-8");
    std::string_view line = trim(l);
    if (n == 1 && starts_with(line, "\xef\xbb\xbf")) line.remove_prefix(3);
    if (line.empty() || line[0] == '#' || line[0] == ';') return;
    if (line[0] == '[') {
      if (line.back() != ']') return drop("invalid section header " + shown(line));
      section = std::string(line.substr(1, line.size() - 2));
      if (section != "Match" && section != "Link" && section != "SR-IOV" &&
          section != "EnergyEfficientEthernet" && !starts_with(section, "X-"))
        diag.warn(where, "unknown section " + shown(section) + ": udev ignores its settings");
      return;
    }
    const size_t eq = line.find('=');
    if (section.empty()) return diag.warn(where, "assignment outside of a section; ignored");
    if (eq == std::string_view::npos) return diag.warn(where, "no '=' on this line; ignored");
    const std::string key(trim(line.substr(0, eq)));
    const std::string value(trim(line.substr(eq + 1)));
    if (key.empty()) return diag.warn(where, "no key before '='; ignored");
    if (section == "Match") {
      if (key == "MACAddress") {
        if (value.empty()) f.macs.clear();
        for (auto w : split_ws(value)) {  // extract_first_word: whitespace only
          if (w.empty()) continue;
          auto a = parse_hw_addr(std::string(w));
          if (!a) {
            diag.warn(where, "invalid " + key + " " + shown(w) +
                                 " (config_parse_hw_addrs: not 6 or 20 bytes, nor an IP "
                                 "address); ignored as udev ignores it");
            continue;
          }
          f.macs.push_back({*a, where});
        }
      } else if (key == "OriginalName") {
        add_patterns(f.original_name, value);
      } else if (key == "Type") {
        add_patterns(f.type, value);
      } else if (key == "PermanentMACAddress" || key == "Path" || key == "Driver" ||
                 key == "Kind" || key == "Property" || key == "Host" || key == "Virtualization" ||
                 key == "KernelCommandLine" || key == "KernelVersion" || key == "Credential" ||
                 key == "Architecture" || key == "Firmware") {
        if (!value.empty()) f.unchecked.push_back(key + "=" + value);
      } else if (!starts_with(key, "X-")) {
        diag.warn(where, "unknown key " + shown(key) + " in [Match]: udev ignores it");
      }
    } else if (section == "Link") {
      if (key == "Name") {
        if (value.empty()) {
          name.reset();
        } else if (!ifname_valid(value)) {
          diag.warn(where, "Name " + shown(value) +
                               " is not a valid interface name (ifname_valid): udev ignores "
                               "this assignment, and so does rdma-provision");
        } else {
          name = Sourced<std::string>{value, where};
        }
      } else if (key == "NamePolicy") {
        f.name_policy = value;
      }
    }
  };
  for_each_line(text, [&](size_t n, std::string_view raw) {
    if (dropped) return;
    last = n;
    // A comment inside a continuation is skipped; the continuation goes on.
    std::string_view first = trim(raw);
    if (!pending.empty() && !first.empty() && (first[0] == '#' || first[0] == ';')) return;
    std::string l = pending + std::string(raw);
    pending.clear();
    size_t slashes = 0;
    while (slashes < l.size() && l[l.size() - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 1) {  // continued: the backslash becomes a space
      l.back() = ' ';
      pending = l;
      return;
    }
    logical(n, l);
  });
  // A file ending inside a continuation: config_parse reads what it has.
  if (!dropped && !pending.empty()) logical(last, pending);
  if (dropped) return std::nullopt;
  f.name = name;
  if (f.macs.empty() && f.original_name.empty() && f.type.empty() && f.unchecked.empty()) {
    diag.warn(Source::at(Source::Origin::kUdevRules, path),
              "no valid settings in [Match]: udev ignores the file (link_load_one: \"To match "
              "all interfaces, add OriginalName=*\"), and so does rdma-provision");
    return std::nullopt;
  }
  return f;
}

// What a port looks like on its add event: its key, its Type= string
// (netif-util.c net_get_type_string: arphrd_to_name lower-cased) and the kernel's name
// template (ipoib_main.c ipoib_add_one "ib%d"; alloc_etherdev "eth%d").
struct Port {
  HwKey key;
  const char* type;
  const char* kernel_name;
};

bool same_port(const Address& a, const HwKey& key) {
  if (a.bytes.size() == 20 && key.is_guid()) {
    uint64_t g = 0;
    for (size_t i = 12; i < 20; ++i) g = (g << 8) | a.bytes[i];
    return g == key.value;
  }
  if (a.bytes.size() == 6 && key.is_mac()) {
    uint64_t m = 0;
    for (uint8_t b : a.bytes) m = (m << 8) | b;
    return m == key.value;
  }
  return false;
}

// net_condition_test_strv over every value the port may show: kYes, kNo or kMaybe.
enum class Verdict { kNo, kYes, kMaybe };
Verdict test_list(const std::vector<Pattern>& list, const std::vector<std::string>& values) {
  if (list.empty()) return Verdict::kYes;
  int yes = 0;
  for (const auto& v : values) {
    bool positive = false, matched = false, excluded = false;
    for (const auto& p : list) {
      const bool m = ::fnmatch(p.glob.c_str(), v.c_str(), 0) == 0;
      if (p.negated) {
        excluded |= m;
      } else {
        positive = true;
        matched |= m;
      }
    }
    yes += !excluded && (!positive || matched) ? 1 : 0;
  }
  return yes == 0                                 ? Verdict::kNo
         : yes == static_cast<int>(values.size()) ? Verdict::kYes
                                                  : Verdict::kMaybe;
}

// Whether `f` matches the port (link_get_config: every list must pass), and why not.
Verdict matches(const LinkFile& f, const Port& p, std::string& why) {
  if (!f.macs.empty()) {
    bool any = false;
    for (const auto& a : f.macs) any |= same_port(a, p.key);
    if (!any) {
      why = "its MACAddress= does not list it";
      return Verdict::kNo;
    }
  }
  if (test_list(f.type, {p.type}) == Verdict::kNo) {
    why = "Type= does not match '" + std::string(p.type) + "'";
    return Verdict::kNo;
  }
  std::vector<std::string> names;
  for (int n = 0; n < 32; ++n) names.push_back(p.kernel_name + std::to_string(n));
  const Verdict by_name = test_list(f.original_name, names);
  if (by_name == Verdict::kNo) {
    why = "OriginalName= never matches the kernel's name " + std::string(p.kernel_name) + "<N>";
    return Verdict::kNo;
  }
  if (by_name == Verdict::kMaybe) {
    why = "OriginalName= matches only some of the kernel's names " + std::string(p.kernel_name) +
          "<N>";
    return Verdict::kMaybe;
  }
  if (!f.unchecked.empty()) {
    // Named, not quoted whole: a file of many long match lines stays one readable line.
    why = "not checked here:";
    for (size_t i = 0; i < f.unchecked.size() && i < 4; ++i) {
      const std::string& u = f.unchecked[i];
      why += " " + (u.size() > 64 ? u.substr(0, 61) + "..." : u);
    }
    if (f.unchecked.size() > 4) why += " and " + std::to_string(f.unchecked.size() - 4) + " more";
    return Verdict::kMaybe;
  }
  return Verdict::kYes;
}

}  // namespace

void parse_link_files(const std::vector<LinkFileText>& texts, Config& cfg, Diagnostics& diag) {
  std::vector<LinkFile> files;
  for (const auto& t : texts)
    if (auto f = read_file(t.text, t.path, diag)) files.push_back(std::move(*f));
  for (size_t i = 0; i < files.size(); ++i) {
    const LinkFile& f = files[i];
    if (!f.name) continue;
    if (f.macs.empty()) {
      diag.warn(f.name->source, "Name=" + f.name->value +
                                    " is given by matches other than MACAddress=, which are not "
                                    "read here: udev gives it to whatever matches; not named here");
      continue;
    }
    const Source& where = f.name->source;
    bool first = true;
    for (const auto& a : f.macs) {
      if (a.bytes.size() != 6 && a.bytes.size() != 20) {
        diag.warn(a.where, "an address of " + std::to_string(a.bytes.size()) +
                               " bytes (an IP address form: a port GUID's 8 groups read as "
                               "IPv6) is no interface's address: udev never matches it; an "
                               "IPoIB port is matched by its whole 20-byte address");
        continue;
      }
      uint64_t v = 0;
      for (size_t k = a.bytes.size() == 20 ? 12 : 0; k < a.bytes.size(); ++k)
        v = (v << 8) | a.bytes[k];
      MacAddress mac;
      if (a.bytes.size() == 6) std::copy(a.bytes.begin(), a.bytes.end(), mac.bytes.begin());
      const Port p = a.bytes.size() == 6 ? Port{HwKey::of_mac(mac), "ether", "eth"}
                                         : Port{HwKey::of_guid(PortGuid{v}), "infiniband", "ib"};
      if (!first) {
        diag.warn(a.where, "a second address for Name=" + f.name->value + " in " + f.path +
                               ": only the first port is named here (udev would give the "
                               "name to whichever came first, and fail the other)");
        continue;
      }
      std::string why;
      if (matches(f, p, why) == Verdict::kNo) {
        diag.warn(where, "never matches " + p.key.str() + " (" + why +
                             "): udev names nothing with this file, and neither does "
                             "rdma-provision");
        continue;
      }
      bool shadowed = false;
      for (size_t j = 0; j < i && !shadowed; ++j) {
        std::string why_other;
        const Verdict v2 = matches(files[j], p, why_other);
        if (v2 == Verdict::kYes) {
          diag.warn(where, files[j].path + " matches " + p.key.str() +
                               " first: udev uses only the first matching file "
                               "(link_get_config), so this Name= is not given");
          shadowed = true;
        } else if (v2 == Verdict::kMaybe) {
          diag.warn(where, files[j].path + " comes first and may match " + p.key.str() + " (" +
                               why_other + "); if it does, udev never reads this Name=");
        }
      }
      if (shadowed) continue;
      if (!why.empty()) diag.warn(where, "the address decides here; " + why);
      if (!f.name_policy.empty()) {
        diag.warn(where, "NamePolicy=" + f.name_policy +
                             " comes before Name= (link_generate_new_name: Name= only when no "
                             "policy gives a name); not given here");
        continue;
      }
      if (a.bytes.size() == 20) {
        diag.warn(a.where,
                  "the whole 20-byte IPoIB address is matched: its first 12 bytes "
                  "(QPN, subnet prefix) change from boot to boot (only the last 8, "
                  "the port GUID " +
                      p.key.str() +
                      ", are stable: ipoib_main.c), "
                      "so udev stops naming the port when they do; name it by its GUID "
                      "instead (70-persistent-ipoib.rules ATTR{address}==\"?*" +
                      PortGuid{p.key.value}.colon_bytes() + "\", or rd.rdma.name=" + f.name->value +
                      ":" + p.key.str() + ")");
      }
      first = false;
      set_name(cfg, f.name->value, p.key, where, diag);
    }
  }
}

}  // namespace rp
