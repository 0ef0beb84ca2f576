#include "provision/config/config.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "provision/base/sort.h"
#include "provision/base/strings.h"

namespace rp {

std::string PkeyChild::child_name() const {
  return name.empty() ? parent + "." + hex(full_pkey(), 4) : name;
}

std::optional<HwKey> HwKey::parse(std::string_view s) {
  if (auto g = PortGuid::parse(s)) return of_guid(*g);
  if (auto m = MacAddress::parse(s)) return of_mac(*m);
  return std::nullopt;
}

HwKey HwKey::of_mac(const MacAddress& m) {
  uint64_t v = 0;
  for (uint8_t b : m.bytes) v = (v << 8) | b;
  return {By::kMac, v, {}, {}, 0};
}

std::string_view to_string(HwKey::By b) {
  switch (b) {
    case HwKey::By::kGuid:
      return "port_guid";
    case HwKey::By::kMac:
      return "mac";
    case HwKey::By::kPci:
      return "pci";
    case HwKey::By::kRdmaPort:
      return "rdma_port";
  }
  return "mac";
}

std::string HwKey::str() const {
  switch (by) {
    case By::kGuid:
      return PortGuid{value}.str();
    case By::kPci:
      return "pci-" + pci.str() + (port ? "/" + std::to_string(port) : "");
    case By::kRdmaPort:
      return device + "/" + std::to_string(port);
    case By::kMac:
      break;
  }
  MacAddress m;
  for (int i = 0; i < 6; ++i) m.bytes[5 - i] = static_cast<uint8_t>(value >> (8 * i));
  return m.str();
}

std::string RdmaSelector::str() const {
  switch (by) {
    case By::kAll:
      return "*";
    case By::kName:
      return name;
    case By::kPci:
      return "pci-" + pci.str();
    case By::kNodeGuid:
      return "guid-" + guid.str();
    case By::kNetdev:
      return "netdev-" + name;
  }
  return name;
}

std::string WaitItem::str() const {
  switch (kind) {
    case Kind::kAll:
      return "all";
    case Kind::kNone:
      return "none";
    case Kind::kPort:
      return device.str() + (port ? "/" + std::to_string(port) : "");
    case Kind::kLink:
      return ifname;
  }
  return ifname;
}

std::vector<Sourced<WaitItem>> Config::effective_waits() const {
  size_t first = 0;
  for (size_t i = 0; i < wait.size(); ++i)
    if (wait[i].value.kind == WaitItem::Kind::kNone) first = i + 1;
  return {wait.begin() + static_cast<std::ptrdiff_t>(first), wait.end()};
}

const NodeEntry* Config::node_entry(const HwKey& k) const {
  if (!k.is_address()) return nullptr;
  const auto& table = k.is_guid() ? nodes_by_guid : nodes_by_mac;
  auto it = table.find(k.value);
  return it == table.end() ? nullptr : &it->second;
}

const Source& DcbSetting::source() const {
  static const Source kNone;
  if (trust) return trust->source;
  if (pfc) return pfc->source;
  if (tc_bw) return tc_bw->source;
  if (prio_tc) return prio_tc->source;
  if (dscp_prio) return dscp_prio->source;
  return kNone;
}

const Source& ExpectSetting::source() const {
  static const Source kNone;
  if (rate) return rate->source;
  if (width) return width->source;
  if (link_layer) return link_layer->source;
  if (phys_state) return phys_state->source;
  if (sm) return sm->source;
  if (fw) return fw->source;
  if (pcie_speed) return pcie_speed->source;
  if (pcie_width) return pcie_width->source;
  return kNone;
}

std::string Config::row_name(const NodeEntry& e) const {
  if (e.name.empty()) return "";
  for (const auto& [name, key] : names) {
    if (key.value == e.key) return name == e.name ? name : "";  // named otherwise
  }
  return names.count(e.name) ? "" : e.name;  // the name is another interface's
}

void check_node_table_names(const Config& cfg, Diagnostics& diag) {
  for (const auto* table : {&cfg.nodes_by_mac, &cfg.nodes_by_guid}) {
    for (const auto& [k, row] : *table) {
      auto it = row.name.empty() ? cfg.names.end() : cfg.names.find(row.name);
      if (it == cfg.names.end() || it->second.value == row.key) continue;
      diag.warn(row.source, "the node table gives " + row.name + " to " + row.key.str() + ", and " +
                                it->second.source + " gives it to " + it->second.value.str() +
                                ": " + row.key.str() +
                                " is not named by the table (the explicit name wins)");
    }
  }
}

namespace {

// A row's place, for an order that is the same on every run and every C++ library.
bool before(const NodeEntry* a, const NodeEntry* b) {
  return std::tie(a->source.file, a->source.line) < std::tie(b->source.file, b->source.line);
}

// An address as a hash key without formatting it: the table is read at every boot, and
// 10,000 rows must stay cheap (tests/bench/plan_bench).
struct AddressKey {
  uint64_t hi = 0, lo = 0;
  bool v6 = false;
  explicit AddressKey(const IpAddress& a) : v6(a.v6) {
    std::memcpy(&hi, a.bytes.data(), 8);
    std::memcpy(&lo, a.bytes.data() + 8, 8);
  }
  bool operator==(const AddressKey& o) const { return hi == o.hi && lo == o.lo && v6 == o.v6; }
};
struct AddressHash {
  size_t operator()(const AddressKey& k) const {
    return std::hash<uint64_t>()(k.hi * 0x9e3779b97f4a7c15ULL ^ k.lo ^ k.v6);
  }
};

// The addresses a row gives its port: address= and the DHCP server's lease=, each once.
std::vector<IpAddress> row_addresses(const NodeEntry& row) {
  std::vector<IpAddress> out;
  for (const auto& a : row.addresses) out.push_back(a.address);
  if (row.lease) out.push_back(*row.lease);
  std::vector<IpAddress> unique;
  for (const auto& a : out) {
    bool seen = false;
    for (const auto& u : unique) seen = seen || (u.v6 == a.v6 && u.bytes == a.bytes);
    if (!seen) unique.push_back(a);
  }
  return unique;
}

}  // namespace

void check_node_rows(const Config& cfg, Diagnostics& diag) {
  std::vector<std::pair<const NodeEntry*, std::string>> found;
  // Each address -> the first row (in file order) that gives it.
  std::unordered_map<AddressKey, const NodeEntry*, AddressHash> owner;
  owner.reserve(cfg.nodes_by_mac.size() + cfg.nodes_by_guid.size());
  for (const auto* table : {&cfg.nodes_by_mac, &cfg.nodes_by_guid}) {
    for (const auto& [k, row] : *table) {
      for (const auto& a : row_addresses(row)) {
        auto [it, fresh] = owner.emplace(AddressKey(a), &row);
        if (!fresh && before(&row, it->second)) it->second = &row;
      }
    }
  }
  for (const auto* table : {&cfg.nodes_by_mac, &cfg.nodes_by_guid}) {
    for (const auto& [k, row] : *table) {
      // A 6-byte key is an Ethernet MAC: an IPoIB interface's address is 20 bytes
      // (INFINIBAND_ALEN, ulp/ipoib/ipoib_main.c ipoib_setup_common) and is keyed by GUID.
      if (row.key.is_mac() && (row.mode || !row.pkeys.empty())) {
        found.push_back({&row, std::string(row.mode ? "mode=" : "pkeys=") +
                                   " is an IPoIB setting, and a MAC names an Ethernet "
                                   "interface (key an IPoIB port by its GUID)"});
      }
      // No port has a zero GUID or MAC (the kernel's zero GUID is a port not set up yet;
      // a zero MAC no NIC's): the row matches no node, and a DHCP server cannot tell its
      // client by it (dhcp-hosts).
      if (row.key.value == 0) {
        found.push_back({&row, std::string("a ") + (row.key.is_mac() ? "MAC" : "GUID") +
                                   " of zeros is no port's: the row matches no node, and a "
                                   "DHCP server cannot tell a client by it"});
      }
      // siw attaches to Ethernet-like interfaces only (sw/siw/siw_main.c
      // siw_dev_qualified: ARPHRD_ETHER, ARPHRD_IEEE802, ARPHRD_NONE), never to IPoIB.
      if (row.key.is_guid() && row.soft && row.soft->kind == SoftKind::kSiw) {
        found.push_back({&row,
                         "siw= needs an Ethernet interface, and a port GUID names an "
                         "IPoIB one (key the row by the NIC's MAC)"});
      }
      for (const auto& a : row_addresses(row)) {
        const NodeEntry* first = owner.at(AddressKey(a));
        if (first == &row) continue;
        found.push_back({&row, "address " + a.str() + " is also node " + first->key.str() +
                                   "'s, at " + first->source +
                                   " (each address belongs to one node)"});
      }
    }
  }
  sort_by(found, [](const auto& a, const auto& b) { return before(a.first, b.first); });
  for (const auto& [row, what] : found)
    diag.error(row->source, "node " + row->key.str() + ": " + what);
}

void add_module(Config& cfg, std::string name, Source source) {
  for (const auto& m : cfg.modules)
    if (m.value == name) return;
  cfg.modules.push_back({std::move(name), std::move(source)});
}

std::string_view VerifySetting::mode_name() const {
  switch (mode) {
    case Mode::kOff:
      return "0";
    case Mode::kPorts:
      return "ports";
    case Mode::kPeer:
      break;
  }
  return "peer";
}

std::string VerifySetting::str() const {
  if (mode != Mode::kPeer || !peer) return std::string(mode_name());
  const std::string a = peer->v6 ? "[" + peer->str() + "]" : peer->str();
  return "peer:" + a + ":" + std::to_string(port);
}

void Diagnostics::error(const Source& where, std::string what) {
  errors.push_back(make_error(where.str(), std::move(what)));
}
void Diagnostics::warn(const Source& where, std::string what) {
  warnings.push_back(make_error(where.str(), std::move(what)));
}
void Diagnostics::error(std::string where, std::string what) {
  errors.push_back(make_error(std::move(where), std::move(what)));
}
void Diagnostics::warn(std::string where, std::string what) {
  warnings.push_back(make_error(std::move(where), std::move(what)));
}

std::vector<const BootContext::NvmfTarget*> BootContext::nvmf_rdma() const {
  std::vector<const NvmfTarget*> out;
  if (nonvmf) return out;
  for (const auto& t : nvmf)
    if (t.transport == "rdma") out.push_back(&t);
  return out;
}

}  // namespace rp
