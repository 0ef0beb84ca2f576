// BOOTIF (#43): the interface a PXE loader says the node booted from. dracut takes it for
// the boot's network (35network-legacy parse-ip-opts.sh: `getargbool 1 rd.bootif` and
// BOOTIF -> fix_bootif -> the boot device), and NetworkManager's generator for a wired
// connection's MAC (nmi-cmdline-reader.c, near the end of nmi_cmdline_reader_parse). Both
// only ever match a 6-byte Ethernet address: fix_bootif (net-lib.sh) keeps the last 6
// bytes, net-genrules.sh writes ATTR{address}=="<6 bytes>" and waits for that interface,
// and the generator's connection is of type 802-3-ethernet. An IPoIB interface's address
// is 20 bytes (ipoib_main.c ipoib_setup_common, INFINIBAND_ALEN) and its connection
// type infiniband, so a BOOTIF that names an InfiniBand port is never matched: the boot
// waits for its network until dracut's timeout. Said here, with the port it names.
//
// Where the configuration names that port's IPoIB interface (rd.rdma.name= or [names] by
// GUID, a node-table row), the initramfs hands dracut that interface instead
// (bootif_handoff, written by `rdma-provision bootif` at dracut's cmdline step 97 to
// /etc/cmdline.d, which dracut-lib.sh getcmdline reads before /proc/cmdline):
//   rd.bootif=0     parse-ip-opts.sh (cmdline 98) then leaves BOOTIF out of IFACES and
//                   net.bootdev, and nm-initrd-generator drops it (nmi-cmdline-reader.c:
//                   ignore_bootif), so neither waits for a 6-byte address;
//   ip=<name>:dhcp  only where no ip= says otherwise: parse-ip-opts.sh refuses ip=dhcp
//                   beside a second ip= ("does not make sense for multiple interface
//                   configurations"), and ip=dhcp alone has ifup run DHCP on every
//                   interface (ifup.sh: an ip= without an interface is for each one), so
//                   with network-legacy it is added only where there is no ip= at all.
//                   NetworkManager's generator takes both (its default connection stays
//                   for Ethernet) but types a connection InfiniBand by its name only
//                   (reader_get_connection: the "ib" prefix), so there the name must
//                   start with "ib", or nothing is handed over.
#include "provision/base/sort.h"
#include "provision/base/strings.h"
#include "provision/plan/builder.h"

namespace rp {
namespace {

// iPXE's Ethernet-compatible address of an IPoIB port (src/drivers/net/ipoib.c
// ipoib_init_addr, IPOIB_GUID_MASK 0xe7: the GUID's bytes 0, 1, 2, 5, 6 and 7), which it
// puts in its DHCP packet's chaddr, and pxelinux then in BOOTIF.
uint64_t ipxe_mac_of(uint64_t guid) { return (guid >> 40) << 24 | (guid & 0xffffff); }

// The name the port's IPoIB interface has or is given, or "".
std::string ipoib_name(const PlanBuilder& b, uint64_t guid) {
  for (const auto& n : b.inv.netdevs) {
    const auto g =
        n.type == kArphrdInfiniband && n.parent.empty() ? n.address.ipoib_guid() : std::nullopt;
    if (g && g->value == guid) return b.final_name(n.name);
  }
  for (const auto& [name, key] : b.cfg.names)
    if (key.value.is_guid() && key.value.value == guid) return name;
  if (const NodeEntry* row = b.cfg.node_entry(HwKey::of_guid(PortGuid{guid})))
    return b.cfg.row_name(*row);
  return "";
}

bool bootif_names(const BootContext::BootIf& bi, uint64_t guid) {
  return bi.form == BootContext::BootIf::Form::kGuid ? guid == bi.value
                                                     : ipxe_mac_of(guid) == bi.value;
}

std::string port_text(const BootContext::BootIf& bi, uint64_t guid) {
  return cat({"the InfiniBand port ", HwKey::of_guid(PortGuid{guid}).str(),
              bi.form == BootContext::BootIf::Form::kMac
                  ? " (iPXE's Ethernet-compatible address of its GUID: bytes 0-2 and 5-7, "
                    "ipoib.c ipoib_init_addr)"
                  : ""});
}

}  // namespace

std::optional<BootifHandoff> bootif_handoff(const Config& cfg) {
  const auto& bi = cfg.boot.bootif;
  if (!bi || cfg.boot.bootif_off) return std::nullopt;
  // The ports the configuration names, by GUID: its names, then the node table's rows.
  std::vector<BootifHandoff> found;
  for (const auto& [name, key] : cfg.names)
    if (key.value.is_guid() && bootif_names(*bi, key.value.value))
      found.push_back({key.value.value, name, key.source.str(), {}, ""});
  for (const auto& [guid, row] : cfg.nodes_by_guid) {
    if (!bootif_names(*bi, guid)) continue;
    const std::string name = cfg.row_name(row);
    if (!name.empty()) found.push_back({guid, name, row.source.str(), {}, ""});
  }
  if (found.empty()) return std::nullopt;
  sort_by(found, [](const BootifHandoff& a, const BootifHandoff& b) { return a.name < b.name; });
  BootifHandoff h = found.front();
  const std::string what = cat({"BOOTIF (", bi->how, ") names ", port_text(*bi, h.guid), ", ",
                                h.name, " (", h.named_by, ")"});
  for (const auto& o : found) {
    if (o.name == h.name) continue;
    h.why = cat({"it names ", port_text(*bi, o.guid), ", ", o.name, " (", o.named_by,
                 ") too: nothing is handed to dracut"});
    return h;
  }
  bool named = false;
  for (const auto& i : cfg.boot.ifaces) named = named || i.value == h.name;
  const bool nm = cfg.boot.network_manager.has_value();
  const bool add_ip =
      !named && (cfg.boot.ip_count == 0 || (nm && cfg.boot.ip_count == cfg.boot.ip_without_iface));
  if (add_ip && nm && !starts_with(h.name, "ib")) {
    h.why = cat({"NetworkManager's generator makes an InfiniBand connection of ip=", h.name,
                 ":dhcp only under a name that starts with \"ib\" (nmi-cmdline-reader.c "
                 "reader_get_connection): nothing is handed to dracut"});
    return h;
  }
  h.words.push_back("rd.bootif=0");
  if (add_ip) h.words.push_back(cat({"ip=", h.name, ":dhcp"}));
  const bool every = cfg.boot.ip_count == cfg.boot.ip_without_iface;
  h.why = cat({what, ": the initramfs gives dracut ", join(h.words, " "),
               " at its cmdline step, before parse-ip-opts.sh and nm-initrd-generator read the "
               "command line (rdma-provision bootif)",
               add_ip  ? ""
               : named ? "; the command line's ip= configures "
                       : "; the command line's ip= stays as it is (",
               add_ip  ? std::string_view()
               : named ? std::string_view(h.name)
               : every ? "dracut runs DHCP on every interface)"
                       : "it names other interfaces)"});
  return h;
}

void plan_bootif(PlanBuilder& b) {
  const auto& bi = b.cfg.boot.bootif;
  if (!bi || b.cfg.boot.bootif_off) return;
  using Form = BootContext::BootIf::Form;
  const std::string what = cat({"BOOTIF (", bi->how, ")"});
  // Handed over in the initramfs (where rd.bootif=0 then reaches us too): said, not warned.
  const auto h = bootif_handoff(b.cfg);
  if (h && !h->words.empty()) return b.note(h->why);
  // An Ethernet interface with that address: dracut's own match.
  if (bi->form == Form::kMac) {
    for (const auto& n : b.inv.netdevs) {
      const auto m = n.type == kArphrdEther ? n.address.mac() : std::nullopt;
      if (m && HwKey::of_mac(*m).value == bi->value) return;
    }
  }
  // An InfiniBand port, by its GUID or iPXE's address of it: present (ib_core lists it
  // before ib_ipoib makes its interface), or a row of the node table (an image built
  // elsewhere).
  std::vector<uint64_t> guids;
  for (const auto& d : b.inv.rdma)
    for (const auto& p : d.ports)
      if (p.guid && p.link_layer == LinkLayer::kInfiniBand) guids.push_back(p.guid->value);
  for (const auto& [k, row] : b.cfg.nodes_by_guid) guids.push_back(k);
  for (uint64_t g : guids) {
    if (!bootif_names(*bi, g)) continue;
    const std::string name = ipoib_name(b, g);
    const std::string shown = name.empty() ? "its IPoIB interface" : name;
    const std::string said =
        cat({what, " names ", port_text(*bi, g), ", ", shown,
             ": dracut matches BOOTIF as a 6-byte Ethernet address (net-lib.sh fix_bootif, "
             "net-genrules.sh), which an IPoIB interface's 20-byte address never is, and "
             "NetworkManager's generator makes an Ethernet connection of it, so the boot "
             "waits for that network until dracut's timeout; write rd.bootif=0 ip=",
             name.empty() ? std::string_view("<its name>") : std::string_view(name), ":dhcp",
             h ? "; "
             : b.cfg.boot.network_manager && !starts_with(name, "ib")
                 ? " (with NetworkManager, under a name that starts with \"ib\")"
                 : "",
             h ? std::string_view(h->why) : std::string_view()});
    // A boot that cannot get its network: under rd.rdma.required=1 apply fails it there,
    // not dracut's initqueue at its timeout. On the real root BOOTIF is still on the
    // command line, and the boot is over: said, never failed again.
    if (!b.cfg.required.value || !b.inv.initramfs) return b.warn(bi->source, said);
    b.warn(bi->source,
           cat({said, "; ", b.cfg.required.source.str(), ": apply fails the boot on it"}));
    Action a{Require{what, "Ethernet interface", shown}, "IPoIB", bi->source.str()};
    a.never = said;
    b.add(std::move(a));
    return;
  }
  // What is there: the Ethernet interfaces by MAC and the InfiniBand ports by GUID.
  auto present = b.present_addresses(false);
  for (auto& c : b.present_addresses(true)) present.push_back(std::move(c));
  const std::string wanted = bi->form == Form::kMac
                                 ? HwKey{HwKey::By::kMac, bi->value, {}, {}, 0}.str()
                                 : HwKey::of_guid(PortGuid{bi->value}).str();
  if (!b.inv.initramfs) {  // the real root, or check elsewhere: said, never waited for
    b.warn(bi->source,
           cat({what, ": no ", bi->form == Form::kMac ? "interface with address " : "port GUID ",
                wanted, " is present", present_hint(wanted, present)}));
    return;
  }
  b.absent(bi->source, what, bi->form == Form::kMac ? "interface with address" : "port GUID",
           bi->form == Form::kMac ? HwKey{HwKey::By::kMac, bi->value, {}, {}, 0}.str()
                                  : HwKey::of_guid(PortGuid{bi->value}).str(),
           present);
}

}  // namespace rp
