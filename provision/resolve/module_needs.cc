#include "provision/resolve/module_needs.h"

#include <algorithm>

#include "provision/base/drivers.h"

namespace rp {
namespace {

bool contains(const std::vector<PciAddress>& v, const PciAddress& a) {
  return std::find(v.begin(), v.end(), a) != v.end();
}

// "auto (eth)" is driven by mlx4_en as much as "eth".
bool is_eth(const Mlx4PortFile& p) {
  return p.type && p.type->link_layer() == LinkLayer::kEthernet;
}

const PciFunction* function_at(const Inventory& inv, const PciAddress& pci) {
  for (const auto& f : inv.pci)
    if (f.address == pci) return &f;
  return nullptr;
}

class Needs {
 public:
  Needs(const Config& cfg, const Machine& m) : cfg_(cfg), m_(m), t_(m) {
    // Soft devices are what they are: Soft-RoCE is RoCE, Soft-iWARP iWARP.
    auto soft = [&](SoftKind k) {
      t_.any = true;
      (k == SoftKind::kRxe ? t_.roce : t_.iwarp) = true;
    };
    for (const auto& [netdev, l] : cfg.soft_links) soft(l.kind);
    if (m.any_target) {
      for (const auto* table : {&cfg.nodes_by_mac, &cfg.nodes_by_guid})
        for (const auto& [key, row] : *table)
          if (row.soft) soft(row.soft->kind);
    }
  }

  void add(ModuleNeed::Kind k, std::string module, std::string why,
           std::optional<Source> source = std::nullopt) {
    out_.needs.push_back({k, std::move(module), std::move(why), std::move(source)});
  }
  void add(ModuleNeed::Kind k, std::string module, const Source& s) {
    add(k, std::move(module), s.str(), s);
  }

  // mlx4_core makes the port-type files (mlx4/main.c mlx4_init_port_info), so a card with
  // settings needs it first; only where the card is: a cluster-wide config must not load
  // mlx4 on the nodes without it. mlx4_core itself requests mlx4_ib, and mlx4_en for an
  // Ethernet port (main.c mlx4_request_modules, request_module_nowait): an image carries them.
  void mlx4_cards() {
    for (const auto& [pci, s] : cfg_.mlx4) {
      if (!m_.any_target && !contains(m_.pci_present, pci)) continue;
      for (const auto* v : {&s.type[0], &s.type[1]}) {
        if (!*v) continue;
        add(ModuleNeed::Kind::kMlx4Core, "mlx4_core", (*v)->source);
        if (!m_.any_target) continue;
        add(ModuleNeed::Kind::kOnRequest, "mlx4_ib", (*v)->source);
        if ((*v)->value != PortType::kIb)
          add(ModuleNeed::Kind::kOnRequest, "mlx4_en", (*v)->source);
      }
      for (const auto* v : {&s.mtu[0], &s.mtu[1]})
        if (*v) add(ModuleNeed::Kind::kMlx4Core, "mlx4_core", (*v)->source);
    }
  }

  // The RDMA driver beside each NIC driver: the NIC driver's own request may fail in an
  // initramfs, and the devices it registers are what the rest of the plan works on.
  void hardware() {
    for (const auto& h : m_.hardware) add(ModuleNeed::Kind::kHardware, h.rdma, h.why);
  }

  // mlx4_en drives the Ethernet ports, and takes the PFC masks when it loads (en_main.c).
  void mlx4_ethernet() {
    const auto& pfc = cfg_.pfc_tx ? cfg_.pfc_tx : cfg_.pfc_rx;
    if (pfc && (m_.mlx4 || m_.any_target)) {
      add(ModuleNeed::Kind::kSetting, "mlx4_en", pfc->source);
    } else if (m_.mlx4 && m_.mlx4_eth) {
      add(ModuleNeed::Kind::kSetting, "mlx4_en", "mlx4 Ethernet ports");
    } else if (m_.mlx4 && m_.any_target) {
      // mlx4_core requests it when a port is or becomes Ethernet (main.c
      // mlx4_request_modules, and mlx4_change_port_types on a type change).
      add(ModuleNeed::Kind::kOnRequest, "mlx4_en", "Ethernet ports of mlx4_core");
    }
  }

  // The modules the inputs ask for. rdma-core loads its lists per technology:
  // kernel-boot/rdma-hw-modules.rules tags an RDMA device ID_RDMA_INFINIBAND, _ROCE,
  // _IWARP or _OPA, and rdma-load-modules@.service then loads infiniband.conf, roce.conf,
  // iwarp.conf or opa.conf; rdma.conf with any RDMA device (rdma-description.rules).
  void asked_for() {
    std::vector<ModuleNeeds::NotWanted>& skipped = out_.not_wanted;
    for (const auto& m : cfg_.modules) {
      if (m.source.origin != Source::Origin::kRdmaCoreList) {
        add(ModuleNeed::Kind::kSetting, m.value, m.source);
        continue;
      }
      if (auto no = list_not_wanted(m.source.file)) {
        auto it = std::find_if(skipped.begin(), skipped.end(),
                               [&](const auto& s) { return s.file == m.source.file; });
        if (it == skipped.end()) it = skipped.insert(skipped.end(), {m.source.file, *no, {}});
        it->modules.push_back(m.value);
        continue;
      }
      add(ModuleNeed::Kind::kList, m.value, m.source);
    }
  }

  // ib_ipoib makes the IPoIB interfaces. It has no modalias (ulp/ipoib/ipoib_main.c
  // declares no device table: it is an ib_client, ipoib_add_one), so no device event loads
  // it; rdma-core loads it from infiniband.conf through its own udev rules, which reach an
  // initramfs only with its dracut module (Debian ships none).
  void ipoib() {
    const std::string m = "ib_ipoib";
    for (const auto& [ifname, s] : cfg_.ipoib) {
      if (s.mode) add(ModuleNeed::Kind::kSetting, m, s.mode->source);
      if (s.mtu) add(ModuleNeed::Kind::kSetting, m, s.mtu->source);
    }
    for (const auto& [key, c] : cfg_.pkeys) add(ModuleNeed::Kind::kSetting, m, c.source);
    const bool ib = t_.infiniband || t_.opa;
    for (const auto& [name, key] : cfg_.names)
      // A name by PCI function or RDMA port may be an IPoIB interface where there is IB.
      if (key.value.is_guid() ? ib || m_.any_target : !key.value.is_address() && ib)
        add(ModuleNeed::Kind::kSetting, m, key.source);
    if (m_.any_target) {
      for (const auto& [guid, row] : cfg_.nodes_by_guid)
        add(ModuleNeed::Kind::kSetting, m, row.source.through("node table"));
    }
    if (auto why = ipoib_boot_reason()) add(ModuleNeed::Kind::kSetting, m, *why);
  }

  void roce_and_soft() {
    for (const auto& [port, r] : cfg_.roce) {
      // configfs itself is mounted (and, where it is a module, loaded) by the RoCE
      // executor: it is built into most kernels.
      if (r.mode) add(ModuleNeed::Kind::kSetting, "rdma_cm", r.mode->source);
      if (r.tos) add(ModuleNeed::Kind::kSetting, "rdma_cm", r.tos->source);
    }
    for (const auto& [netdev, l] : cfg_.soft_links)
      add(ModuleNeed::Kind::kSetting, std::string(module_of(l.kind)), l.source);
    if (!m_.any_target) return;
    for (const auto* table : {&cfg_.nodes_by_mac, &cfg_.nodes_by_guid}) {
      for (const auto& [key, row] : *table) {
        if (row.soft) {
          add(ModuleNeed::Kind::kSetting, std::string(module_of(row.soft->kind)),
              row.source.through("node table"));
        }
      }
    }
  }

  // rd.rdma.verify: libibverbs opens a device through ib_uverbs (/dev/infiniband/uverbsN,
  // drivers/infiniband/core/uverbs_main.c); librdmacm talks to rdma_cm through rdma_ucm
  // (/dev/infiniband/rdma_cm, ucma.c).
  void verify() {
    const auto mode = cfg_.verify.value.mode;
    if (mode == VerifySetting::Mode::kOff) return;
    add(ModuleNeed::Kind::kSetting, "ib_uverbs", cfg_.verify.source);
    if (mode == VerifySetting::Mode::kPeer)
      add(ModuleNeed::Kind::kSetting, "rdma_ucm", cfg_.verify.source);
  }

  // A root on NVMe over Fabrics through RDMA (dracut's rd.nvmf.discover=rdma,...): the
  // nvme_rdma host (drivers/nvme/host/rdma.c; modules.dep brings nvme_fabrics, nvme_core
  // and rdma_cm). dracut 059's 95nvmf carries nvme_tcp and nvme_fc but not nvme_rdma, and
  // loads none for rdma (module-setup.sh installkernel, parse-nvmf-boot-connections.sh).
  void nvmf() {
    for (const auto* t : cfg_.boot.nvmf_rdma())
      add(ModuleNeed::Kind::kSetting, "nvme_rdma", t->source);
  }

  // rxe asks the crypto API for "crc32" (rxe_icrc.c) and declares no softdep: the kernel
  // requests an implementation itself, which must be in the image.
  void on_request() {
    bool rxe = m_.rxe;
    for (const auto& n : out_.needs) rxe |= n.module == "rdma_rxe";
    if (!rxe) return;
    const std::string why = "rdma_rxe's crc32 (crypto API, no softdep)";
    add(ModuleNeed::Kind::kOnRequest, "crc32_generic", why);
    add(ModuleNeed::Kind::kOnRequest, "crc32-pclmul", why);
  }

  ModuleNeeds take() { return std::move(out_); }

 private:
  // Why an rdma-core list in /etc/rdma/modules is not needed here, or nullopt.
  std::optional<std::string> list_not_wanted(const std::string& path) const {
    const std::string file = path.substr(path.rfind('/') + 1);
    struct List {
      const char* file;
      bool Machine::*present;
      const char* what;
    };
    static const List kLists[] = {
        {"rdma.conf", &Machine::any, "RDMA device"},
        {"infiniband.conf", &Machine::infiniband, "InfiniBand device"},
        {"roce.conf", &Machine::roce, "RoCE device"},
        {"iwarp.conf", &Machine::iwarp, "iWARP device"},
        {"opa.conf", &Machine::opa, "Omni-Path (hfi1) device"},
    };
    for (const auto& l : kLists) {
      if (file == l.file) {
        if (t_.*l.present) return std::nullopt;
        return std::string("no ") + l.what + " is present or expected";
      }
    }
    // Other files in that directory are no rdma-core list (no udev rule names them): an
    // administrator put them there for us, so they load as asked.
    return std::nullopt;
  }

  // Why the boot's network may be IPoIB on this machine, or nullopt. Without ib_ipoib
  // ib0 never appears and dracut's ip= waits for nothing.
  std::optional<std::string> ipoib_boot_reason() const {
    if (!(t_.infiniband || t_.opa)) return std::nullopt;
    if (m_.any_target) return "IPoIB on the ports of RDMA hardware";
    if (!cfg_.boot.network) return std::nullopt;
    // An interface known to be Ethernet: present as such, or named by a MAC (ours, or
    // dracut's ifname=, which cannot name IPoIB: 40network/ifname-genrules.sh).
    auto ethernet = [&](const std::string& ifname) {
      if (auto it = cfg_.names.find(ifname); it != cfg_.names.end())
        return it->second.value.is_mac();
      if (cfg_.boot.dracut_ifnames.count(ifname)) return true;
      return std::find(m_.ethernet.begin(), m_.ethernet.end(), ifname) != m_.ethernet.end();
    };
    for (const auto& i : cfg_.boot.ifaces) {
      if (!ethernet(i.value)) {
        return i.source + " (the boot's network may be IPoIB: " + i.value +
               " is no Ethernet interface here)";
      }
    }
    if (!cfg_.boot.ifaces.empty()) return std::nullopt;
    return *cfg_.boot.network + " (the boot's network may be IPoIB: no interface is named, " +
           "and this node has an InfiniBand port)";
  }

  const Config& cfg_;
  const Machine& m_;
  Machine t_;  // the machine's technologies with the soft devices the inputs ask for
  ModuleNeeds out_;
};

}  // namespace

Machine machine_of(const Config& cfg, const Inventory& inv) {
  Machine m;
  m.pci_present = inv.pci_present;
  for (const auto& d : inv.rdma) {
    m.any = true;
    m.opa |= d.driver == "hfi1";
    for (const auto& p : d.ports) {
      const bool iw = d.iwarp();
      m.infiniband |= p.link_layer == LinkLayer::kInfiniBand && d.driver != "hfi1";
      m.roce |= p.link_layer == LinkLayer::kEthernet && !iw;
      m.iwarp |= p.link_layer == LinkLayer::kEthernet && iw;
    }
  }
  for (const auto& f : inv.pci) {
    bool has_device = false;
    for (const auto& d : inv.rdma) has_device |= d.pci && *d.pci == f.address;
    for (const auto& p : f.mlx4_ports) m.mlx4_eth |= is_eth(p);
    if (auto rdma = rdma_driver_for(f.driver, f.device)) {
      m.hardware.push_back(
          {std::string(*rdma), "hardware: " + f.address.str() + " is driven by " + f.driver});
    }
    // A driver whose device does not exist yet could register any technology, except
    // where its files tell (mlx4 port types).
    if (has_device) continue;
    if (f.driver == "hfi1") {
      m.any = m.opa = true;
    } else if (!f.mlx4_ports.empty()) {
      m.any = true;
      for (const auto& p : f.mlx4_ports) {
        m.infiniband |= p.type && p.type->link_layer() == LinkLayer::kInfiniBand;
        m.roce |= is_eth(p);
      }
    } else if (rdma_driver_for(f.driver, f.device)) {
      m.any = m.infiniband = m.roce = m.iwarp = true;
    }
  }
  // mlx4_core is loaded, or loaded by the plan for a configured card that is here (or
  // asked for as such); a port the card has that is set to eth makes mlx4_en's work.
  m.mlx4 = inv.module_loaded("mlx4_core");
  for (const auto& mod : cfg.modules) m.mlx4 |= mod.value == "mlx4_core";
  for (const auto& [pci, s] : cfg.mlx4) {
    if (!contains(inv.pci_present, pci)) continue;
    m.mlx4 = true;
    const PciFunction* card = function_at(inv, pci);
    for (unsigned port = 1; port <= 2; ++port) {
      // A single-port ConnectX-3 has no mlx4_port2 (mlx4/main.c mlx4_init_port_info runs
      // for 1..caps.num_ports); before mlx4_core has made the files, either may exist.
      bool exists = !card || card->mlx4_ports.empty();
      if (card)
        for (const auto& p : card->mlx4_ports) exists |= p.port == port;
      const auto& t = s.type[port - 1];
      m.mlx4_eth |= exists && t && t->value == PortType::kEth;
    }
  }
  for (const auto& n : inv.netdevs)
    if (n.type == kArphrdEther) m.ethernet.push_back(n.name);
  return m;
}

void add_driver(Machine& m, const std::string& driver, const std::string& why) {
  if (driver == "rdma_rxe" || driver == "siw") {
    m.any = true;
    (driver == "siw" ? m.iwarp : m.roce) = true;
    m.rxe |= driver == "rdma_rxe";
    return;
  }
  if (driver == "hfi1") {
    m.any = m.opa = true;
    return;
  }
  // Any other driver of the target is RDMA hardware's (a NIC driver with an RDMA side, or
  // an RDMA driver itself: mlx5_ib, efa, ...), of any technology its ports may have.
  m.any = m.infiniband = m.roce = m.iwarp = true;
  m.mlx4 |= driver == "mlx4_core";
  if (auto rdma = rdma_driver_for(driver)) m.hardware.push_back({std::string(*rdma), why});
}

ModuleNeeds module_needs(const Config& cfg, const Machine& m) {
  Needs n(cfg, m);
  n.mlx4_cards();
  n.hardware();
  n.mlx4_ethernet();
  n.asked_for();
  n.ipoib();
  n.roce_and_soft();
  n.verify();
  n.nvmf();
  n.on_request();
  return n.take();
}

}  // namespace rp
