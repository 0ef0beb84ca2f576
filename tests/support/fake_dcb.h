// FakeDcb: DCB netlink as the kernel answers it for mlx5 and for drivers without DCB, so
// the DCB planner and executors run against a driver's behaviour without the hardware.
// Every behaviour follows a source, cited beside it: net/dcb/dcbnl.c (dcb_doit,
// dcbnl_ieee_set/_del/_fill, dcb_ieee_setapp) and drivers/net/ethernet/mellanox/mlx5/
// core/en_dcbnl.c of Linux 6.1 and 6.12 (the same DCB logic in both).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "provision/kernel/dcbnl.h"

namespace rp::testing {

class FakeDcb : public DcbOps {
 public:
  // An mlx5 port as the driver sets it up: PFC off (pfc_cap 8, delay 7, the default cable
  // length MLX5E_DEFAULT_CABLE_LEN), ETS all VENDOR at 100 with prio_tc {0:1, 1:0, i:i}
  // (mlx5e_ets_init), PCP trust, an empty APP table.
  void add_mlx5(const std::string& ifname);
  // An interface whose driver registers no dcbnl_ops (virtio_net, e1000): EOPNOTSUPP.
  void add_without_dcb(const std::string& ifname);
  // Kernels from 6.2 check a trust table and answer EOPNOTSUPP for a driver without
  // dcbnl_setapptrust (mlx5); 6.1 skips the attribute (its policy ends before it).
  void set_kernel_has_trust_table(bool b) { trust_table_kernel_ = b; }

  Result<DcbState> get(const std::string& ifname) const override;
  Status set_pfc(const std::string& ifname, const DcbPfcRequest& pfc) const override;
  Status set_ets(const std::string& ifname, const DcbEtsRequest& ets) const override;
  Status add_apps(const std::string& ifname, const std::vector<DcbAppEntry>& e) const override;
  Status del_apps(const std::string& ifname, const std::vector<DcbAppEntry>& e) const override;
  Status set_trust(const std::string& ifname, const std::vector<uint8_t>& s) const override;

  // What happened: every accepted write, "<ifname> pfc 0x08", "<ifname> ets", "<ifname>
  // app+ 26:3", "<ifname> app- 26:1", "<ifname> link toggled"; and the gets.
  const std::vector<std::string>& writes() const { return writes_; }
  unsigned gets() const { return gets_; }
  uint8_t trust_register(const std::string& ifname) const;  // QPTS: 1 PCP, 2 DSCP

 private:
  struct Port {
    bool dcb = true;
    DcbState state;
    uint8_t qpts = 1;                     // MLX5_QPTS_TRUST_PCP
    std::array<uint8_t, 64> dscp2prio{};  // QPDPM, read at init (mlx5e_trust_initialize)
  };
  // dcb_doit: ENODEV for no such interface, EOPNOTSUPP for one without dcbnl_ops.
  Result<Port*> port(const std::string& ifname) const;
  // The kernel's side: an interface's ops are `const` as seen through DcbOps.
  mutable std::map<std::string, Port> ports_;
  bool trust_table_kernel_ = false;
  mutable std::vector<std::string> writes_;
  mutable unsigned gets_ = 0;
};

}  // namespace rp::testing
