#include "provision/inventory/shown.h"

#include "provision/base/strings.h"

namespace rp {

std::optional<Mlx4PortType> parse_mlx4_port_type(std::string_view shown) {
  // drivers/net/ethernet/mellanox/mlx4/main.c show_port_type prints the port's current
  // type, "ib" or "eth" (caps.port_type), inside "auto (...)" when the port's possible
  // type is MLX4_PORT_TYPE_AUTO, then "\n".
  shown = trim(shown);
  Mlx4PortType t;
  if (starts_with(shown, "auto (") && ends_with(shown, ")")) {
    t.configured = PortType::kAuto;
    shown = shown.substr(6, shown.size() - 7);
  }
  if (shown == "ib") {
    t.effective = PortType::kIb;
  } else if (shown == "eth") {
    t.effective = PortType::kEth;
  } else {
    return std::nullopt;
  }
  if (!t.is_auto()) t.configured = t.effective;
  return t;
}

std::optional<IpoibMode> parse_shown_ipoib_mode(std::string_view shown) {
  // drivers/infiniband/ulp/ipoib/ipoib_main.c show_mode prints "connected\n" when
  // IPOIB_FLAG_ADMIN_CM is set and "datagram\n" otherwise: the words set_mode takes.
  return parse_ipoib_mode(trim(shown));
}

std::optional<uint8_t> parse_roce_tos(std::string_view shown) {
  // drivers/infiniband/core/cma_configfs.c default_roce_tos_show prints the u8 ToS with
  // "%u\n".
  auto v = parse_uint(trim(shown));
  if (!v || *v > 255) return std::nullopt;
  return static_cast<uint8_t>(*v);
}

}  // namespace rp
