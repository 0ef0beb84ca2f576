#include "provision/plan/link_check.h"

#include "provision/base/strings.h"

namespace rp {
namespace {

std::string gbps(unsigned tenths) {
  return std::to_string(tenths / 10) + (tenths % 10 ? ".5" : "") + " Gb/sec";
}

// "5: LinkUp" -> "LinkUp" (phys_state_show); "4: ACTIVE" -> "ACTIVE" (state_show).
std::string word_of(std::string_view s) {
  const size_t colon = s.find(':');
  return std::string(trim(colon == std::string_view::npos ? s : s.substr(colon + 1)));
}

std::string lanes(unsigned n) { return "x" + std::to_string(n); }

void add(std::vector<std::string>& out, std::string what, const std::string& found,
         const std::string& wanted) {
  out.push_back(std::move(what) + " " + (found.empty() ? "unknown (unreadable)" : found) +
                ", expected " + wanted);
}

}  // namespace

bool ExpectedLink::empty() const {
  return !rate && !width && !link_layer && !phys_state && !sm && !fw && !pcie_speed && !pcie_width;
}

std::string ExpectedLink::str() const {
  std::vector<std::string> parts;
  if (rate) parts.push_back(gbps(*rate));
  if (width) parts.push_back(std::to_string(*width) + "X");
  if (link_layer) parts.push_back(std::string(to_string(*link_layer)));
  if (phys_state) parts.push_back(*phys_state);
  if (sm) parts.push_back(*sm ? "configured by a subnet manager" : "no subnet manager");
  if (fw) parts.push_back("firmware " + *fw);
  if (pcie_speed || pcie_width) {
    std::string p = "PCIe";
    if (pcie_speed) p += " " + (*pcie_speed ? pcie_speed_text(*pcie_speed) : "max_link_speed");
    if (pcie_width) p += " " + (*pcie_width ? lanes(*pcie_width) : "max_link_width");
    parts.push_back(p);
  }
  return join(parts, ", ");
}

std::optional<IbRate> parse_rate_show(std::string_view s) {
  // "%d%s Gb/sec (%dX%s)": the rate, ".5" for SDR's odd lanes, the lanes, " <speed>".
  s = trim(s);
  const size_t gb = s.find(" Gb/sec (");
  if (gb == std::string_view::npos || s.back() != ')') return std::nullopt;
  std::string_view num = s.substr(0, gb);
  bool half = false;
  if (ends_with(num, ".5")) half = true, num.remove_suffix(2);
  auto whole = parse_uint(num);
  const std::string_view inner = s.substr(gb + 9, s.size() - gb - 10);  // "4X NDR"
  const size_t x = inner.find('X');
  if (!whole || x == std::string_view::npos) return std::nullopt;
  auto width = parse_uint(inner.substr(0, x));
  if (!width) return std::nullopt;
  return IbRate{static_cast<unsigned>(*whole * 10 + (half ? 5 : 0)), static_cast<unsigned>(*width),
                std::string(trim(inner.substr(x + 1)))};
}

std::optional<unsigned> parse_pcie_speed_show(std::string_view s) {
  // pci_speed_string's PCIe entries: "2.5 GT/s PCIe" .. "64.0 GT/s PCIe".
  s = trim(s);
  if (!ends_with(s, " GT/s PCIe")) return std::nullopt;
  const std::string_view num = s.substr(0, s.size() - 10);
  const size_t dot = num.find('.');
  if (dot == std::string_view::npos || dot + 2 != num.size()) return std::nullopt;
  auto w = parse_uint(num.substr(0, dot));
  auto f = parse_uint(num.substr(dot + 1));
  if (!w || !f) return std::nullopt;
  return static_cast<unsigned>(*w * 10 + *f);
}

std::string pcie_speed_text(unsigned tenths) {
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " GT/s";
}

FoundLink found_in(const Inventory& inv, const std::string& device, unsigned port) {
  FoundLink f;
  const RdmaDevice* d = inv.find_rdma(device);
  if (!d) return f;
  if (port == 0) {
    f.fw = d->fw_ver;
    f.pcie_speed = d->pcie_speed, f.pcie_width = d->pcie_width;
    f.pcie_max_speed = d->pcie_max_speed, f.pcie_max_width = d->pcie_max_width;
    return f;
  }
  const RdmaPort* p = d->port(port);
  if (!p) return f;
  // As the files show them (state_show "%d: %s", sm_lid_show "0x%x").
  f.rate = p->rate;
  f.phys_state = p->phys_state;
  f.link_layer = std::string(to_string(p->link_layer));
  f.state = "0: " + std::string(to_string(p->state));
  if (p->sm_lid) f.sm_lid = "0x" + hex(*p->sm_lid, 0);
  return f;
}

std::vector<std::string> link_mismatches(const ExpectedLink& want, const FoundLink& found) {
  std::vector<std::string> out;
  const auto rate = parse_rate_show(found.rate);
  if (want.rate && (!rate || rate->tenths != *want.rate))
    add(out, "rate", found.rate, gbps(*want.rate));
  if (want.width && (!rate || rate->width != *want.width))
    add(out, "width", found.rate, std::to_string(*want.width) + "X");
  if (want.link_layer && parse_link_layer(found.link_layer) != *want.link_layer)
    add(out, "link layer", found.link_layer, std::string(to_string(*want.link_layer)));
  if (want.phys_state && word_of(found.phys_state) != *want.phys_state)
    add(out, "physical state", found.phys_state, *want.phys_state);
  if (want.sm) {
    // A subnet manager configured the port: it made it ACTIVE and gave it its own LID
    // (sm_lid 0x0: none has; an Ethernet port has none).
    auto sm_lid = parse_hex(trim(found.sm_lid));
    const bool configured = sm_lid && *sm_lid != 0 && word_of(found.state) == "ACTIVE";
    if (configured != *want.sm) {
      add(out, "subnet manager", "state " + word_of(found.state) + ", sm_lid " + found.sm_lid,
          *want.sm ? "configured by a subnet manager (ACTIVE, sm_lid set)" : "none");
    }
  }
  if (want.fw && trim(found.fw) != *want.fw) add(out, "firmware", found.fw, *want.fw);
  if (want.pcie_speed) {
    const auto have = parse_pcie_speed_show(found.pcie_speed);
    const auto max = parse_pcie_speed_show(found.pcie_max_speed);
    const std::optional<unsigned> wanted = *want.pcie_speed ? want.pcie_speed : max;
    if (!have || !wanted || *have != *wanted) {
      add(out, "PCIe speed", found.pcie_speed,
          wanted ? pcie_speed_text(*wanted) + (*want.pcie_speed ? "" : " (max_link_speed)")
                 : "max_link_speed, which is unknown (" + found.pcie_max_speed + ")");
    }
  }
  if (want.pcie_width) {
    const auto have = parse_uint(trim(found.pcie_width));
    const auto max = parse_uint(trim(found.pcie_max_width));
    const std::optional<uint64_t> wanted =
        *want.pcie_width ? std::optional<uint64_t>(*want.pcie_width) : max;
    if (!have || !wanted || *have != *wanted) {
      add(out, "PCIe width", have ? lanes(static_cast<unsigned>(*have)) : found.pcie_width,
          wanted ? lanes(static_cast<unsigned>(*wanted)) +
                       (*want.pcie_width ? "" : " (max_link_width)")
                 : "max_link_width, which is unknown");
    }
  }
  return out;
}

std::string found_text(const ExpectedLink& want, const FoundLink& found) {
  std::vector<std::string> parts;
  if (want.rate || want.width) parts.push_back(found.rate);
  if (want.link_layer) parts.push_back(found.link_layer);
  if (want.phys_state) parts.push_back(word_of(found.phys_state));
  if (want.sm) parts.push_back("SM LID " + found.sm_lid);
  if (want.fw) parts.push_back("firmware " + found.fw);
  if (want.pcie_speed || want.pcie_width)
    parts.push_back("PCIe " + found.pcie_speed + " x" + found.pcie_width);
  return join(parts, ", ");
}

}  // namespace rp
