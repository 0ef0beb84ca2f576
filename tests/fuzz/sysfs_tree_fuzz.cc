// Fuzz target: discovery's sysfs attribute readers (provision/inventory/sysfs.cc
// discover_sysfs, discover_sysfs_netdevs, enrich_netdevs, discover_presence) over a tree of the
// kernel's shape whose attribute contents are the fuzzer's bytes. The input is split at NUL bytes,
// one piece per attribute in kFiles' order; a piece that is the single byte 0x01 removes the file
// (an attribute this kernel or driver does not have). Whatever the files hold, discovery must
// neither crash nor leak, and what it reports must be consistent with the tree's shape.
//
// The shape, with the kernel function that makes each part:
//   sys/class/infiniband/<dev>/{node_guid,node_type,sys_image_guid,fw_ver,board_id,
//     hca_type,node_desc,parent}: drivers/infiniband/core/sysfs.c ib_dev_attrs, rxe's
//     parent (sw/rxe/rxe_verbs.c rxe_parent_show);
//   .../ports/<n>/{state,phys_state,link_layer,rate,lid,sm_lid,gids/<i>,
//     gid_attrs/{ndevs,types}/<i>}: core/sysfs.c port_default_attrs, alloc_port_table_group;
//   sys/bus/pci/devices/<bdf>/mlx4_port<n>[_mtu]: drivers/net/ethernet/mellanox/mlx4/main.c
//     mlx4_init_port_info; vendor/device: drivers/pci/pci-sysfs.c;
//   sys/class/net/<if>/{ifindex,type,address,broadcast,iflink,mtu,flags,carrier,operstate,
//     dev_port}: net/core/net-sysfs.c; IPoIB's mode/pkey/parent: ulp/ipoib/ipoib_main.c,
//     ipoib_cm.c, ipoib_vlan.c;
//   sys/kernel/config/rdma_cm/<dev>/ports/<n>/default_roce_{mode,tos}: core/cma_configfs.c;
//   proc/modules, proc/sys/kernel/osrelease, sys/module/mlx4_en/parameters/pfc{tx,rx}.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "provision/base/root.h"
#include "provision/inventory/inventory.h"

namespace {

const char* const kFiles[] = {
    "sys/class/infiniband/mlx4_0/node_guid",
    "sys/class/infiniband/mlx4_0/node_type",
    "sys/class/infiniband/mlx4_0/sys_image_guid",
    "sys/class/infiniband/mlx4_0/fw_ver",
    "sys/class/infiniband/mlx4_0/board_id",
    "sys/class/infiniband/mlx4_0/hca_type",
    "sys/class/infiniband/mlx4_0/ports/1/state",
    "sys/class/infiniband/mlx4_0/ports/1/phys_state",
    "sys/class/infiniband/mlx4_0/ports/1/link_layer",
    "sys/class/infiniband/mlx4_0/ports/1/rate",
    "sys/class/infiniband/mlx4_0/ports/1/lid",
    "sys/class/infiniband/mlx4_0/ports/1/sm_lid",
    "sys/class/infiniband/mlx4_0/ports/1/gids/0",
    "sys/class/infiniband/mlx4_0/ports/2/state",
    "sys/class/infiniband/mlx4_0/ports/2/phys_state",
    "sys/class/infiniband/mlx4_0/ports/2/link_layer",
    "sys/class/infiniband/mlx4_0/ports/2/gids/0",
    "sys/class/infiniband/mlx4_0/ports/2/gid_attrs/ndevs/0",
    "sys/class/infiniband/mlx4_0/ports/2/gid_attrs/types/0",
    "sys/class/infiniband/mlx4_0/ports/2/gid_attrs/types/1",
    "sys/class/infiniband/rxe0/node_guid",
    "sys/class/infiniband/rxe0/parent",
    "sys/class/infiniband/rxe0/node_desc",
    "sys/class/infiniband/rxe0/ports/1/state",
    "sys/class/infiniband/rxe0/ports/1/link_layer",
    "sys/class/infiniband/rxe0/ports/1/gids/0",
    "sys/class/infiniband/rxe0/ports/1/gid_attrs/types/0",
    "sys/kernel/config/rdma_cm/mlx4_0/ports/2/default_roce_mode",
    "sys/kernel/config/rdma_cm/mlx4_0/ports/2/default_roce_tos",
    "sys/bus/pci/devices/0000:81:00.0/mlx4_port1",
    "sys/bus/pci/devices/0000:81:00.0/mlx4_port1_mtu",
    "sys/bus/pci/devices/0000:81:00.0/mlx4_port2",
    "sys/bus/pci/devices/0000:81:00.0/vendor",
    "sys/bus/pci/devices/0000:81:00.0/device",
    "sys/class/net/ib0/ifindex",
    "sys/class/net/ib0/type",
    "sys/class/net/ib0/address",
    "sys/class/net/ib0/broadcast",
    "sys/class/net/ib0/iflink",
    "sys/class/net/ib0/mtu",
    "sys/class/net/ib0/flags",
    "sys/class/net/ib0/carrier",
    "sys/class/net/ib0/operstate",
    "sys/class/net/ib0/dev_port",
    "sys/class/net/ib0/mode",
    "sys/class/net/ib0/pkey",
    "sys/class/net/ib0.8001/ifindex",
    "sys/class/net/ib0.8001/type",
    "sys/class/net/ib0.8001/iflink",
    "sys/class/net/ib0.8001/broadcast",
    "sys/class/net/ib0.8001/parent",
    "sys/class/net/eth0/ifindex",
    "sys/class/net/eth0/type",
    "sys/class/net/eth0/address",
    "proc/modules",
    "proc/sys/kernel/osrelease",
    "sys/module/mlx4_en/parameters/pfctx",
};
constexpr size_t kCount = sizeof kFiles / sizeof kFiles[0];

void make_parents(const std::string& path) {
  for (size_t i = 1; i < path.size(); ++i) {
    if (path[i] == '/') ::mkdir(path.substr(0, i).c_str(), 0755);
  }
}

// The tree, made once per process: the directories and device links (the kernel's shape,
// not fuzzed); every attribute file is rewritten by each input.
const std::string& tree() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string tmpl =
        std::string(tmp ? tmp : (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")) +
        "/sysfs_tree_fuzz.XXXXXX";
    if (!::mkdtemp(tmpl.data())) std::abort();
    const std::string d = tmpl;
    for (const char* f : kFiles) make_parents(d + "/" + f);
    make_parents(d + "/sys/bus/pci/drivers/mlx4_core/x");
    make_parents(d + "/sys/devices/virtual/net/eth0/x");
    // class/infiniband/<dev>/device -> the PCI function, device/driver -> its driver
    // (drivers/base/core.c device_add_class_symlinks, bus.c driver_sysfs_add).
    const std::string pci = d + "/sys/bus/pci/devices/0000:81:00.0";
    if (::symlink("../../../../bus/pci/drivers/mlx4_core", (pci + "/driver").c_str()) != 0 ||
        ::symlink("../../../bus/pci/devices/0000:81:00.0",
                  (d + "/sys/class/infiniband/mlx4_0/device").c_str()) != 0 ||
        ::symlink("../../../bus/pci/devices/0000:81:00.0",
                  (d + "/sys/class/net/ib0/device").c_str()) != 0) {
      std::abort();
    }
    make_parents(pci + "/infiniband/mlx4_0/x");
    return d;
  }();
  return dir;
}

// Rewrites one attribute file, unless it already holds these bytes (most mutations change
// one piece: rewriting all of them cost most of each execution).
void put(size_t index, const std::string& path, const uint8_t* data, size_t size) {
  static std::vector<std::string> last(kCount, std::string(1, '\x02'));
  std::string content(reinterpret_cast<const char*>(data), size);
  if (last[index] == content) return;
  last[index] = content;
  if (size == 1 && data[0] == 0x01) {
    ::unlink(path.c_str());
    return;
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) std::abort();
  if (size != 0 && ::write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = tree();
  size_t start = 0;
  for (size_t i = 0; i < kCount; ++i) {
    size_t end = start;
    while (end < size && data[end] != 0) ++end;
    put(i, dir + "/" + kFiles[i], data + start, start < size ? end - start : 0);
    start = end < size ? end + 1 : size;
  }
  const rp::Root root(dir);
  for (auto detail : {rp::Detail::kFull, rp::Detail::kPlan}) {
    rp::Inventory inv;
    // discover()'s stages under a root that is not the live system (inventory/discover.cc).
    rp::discover_sysfs(root, inv, detail);
    rp::discover_sysfs_netdevs(root, inv, detail);
    rp::enrich_netdevs(root, inv);
    rp::discover_presence(root, inv);
    // The tree has two RDMA devices, one PCI function with mlx4 port files and three
    // netdevs whatever the attributes hold; ports come from directory names, in order.
    if (inv.rdma.size() != 2 || inv.netdevs.size() != 3) std::abort();
    for (const auto& d : inv.rdma) {
      for (size_t i = 1; i < d.ports.size(); ++i) {
        if (d.ports[i - 1].num >= d.ports[i].num) std::abort();
      }
      for (const auto& p : d.ports) {
        if (p.num == 0 || p.num > 2) std::abort();
      }
    }
    for (const auto& f : inv.pci) {
      for (const auto& m : f.mlx4_ports) {
        if (m.port < 1 || m.port > 2) std::abort();
      }
    }
    for (const auto& n : inv.netdevs) {
      if (n.address.len > 20 || n.broadcast.len > 20) std::abort();
      if (n.pkey && *n.pkey > 0xffff) std::abort();
    }
  }
  return 0;
}
