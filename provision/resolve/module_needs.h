// Which kernel modules a configuration needs on a machine: the one answer for the plan
// (plan/modules.cc loads it minus what is loaded, blacklisted or deferred to the real
// root) and for image-needs (image/needs.cc carries it whole, the modules the kernel
// requests by itself included).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"

namespace rp {

// What of a machine decides its modules.
struct Machine {
  // rdma-core's technologies (kernel-boot/rdma-description.rules): of a device present, or
  // one a driver there may register (an mlx5 port is InfiniBand or Ethernet by firmware).
  bool any = false, infiniband = false, roce = false, iwarp = false, opa = false;
  // The RDMA driver each RDMA-capable NIC needs beside its own (base/drivers.h).
  struct Hardware {
    std::string rdma;  // mlx5_ib
    std::string why;   // "hardware: 0000:af:00.0 is driven by mlx5_core"
  };
  std::vector<Hardware> hardware;
  bool mlx4 = false;      // mlx4_core drives, or will drive, a card here
  bool mlx4_eth = false;  // one of its ports is, or is set to become, Ethernet
  bool rxe = false;       // Soft-RoCE runs, or may run, here (beside what the inputs ask)
  // mlx4 cards present (the plan loads mlx4_core for a configured card only where it is).
  std::vector<PciAddress> pci_present;
  // Interfaces known to be Ethernet: an IPoIB boot network is possible on the others.
  std::vector<std::string> ethernet;
  // An image for a target known in part: every node-table row counts (which one is the
  // node's is known at boot), any configured mlx4 card may be there, and the boot's network
  // may be IPoIB wherever an InfiniBand port may be (the command line is the target's).
  bool any_target = false;
};

// This machine, as the inventory shows it (the plan's view).
Machine machine_of(const Config& cfg, const Inventory& inv);
// Adds a driver of the target (image-needs: the host's, every known one, or the ones
// named): the technologies its devices may have and the RDMA driver it needs beside it.
// Any driver but Soft-RoCE's and Soft-iWARP's counts as RDMA hardware.
void add_driver(Machine& m, const std::string& driver, const std::string& why);

struct ModuleNeed {
  enum class Kind {
    kMlx4Core,   // mlx4_core for the port-type files, before anything else
    kHardware,   // the RDMA driver of a NIC driver
    kSetting,    // asked for by a setting or an input's module request
    kList,       // from one of rdma-core's lists: deferrable to the real root
    kOnRequest,  // the kernel requests it itself (the image must carry it; no load)
  };
  Kind kind = Kind::kSetting;
  std::string module;
  std::string why;               // the input or fact that asks, as plans and images print it
  std::optional<Source> source;  // the input value that asks, when one does
};

struct ModuleNeeds {
  std::vector<ModuleNeed> needs;  // in load order; a module may appear more than once
  // rdma-core lists this machine does not need, as rdma-core's udev rules decide:
  // file -> (why not, modules).
  struct NotWanted {
    std::string file, why;
    std::vector<std::string> modules;
  };
  std::vector<NotWanted> not_wanted;
};

ModuleNeeds module_needs(const Config& cfg, const Machine& m);

}  // namespace rp
