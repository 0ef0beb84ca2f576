#include "provision/base/drivers.h"

#include <algorithm>

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

namespace {

struct Row {
  std::string_view nic, rdma;
  bool ib, opa, iwarp, v1, v2, enhanced;
  std::string_view v2_only_on;
};
// InfiniBand/RoCE/iWARP/OPA: rdma-core kernel-boot/rdma-description.rules. RoCE versions:
// mlx4 lists RoCE v2 GIDs only with MLX4_DEV_CAP_FLAG2_ROCE_V1_V2 (hw/mlx4/main.c), which
// ConnectX-3 Pro firmware sets; mlx5, bnxt_re, qedr, hns and pvrdma report both
// (RDMA_CORE_PORT_IBA_ROCE | RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP in their
// get_port_immutable); rdma_rxe reports RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP alone
// (sw/rxe/rxe_verbs.c rxe_port_immutable); irdma's RoCE (roce_ena=1) is v2 only
// (hw/irdma/verbs.c irdma_roce_port_immutable; "irdma" alone means ice's, which can run
// it; i40e's X722 is iWARP only). Enhanced IPoIB: mlx5 gives ib_ipoib an
// rdma_netdev (hw/mlx5/main.c mlx5_ib_rn_get_params) whose hardware address has no
// connected-mode flag, so ipoib_set_mode refuses "connected" (ulp/ipoib/ipoib_main.c).
constexpr Row kRows[] = {
    {"mlx4_core", "mlx4_ib", true, false, false, true, true, false, "a ConnectX-3 Pro"},
    {"mlx5_core", "mlx5_ib", true, false, false, true, true, true, ""},
    {"ib_mthca", "ib_mthca", true, false, false, false, false, false, ""},
    {"ib_qib", "ib_qib", true, false, false, false, false, false, ""},
    {"hfi1", "hfi1", false, true, false, false, false, false, ""},
    {"cxgb4", "iw_cxgb4", false, false, true, false, false, false, ""},
    {"i40e", "i40e", false, false, true, false, false, false, ""},
    {"ice", "irdma", false, false, true, false, true, false, ""},
    {"be2net", "ocrdma", false, false, false, true, true, false, ""},
    {"bnxt_en", "bnxt_re", false, false, false, true, true, false, ""},
    {"hns3", "hns_roce_hw_v2", false, false, false, true, true, false, ""},
    {"qede", "qedr", false, false, true, true, true, false, ""},
    {"vmw_pvrdma", "vmw_pvrdma", false, false, false, true, true, false, ""},
    {"rdma_rxe", "rdma_rxe", false, false, false, false, true, false, ""},
    {"siw", "siw", false, false, true, false, false, false, ""},
    {"erdma", "erdma", false, false, true, false, false, false, ""},  // iWARP (hw/erdma)
    {"efa", "efa", false, false, false, false, false, false, ""},     // SRD: neither
};

}  // namespace

std::optional<DriverPorts> driver_ports(std::string_view driver) {
  for (const auto& r : kRows) {
    if (driver != r.nic && driver != r.rdma) continue;
    return DriverPorts{driver, r.ib, r.opa, r.iwarp, r.v1, r.v2, r.enhanced, r.v2_only_on};
  }
  return std::nullopt;
}

std::vector<std::string_view> known_drivers() {
  std::vector<std::string_view> out;
  for (const auto& r : kRows) {
    out.push_back(r.nic);
    if (r.rdma != r.nic) out.push_back(r.rdma);
  }
  for (const auto& p : rdma_driver_pairs()) {
    for (auto n : {p.nic, p.rdma})
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::optional<std::string_view> driver_of_device(std::string_view ibdev) {
  // The name each driver registers its devices under (ib_register_device's format):
  // hw/mlx5/main.c "mlx5_%d" (and "mlx5_bond_%d" for a RoCE LAG), hw/mlx4/main.c
  // "mlx4_%d", hw/bnxt_re/main.c bnxt_re_register_ib "bnxt_re%d", hw/qedr/main.c
  // qedr_register_device "qedr%d", hw/efa/efa_main.c "efa_%d", hw/irdma/verbs.c
  // irdma_ib_register_device "irdma%d"; hfi1's "hfi1_<unit>" as PSM2 and libfabric open
  // it. Renamed devices (rdma_rename's roce/ibp names) say nothing of their driver.
  struct Prefix {
    std::string_view prefix, rdma;
  };
  static constexpr Prefix kPrefixes[] = {
      {"mlx5_", "mlx5_ib"}, {"mlx4_", "mlx4_ib"}, {"bnxt_re", "bnxt_re"}, {"qedr", "qedr"},
      {"hfi1_", "hfi1"},    {"efa_", "efa"},      {"irdma", "irdma"},
  };
  for (const auto& p : kPrefixes) {
    if (ibdev.size() > p.prefix.size() && ibdev.substr(0, p.prefix.size()) == p.prefix) {
      return p.rdma;
    }
  }
  return std::nullopt;
}

}  // namespace rp
