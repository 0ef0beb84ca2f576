// Discovery from sysfs/procfs under the root: RDMA devices and ports, PCI functions with
// their mlx4 port files, netdevs (when not on the live system), modules and configfs.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "provision/base/drivers.h"
#include "provision/base/modprobe.h"
#include "provision/base/sort.h"
#include "provision/base/strings.h"
#include "provision/inventory/inventory.h"
#include "provision/inventory/shown.h"
#include "provision/inventory/sysfs_read.h"

namespace rp {
namespace {

// "fe80:0000:0000:0000:f452:1403:007b:cba1" -> the low 64 bits as a GUID.
std::optional<PortGuid> guid_of_gid(std::string_view gid) {
  auto groups = split(trim(gid), ':');
  if (groups.size() != 8) return std::nullopt;
  std::string low;
  for (size_t i = 4; i < 8; ++i) low += (i > 4 ? ":" : "") + std::string(groups[i]);
  return PortGuid::parse(low);
}

RdmaPort read_port(const DirHandle& dir, unsigned num, bool full, Inventory& inv) {
  RdmaPort p;
  p.num = num;
  p.state = parse_port_state(attr(dir, "state", inv));
  p.link_layer = parse_link_layer(attr(dir, "link_layer", inv));
  p.guid = guid_of_gid(attr(dir, "gids/0", inv));
  // The plan needs the physical state of a port that is not ACTIVE: a Disabled port is
  // waited for only when asked for by name (rd.rdma.wait=all skips it).
  if (full || p.state != PortState::kActive) p.phys_state = attr(dir, "phys_state", inv);
  if (full) {
    p.rate = attr(dir, "rate", inv);
    // Absent or unreadable is unknown, not LID 0 ("no LID": a port the SM has not seen).
    auto lid = [&](const char* name) -> std::optional<unsigned> {
      auto v = parse_hex(trim(attr(dir, name, inv)));
      if (!v || *v > 0xffff) return std::nullopt;
      return static_cast<unsigned>(*v);
    };
    p.lid = lid("lid");
    p.sm_lid = lid("sm_lid");
  }
  if (p.link_layer != LinkLayer::kEthernet) return p;
  // RoCE: the netdev and the GID types of the port's default GIDs, which the kernel puts
  // first in the table, one per supported type (v1 then v2 on ConnectX, v2 alone on
  // Soft-RoCE). The table has hundreds of entries: read from the start, only as far as
  // needed.
  p.netdev = dir.read_or("gid_attrs/ndevs/0", "");
  if (p.netdev.empty()) p.gid_mac = MacAddress::of_iwarp_gid(dir.read_or("gids/0", ""));
  constexpr int kDefaultGidsAtMost = 8;
  for (int i = 0; i < kDefaultGidsAtMost && !(p.roce_v1 && p.roce_v2); ++i) {
    auto t = dir.read("gid_attrs/types/" + std::to_string(i));
    if (!t && t.error().errnum == ENOENT) break;  // the end of the table
    if (!t) continue;                             // an unused entry (EINVAL, EAGAIN)
    p.roce_v1 |= *t == "IB/RoCE v1";
    p.roce_v2 |= *t == "RoCE v2";
  }
  return p;
}

// rdma_rename's view of a PCI function (kernel-boot/rdma_rename.c fill_pci_info): the
// address of the link's target, the function widened by ARI (an ARI device's 8-bit
// function number is the traditional slot and function together: func += 8 * slot, the
// slot still printed), and whether the header says multi-function (is_pci_multifunction:
// bit 7 of byte 0x0e of the first 64 bytes of `config`; nullopt when it cannot be read).
struct RenamePci {
  PciAddress address;
  unsigned func = 0;
  std::optional<bool> multifunction;
};

std::optional<RenamePci> rename_pci(const Root& root, const std::string& pcidev) {
  auto bdf = root.link_basename(pcidev);
  auto a = bdf ? PciAddress::parse(*bdf) : std::nullopt;
  if (!a) return std::nullopt;
  const DirHandle dir = root.open_dir(pcidev);
  RenamePci p{*a, a->function, std::nullopt};
  // is_pci_ari_enabled: fscanf("%d") == 1.
  if (trim(dir.read_or("ari_enabled", "0")) == "1") p.func += 8u * a->device;
  // The header type byte (PCI_HEADER_TYPE 0x0e); a read of fewer than 64 bytes is "not
  // multi-function" to rdma_rename, but a file we could not read at all is unknown here.
  if (auto config = dir.read("config"); config && config->size() > 0x0e) {
    p.multifunction = (static_cast<unsigned char>((*config)[0x0e]) & 0x80) != 0;
  }
  return p;
}

std::vector<std::string> persistent_names(const Root& root, const std::string& devdir) {
  std::vector<std::string> names;
  // by_onboard: acpi_index (ACPI _DSM), else index (SMBIOS type 41), read with "%u";
  // above ONBOARD_INDEX_MAX (16383, systemd's limit) it is not used. 0 is accepted.
  for (const char* f : {"device/acpi_index", "device/index"}) {
    auto v = root.read(devdir + "/" + f);
    if (!v) continue;
    if (auto n = parse_uint(trim(*v)); n && *n <= 16383) names.push_back("o" + std::to_string(*n));
    break;
  }
  // by_pci: a VF is named after its PF (get_virtfn_info: the PF's virtfn<N> whose slot and
  // function, ARI applied, equal the VF's), with "v<N>" after the function.
  const std::string dev = devdir + "/device";
  auto self = rename_pci(root, dev);
  if (!self) return names;
  std::optional<unsigned> vf;
  RenamePci p = *self;
  const std::string physfn = dev + "/physfn";
  if (root.is_dir(physfn)) {
    auto pf = rename_pci(root, physfn);
    if (!pf) return names;
    for (const auto& e : root.list(physfn)) {
      if (!starts_with(e, "virtfn") || e.size() == 6) continue;
      auto v = rename_pci(root, physfn + "/" + e);
      auto n = parse_uint(e.substr(6));
      if (v && n && v->func == self->func && v->address.device == self->address.device) {
        vf = static_cast<unsigned>(*n);
        break;
      }
    }
    p = *pf;
  }
  std::string base;
  if (p.address.domain > 0) base += "P" + std::to_string(p.address.domain);
  base += "p" + std::to_string(p.address.bus) + "s" + std::to_string(p.address.device);
  const std::string with_f =
      base + "f" + std::to_string(p.func) + (vf ? "v" + std::to_string(*vf) : "");
  if (p.func > 0 || p.multifunction.value_or(false)) {
    names.push_back(with_f);
  } else {
    names.push_back(base);
    if (!p.multifunction) names.push_back(with_f);
  }
  return names;
}

void discover_rdma(const Root& root, Inventory& inv, bool full) {
  for (const auto& name : root.list("/sys/class/infiniband")) {
    const std::string dir = "/sys/class/infiniband/" + name;
    const DirHandle dev = root.open_dir(dir);
    RdmaDevice d;
    d.name = name;
    d.node_guid = PortGuid::parse(attr(dev, "node_guid", inv));
    d.node_type = attr(dev, "node_type", inv);  // iWARP or not: the plan needs it
    if (full) {
      d.sys_image_guid = PortGuid::parse(attr(dev, "sys_image_guid", inv));
      d.fw_ver = attr(dev, "fw_ver", inv);
      d.board_id = attr(dev, "board_id", inv);
      d.hca_type = attr(dev, "hca_type", inv);
    }
    d.driver = dev.link_basename("device/driver").value_or("");
    if (auto parent = dev.link_basename("device"); parent) {
      d.pci = PciAddress::parse(*parent);
    }
    if (full && d.pci) {
      d.pcie_speed = dev.read_or("device/current_link_speed", "");
      d.pcie_width = dev.read_or("device/current_link_width", "");
      d.pcie_max_speed = dev.read_or("device/max_link_speed", "");
      d.pcie_max_width = dev.read_or("device/max_link_width", "");
    }
    // Soft devices (rxe, siw) sit on a netdev: /sys/class/infiniband/rxe0/parent. (siw's
    // device link names the NIC's PCI function too: only this file tells them apart.)
    d.parent_netdev = dev.read_or("parent", "");
    // siw_main.c siw_device_create copies SIW_NODE_DESC_COMMON into node_desc.
    d.soft_iwarp = dev.read_or("node_desc", "") == "Software iWARP stack";
    // by_pci bails out for devices not on PCI (rxe, siw: their subsystem is not "pci").
    if (d.pci && d.parent_netdev.empty() && !d.soft_iwarp)
      d.persistent_names = persistent_names(root, dir);
    for (const auto& port : root.list(dir + "/ports")) {
      auto n = parse_uint(port);
      if (n) {
        d.ports.push_back(
            read_port(root.open_dir(dir + "/ports/" + port), static_cast<unsigned>(*n), full, inv));
      }
    }
    // In port order (a directory lists them in any order); a device has one or two, and
    // an insertion sort of them is a fraction of std::sort's code in the release binary.
    for (size_t i = 1; i < d.ports.size(); ++i)
      for (size_t j = i; j > 0 && d.ports[j].num < d.ports[j - 1].num; --j)
        std::swap(d.ports[j], d.ports[j - 1]);
    // Current RoCE defaults show only in a configfs directory someone left behind.
    if (const DirHandle cm = root.open_dir("/sys/kernel/config/rdma_cm/" + name); cm.ok()) {
      for (auto& p : d.ports) {
        const std::string port = "ports/" + std::to_string(p.num);
        p.cm_roce_mode = cm.read_or(port + "/default_roce_mode", "");
        p.cm_roce_tos = parse_roce_tos(cm.read_or(port + "/default_roce_tos", ""));
      }
    }
    inv.rdma.push_back(std::move(d));
  }
}

void discover_pci(const Root& root, Inventory& inv, bool full) {
  for (const auto& bdf : root.list("/sys/bus/pci/devices")) {
    auto addr = PciAddress::parse(bdf);
    if (!addr) continue;
    const DirHandle dir = root.open_dir("/sys/bus/pci/devices/" + bdf);
    inv.pci_present.push_back(*addr);
    PciFunction f;
    f.address = *addr;
    f.driver = dir.link_basename("driver").value_or("");
    // The IDs are status-only, but for i40e, whose RDMA side (irdma) exists on the X722
    // alone (base/drivers.cc).
    if (full || f.driver == "i40e") {
      f.vendor = dir.read_or("vendor", "");
      f.device = dir.read_or("device", "");
    }
    for (unsigned port = 1; port <= 2; ++port) {
      const std::string file = "mlx4_port" + std::to_string(port);
      auto value = dir.read(file);
      if (!value && !dir.exists(file)) continue;  // not an mlx4 function
      Mlx4PortFile m;
      m.port = port;
      if (value) m.type = parse_mlx4_port_type(*value);
      m.writable = dir.is_writable(file);
      // Reading an Ethernet port's mlx4_portN_mtu makes the kernel log "port level mtu is
      // only used for IB ports" (mlx4/main.c show_port_ib_mtu) on every run: IB ports only.
      if (m.type && m.type->link_layer() == LinkLayer::kInfiniBand)
        m.mtu = read_uint(dir, (file + "_mtu").c_str());
      f.mlx4_ports.push_back(std::move(m));
    }
    // Only functions that matter to RDMA provisioning: a known RDMA-capable driver, mlx4
    // port files, or an RDMA device below.
    static const char* kDrivers[] = {
        "mlx4_core", "mlx5_core", "bnxt_en",    "cxgb4", "qede",  "i40e", "ice",    "irdma",
        "hfi1",      "qib",       "vmw_pvrdma", "efa",   "erdma", "hns3", "ocrdma", "mana"};
    bool rdma_capable = !f.mlx4_ports.empty() || dir.exists("infiniband");
    for (const char* d : kDrivers) rdma_capable |= f.driver == d;
    if (rdma_capable) inv.pci.push_back(std::move(f));
  }
}

}  // namespace

void discover_presence(const Root& root, Inventory& inv) {
  auto shown = [&](std::string module, std::string evidence) {
    module = modprobe_name(module);
    if (module.empty() || std::binary_search(inv.modules.begin(), inv.modules.end(), module))
      return;
    inv.shown_present.emplace(std::move(module), std::move(evidence));
  };
  // Every loaded module has /sys/module/<name>, and so has a built-in one with parameters
  // or a version (kernel/params.c param_sysfs_builtin, version_sysfs_builtin).
  for (const auto& m : root.list("/sys/module")) shown(m, "/sys/module/" + m);
  // A PCI function bound to a driver: the driver is there, built in or loaded.
  for (const auto& f : inv.pci) {
    if (!f.driver.empty()) shown(f.driver, "bound to " + f.address.str());
  }
  for (const auto& d : inv.rdma) {
    shown("ib_core", "RDMA device " + d.name);
    // Soft devices are their own modules' (siw's device link names its NIC's PCI
    // function, siw_main.c siw_device_create: not the NIC driver's RDMA side).
    if (d.soft_iwarp) {
      shown("siw", "RDMA device " + d.name);
    } else if (!d.parent_netdev.empty()) {
      shown("rdma_rxe", "RDMA device " + d.name);
    } else if (auto rdma = rdma_driver_for(d.driver)) {
      // The RDMA side of a NIC driver registered it (mlx5_ib for mlx5_core, ...).
      shown(std::string(*rdma), "RDMA device " + d.name);
    }
  }
  // IPoIB interfaces exist only while ib_ipoib is there (ipoib_main.c ipoib_add_one).
  for (const auto& n : inv.netdevs) {
    if (n.type == kArphrdInfiniband) shown("ib_ipoib", "IPoIB interface " + n.name);
  }
  if (inv.rdma_cm_configfs) shown("rdma_cm", "/sys/kernel/config/rdma_cm");
  for (const auto& u : root.list("/sys/class/infiniband_verbs")) {
    if (starts_with(u, "uverbs")) shown("ib_uverbs", "/sys/class/infiniband_verbs/" + u);
  }
}

void discover_crc32(const Root& root, Inventory& inv) {
  const std::string release(trim(root.read_or("/proc/sys/kernel/osrelease", "")));
  if (!release.empty()) {
    // modules.alias: "alias <alias> <module>", one per line (kmod libkmod-index.c reads the
    // same through modules.alias.bin; depmod writes both).
    const std::string aliases = root.read_or("/lib/modules/" + release + "/modules.alias", "");
    for (auto line : split(aliases, '\n')) {
      const auto f = split_ws(line);
      if (f.size() == 3 && f[0] == "alias" && f[1] == "crypto-crc32") {
        inv.crc32_modules.emplace_back(f[2]);
      }
    }
  }
  const std::string info = root.read_or("/proc/cpuinfo", "");
  for (auto line : split(info, '\n')) {
    if (!starts_with(line, "flags")) continue;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    for (auto f : split_ws(line.substr(colon + 1))) {
      if (f == "pclmulqdq") inv.cpu_pclmulqdq = true;
    }
    return;
  }
}

void discover_sysfs(const Root& root, Inventory& inv, Detail detail) {
  discover_rdma(root, inv, detail == Detail::kFull);
  discover_pci(root, inv, detail == Detail::kFull);
  // Keep the text alive: split() returns views into it.
  const std::string modules = root.read_or("/proc/modules", "");
  for (const auto& line : split(modules, '\n')) {
    auto f = split_ws(line);
    if (!f.empty()) inv.modules.emplace_back(f[0]);
  }
  // Built-in modules count as loaded: modules.builtin of the running kernel's tree.
  inv.kernel_release = std::string(trim(root.read_or("/proc/sys/kernel/osrelease", "")));
  if (!inv.kernel_release.empty()) {
    const std::string builtin =
        root.read_or("/lib/modules/" + inv.kernel_release + "/modules.builtin", "");
    for (auto line : split(builtin, '\n')) {
      auto slash = line.rfind('/');
      auto name = line.substr(slash == std::string_view::npos ? 0 : slash + 1);
      if (!ends_with(name, ".ko")) continue;
      inv.modules.push_back(modprobe_name(name.substr(0, name.size() - 3)));
    }
  }
  sort_by(inv.modules);
  inv.modules.erase(std::unique(inv.modules.begin(), inv.modules.end()), inv.modules.end());
  for (const char* param : {"mlx4_en/parameters/pfctx", "mlx4_en/parameters/pfcrx"}) {
    auto v = root.read(std::string("/sys/module/") + param);
    if (!v) continue;
    std::string key = param;
    key.replace(key.find("/parameters/"), 12, ".");
    inv.module_params[key] = std::string(trim(*v));
  }
  const std::string mounts = root.read_or("/proc/mounts", "");
  for (const auto& line : split(mounts, '\n')) {
    auto f = split_ws(line);
    if (f.size() >= 3 && f[2] == "configfs") inv.configfs_mounted = true;
  }
  inv.rdma_cm_configfs = root.is_dir("/sys/kernel/config/rdma_cm");
  inv.initramfs = root.exists("/etc/initrd-release");
}

}  // namespace rp
