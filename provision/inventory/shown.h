// What the kernel's attribute files show, parsed once when the inventory reads them (and
// by the executors that read the same files back): one parser per value, each beside the
// kernel function that prints it.
#pragma once

#include <optional>
#include <string_view>

#include "provision/base/types.h"

namespace rp {

// mlx4_port<N>: "ib", "eth", "auto (ib)", "auto (eth)". nullopt for anything else.
std::optional<Mlx4PortType> parse_mlx4_port_type(std::string_view shown);

// /sys/class/net/<if>/mode of an IPoIB interface: "datagram" or "connected".
std::optional<IpoibMode> parse_shown_ipoib_mode(std::string_view shown);

// rdma_cm's ports/<N>/default_roce_tos: a decimal number from 0 to 255.
std::optional<uint8_t> parse_roce_tos(std::string_view shown);

}  // namespace rp
