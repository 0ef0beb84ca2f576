// /etc/rdma/mlx4.conf, as rdma-core's mlx4-setup.sh reads it: one card per line.
#include <map>
#include <optional>

#include "provision/base/strings.h"
#include "provision/base/types.h"
#include "provision/inputs/file_lines.h"
#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

constexpr std::string_view kMlx4Usage = " (expected <pci address> <port1 type> [<port2 type>])";

void mlx4_line(std::string_view line, const Source& where, std::map<PciAddress, std::string>& seen,
               Config& cfg, Diagnostics& diag) {
  auto fields = split_ws(strip_comment(line));
  if (fields.empty()) return;
  // rdma-core's mlx4-setup.sh reads each line with `read device port1 port2`: a comment
  // after the types is no comment there but part of the last type, and the line fails.
  if (strip_comment(line).size() != line.size()) {
    diag.warn(where, "rdma-core's mlx4-setup.sh has no comments after the port types: it reads " +
                         shown(trim(line.substr(line.find('#')))) +
                         " into a port type and fails this line; here it is a comment");
  }
  const size_t errors_before = diag.errors.size();

  // mlx4-setup.sh skips a line without a port type ([ -z "$port1" ] && continue): a
  // warning here, never a refused boot over rdma-core's shared file.
  if (fields.size() == 1) {
    return diag.warn(where, "no port type after " + shown(fields[0]) + std::string(kMlx4Usage) +
                                ": rdma-core's mlx4-setup.sh skips this line, and so does "
                                "rdma-provision");
  }
  auto pci = parse_pci_address(fields[0], where, diag);
  if (fields.size() > 3) {
    diag.error(where, "too many fields: " + shown(fields[3]) + " after the port 2 type" +
                          std::string(kMlx4Usage));
  }
  std::optional<PortType> types[2];
  for (size_t i = 1; i < fields.size() && i <= 2; ++i) {
    types[i - 1] = parse_port_type(fields[i], where, diag);
  }
  if (pci) {
    auto [first, fresh] = seen.emplace(*pci, where);
    if (!fresh) {
      diag.error(where, "PCI address " + shown(fields[0]) + " is already set at " + first->second);
    }
  }
  if (diag.errors.size() != errors_before) return;
  // mlx4-setup.sh finds the card by its directory, /sys/bus/pci/drivers/mlx4_core/<id>,
  // which the kernel names in one form only (drivers/pci/probe.c pci_setup_device:
  // "%04x:%02x:%02x.%d", domain included, lower case): an id written otherwise is never
  // found, and the script skips the line. So does rdma-provision.
  if (fields[0] != pci->str()) {
    diag.warn(where, "rdma-core's mlx4-setup.sh looks for /sys/bus/pci/drivers/mlx4_core/" +
                         std::string(fields[0]) + ", which the kernel never names so: it skips " +
                         "this line, and so does rdma-provision; write " + pci->str());
    return;
  }

  // rdma-core's mlx4-setup.sh (set_dual_port) refuses port 1 eth unless port 2 is eth
  // too ("In order for port1 to be eth, port2 must also be eth") and sets nothing: so do we.
  if (types[0] == PortType::kEth && types[1] && types[1] != PortType::kEth) {
    diag.warn(where,
              "port 1 eth needs port 2 eth: rdma-core's mlx4-setup.sh refuses this line "
              "and sets neither port; so does rdma-provision");
    return;
  }
  Mlx4Setting& card = cfg.mlx4[*pci];
  for (int i = 0; i < 2; ++i) {
    if (types[i]) card.type[i] = Sourced<PortType>{*types[i], where};
  }
}

}  // namespace

void parse_mlx4_conf(std::string_view text, const std::string& file, Config& cfg,
                     Diagnostics& diag) {
  std::map<PciAddress, std::string> seen;  // card -> "file:line" that set it
  for_each_line(text, [&](size_t n, std::string_view line) {
    mlx4_line(line, Source::at(Source::Origin::kMlx4Conf, file, n), seen, cfg, diag);
  });
}

}  // namespace rp
