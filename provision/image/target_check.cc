#include "provision/image/target_check.h"

#include <algorithm>
#include <tuple>

#include "provision/base/drivers.h"
#include "provision/base/modprobe.h"
#include "provision/base/strings.h"

namespace rp {
namespace {

struct Target {
  std::vector<DriverPorts> known;
  std::string ib, roce, v1, v2, v2_some, enhanced, other_ib;  // driver lists, "a, b"
  std::string names;                                          // every known driver

  static void add(std::string& list, std::string_view d) {
    list += (list.empty() ? "" : ", ") + std::string(d);
  }
  explicit Target(const std::vector<std::string>& drivers) {
    for (const auto& d : drivers) {
      auto p = driver_ports(d);
      if (!p) continue;
      known.push_back(*p);
      add(names, d);
      if (p->infiniband || p->opa) add(ib, d);
      if ((p->infiniband || p->opa) && !p->enhanced_ipoib) add(other_ib, d);
      if (p->enhanced_ipoib) add(enhanced, d);
      if (p->roce_v1 || p->roce_v2) add(roce, d);
      if (p->roce_v1) add(v1, d);
      if (p->roce_v2 && p->roce_v2_only_on.empty()) add(v2, d);
      if (p->roce_v2 && !p->roce_v2_only_on.empty()) {
        add(v2_some, std::string(d) + " (" + std::string(p->roce_v2_only_on) + " only)");
      }
    }
  }
};

// ib_ipoib's ipoib_enhanced=0 (ulp/ipoib/ipoib_main.c, module_param_named ipoib_enhanced):
// no rdma_netdev from the driver, the classic IPoIB with connected mode. The kernel takes
// the last of a parameter given twice (kernel/params.c parse_args walks them in order).
bool enhanced_off(const Config& cfg) {
  auto it = cfg.module_options.find("ib_ipoib");
  if (it == cfg.module_options.end()) return false;
  bool off = false;
  for (auto w : split_ws(it->second.value)) {
    auto eq = w.find('=');
    // kernel/params.c parameq: '-' and '_' are the same in a parameter's name.
    if (eq == std::string_view::npos || modprobe_name(w.substr(0, eq)) != "ipoib_enhanced")
      continue;
    off = parse_uint(w.substr(eq + 1)) == std::optional<uint64_t>(0);
  }
  return off;
}

// The row of the node table that comes first (file, line), for a message about the table.
const NodeEntry* first_row(const std::unordered_map<uint64_t, NodeEntry>& rows,
                           bool (*pick)(const NodeEntry&)) {
  const NodeEntry* first = nullptr;
  for (const auto& [k, e] : rows) {
    if (!pick(e)) continue;
    if (!first ||
        std::tie(e.source.file, e.source.line) < std::tie(first->source.file, first->source.line)) {
      first = &e;
    }
  }
  return first;
}

void ipoib(const Config& cfg, const Target& t, Diagnostics& d) {
  const std::string none = ": none of the target's drivers (" + t.names +
                           ") has InfiniBand ports, on which alone IPoIB runs";
  const bool one = t.enhanced.find(',') == std::string::npos;
  const std::string dgram = ": the target's InfiniBand driver" + std::string(one ? " " : "s ") +
                            t.enhanced + (one ? " runs" : " run") +
                            " Enhanced IPoIB, which has datagram mode only (options ib_ipoib "
                            "ipoib_enhanced=0 gives it connected mode)";
  const bool no_connected = !t.ib.empty() && t.other_ib.empty() && !enhanced_off(cfg);
  for (const auto& [ifname, s] : cfg.ipoib) {
    const Source& src = s.mode ? s.mode->source : s.mtu->source;
    if (t.ib.empty()) {
      d.error(src, "IPoIB settings for " + ifname + none);
    } else if (no_connected && s.mode && s.mode->value == IpoibMode::kConnected) {
      d.error(s.mode->source, "connected mode for " + ifname + dgram);
    }
  }
  for (const auto& [k, c] : cfg.pkeys) {
    if (t.ib.empty()) {
      d.error(c.source, "P_Key child " + c.child_name() + none);
    } else if (no_connected && c.mode == IpoibMode::kConnected) {
      d.error(c.source, "connected mode for " + c.child_name() + dgram);
    }
  }
  for (const auto& [name, key] : cfg.names) {
    if (key.value.is_guid() && t.ib.empty()) {
      d.error(key.source, "name " + name + " by port GUID (an IPoIB interface)" + none);
    }
  }
  if (t.ib.empty()) {
    if (auto* e = first_row(cfg.nodes_by_guid, [](const NodeEntry&) { return true; })) {
      d.error(e->source, "the node table's rows by port GUID (" +
                             std::to_string(cfg.nodes_by_guid.size()) + ", the first here)" + none);
    }
  } else if (no_connected) {
    auto connected = [](const NodeEntry& e) { return e.mode == IpoibMode::kConnected; };
    if (auto* e = first_row(cfg.nodes_by_guid, connected)) {
      d.error(e->source, "connected mode for node " + e->key.str() + dgram);
    }
  }
}

void roce(const Config& cfg, const Target& t, Diagnostics& d) {
  for (const auto& [key, s] : cfg.roce) {
    const std::string what = "RoCE defaults for " + key.first.str() +
                             (key.second ? "/" + std::to_string(key.second) : "");
    const Source& src = s.mode ? s.mode->source : s.tos->source;
    if (t.roce.empty()) {
      d.error(src, what + ": none of the target's drivers (" + t.names + ") has RoCE ports");
      continue;
    }
    if (!s.mode) continue;
    if (s.mode->value == RoceMode::kV1 && t.v1.empty()) {
      d.error(src, what + ": RoCE v1, which none of the target's RoCE drivers (" + t.roce +
                       ") has: they run RoCE v2 only");
    } else if (s.mode->value == RoceMode::kV2 && t.v2.empty()) {
      if (t.v2_some.empty()) {
        d.error(src,
                what + ": RoCE v2, which none of the target's RoCE drivers (" + t.roce + ") has");
      } else {
        d.warn(src, what + ": RoCE v2, which " + t.v2_some +
                        " has: on other hardware of that driver (a plain ConnectX-3) the boot "
                        "refuses it");
      }
    }
  }
}

void mlx4(const Config& cfg, const Target& t, Diagnostics& d) {
  bool has_mlx4 = false;
  for (const auto& p : t.known) has_mlx4 |= p.driver == "mlx4_core" || p.driver == "mlx4_ib";
  if (has_mlx4) return;
  for (const auto& [pci, s] : cfg.mlx4) {
    for (const auto& type : s.type) {
      if (!type) continue;
      d.warn(type->source, "mlx4 port types for " + pci.str() + ", and the target's drivers (" +
                               t.names + ") have no mlx4");
      break;
    }
  }
}

}  // namespace

void check_target(const Config& cfg, const std::vector<std::string>& drivers, Diagnostics& d) {
  // A driver name nothing here knows is most likely a typo ("mlx5" for mlx5_core): the
  // image would carry no driver for the card, and the boot would find no RDMA device.
  const auto known = known_drivers();
  for (const auto& name : drivers) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string near = did_you_mean(name, known);
    d.warn(Source::at(Source::Origin::kOption, "--drivers"),
           quote(name) + " is no RDMA driver rdma-provision knows" +
               (near.empty() ? "" : " " + near) +
               ": the image carries a module of that name if the kernel has one, and the "
               "card's driver only if it is named too");
  }
  const Target t(drivers);
  if (t.known.empty()) return;
  ipoib(cfg, t, d);
  roce(cfg, t, d);
  mlx4(cfg, t, d);
}

}  // namespace rp
