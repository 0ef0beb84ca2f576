// What an initramfs must carry so that rdma-provision can do at boot what its inputs ask:
// kernel modules (RDMA core, the target's drivers, what the configuration loads) and the
// input files it reads. `rdma-provision image-needs` prints it and dracut's module-setup.sh
// installs exactly that, so the image knowledge lives here and nowhere in shell.
//
// These are image rules, not the plan's: the plan loads what this machine needs now; an
// image must also carry what the target may need at boot (a GUID name needs ib_ipoib even
// where no InfiniBand port exists yet, a port type may change on the target's command line).
#pragma once

#include <string>
#include <vector>

#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"

namespace rp {

struct ImageNeed {
  enum class Kind {
    kModule,     // a kernel module, as modprobe names it
    kModuleDir,  // every module under a kernel source directory ("drivers/infiniband/hw")
    kFile,       // an input file (a kernel path under the root)
  };
  Kind kind = Kind::kModule;
  std::string item;
  std::string dest;  // kFile: its place in the image when that is not `item`, else ""
  std::string why;   // the input or the fact that asks for it
};

// Whose RDMA drivers the image carries.
enum class DriverChoice {
  kHost,     // those of the RDMA-capable PCI functions of the inventory (host-only image)
  kGeneric,  // every driver we know of, and Soft-RoCE/Soft-iWARP (an image for any machine)
  kGiven,    // the ones named (dracut's rdma_provision_drivers)
};

struct ImageNeedsOptions {
  DriverChoice drivers = DriverChoice::kHost;
  std::vector<std::string> given;  // kGiven: module names
  // false: the image leaves out rdma-core's, modprobe's and udev's files, so neither they
  // nor what they ask for are needed (dracut's rdma_provision_rdma_core=no).
  bool rdma_core = true;
  // The native configuration's path as the inputs were read with (InputOptions).
  std::string config_path = InputOptions{}.config_path;
};

// Modules first (core, drivers, what the configuration loads), then files in reading
// order; each item once, with the first reason found.
std::vector<ImageNeed> image_needs(const Inputs& in, const Inventory& inv,
                                   const ImageNeedsOptions& opt);

// What the configuration names that the image will not be able to drive: an RDMA device
// known by the kernel's name of its driver ("mlx5_0": mlx5_ib), or mlx4 port types, whose
// driver is not among `needs` (a host-only image built where that card is absent, a
// --drivers list without it). Warnings at image build: the boot would find no such device.
void check_image_carries(const Config& cfg, const std::vector<ImageNeed>& needs,
                         DriverChoice drivers, Diagnostics& d);

// One line per item, for shell: "module <name>", "module-dir <dir>", "file <path> [<dest>]",
// each followed by "  # <why>". Items never contain " # ".
std::string image_needs_text(const std::vector<ImageNeed>& needs);

}  // namespace rp
