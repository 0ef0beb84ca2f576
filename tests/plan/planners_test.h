// What the planner tests (tests/plan/*_test.cc of the planners_test target) share:
// the smallest machines and configurations that show a rule, and what a plan holds.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "provision/inputs/cmdline.h"
#include "provision/inventory/shown.h"
#include "provision/plan/plan.h"
#include "provision/plan/rdma_select.h"
#include "tests/support/source.h"

namespace rp::planners_test {

using rp::test::src;

// A ConnectX-3 driven by mlx4_core, mlx4_core loaded, mlx4_en not; port 1's type file
// reads `port1` (show_port_type in drivers/net/ethernet/mellanox/mlx4/main.c prints
// "auto (eth)" / "auto (ib)" for a sensed auto port).
inline Inventory cx3_with_port1(const std::string& port1) {
  Inventory inv;
  PciFunction f;
  f.address = *PciAddress::parse("0000:81:00.0");
  f.driver = "mlx4_core";
  f.mlx4_ports = {{1, parse_mlx4_port_type(port1), true, std::nullopt},
                  {2, parse_mlx4_port_type("ib"), true, 4096u}};
  inv.pci.push_back(f);
  inv.modules = {"ib_core", "mlx4_core", "mlx4_ib"};  // sorted, as discover() keeps them
  return inv;
}

inline bool loads(const Plan& p, const std::string& module) {
  for (const auto& a : p.actions) {
    if (const auto* l = std::get_if<LoadModule>(&a.params); l && l->module == module) return true;
  }
  return false;
}

// An IPoIB parent ib0 on `driver`, with the hardware address flags byte `flags`
// (ipoib_cm.c sets IPOIB_FLAGS_RC in dev_addr[0] when the HCA can do connected mode).
inline Inventory ipoib_port(const std::string& driver, uint8_t flags) {
  Inventory inv;
  NetDev n;
  n.name = "ib0";
  n.ifindex = 3;
  n.iflink = 3;
  n.type = kArphrdInfiniband;
  n.address = *HwAddress::parse("00:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1");
  n.address.bytes[0] = flags;
  n.driver = driver;
  n.ipoib_mode = IpoibMode::kDatagram;
  n.mtu = 2044;
  inv.netdevs.push_back(n);
  inv.modules = {"ib_ipoib"};
  return inv;
}

inline Config connected(const std::string& ifname) {
  Config cfg;
  cfg.ipoib[ifname].mode = Sourced<IpoibMode>{IpoibMode::kConnected, src("test:1")};
  return cfg;
}

// An Ethernet mlx4 port whose GID table lists only the given RoCE types.
inline Inventory roce_port(bool v1, bool v2) {
  Inventory inv;
  RdmaDevice d;
  d.name = "mlx4_0";
  d.driver = "mlx4_core";
  RdmaPort p;
  p.num = 2;
  p.state = PortState::kActive;
  p.link_layer = LinkLayer::kEthernet;
  p.roce_v1 = v1;
  p.roce_v2 = v2;
  p.cm_roce_mode = "IB/RoCE v1";
  d.ports.push_back(p);
  inv.rdma.push_back(d);
  inv.modules = {"mlx4_ib", "rdma_cm"};  // sorted, as discover() keeps them
  return inv;
}

inline WaitItem port_wait(const std::string& device, unsigned port) {
  return WaitItem{WaitItem::Kind::kPort, RdmaSelector::named(device), port, ""};
}

inline Config roce_v2(const std::string& target) {
  Config cfg;
  cfg.roce[{RdmaSelector::named(target), 2}].mode = Sourced<RoceMode>{RoceMode::kV2, src("test:3")};
  return cfg;
}

// The ToS each RoCE port is given, "<device>/<port> <tos> (<reason>)".
inline std::vector<std::string> tos_writes(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions) {
    if (a.kind() != ActionKind::kSetRoceTos) continue;
    out.push_back(a.object() + " " + a.wanted() + " (" + a.reason + ")");
  }
  return out;
}

// An Ethernet interface of the inventory.
inline NetDev ethernet(const std::string& name, int ifindex, const std::string& mac, bool up) {
  NetDev n;
  n.name = name;
  n.ifindex = ifindex;
  n.iflink = ifindex;
  n.type = kArphrdEther;
  n.address = *HwAddress::parse(mac);
  n.admin_up = up;
  n.carrier = up;
  return n;
}

inline Config rdma_core_lists() {
  Config cfg;
  cfg.modules = {{"ib_uverbs", src("/etc/rdma/modules/rdma.conf:3")},
                 {"ib_ipoib", src("/etc/rdma/modules/infiniband.conf:2")},
                 {"rdma_ucm", src("/etc/rdma/modules/roce.conf:1")},
                 {"iw_cm", src("/etc/rdma/modules/iwarp.conf:1")},
                 {"opa_vnic", src("/etc/rdma/modules/opa.conf:1")}};
  return cfg;
}

// A Soft-RoCE node: rxe0 on eth0, up, port 1 ACTIVE (rxe_net.c rxe_port_up on NETDEV_UP).
inline Inventory rxe_node() {
  Inventory inv;
  NetDev n;
  n.name = "eth0";
  n.type = kArphrdEther;
  n.admin_up = n.carrier = true;
  n.operstate = "up";
  n.rdma_device = "rxe0";
  n.rdma_port = 1;
  inv.netdevs.push_back(n);
  RdmaDevice d;
  d.name = "rxe0";
  d.parent_netdev = "eth0";
  RdmaPort p;
  p.num = 1;
  p.state = PortState::kActive;
  p.link_layer = LinkLayer::kEthernet;
  p.netdev = "eth0";
  p.roce_v2 = true;
  d.ports.push_back(p);
  inv.rdma.push_back(d);
  inv.modules = {"ib_core", "rdma_rxe"};
  return inv;
}

inline Config verify_config(VerifySetting::Mode mode) {
  Config cfg;
  cfg.roce[{RdmaSelector{RdmaSelector::By::kName, "rxe0"}, 1}].mode =
      Sourced<RoceMode>{RoceMode::kV2, src("cmdline: rd.rdma.roce=rxe0/1:v2")};
  VerifySetting v;
  v.mode = mode;
  cfg.verify = {v, src("cmdline: rd.rdma.verify")};
  return cfg;
}

inline std::vector<std::string> kinds(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions)
    out.push_back(std::string(to_string(a.kind())) + " " + a.object());
  return out;
}

}  // namespace rp::planners_test
