// The link a port or an HCA should have (rd.rdma.expect) against what the kernel shows:
// the values as the plan carries them, what the executor reads, and how they compare.
// The kernel's formats: core/sysfs.c rate_show ("%d%s Gb/sec (%dX%s)"), phys_state_show
// ("%u: %s"), state_show, sm_lid_show ("0x%x"), fw_ver_show; pci-sysfs.c
// current_link_speed_show / max_link_speed_show (pci_speed_string, "16.0 GT/s PCIe") and
// current_link_width_show / max_link_width_show ("%u").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/base/types.h"
#include "provision/inventory/inventory.h"

namespace rp {

// An expected link without its sources (config.h ExpectSetting, merged for one port or
// device). pcie_speed/pcie_width 0: the maximum the device and the slot allow.
struct ExpectedLink {
  std::optional<unsigned> rate;   // tenths of Gb/s
  std::optional<unsigned> width;  // lanes
  std::optional<LinkLayer> link_layer;
  std::optional<std::string> phys_state;  // phys_state_to_str's word
  std::optional<bool> sm;
  std::optional<std::string> fw;
  std::optional<unsigned> pcie_speed;  // tenths of GT/s; 0: max
  std::optional<unsigned> pcie_width;  // lanes; 0: max
  bool empty() const;
  // "400 Gb/sec, 4X, InfiniBand, LinkUp, configured by a subnet manager";
  // "firmware 28.39.1002, PCIe 16.0 GT/s x16".
  std::string str() const;
  bool operator==(const ExpectedLink& o) const { return str() == o.str(); }
};

// What the kernel shows of a port (port != 0) or a device, as read: "" where unread.
struct FoundLink {
  std::string rate, phys_state, link_layer, state, sm_lid;                 // the port's files
  std::string fw, pcie_speed, pcie_width, pcie_max_speed, pcie_max_width;  // the device's
};

// rate_show: "400 Gb/sec (4X NDR)" -> 4000 tenths, 4 lanes, "NDR"; "2.5 Gb/sec (1X SDR)".
struct IbRate {
  unsigned tenths = 0, width = 0;
  std::string speed;
};
std::optional<IbRate> parse_rate_show(std::string_view s);
// pci_speed_string: "16.0 GT/s PCIe" -> 160; nullopt for "Unknown" and other buses.
std::optional<unsigned> parse_pcie_speed_show(std::string_view s);
std::string pcie_speed_text(unsigned tenths);  // 160 -> "16.0 GT/s"

// What a full inventory (Detail::kFull, `status`) shows of that port or device.
FoundLink found_in(const Inventory& inv, const std::string& device, unsigned port);

// Each difference, naming what was found and what was expected ("rate 200 Gb/sec (4X
// HDR), expected 400 Gb/sec"); empty when the link is as expected.
std::vector<std::string> link_mismatches(const ExpectedLink& want, const FoundLink& found);
// The found values of what was checked, for the line of a link that is as expected.
std::string found_text(const ExpectedLink& want, const FoundLink& found);

}  // namespace rp
