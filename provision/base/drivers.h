// Which RDMA driver a NIC driver needs beside it. The NIC driver's own request_module
// may fail in an initramfs (the module is not in the image), so the plan loads the RDMA
// driver explicitly and `image-needs` tells the dracut module to carry it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace rp {

struct DriverPair {
  std::string_view nic, rdma;
};

// Every pair, in table order (image-needs lists them for generic images).
const std::vector<DriverPair>& rdma_driver_pairs();

// The RDMA (ib_core) driver for a PCI function driven by `nic_driver`, if it has one:
// mlx5_core -> mlx5_ib, bnxt_en -> bnxt_re, ... nullopt for drivers that are RDMA drivers
// themselves (hfi1, efa, ...) or have no RDMA side. `pci_device` (the function's device ID,
// "0x37d2") narrows it where the NIC driver has RDMA on some devices only: i40e has iWARP
// (irdma) on the X722 alone. Empty: the answer for the driver's RDMA-capable devices.
std::optional<std::string_view> rdma_driver_for(std::string_view nic_driver,
                                                std::string_view pci_device = "");

// What the ports of a driver's devices can be, for checks against a target known only by
// its drivers (`check --drivers`, `image-needs --drivers`). Keyed by the NIC driver or the
// RDMA driver ("mlx5_core" or "mlx5_ib"). The technologies are rdma-core's
// (kernel-boot/rdma-description.rules tags ID_RDMA_INFINIBAND, _ROCE, _IWARP, _OPA by the
// NIC driver); the RoCE versions are the drivers' own (cited in drivers.cc).
struct DriverPorts {
  std::string_view driver;  // as given
  bool infiniband = false, opa = false, iwarp = false;
  bool roce_v1 = false, roce_v2 = false;
  // IPoIB is Enhanced IPoIB (mlx5: ib_ipoib's ipoib_enhanced=1, its default): datagram
  // mode only.
  bool enhanced_ipoib = false;
  // RoCE v2 on some devices only (mlx4: a ConnectX-3 Pro has it, a ConnectX-3 not).
  std::string_view roce_v2_only_on;
};
std::optional<DriverPorts> driver_ports(std::string_view driver);
// Every driver driver_ports() knows, NIC and RDMA names.
std::vector<std::string_view> known_drivers();

// The RDMA driver whose devices the kernel names like `ibdev` ("mlx5_0" -> mlx5_ib), or
// nullopt (a soft device, a renamed one, an unknown prefix).
std::optional<std::string_view> driver_of_device(std::string_view ibdev);

}  // namespace rp
