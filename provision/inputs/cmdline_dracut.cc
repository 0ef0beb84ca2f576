// dracut's and NetworkManager's kernel parameters, read only for what they tell this
// program: the boot's network and its interfaces, the NFS server, the names dracut gives,
// NetworkManager's P_Key children. Their owners' readings (dracut's net-lib.sh,
// parse-nfsroot.sh; nm-initrd-generator) are cited at each reader.
#include <optional>

#include "provision/base/strings.h"
#include "provision/inputs/cmdline_arg.h"
#include "provision/inputs/kernel_args.h"
#include "provision/inputs/record.h"
#include "provision/inputs/values.h"

namespace rp::cmdline_internal {
namespace {

// The partition already asked for on `parent` that the kernel makes the same child of
// as `pkey` (0x8000 ORed in, ipoib_netlink.c ipoib_new_child_link), or nullptr.
PkeyChild* same_partition(Config& cfg, const std::string& parent, uint16_t pkey) {
  for (auto& [id, c] : cfg.pkeys)
    if (c.parent == parent && (c.pkey | 0x8000) == (pkey | 0x8000)) return &c;
  return nullptr;
}

// The same, only when NetworkManager's ib.pkey= asked for it.
}  // namespace

PkeyChild* nm_partition(Config& cfg, const std::string& parent, uint16_t pkey) {
  PkeyChild* c = same_partition(cfg, parent, pkey);
  return c && c->nm_source ? c : nullptr;
}

void boot_network(const Arg& a) {
  if (!a.cfg.boot.network) a.cfg.boot.network = a.where;
}

// dracut's root=: only its NFS server is ours to read (the peer rd.rdma.verify=peer
// checks), and that it needs the network; any other root is none of our business and
// never an error.
void read_root(const Arg& a) {
  const auto v = a.value();
  const auto server = nfs_root_server_text(v);
  // The last root= is dracut's (getarg): it replaces what an earlier one said.
  if (auto address = nfs_root_server(v)) {
    a.cfg.boot.nfs_server = Sourced<IpAddress>{*address, a.where};
    a.cfg.boot.nfs_server_unknown.reset();
  } else if (server || v == "dhcp" || v == "dhcp6") {
    a.cfg.boot.nfs_server_unknown = Sourced<std::string>{std::string(server.value_or("")), a.where};
    a.cfg.boot.nfs_server.reset();
  }
  if (starts_with(v, "nfs") || v == "dhcp" || v == "dhcp6") boot_network(a);
}

// netroot= brings the network up (dracut-ng modules.d/45net-lib/net-genrules.sh: a
// netroot asks for it), but names no NFS server: parse-nfsroot.sh (74nfs) ignores the
// command line's netroot= and mounts what root= says, whichever comes first.
void read_netroot(const Arg& a) {
  if (!a.value().empty()) boot_network(a);
}

// dracut's ip= (modules.d/40network/net-lib.sh ip_to_var): "<autoconf>" names no
// interface; "<interface>:<autoconf>[:<mtu>[:<mac>]]" names it first; the static form
// "<client>:<peer>:<gateway>:<netmask>:<hostname>:<interface>:<autoconf>..." sixth. IPv6
// addresses are in brackets. Read only for the interface: dracut owns the rest, so
// nothing here is ever an error.
void read_ip(const Arg& a) {
  // "off" / "none" alone configure nothing (net-lib.sh ip_to_var: no autoconf).
  if (a.value() == "off" || a.value() == "none") return;
  boot_network(a);
  std::vector<std::string> f(1);
  int depth = 0;
  for (char c : a.value()) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ':' && depth == 0) {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  // "<interface>:<method>": dracut's methods (net-lib.sh ip_to_var) and NetworkManager's
  // (nmi-cmdline-reader.c _parse_ip_method: also none/off, auto, link6, ibft/fw,
  // single-dhcp and comma lists such as dhcp,dhcp6). Either stack may run the image, so
  // either's reading names the interface.
  static const std::string_view kAutoconf[] = {"dhcp",    "on",          "any",  "dhcp6", "auto6",
                                               "either6", "link6",       "none", "off",   "auto",
                                               "ibft",    "single-dhcp", "fw"};
  auto one = [](std::string_view w) {
    for (auto k : kAutoconf)
      if (w == k) return true;
    return false;
  };
  auto autoconf = [&](const std::string& w) {
    if (w.empty()) return false;
    for (auto part : split(w, ','))
      if (!one(part)) return false;
    return true;
  };
  std::string dev;
  bool static_form = false;
  if (f.size() >= 2 && autoconf(f[1])) {
    dev = f[0];
  } else if (f.size() >= 6 && !autoconf(f[0])) {
    dev = f[5];
    static_form = true;
  }
  ++a.cfg.boot.ip_count;
  if (dev.empty()) ++a.cfg.boot.ip_without_iface;
  if (!dev.empty()) a.cfg.boot.ifaces.push_back({dev, a.where});
  // The static form's address: an IPv4 netmask in dotted form or a prefix length
  // (ip_to_var takes either: net-lib.sh mask2cidr when it has dots).
  if (static_form && !dev.empty()) {
    const auto addr = IpAddress::parse(f[0]);
    std::optional<unsigned> len;
    if (auto m = IpAddress::parse(f[3]); m && !m->v6) {
      const uint32_t bits = uint32_t(m->bytes[0]) << 24 | uint32_t(m->bytes[1]) << 16 |
                            uint32_t(m->bytes[2]) << 8 | m->bytes[3];
      unsigned n = 0;
      while (n < 32 && (bits & (0x80000000u >> n))) ++n;
      if ((n == 32 ? 0u : bits << n) == 0) len = n;  // contiguous only
    } else if (auto n = parse_uint(f[3]); n && *n <= 128) {
      len = static_cast<unsigned>(*n);
    }
    if (addr && len && *len <= (addr->v6 ? 128u : 32u))
      a.cfg.boot.static_addresses.push_back({dev, IpPrefix{*addr, *len}, a.where});
  }
}

// dracut's bootdev=<interface>: the interface the boot's network comes up on.
void read_bootdev(const Arg& a) {
  boot_network(a);
  if (!a.value().empty()) a.cfg.boot.ifaces.push_back({std::string(a.value()), a.where});
}

// BOOTIF= (parse_bootif): what it names is the plan's to find (plan/bootif.cc). dracut's
// parse-ip-opts.sh takes it only when `getargbool 1 rd.bootif`; a value no loader writes
// is said and left to dracut.
void read_bootif(const Arg& a) {
  auto b = parse_bootif(a.value());
  if (!b) {
    a.cfg.boot.bootif.reset();
    return a.warn("BOOTIF " + shown(a.value()) +
                  " is no hardware address a PXE loader writes (<htype>-<6, 8 or 20 bytes>): "
                  "left to dracut");
  }
  b->source = a.where;
  a.cfg.boot.bootif = *b;
}

void read_rd_bootif(const Arg& a) {
  const auto v = a.value();
  if (!v.empty() && (v == "0" || v == "no" || v == "off")) {
    a.cfg.boot.bootif_off = a.where;
  } else {
    a.cfg.boot.bootif_off.reset();
  }
}

// rd.neednet, a boolean as dracut's getargbool reads it (the key alone is 1).
void read_neednet(const Arg& a) {
  const auto v = a.value();
  if (v.empty() || (v != "0" && v != "no" && v != "off")) boot_network(a);
}

// dracut's ifname=<name>:<address> as its net-lib.sh parse_ifname_opts splits it (on ':'):
// 7 fields, a MAC; 21, a 20-byte address, for which ifname-genrules.sh writes a rule with
// ATTR{type}=="1" (Ethernet) that never renames an IPoIB interface (type 32); anything
// else makes dracut die ("Invalid arguments for ifname="). Read to find clashes with ours.
void read_dracut_ifname(const Arg& a) {
  const auto fields = split(a.value(), ':');
  if (fields.size() == 21) {
    // dracut accepts it and its rule never matches: no rename, no name provided (an ip=
    // for the name is then said as absent), never an error.
    return a.warn(
        "dracut writes a rule for ATTR{type}==\"1\" (Ethernet) from a 20-byte address "
        "(modules.d/45net-lib/ifname-genrules.sh), which never renames an IPoIB interface: "
        "name it with rd.rdma.name=" +
        std::string(fields[0]) + ":<port GUID> (its last 8 bytes)");
  }
  if (fields.size() != 7) {
    return a.error(
        "dracut stops the boot on this (\"Invalid arguments for ifname=\", "
        "net-lib.sh parse_ifname_opts takes <name> and a 6- or 20-byte address); "
        "it is of the form " +
        std::string(a.form));
  }
  auto name = parse_ifname(fields[0], a.where, a.diag);
  auto key = parse_hw_key(a.value().substr(fields[0].size() + 1), a.where, a.diag);
  if (name && key) a.cfg.boot.dracut_ifnames[*name] = Sourced<HwKey>{*key, a.where};
}

// dracut's bond=, team=, bridge= and vlan= make the interface their first field names
// (35network-legacy parse-bond.sh parsebond: "bond" alone or an empty name is bond0;
// parse-bridge.sh: "bridge" alone is br0), which ip= may then name: read so that such a
// name counts as provided (plan/names.cc check_boot_ifaces).
void read_dracut_virtual(const Arg& a) {
  const auto fields = split(a.value(), ':');
  std::string name(fields[0]);
  if (name.empty()) name = a.param.key == "bond" ? "bond0" : a.param.key == "bridge" ? "br0" : "";
  if (!name.empty()) a.cfg.boot.dracut_virtual.emplace(name, a.where);
  if (a.param.key != "bond" || fields.size() > 4) return;  // more: dracut dies on it
  // parse-bond.sh: slaves and options are comma-separated lists ("mode=active-backup,
  // miimon=100"); mode= may be a name or the bonding driver's number (1: active-backup).
  BootContext::Bond b{name, {"eth0", "eth1"}, "", a.where};
  if (fields.size() > 1) {
    b.slaves.clear();
    for (auto s : split(fields[1], ','))
      if (!s.empty()) b.slaves.emplace_back(s);
  }
  if (fields.size() > 2) {
    for (auto o : split(fields[2], ','))
      if (starts_with(o, "mode=")) b.mode = std::string(o.substr(5));
  }
  a.cfg.boot.bonds.push_back(std::move(b));
}

// NetworkManager's form: ib.pkey=<parent>.<hex pkey>. As there, the parent ends at the
// first '.', the child is named exactly as written, and ':<options>' are ignored.
void read_nm_pkey(const Arg& a) {
  auto v = a.value();
  if (auto colon = v.find(':'); colon != std::string_view::npos) {
    a.warn("ignoring " + shown(v.substr(colon)) + ": only <parent>.<pkey> is read");
    v = v.substr(0, colon);
  }
  auto dot = v.find('.');
  if (dot == std::string_view::npos) return a.bad_form();
  auto parent = parse_ifname(v.substr(0, dot), a.where, a.diag);
  auto pkey = parse_pkey(v.substr(dot + 1), a.where, a.diag);
  if (!parent || !pkey) return;
  if (auto child = parse_new_ifname(v, a.where, a.diag)) {
    // A partition rd.rdma.pkey (or the files) already asked for keeps that request; NM's
    // is noted beside it, and whose the child is is decided with the image in view
    // (inputs/load.cc leave_ib_pkey_to_networkmanager).
    // The same partition however either spelled its P_Key (ib0.8001 and ib0:0x1).
    PkeyChild* c = same_partition(a.cfg, *parent, *pkey);
    if (!c || c->source == c->nm_source) {
      const size_t before = a.diag.errors.size();
      const uint16_t id = c ? c->pkey : *pkey;
      set_pkey_child(a.cfg, *parent, id, *child, a.where, a.diag);
      if (a.diag.errors.size() != before) return;
      c = &a.cfg.pkeys[{*parent, id}];
      c->source = a.where;
    } else if (c->name.empty()) {
      // Ours named no child: the one the administrator wrote for NetworkManager, as when
      // ib.pkey= came first.
      c->name = *child;
    }
    c->nm_source = a.where;
    c->nm_name = *child;
    for (const auto& [name, src] : a.cfg.boot.ifaces) c->nm_after_ip |= name == *child;
  }
}

}  // namespace rp::cmdline_internal
