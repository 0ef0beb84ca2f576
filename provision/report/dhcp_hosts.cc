// dhcp-hosts: the node table as a DHCP server's host entries (dhcp_hosts.h). Each server's
// syntax as its own parser reads it, and each output checked by that server in the tests
// (dhcpd -t, kea-dhcp4 -t, dnsmasq --test: tests/cli/dhcp_hosts_cli_test.cc):
//   ISC dhcpd   host declarations (server/confpars.c parse_host_declaration): one client
//               identifier per declaration (a second `dhcp-client-identifier` replaces the
//               first), names unique (mdb.c enter_host refuses a name twice);
//   Kea         global "reservations" (one identifier each) with "reservations-global", to
//               be included inside "Dhcp4" (<?include "FILE"?>); two identifiers of one
//               port share an address only with "ip-reservations-unique": false;
//   dnsmasq     dhcp-host lines (option.c, case LOPT_BANK 'G'): "id:" and hex bytes for a
//               client identifier, one per address.
#include "provision/report/dhcp_hosts.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "provision/base/sort.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

// A row as its entries need it.
struct Host {
  const NodeEntry* row;
  std::string name;     // the host name (host=), or ""
  std::string address;  // the fixed address, or ""
  std::string decl;     // ISC's declaration name, unique
};

std::string hex_bytes(const std::vector<uint8_t>& b) {
  std::string out;
  for (uint8_t v : b) out += (out.empty() ? "" : ":") + hex(v, 2);
  return out;
}

std::vector<uint8_t> guid_bytes(uint64_t guid) {
  std::vector<uint8_t> b(8);
  for (int i = 0; i < 8; ++i)
    b[static_cast<size_t>(i)] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  return b;
}

// The key as 12 or 16 hex digits, for names.
std::string key_digits(const HwKey& k) { return hex(k.value, k.is_mac() ? 12 : 16); }

// The IPv4 address the entry hands out: lease=, else the first IPv4 address=.
std::string fixed_address(const NodeEntry& e) {
  if (e.lease) return e.lease->str();
  for (const auto& a : e.addresses)
    if (!a.address.v6) return a.address.str();
  return "";
}

std::vector<Host> hosts_of(const Config& cfg, std::vector<std::string>& warnings) {
  std::vector<const NodeEntry*> rows;
  for (const auto* table : {&cfg.nodes_by_mac, &cfg.nodes_by_guid})
    for (const auto& [k, row] : *table) rows.push_back(&row);
  sort_by(rows, [](const NodeEntry* a, const NodeEntry* b) {
    return std::tie(a->source.file, a->source.line) < std::tie(b->source.file, b->source.line);
  });
  std::vector<Host> hosts;
  std::map<std::string, size_t> decls;
  for (const auto* row : rows) {
    Host h{row, row->host, fixed_address(*row), ""};
    if (h.name.empty() && h.address.empty()) {
      warnings.push_back(row->source.str() + ": node " + row->key.str() +
                         ": no lease=, IPv4 address= or host=: no host entry (nothing to hand "
                         "out)");
      continue;
    }
    h.decl = h.name.empty() ? "port-" + key_digits(row->key)
                            : h.name + "-" + (row->name.empty() ? key_digits(row->key) : row->name);
    ++decls[h.decl];
    hosts.push_back(std::move(h));
  }
  // Two rows with one host name and one interface name (two nodes' ports under one name):
  // told apart by their keys, which are unique.
  for (auto& h : hosts)
    if (decls[h.decl] > 1) h.decl = h.name + "-" + key_digits(h.row->key);
  return hosts;
}

// One identifier an entry is keyed by.
struct Ident {
  bool client_id;     // false: an Ethernet hardware address
  std::string value;  // "52:54:00:77:00:02", "20:00:02:c9:..."
  std::string form;   // "", "os", "flexboot": the suffix and the comment
  bool with_address;  // false: dnsmasq's second form of a port (one address per id)
};

std::vector<Ident> idents_of(const Host& h, DhcpServer server, IbClientIds ib) {
  if (h.row->key.is_mac()) return {{false, h.row->key.str(), "", true}};
  std::vector<Ident> out;
  if (ib != IbClientIds::kFlexboot)
    out.push_back({true, ib_client_id(h.row->key.value, false), "os", true});
  if (ib != IbClientIds::kOs) {
    out.push_back({true, ib_client_id(h.row->key.value, true), "flexboot",
                   !(server == DhcpServer::kDnsmasq && ib == IbClientIds::kBoth)});
  }
  return out;
}

std::string what_of(const Ident& id) {
  if (!id.client_id) return "Ethernet, by MAC";
  return id.form == "os" ? "IPoIB, the OS's client identifier (type 32 and the port GUID)"
                         : "IPoIB, FlexBoot's client identifier";
}

std::string comment(const Host& h, const Ident& id, std::string_view mark) {
  return std::string(mark) + " node " + h.row->key.str() + " (" + h.row->source.str() +
         "): " + what_of(id) + "\n";
}

std::string isc(const std::vector<Host>& hosts, DhcpServer server, IbClientIds ib, size_t& n) {
  std::string out;
  for (const auto& h : hosts) {
    const auto ids = idents_of(h, server, ib);
    for (const auto& id : ids) {
      out += comment(h, id, "#");
      const bool second = ids.size() > 1 && &id != &ids.front();
      out += "host " + h.decl + (second ? "-" + id.form : "") + " {\n";
      out += id.client_id ? "  option dhcp-client-identifier " + id.value + ";\n"
                          : "  hardware ethernet " + id.value + ";\n";
      if (!h.address.empty()) out += "  fixed-address " + h.address + ";\n";
      if (!h.name.empty()) out += "  option host-name \"" + h.name + "\";\n";
      out += "}\n";
      ++n;
    }
  }
  return out;
}

std::string kea(const std::vector<Host>& hosts, DhcpServer server, IbClientIds ib, size_t& n) {
  std::string body;
  bool shared = false;  // one address reserved for two identifiers of a port
  for (const auto& h : hosts) {
    const auto ids = idents_of(h, server, ib);
    if (ids.size() > 1 && !h.address.empty()) shared = true;
    for (const auto& id : ids) {
      body += (n ? ",\n" : "") + comment(h, id, "  //");
      body += std::string("  { \"") + (id.client_id ? "client-id" : "hw-address") + "\": \"" +
              id.value + "\"";
      if (!h.address.empty()) body += ", \"ip-address\": \"" + h.address + "\"";
      if (!h.name.empty()) body += ", \"hostname\": \"" + h.name + "\"";
      body += " }";
      ++n;
    }
  }
  std::string out;
  out += "\"reservations-global\": true,\n\"reservations-in-subnet\": true,\n";
  if (shared) {
    out += "// An IPoIB port has two client identifiers (firmware and OS) for one address.\n";
    out += "\"ip-reservations-unique\": false,\n";
  }
  out += "\"host-reservation-identifiers\": [ \"hw-address\", \"client-id\" ],\n";
  out += "\"reservations\": [\n" + body + (body.empty() ? "" : "\n") + "]\n";
  return out;
}

std::string dnsmasq(const std::vector<Host>& hosts, DhcpServer server, IbClientIds ib, size_t& n,
                    std::vector<std::string>& warnings) {
  std::string out;
  bool named_only = false;
  for (const auto& h : hosts) {
    for (const auto& id : idents_of(h, server, ib)) {
      const bool address = id.with_address && !h.address.empty();
      if (!address && h.name.empty()) continue;  // nothing this line would give
      if (!id.with_address && !h.address.empty()) named_only = true;
      out += comment(h, id, "#");
      out += "dhcp-host=" + std::string(id.client_id ? "id:" : "") + id.value +
             (address ? "," + h.address : "") + (h.name.empty() ? "" : "," + h.name) + "\n";
      ++n;
    }
  }
  if (named_only) {
    warnings.push_back(
        "dnsmasq holds one client identifier per address (option.c: \"duplicate dhcp-host IP "
        "address\"): the FlexBoot form of an IPoIB port is given its host name only, and the "
        "firmware an address of the range; --ib-client-id flexboot gives that form the "
        "address instead");
  }
  return out;
}

}  // namespace

std::optional<DhcpServer> parse_dhcp_server(std::string_view s) {
  if (s == "isc") return DhcpServer::kIsc;
  if (s == "kea") return DhcpServer::kKea;
  if (s == "dnsmasq") return DhcpServer::kDnsmasq;
  return std::nullopt;
}

std::optional<IbClientIds> parse_ib_client_ids(std::string_view s) {
  if (s == "os") return IbClientIds::kOs;
  if (s == "flexboot") return IbClientIds::kFlexboot;
  if (s == "both") return IbClientIds::kBoth;
  return std::nullopt;
}

std::string ib_client_id(uint64_t guid, bool flexboot) {
  // RFC 4390's client identifier from the port GUID: type 32 (ARPHRD_INFINIBAND) and the
  // GUID; FlexBoot's 12-byte constant and the GUID (dhcp_hosts.h).
  std::vector<uint8_t> b =
      flexboot ? std::vector<uint8_t>{0xff, 0, 0, 0, 0, 0, 0x02, 0, 0, 0x02, 0xc9, 0}
               : std::vector<uint8_t>{32};
  const auto g = guid_bytes(guid);
  b.insert(b.end(), g.begin(), g.end());
  return hex_bytes(b);
}

DhcpHosts make_dhcp_hosts(const Config& cfg, DhcpServer server, IbClientIds ib) {
  DhcpHosts r;
  const auto hosts = hosts_of(cfg, r.warnings);
  switch (server) {
    case DhcpServer::kIsc:
      r.text = isc(hosts, server, ib, r.entries);
      break;
    case DhcpServer::kKea:
      r.text = kea(hosts, server, ib, r.entries);
      break;
    case DhcpServer::kDnsmasq:
      r.text = dnsmasq(hosts, server, ib, r.entries, r.warnings);
      break;
  }
  return r;
}

}  // namespace rp
