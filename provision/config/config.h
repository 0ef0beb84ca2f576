// Config: the validated, merged model of what the node should look like. Every value
// carries its source ("/etc/rdma/mlx4.conf:3", "cmdline: rd.rdma.mlx4=...") so errors and
// plan reasons can name it. Inputs are merged in order (rdma-core files, native config,
// kernel command line); a later source overrides an earlier one field by field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/source.h"
#include "provision/base/types.h"
#include "provision/config/boot_context.h"
#include "provision/config/settings.h"

namespace rp {

struct Config {
  // What the boot asks of the rest of the system, read to plan around it (not settings
  // rdma-provision applies): config/boot_context.h.
  BootContext boot;

  Sourced<bool> enabled{true, {}};
  Sourced<unsigned> timeout_s{60, {}};    // hard deadline for a whole run
  Sourced<bool> required{false, {}};      // a failure stops the boot (dracut)
  Sourced<bool> allow_reload{false, {}};  // may reload mlx4_en to change PFC
  // May rename an interface that is not RDMA/IPoIB hardware out of the way of a wanted
  // name (a management NIC must not move unless the administrator says so).
  Sourced<bool> allow_rename_other{false, {}};

  std::vector<Sourced<std::string>> modules;  // in order of first request, no duplicates
  // In the initramfs, leave the modules of rdma-core's lists (/etc/rdma/modules/*.conf)
  // to the real root, where rdma-provision.service or rdma-core's own
  // rdma-load-modules@ units load them: the boot needs only what its devices, settings
  // and root transport need ([modules] defer, rd.rdma.modules.defer).
  Sourced<bool> defer_lists{true, {}};                         // Source::Origin::kRdmaCoreList
  std::map<std::string, Sourced<std::string>> module_options;  // module -> "a=1 b=2"
  std::vector<Sourced<std::string>> blacklist;
  // Modules modprobe.d forbids with `install <module> /bin/true` (or false): never loaded.
  std::map<std::string, Sourced<std::string>> forbidden;  // module -> the install command

  std::map<PciAddress, Mlx4Setting> mlx4;
  std::optional<Sourced<unsigned>> pfc_tx, pfc_rx;

  std::map<std::string, Sourced<HwKey>> names;  // wanted ifname -> what it matches
  // Fixed RDMA device names (rd.rdma.devname, [devname <name>]): wanted name -> the device.
  std::map<std::string, Sourced<RdmaSelector>> rdma_names;
  std::map<std::string, IpoibSetting> ipoib;                    // ifname -> mode/MTU
  std::map<std::pair<std::string, uint16_t>, PkeyChild> pkeys;  // (parent, pkey)
  // (device, port or 0 for every port) -> RoCE defaults.
  std::map<std::pair<RdmaSelector, unsigned>, RoceSetting> roce;
  std::map<std::string, SoftLink> soft_links;  // netdev -> rxe/siw link
  std::map<std::string, DcbSetting> dcb;       // interface (its final name) -> DCB
  // (device, port or 0: the device, or every port) -> the link the fabric expects.
  std::map<std::pair<RdmaSelector, unsigned>, ExpectSetting> expect;
  std::map<std::string, std::vector<AddressSetting>> addresses;  // ifname -> addresses
  std::map<std::string, std::vector<RouteSetting>> routes;       // ifname -> routes

  Sourced<VerifySetting> verify{};  // rd.rdma.verify, [verify]

  // rd.rdma.wait, in input order.
  std::vector<Sourced<WaitItem>> wait;
  // The waits that count: those after the last "none" ("none" cancels earlier waits).
  std::vector<Sourced<WaitItem>> effective_waits() const;

  // Per-node table: key -> row. Hash lookup keeps a 10,000-node table cheap.
  std::unordered_map<uint64_t, NodeEntry> nodes_by_guid;
  std::unordered_map<uint64_t, NodeEntry> nodes_by_mac;
  // Set by resolve_node_table when the table has rows but none is this node's: the plan
  // says so once (the defaults apply).
  std::string node_table_unmatched;

  const NodeEntry* node_entry(const HwKey& k) const;
  // The name a node-table row gives its interface, or "": none when an explicit name
  // (files or command line) names that interface otherwise, or gives the row's name to
  // another interface. The one answer for the plan (resolve/node_table.cc) and udev-name
  // (report/handoff.cc).
  std::string row_name(const NodeEntry& e) const;
};

// Problems found while reading inputs. Errors make the whole input invalid (nothing is
// applied); warnings are reported and do not stop anything.
struct Diagnostics {
  std::vector<Error> errors;
  std::vector<Error> warnings;
  // Out of line: a source is shown as text in one place, not at every call.
  void error(const Source& where, std::string what);
  void warn(const Source& where, std::string what);
  void error(std::string where, std::string what);
  void warn(std::string where, std::string what);
  bool ok() const { return errors.empty(); }
};

// Adds a module request once (keeps the first source).
void add_module(Config& cfg, std::string name, Source source);

// Rows whose name an explicit name gives to another interface: a warning naming both
// (two interfaces would be asked for one name; the explicit name wins).
void check_node_table_names(const Config& cfg, Diagnostics& diag);

// Every row of the node table on its own, whichever node is being built or booted: IPoIB
// fields on a MAC row, siw= on a GUID row, one address in two rows (errors at the row).
// Names may repeat across rows: every node of a fleet may call its port fab0.
void check_node_rows(const Config& cfg, Diagnostics& diag);

}  // namespace rp
