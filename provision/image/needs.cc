#include "provision/image/needs.h"

#include <set>

#include "provision/base/drivers.h"
#include "provision/base/modprobe.h"
#include "provision/base/strings.h"
#include "provision/resolve/module_needs.h"

namespace rp {
namespace {

// Loaded in every image: whatever the hardware, rdma-provision needs the RDMA core, the
// verbs and connection managers (RoCE defaults live in rdma_cm's configfs).
constexpr const char* kCoreModules[] = {"ib_core", "ib_uverbs", "rdma_ucm", "rdma_cm",
                                        "ib_cm",   "iw_cm",     "configfs"};

// RDMA drivers that are not the RDMA side of a NIC driver (hfi1, qib, efa, vmw_pvrdma,
// ...) all live here in the kernel tree; a generic image takes the directory.
constexpr const char* kRdmaHardwareDir = "drivers/infiniband/hw";

// Whether `source` (merged ones included) is a line of `file`.
bool source_names(const Source& source, const std::string& file) {
  if (source.origin != Source::Origin::kCmdline && source.file == file) return true;
  for (const auto& a : source.also)
    if (source_names(a, file)) return true;
  return false;
}

class Builder {
 public:
  Builder(const Inputs& in, const ImageNeedsOptions& opt) : in_(in), opt_(opt) {
    // Without rdma-core's files in the image, whatever they ask for is not asked at boot.
    if (!opt.rdma_core) {
      for (const auto& f : in.files_read)
        if (!native(f)) left_out_.push_back(f);
    }
  }

  // The native config, or a file of the nodes.d beside it: always in the image.
  bool native(const std::string& f) const {
    return f == opt_.config_path || starts_with(f, nodes_d_dir(opt_.config_path) + "/");
  }

  void module(std::string_view name, std::string why) {
    if (!modules_.insert(modprobe_name(name)).second) return;
    out_.push_back({ImageNeed::Kind::kModule, std::string(name), "", std::move(why)});
  }
  void module_dir(std::string dir, std::string why) {
    out_.push_back({ImageNeed::Kind::kModuleDir, std::move(dir), "", std::move(why)});
  }
  void file(std::string path, std::string dest, std::string why) {
    out_.push_back({ImageNeed::Kind::kFile, std::move(path), std::move(dest), std::move(why)});
  }
  bool has_module(std::string_view name) const { return modules_.count(modprobe_name(name)) > 0; }

  // A value counts unless it comes from a file the image leaves out.
  bool counts(const Source& source) const {
    for (const auto& f : left_out_)
      if (source_names(source, f)) return false;
    return true;
  }

  void core() {
    for (const char* m : kCoreModules) module(m, "RDMA core");
  }

  // The target's drivers: the host's (a host-only image), every known one, or those named.
  // Each NIC driver goes in with the RDMA driver module_needs() pairs it with.
  void host_drivers(const Inventory& inv) {
    machine_ = machine_of(in_.config, inv);
    machine_.hardware.clear();  // the RDMA drivers of every driver here, as below
    for (const auto& f : inv.pci) {
      if (f.driver.empty()) continue;
      module(f.driver, "drives " + f.address.str() + " on this host");
      // Which ports are which is the target's to decide (a port type may change on its
      // command line): every technology the driver may bring counts.
      add_driver(machine_, f.driver, "RDMA driver of " + f.driver + " (" + f.address.str() + ")");
    }
    for (const char* soft : {"rdma_rxe", "siw"}) {
      if (!inv.module_loaded(soft)) continue;
      module(soft, std::string("this host runs ") + (soft[0] == 's' ? "Soft-iWARP" : "Soft-RoCE"));
      add_driver(machine_, soft, "");
    }
  }

  void generic_drivers() {
    const std::string why = "generic image: every known RDMA driver";
    for (const auto& p : rdma_driver_pairs()) {
      module(p.nic, why);
      add_driver(machine_, std::string(p.nic), why);
    }
    module_dir(kRdmaHardwareDir, why);
    for (const char* soft : {"rdma_rxe", "siw"}) {
      module(soft, why);
      add_driver(machine_, soft, why);
    }
  }

  void given_drivers() {
    for (const auto& m : opt_.given) {
      module(m, "--drivers");
      add_driver(machine_, modprobe_name(m), "RDMA driver of " + m + " (--drivers)");
    }
  }

  // What the configuration (every input) needs on the target, the modules the kernel
  // requests by itself included; deferred lists load on the real root (plan/modules.cc).
  void configured() {
    const Config& cfg = in_.config;
    machine_.any_target = true;
    for (const auto& n : module_needs(cfg, machine_).needs) {
      if (n.kind == ModuleNeed::Kind::kList && cfg.defer_lists.value) continue;
      if (!n.source || counts(*n.source)) module(n.module, n.why);
    }
  }

  // The inputs rdma-provision reads at boot, as they exist under the root.
  void files() {
    const std::string standard = InputOptions{}.config_path;
    for (const auto& f : in_.files_read) {
      if (f == opt_.config_path) {
        file(f, f == standard ? "" : standard, "native configuration");
      } else if (native(f)) {
        // Beside the config in the image too, where the binary looks at boot.
        const std::string dest = nodes_d_dir(standard) + f.substr(f.rfind('/'));
        file(f, f == dest ? "" : dest, "node table (nodes.d)");
      } else if (starts_with(f, "/etc/nvme/")) {
        file(f, "", "the host's NVMe identity, for the NVMe over Fabrics connect over RDMA");
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
  Machine machine_;
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
  b.files();
  return b.take();
}

void check_image_carries(const Config& cfg, const std::vector<ImageNeed>& needs,
                         DriverChoice drivers, Diagnostics& d) {
  if (drivers == DriverChoice::kGeneric) return;  // every driver goes in
  std::set<std::string> modules;
  for (const auto& n : needs)
    if (n.kind == ImageNeed::Kind::kModule) modules.insert(modprobe_name(n.item));
  const std::string whose = drivers == DriverChoice::kHost
                                ? "this host-only image carries the drivers of the build "
                                  "host's cards, and "
                                : "the image's --drivers (dracut's rdma_provision_drivers) "
                                  "name ";
  auto say = [&](const Source& where, const std::string& what, std::string_view driver) {
    d.warn(where, what + ", but " + whose + "no " + std::string(driver) +
                      ": the boot would find no such device; build the image with "
                      "rdma_provision_drivers=\"" +
                      std::string(driver) + "\" in dracut.conf, or not host-only");
  };
  std::vector<std::pair<std::string, Source>> named;  // RDMA devices by the kernel's name
  for (const auto& [k, s] : cfg.roce) {
    if (k.first.by != RdmaSelector::By::kName) continue;
    named.push_back({k.first.name, s.mode ? s.mode->source : s.tos ? s.tos->source : Source()});
  }
  for (const auto& w : cfg.effective_waits()) {
    if (w.value.kind == WaitItem::Kind::kPort && w.value.device.by == RdmaSelector::By::kName)
      named.push_back({w.value.device.name, w.source});
  }
  for (const auto& [name, key] : cfg.names)
    if (key.value.by == HwKey::By::kRdmaPort) named.push_back({key.value.device, key.source});
  std::set<std::string> said;
  for (const auto& [dev, where] : named) {
    const auto driver = driver_of_device(dev);
    if (!driver || modules.count(modprobe_name(*driver)) || !said.insert(dev).second) continue;
    say(where, dev + " is an " + std::string(*driver) + " device", *driver);
  }
  for (const auto& [pci, s] : cfg.mlx4) {
    if (modules.count("mlx4_core")) break;
    const Source& where = s.type[0] ? s.type[0]->source : s.type[1] ? s.type[1]->source : Source();
    if (where.origin == Source::Origin::kMlx4Conf) continue;  // rdma-core's shared file
    say(where, "mlx4 " + pci.str() + " needs mlx4_core", "mlx4_core");
    break;
  }
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
