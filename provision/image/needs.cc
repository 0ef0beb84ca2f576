#include "provision/image/needs.h"

#include <set>

#include "provision/base/drivers.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

// Loaded in every image: whatever the hardware, rdma-provision needs the RDMA core, the
// verbs and connection managers (RoCE defaults live in rdma_cm's configfs).
constexpr const char* kCoreModules[] = {"ib_core", "ib_uverbs", "rdma_ucm", "rdma_cm",
                                        "ib_cm",   "iw_cm",     "configfs"};

// mlx4_core drives the card; its Ethernet ports are mlx4_en's, a module of its own that
// mlx4_core requests (request_module_nowait) when a port is or becomes Ethernet.
constexpr const char* kMlx4Core = "mlx4_core";
constexpr const char* kMlx4Ethernet = "mlx4_en";

// RDMA drivers that are not the RDMA side of a NIC driver (hfi1, qib, efa, vmw_pvrdma,
// ...) all live here in the kernel tree; a generic image takes the directory.
constexpr const char* kRdmaHardwareDir = "drivers/infiniband/hw";

// modprobe does not care about '-' versus '_' in module names; neither do we.
std::string module_key(std::string_view name) {
  std::string k(name);
  for (char& c : k)
    if (c == '-') c = '_';
  return k;
}

// Whether `source` ("/etc/modprobe.d/mlx4.conf:3", several joined by ", ") names `file`.
bool source_names(const std::string& source, const std::string& file) {
  return starts_with(source, file + ":") || source.find(", " + file + ":") != std::string::npos;
}

class Builder {
 public:
  Builder(const Inputs& in, const ImageNeedsOptions& opt) : in_(in), opt_(opt) {
    // Without rdma-core's files in the image, whatever they ask for is not asked at boot.
    if (!opt.rdma_core) {
      for (const auto& f : in.files_read)
        if (f != opt.config_path) left_out_.push_back(f);
    }
  }

  void module(std::string_view name, std::string why) {
    if (!modules_.insert(module_key(name)).second) return;
    out_.push_back({ImageNeed::Kind::kModule, std::string(name), "", std::move(why)});
  }
  void module_dir(std::string dir, std::string why) {
    out_.push_back({ImageNeed::Kind::kModuleDir, std::move(dir), "", std::move(why)});
  }
  void file(std::string path, std::string dest, std::string why) {
    out_.push_back({ImageNeed::Kind::kFile, std::move(path), std::move(dest), std::move(why)});
  }
  bool has_module(std::string_view name) const { return modules_.count(module_key(name)) > 0; }

  // A value counts unless it comes from a file the image leaves out.
  bool counts(const std::string& source) const {
    for (const auto& f : left_out_)
      if (source_names(source, f)) return false;
    return true;
  }

  void core() {
    for (const char* m : kCoreModules) module(m, "RDMA core");
  }

  void host_drivers(const Inventory& inv) {
    for (const auto& f : inv.pci) {
      if (f.driver.empty()) continue;
      const std::string of = f.driver + " (" + f.address.str() + ")";
      module(f.driver, "drives " + f.address.str() + " on this host");
      if (auto rdma = rdma_driver_for(f.driver)) module(*rdma, "RDMA driver of " + of);
      if (f.driver == kMlx4Core) module(kMlx4Ethernet, "Ethernet driver of " + of);
      hardware_ = true;
    }
    if (inv.module_loaded("rdma_rxe")) module("rdma_rxe", "this host runs Soft-RoCE");
    if (inv.module_loaded("siw")) module("siw", "this host runs Soft-iWARP");
  }

  void generic_drivers() {
    const std::string why = "generic image: every known RDMA driver";
    for (const auto& p : rdma_driver_pairs()) {
      module(p.nic, why);
      module(p.rdma, why);
      if (p.nic == kMlx4Core) module(kMlx4Ethernet, why);
    }
    module_dir(kRdmaHardwareDir, why);
    module("rdma_rxe", why);
    module("siw", why);
    hardware_ = true;
  }

  void given_drivers() {
    for (const auto& m : opt_.given) {
      module(m, "--drivers");
      hardware_ |= module_key(m) != "rdma_rxe" && m != "siw";
    }
  }

  // What the configuration (every input) loads or makes the kernel load.
  void configured() {
    const Config& cfg = in_.config;
    for (const auto& [pci, s] : cfg.mlx4) {
      for (const auto& t : s.type) {
        if (!t || !counts(t->source)) continue;
        module(kMlx4Core, t->source);
        if (auto rdma = rdma_driver_for(kMlx4Core)) module(*rdma, t->source);
        if (t->value != PortType::kIb) module(kMlx4Ethernet, t->source);  // eth, or auto
      }
      for (const auto& m : s.mtu)
        if (m && counts(m->source)) module(kMlx4Core, m->source);
    }
    for (const auto* pfc : {&cfg.pfc_tx, &cfg.pfc_rx}) {
      if (*pfc && counts((*pfc)->source)) module(kMlx4Ethernet, (*pfc)->source + " (PFC)");
    }
    for (const auto& m : cfg.modules) {
      // Deferred lists load on the real root (plan/modules.cc): not needed in the image,
      // unless a setting below needs the same module.
      if (cfg.defer_lists.value && from_rdma_core_list(m.source)) continue;
      if (counts(m.source)) module(m.value, m.source);
    }
    for (const auto& [name, s] : cfg.ipoib) {
      for (const std::string* src :
           {s.mode ? &s.mode->source : nullptr, s.mtu ? &s.mtu->source : nullptr}) {
        if (src && counts(*src)) module("ib_ipoib", *src);
      }
    }
    for (const auto& [key, c] : cfg.pkeys)
      if (counts(c.source)) module("ib_ipoib", c.source);
    for (const auto& [name, key] : cfg.names)
      if (key.value.is_guid && counts(key.source)) module("ib_ipoib", key.source);
    for (const auto& [guid, row] : cfg.nodes_by_guid) {
      if (counts(row.source)) module("ib_ipoib", row.source + " (node table)");
    }
    for (const auto& [port, r] : cfg.roce) {
      for (const std::string* src :
           {r.mode ? &r.mode->source : nullptr, r.tos ? &r.tos->source : nullptr}) {
        if (src && counts(*src)) module("rdma_cm", *src);
      }
    }
    for (const auto& [netdev, l] : cfg.soft_links) {
      if (counts(l.source)) module(l.kind == SoftKind::kRxe ? "rdma_rxe" : "siw", l.source);
    }
    // Which row is this node's is known at boot only: the image carries every row's.
    for (const auto* table : {&cfg.nodes_by_mac, &cfg.nodes_by_guid}) {
      for (const auto& [key, row] : *table) {
        if (row.soft && counts(row.source)) {
          module(row.soft->kind == SoftKind::kRxe ? "rdma_rxe" : "siw",
                 row.source + " (node table)");
        }
      }
    }
  }

  // What the modules chosen so far need beside them.
  void companions() {
    if (hardware_) module("ib_ipoib", "IPoIB on the ports of RDMA hardware");
    if (has_module("rdma_rxe")) {
      // rxe asks the crypto API for "crc32" (rxe_icrc.c) and declares no softdep, so
      // nothing would pull an implementation into the image.
      const std::string why = "rdma_rxe's crc32 (crypto API, no softdep)";
      module("crc32_generic", why);
      module("crc32-pclmul", why);
    }
  }

  // The inputs rdma-provision reads at boot, as they exist under the root.
  void files() {
    const std::string standard = InputOptions{}.config_path;
    for (const auto& f : in_.files_read) {
      if (f == opt_.config_path) {
        file(f, f == standard ? "" : standard, "native configuration");
      } else if (!opt_.rdma_core || starts_with(f, "/run/")) {
        // Left out on request; or the build host's runtime state, not configuration.
      } else if (f.find("/modprobe.d/") != std::string::npos) {
        if (auto why = modprobe_concern(f); !why.empty()) file(f, "", why);
      } else {
        file(f, "", "read by rdma-provision");
      }
    }
  }

  std::vector<ImageNeed> take() { return std::move(out_); }

 private:
  // Why a modprobe.d file matters to the image: it gives options to, or blacklists, one of
  // its modules. "" when it does not.
  std::string modprobe_concern(const std::string& f) const {
    for (const auto& [m, o] : in_.config.module_options)
      if (has_module(m) && source_names(o.source, f)) return "options for " + m;
    for (const auto& b : in_.config.blacklist)
      if (has_module(b.value) && source_names(b.source, f)) return "blacklists " + b.value;
    return "";
  }

  const Inputs& in_;
  const ImageNeedsOptions& opt_;
  std::vector<std::string> left_out_;
  std::set<std::string> modules_;
  bool hardware_ = false;
  std::vector<ImageNeed> out_;
};

}  // namespace

std::vector<ImageNeed> image_needs(const Inputs& in, const Inventory& inv,
                                   const ImageNeedsOptions& opt) {
  Builder b(in, opt);
  b.core();
  switch (opt.drivers) {
    case DriverChoice::kHost:
      b.host_drivers(inv);
      break;
    case DriverChoice::kGeneric:
      b.generic_drivers();
      break;
    case DriverChoice::kGiven:
      b.given_drivers();
      break;
  }
  b.configured();
  b.companions();
  b.files();
  return b.take();
}

std::string image_needs_text(const std::vector<ImageNeed>& needs) {
  std::string out;
  for (const auto& n : needs) {
    switch (n.kind) {
      case ImageNeed::Kind::kModule:
        out += "module " + n.item;
        break;
      case ImageNeed::Kind::kModuleDir:
        out += "module-dir " + n.item;
        break;
      case ImageNeed::Kind::kFile:
        out += "file " + n.item + (n.dest.empty() ? "" : " " + n.dest);
        break;
    }
    out += "  # " + n.why + "\n";
  }
  return out;
}

}  // namespace rp
