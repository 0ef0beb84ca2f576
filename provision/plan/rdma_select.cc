// Selecting RDMA devices by name, PCI function, node GUID or interface, and reading
// rdma-core's persistent names (kernel-boot/rdma_rename.c).
#include "provision/plan/rdma_select.h"

#include <cctype>

#include "provision/base/strings.h"

namespace rp {
namespace {

// rdma_rename's prefix is the protocol RDMA netlink reports for port 1
// (drivers/infiniband/core/nldev.c fill_dev_info, RDMA_NLDEV_ATTR_DEV_PROTOCOL): "ib",
// "roce", "iw" (or "opa", "usnic"); "rdma" when the kernel gives none.
std::string protocol_of(const RdmaDevice& d) {
  if (d.ports.empty()) return "rdma";
  const RdmaPort& p = d.ports.front();
  if (p.link_layer == LinkLayer::kInfiniBand) return "ib";
  if (p.link_layer == LinkLayer::kEthernet) return p.roce_v1 || p.roce_v2 ? "roce" : "iw";
  return "rdma";
}

bool prefix_fits(const std::string& prefix, const RdmaDevice& d) {
  const std::string proto = protocol_of(d);
  return prefix == "rdma" || prefix == proto || (prefix == "opa" && proto == "ib");
}

bool is_soft(const RdmaDevice& d) { return !d.parent_netdev.empty(); }

// Reads a decimal number at s[i..], advancing i.
std::optional<unsigned> number_at(const std::string& s, size_t& i) {
  size_t start = i;
  unsigned long v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 9) {
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    ++i;
  }
  if (i == start) return std::nullopt;
  return static_cast<unsigned>(v);
}

// The present device rdma-core would have given `name`, if exactly one fits.
const RdmaDevice* renamed_from(const Inventory& inv, const std::string& name, std::string* how) {
  auto r = parse_rdma_rename_name(name);
  if (!r) return nullptr;
  const RdmaDevice* found = nullptr;
  int n = 0;
  for (const auto& d : inv.rdma) {
    if (!prefix_fits(r->prefix, d) || is_soft(d)) continue;
    bool fits = false;
    if (r->pci && d.pci) {
      PciAddress want = *r->pci;
      fits = want == *d.pci ||
             (!r->has_function && d.pci->function == 0 && want.domain == d.pci->domain &&
              want.bus == d.pci->bus && want.device == d.pci->device);
    }
    if (r->guid && d.node_guid) fits = *r->guid == *d.node_guid;
    if (fits) {
      found = &d;
      ++n;
    }
  }
  if (n != 1) return nullptr;
  if (how) {
    *how = name + " is rdma-core's persistent name (kernel-boot/rdma_rename.c " +
           std::string(r->pci ? "NAME_PCI" : "NAME_GUID") + ") of " + found->name +
           (r->pci ? " at " + found->pci->str() : " with node GUID " + found->node_guid->str()) +
           ", which has not been renamed here: " + found->name + " is meant";
  }
  return found;
}

}  // namespace

std::optional<RenamedName> parse_rdma_rename_name(const std::string& name) {
  RenamedName r;
  size_t i = 0;
  for (const char* p : {"roce", "rdma", "opa", "ib", "iw"}) {
    if (starts_with(name, p)) {
      r.prefix = p;
      i = r.prefix.size();
      break;
    }
  }
  if (r.prefix.empty() || i >= name.size()) return std::nullopt;
  if (name[i] == 'x') {  // by_guid: "%sx%04x%04x%04x%04x", the node GUID's four groups
    const std::string hex = name.substr(i + 1);
    if (hex.size() != 16) return std::nullopt;
    auto g = PortGuid::parse("0x" + hex);
    if (!g) return std::nullopt;
    r.guid = *g;
    return r;
  }
  // by_pci: prefix, "P<domain>" when the domain is not 0, "p<bus>s<slot>", then
  // "f<func>" when the function is not 0 or the device is multi-function.
  PciAddress a;
  if (name[i] == 'P') {
    ++i;
    auto dom = number_at(name, i);
    if (!dom) return std::nullopt;
    a.domain = *dom;
  }
  if (i >= name.size() || name[i] != 'p') return std::nullopt;  // "s<sun>": a slot number
  ++i;
  auto bus = number_at(name, i);
  if (!bus || *bus > 255 || i >= name.size() || name[i] != 's') return std::nullopt;
  ++i;
  auto slot = number_at(name, i);
  if (!slot || *slot > 31) return std::nullopt;
  a.bus = static_cast<uint8_t>(*bus);
  a.device = static_cast<uint8_t>(*slot);
  if (i < name.size() && name[i] == 'f') {
    ++i;
    auto fn = number_at(name, i);
    if (!fn || *fn > 7) return std::nullopt;
    a.function = static_cast<uint8_t>(*fn);
    r.has_function = true;
  }
  if (i != name.size()) return std::nullopt;  // "v<vf>", "S<sfnum>": not decoded
  r.pci = a;
  return r;
}

std::vector<SelectedDevice> select_rdma(const PlanBuilder& b, const RdmaSelector& sel,
                                        std::string* how) {
  std::vector<SelectedDevice> out;
  switch (sel.by) {
    case RdmaSelector::By::kAll:
      for (const auto& d : b.inv.rdma) out.push_back({&d, 0});
      break;
    case RdmaSelector::By::kName:
      if (const RdmaDevice* d = b.inv.find_rdma(sel.name)) {
        out.push_back({d, 0});
      } else if (const RdmaDevice* r = renamed_from(b.inv, sel.name, how)) {
        out.push_back({r, 0});
      }
      break;
    case RdmaSelector::By::kPci:
      for (const auto& d : b.inv.rdma)
        if (d.pci && *d.pci == sel.pci && !is_soft(d)) out.push_back({&d, 0});
      break;
    case RdmaSelector::By::kNodeGuid:
      for (const auto& d : b.inv.rdma)
        if (d.node_guid && *d.node_guid == sel.guid) out.push_back({&d, 0});
      break;
    case RdmaSelector::By::kNetdev: {
      const Iface* f = b.iface(sel.name);
      if (f && f->netdev && !f->netdev->rdma_device.empty()) {
        if (const RdmaDevice* d = b.inv.find_rdma(f->netdev->rdma_device)) {
          out.push_back({d, f->netdev->rdma_port});
        }
      }
      break;
    }
  }
  return out;
}

std::optional<std::string> planned_soft_on(const PlanBuilder& b, const std::string& ifname) {
  for (const auto& [name, sl] : b.planned_soft()) {
    const std::string& on = b.action(sl.action).get<CreateSoftLink>().netdev;
    if (on == ifname || b.final_name(on) == ifname) return name;
  }
  return std::nullopt;
}

std::string renamed_devices_hint(const Inventory& inv) {
  std::string out;
  for (const auto& d : inv.rdma) {
    auto r = parse_rdma_rename_name(d.name);
    if (!r || !prefix_fits(r->prefix, d)) continue;
    if (!out.empty()) out += ", ";
    out += d.name;
    if (d.pci) {
      out += " (pci-" + d.pci->str() + ")";
    } else if (d.node_guid) {
      out += " (guid-" + d.node_guid->str() + ")";
    }
  }
  return out;
}

std::string renamed_devices_warning(const Inventory& inv, const std::string& what) {
  const std::string renamed = renamed_devices_hint(inv);
  if (renamed.empty()) return "";
  return what +
         ": no such device; rdma-core's persistent naming (60-rdma-persistent-naming.rules) has "
         "renamed the RDMA devices here: " +
         renamed +
         "; select by pci-<address> or guid-<node GUID> to mean the same device under either "
         "name";
}

}  // namespace rp
