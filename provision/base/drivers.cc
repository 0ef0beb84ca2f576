#include "provision/base/drivers.h"

namespace rp {

const std::vector<DriverPair>& rdma_driver_pairs() {
  // Each RDMA driver binds to its NIC driver in the kernel (drivers/infiniband/hw/*):
  // mlx4_ib registers with mlx4_core's interface list (mlx4_register_interface); mlx5_ib,
  // irdma, bnxt_re and mana_ib are auxiliary drivers of their NIC drivers; ocrdma
  // registers with be2net (be_roce_register_driver).
  static const std::vector<DriverPair> kPairs = {
      {"mlx4_core", "mlx4_ib"}, {"mlx5_core", "mlx5_ib"},   {"bnxt_en", "bnxt_re"},
      {"cxgb4", "iw_cxgb4"},    {"qede", "qedr"},           {"ice", "irdma"},
      {"i40e", "irdma"},        {"hns3", "hns_roce_hw_v2"}, {"erdma", "erdma"},
      {"be2net", "ocrdma"},     {"mana", "mana_ib"},
  };
  return kPairs;
}

std::optional<std::string_view> rdma_driver_for(std::string_view nic_driver,
                                                std::string_view pci_device) {
  if (nic_driver == "i40e" && !pci_device.empty()) {
    // i40e creates its iWARP auxiliary device only when the function has iWARP
    // (i40e_main.c, I40E_HW_CAP_IWARP), which the X722 family alone has
    // (i40e_devids.h: I40E_DEV_ID_KX_X722 0x37CE ... I40E_DEV_ID_SFP_I_X722 0x37D3).
    static const std::string_view kX722[] = {"0x37ce", "0x37cf", "0x37d0",
                                             "0x37d1", "0x37d2", "0x37d3"};
    bool x722 = false;
    for (auto id : kX722) x722 |= pci_device == id;
    if (!x722) return std::nullopt;
  }
  for (const auto& p : rdma_driver_pairs())
    if (p.nic == nic_driver) return p.rdma;
  return std::nullopt;
}

}  // namespace rp
