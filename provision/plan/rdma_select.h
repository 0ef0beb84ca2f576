// Which present RDMA devices a RoCE default or a wait means (config.h RdmaSelector), and
// what to say when a device named by its name is absent because rdma-core renamed it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "provision/plan/builder.h"

namespace rp {

// A present device, and the one port meant (0: every port of it).
struct SelectedDevice {
  const RdmaDevice* device = nullptr;
  unsigned port = 0;
};

// The present devices `sel` means: by name; by PCI function (hardware devices, not the
// soft devices on that function's netdev); by node GUID; by the port under an interface
// (by the name it has now or will have after this plan's renames). A name that is absent
// but is rdma-core's persistent name of a present device (kernel-boot/rdma_rename.c
// by_onboard, by_pci, by_guid: "rocep175s0f0" for mlx5_0 at 0000:af:00.0 before
// 60-rdma-persistent-naming.rules has run, "roceo1", a VF's "rocep3s0f0v1"; the names
// the inventory computed, RdmaDevice::persistent_names) means that device, and `*how`
// says so. Either PF of a RoCE LAG, by PCI function or by interface, means the LAG device
// (Inventory::roce_lag), and `*how` says so.
std::vector<SelectedDevice> select_rdma(const PlanBuilder& b, const RdmaSelector& sel,
                                        std::string* how);

// Where a setting keyed by (device selector, port; 0 every port) stands among others of
// its kind: "*" 0, "*"/port 1, a device 2, one port of one (or a netdev- selector) 3. A
// more specific setting is applied later and refines a general one (RoCE defaults,
// expected links).
int specificity(const std::pair<RdmaSelector, unsigned>& k);
// The keys of `m` from the most general to the most specific, in map order within each
// rank (four passes: the order of a stable sort, without instantiating one per map).
template <typename S>
std::vector<const std::pair<const std::pair<RdmaSelector, unsigned>, S>*> by_specificity(
    const std::map<std::pair<RdmaSelector, unsigned>, S>& m) {
  std::vector<const std::pair<const std::pair<RdmaSelector, unsigned>, S>*> out;
  for (int rank = 0; rank < 4; ++rank)
    for (const auto& e : m)
      if (specificity(e.first) == rank) out.push_back(&e);
  return out;
}

// The soft device this plan creates on interface `ifname` (by the name it has now or is
// given by this plan's renames), if any: what a netdev- selector means before it exists.
std::optional<std::string> planned_soft_on(const PlanBuilder& b, const std::string& ifname);

// The names rdma-core's rdma_rename gives `d` under its default policy (NAME_FALLBACK:
// by_onboard, then by_pci; kernel-boot/rdma_rename.c), its protocol prefix included
// ("roceo3", "rocep175s0f0"); none for a device not on PCI (rxe, siw).
std::vector<std::string> rdma_core_names(const RdmaDevice& d);

// For a device name that matches nothing: which present devices rdma-core's persistent
// naming has renamed ("rocep175s0f0 (pci-0000:af:00.0)"), or "" when none looks renamed.
std::string renamed_devices_hint(const Inventory& inv);
// A RoCE LAG's mode and PFs: "802.3ad: 0000:9a:00.0 ens3f0np0, 0000:9a:00.1 ens3f1np1".
std::string roce_lag_text(const Inventory::RoceLag& lag);
// For a device name that matches nothing: the RoCE LAG devices present, what they took
// over and how to select them instead; "" when none.
std::string roce_lag_hint(const Inventory& inv);
// The warning for `what` ("RoCE defaults for mlx5_0/1") naming an absent device when
// rdma-core has renamed the devices here, or a RoCE LAG has taken over devices here (a
// kernel name of its PFs' is gone); "" when neither.
std::string absent_name_warning(const Inventory& inv, const std::string& what);

}  // namespace rp
