// NVMe over Fabrics, the host's side, through the kernel's own interface (no nvme-cli):
// a controller is created by one write of an option string to /dev/nvme-fabrics and named
// by the read after it (drivers/nvme/host/fabrics.c nvmf_dev_write, nvmf_dev_show); a
// discovery controller's log is read with one Get Log Page admin command
// (NVME_IOCTL_ADMIN_CMD, log 0x70, the NVMe over Fabrics specification's Discovery Log
// Page). A controller is removed through sysfs (delete_controller: apply/nvmf.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/base/result.h"

namespace rp {

// The discovery subsystem's well-known NQN (include/linux/nvme.h NVME_DISC_SUBSYS_NAME).
inline constexpr const char* kNvmfDiscoveryNqn = "nqn.2014-08.org.nvmexpress.discovery";

// One controller to create: what nvme-cli's `connect` writes (libnvme build_options),
// host_traddr left out when empty (dracut's "none" never reaches the kernel), the host's
// NQN and ID both or neither (6.12 nvmf_host_add refuses one without its pair: EINVAL).
struct NvmfConnect {
  std::string transport = "rdma";
  std::string traddr, trsvcid = "4420", host_traddr;
  std::string nqn = kNvmfDiscoveryNqn;
  std::string hostnqn, hostid;
};

// "nqn=...,transport=rdma,traddr=...,trsvcid=...[,host_traddr=...][,hostnqn=...,hostid=...]"
std::string nvmf_options(const NvmfConnect& c);

// "instance=%d,cntlid=%d\n" (nvmf_dev_show after a write): the controller is nvme<instance>.
struct NvmfController {
  int instance = -1;
  int cntlid = -1;
};
std::optional<NvmfController> parse_nvmf_reply(std::string_view reply);

// Creates the controller; returns once it is live (nvme_rdma_create_ctrl runs the connect
// synchronously; the namespace scan that follows is not). The error names the target and
// what the kernel's errno means for a fabrics connect.
Result<NvmfController> nvmf_create_controller(const NvmfConnect& c);

// One Discovery Log Page entry (1024 bytes; strings space- or NUL-padded).
struct NvmfLogEntry {
  uint8_t trtype = 0;   // 1 RDMA, 2 FC, 3 TCP, 254 loop
  uint8_t adrfam = 0;   // 1 IPv4, 2 IPv6
  uint8_t subtype = 0;  // 1 referral, 2 NVMe subsystem, 3 this discovery subsystem
  uint16_t portid = 0;
  std::string trsvcid, traddr, subnqn;
};
inline constexpr uint8_t kNvmfTrtypeRdma = 1;
inline constexpr uint8_t kNvmfSubtypeNvme = 2;

// The page as read (a 1024-byte header: generation counter at 0, number of records at 8;
// then the records): the entries it holds, or why it cannot be read.
Result<std::vector<NvmfLogEntry>> parse_discovery_log(const std::vector<uint8_t>& page);

// The log of discovery controller nvme<instance>: header first, then header and entries
// (the number of records may change between the two reads: read again, bounded).
Result<std::vector<NvmfLogEntry>> nvmf_discovery_log(int instance);

// What errno means for a write to /dev/nvme-fabrics (nvme_rdma_cm_handler, nvmf_connect_*).
std::string nvmf_errno_meaning(int errnum);

}  // namespace rp
