// NetworkManager in the initramfs (RHEL's default stack): what its initrd generator makes of
// dracut's parameters, checked against the IPoIB interfaces this configuration names, so
// that a boot NetworkManager cannot bring up fails the image build, not the boot. Each rule
// follows NetworkManager's source (1.42, Debian 12's, and its later releases alike):
//   nmi-cmdline-reader.c  src/nm-initrd-generator/: how ip=, bootdev= and ib.pkey= become
//                         connections (reader_get_connection, reader_create_connection,
//                         reader_parse_ib_pkey)
//   nm-device-infiniband.c src/core/devices/: what activating one does to the interface
//                         (act_stage1_prepare)
#include "provision/inputs/networkmanager.h"

#include <set>

#include "provision/base/strings.h"

namespace rp {
namespace {

// The IPoIB interfaces the configuration names, with the input that makes each one IPoIB:
// a name given to a port GUID (an IPoIB interface's address ends with it), a P_Key child,
// IPoIB settings.
std::map<std::string, std::string> ipoib_names(const Config& cfg) {
  std::map<std::string, std::string> out;
  for (const auto& [name, key] : cfg.names)
    if (key.value.is_guid()) out.emplace(name, key.source.str());
  for (const auto& [k, row] : cfg.nodes_by_guid) {
    const std::string name = cfg.row_name(row);
    if (!name.empty()) out.emplace(name, row.source.str());
  }
  for (const auto& [k, c] : cfg.pkeys) out.emplace(c.child_name(), c.source.str());
  for (const auto& [name, s] : cfg.ipoib)
    out.emplace(name, (s.mode ? s.mode->source : s.mtu->source).str());
  return out;
}

// reader_get_connection: a connection the generator creates without being told its type is
// InfiniBand when the interface name starts with "ib" (NM_STR_HAS_PREFIX, case-sensitive)
// or is a 20-byte hardware address, else Ethernet; NMDeviceInfiniband takes only
// InfiniBand connections (connection_type_check_compatible), so an Ethernet one never
// activates on an IPoIB interface.
bool nm_takes_for_infiniband(const std::string& name) { return starts_with(name, "ib"); }

}  // namespace

void check_networkmanager(const Config& cfg, Diagnostics& diag) {
  if (!cfg.boot.network_manager) return;
  const std::string nm =
      "NetworkManager configures this boot's network (" + cfg.boot.network_manager->str() + ")";
  const auto ipoib = ipoib_names(cfg);
  std::set<std::string> configured;  // the interfaces NetworkManager brings up
  for (const auto& [name, src] : cfg.boot.ifaces) configured.insert(name);
  std::map<std::string, const PkeyChild*> nm_children;  // ib.pkey=: NM creates them
  for (const auto& [k, c] : cfg.pkeys)
    if (c.nm_source) nm_children.emplace(c.nm_name, &c);

  for (const auto& [name, src] : cfg.boot.ifaces) {
    auto it = ipoib.find(name);
    if (it == ipoib.end() || nm_takes_for_infiniband(name) || nm_children.count(name)) continue;
    diag.error(src, name + " is an IPoIB interface (" + it->second + "), but " + nm +
                        ", and nm-initrd-generator makes an Ethernet connection for a name "
                        "without the \"ib\" prefix (nmi-cmdline-reader.c "
                        "reader_get_connection), which never activates on InfiniBand: give "
                        "it a name that starts with \"ib\" (ib-fab0, ibfab0)");
  }
  // NetworkManager names a partition's interface "%s.%04x" of the parent and the P_Key as
  // written (nm-base.c nm_net_devname_infiniband); 1.42.4 (Debian 12) refuses a
  // connection whose interface name is not that (nm-setting-infiniband.c verify), 1.42.8
  // and later rename the interface to it.
  for (const auto& [name, c] : nm_children) {
    const std::string canonical = c->parent + "." + hex(c->pkey, 4);
    if (name == canonical) continue;
    diag.warn(*c->nm_source, "NetworkManager names this partition's interface " + canonical +
                                 " (nm-base.c nm_net_devname_infiniband): 1.42.4 refuses a "
                                 "connection named " +
                                 name +
                                 " (nm-setting-infiniband.c verify), 1.42.8 and later rename "
                                 "it; write ib.pkey=" +
                                 canonical);
  }
  // An ib.pkey= child named otherwise, after an ip= for it: the ip= made it an Ethernet
  // connection, and ib.pkey= turns that into an InfiniBand one without a transport mode,
  // which fails NetworkManager's verification: no connection is written at all.
  for (const auto& [name, c] : nm_children) {
    if (!c->nm_after_ip || nm_takes_for_infiniband(name)) continue;
    diag.error(*c->nm_source, "comes after an ip= for " + name + ", and " + nm +
                                  ": nm-initrd-generator made " + name +
                                  " an Ethernet connection at ip= (no \"ib\" prefix), which "
                                  "ib.pkey= turns into an InfiniBand one without a transport "
                                  "mode (nmi-cmdline-reader.c reader_get_connection): "
                                  "NetworkManager writes none; put ib.pkey= before ip=");
  }
  // Connected mode on an interface NetworkManager activates: the generator gives every
  // InfiniBand connection it creates transport-mode=datagram (reader_create_connection),
  // and activation writes it to the interface's mode file whatever it reads
  // (act_stage1_prepare): connected mode would be undone, and the MTU with it.
  auto connected = [&](const std::string& name) -> std::optional<Source> {
    if (auto s = cfg.ipoib.find(name);
        s != cfg.ipoib.end() && s->second.mode && s->second.mode->value == IpoibMode::kConnected)
      return s->second.mode->source;
    for (const auto& [k, c] : cfg.pkeys)
      if (c.child_name() == name && c.mode == IpoibMode::kConnected) return c.source;
    return std::nullopt;
  };
  std::set<std::string> activated = configured;
  for (const auto& [name, c] : nm_children) activated.insert(name);
  for (const auto& name : activated) {
    if (auto src = connected(name)) {
      diag.error(*src, "connected mode on " + name + ", but " + nm +
                           ": nm-initrd-generator gives its connection transport-mode=datagram "
                           "(nmi-cmdline-reader.c reader_create_connection), which "
                           "NetworkManager writes to /sys/class/net/" +
                           name +
                           "/mode when it activates it (nm-device-infiniband.c "
                           "act_stage1_prepare): use datagram mode, or leave " +
                           name + " out of ip=");
    }
  }
  // A P_Key child made here and brought up by NetworkManager: activation writes its mode
  // file (act_stage1_prepare) and fails when there is none, and a child made over
  // rtnetlink has none (ipoib_vlan.c __ipoib_vlan_add adds mode, pkey and parent for
  // create_child children only). NetworkManager makes ib.pkey= children through
  // create_child itself.
  for (const auto& [k, c] : cfg.pkeys) {
    const std::string name = c.child_name();
    if (c.nm_source || !configured.count(name)) continue;
    diag.error(c.source, "P_Key child " + name + " is brought up by NetworkManager (" +
                             cfg.boot.network_manager->str() +
                             "), whose activation writes its mode file and fails without one "
                             "(nm-device-infiniband.c act_stage1_prepare), and a child "
                             "made over rtnetlink has none (ipoib_vlan.c __ipoib_vlan_add): "
                             "let NetworkManager make it, ib.pkey=" +
                             c.parent + "." + hex(c.full_pkey(), 4));
  }
}

}  // namespace rp
