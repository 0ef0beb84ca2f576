// libibverbs, wrapped once here: device and port attributes the kernel only gives
// through the verbs ABI (active/max MTU). Used on the live system when /dev/infiniband
// is usable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "provision/base/result.h"

struct ibv_device;

namespace rp {

// The device's name now. libibverbs keeps a device it has listed under the name it had
// then (init.c ibverbs_get_device_list keeps a known uverbs device: same_sysfs_dev), so in
// a process that listed devices before renaming one (rd.rdma.devname) it gives the old
// name; the uverbs char device's ibdev file gives the current one (uverbs_main.c
// ibdev_show), and a rename leaves the char device as it is.
std::string verbs_device_name(const ibv_device* dev);

struct VerbsPort {
  unsigned num = 0;
  int state = 0;                         // enum ibv_port_state, same numbers as sysfs
  unsigned active_mtu = 0, max_mtu = 0;  // bytes
};

struct VerbsDevice {
  std::string name;
  std::string fw_ver;
  std::vector<VerbsPort> ports;
};

Result<std::vector<VerbsDevice>> verbs_list_devices();

// Names of the verbs providers linked into this binary (read from their registration
// records, so a stripped release binary can show them): "mlx4", "mlx5", "rxe", "siw".
std::vector<std::string> verbs_static_providers();

// IB MTU enum (1..5) to bytes (256..4096); 0 when out of range.
unsigned ib_mtu_bytes(int mtu_enum);

}  // namespace rp
