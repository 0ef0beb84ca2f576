#include "provision/inputs/cmdline.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "provision/base/strings.h"
#include "provision/inputs/cmdline_arg.h"
#include "provision/inputs/kernel_args.h"
#include "provision/inputs/record.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

using namespace cmdline_internal;

// A boolean as dracut's getargbool (modules.d/99base/dracut-lib.sh) reads it: the key
// alone ("rd.rdma.required") or with an empty value ("rd.rdma=") is true.
void read_bool(const Arg& a, Sourced<bool>& out) {
  if (a.value().empty()) {
    out = {true, a.where};
  } else if (auto b = parse_bool(a.value(), a.where, a.diag)) {
    out = {*b, a.where};
  }
}

void read_enabled(const Arg& a) { read_bool(a, a.cfg.enabled); }
void read_required(const Arg& a) { read_bool(a, a.cfg.required); }
void read_defer(const Arg& a) { read_bool(a, a.cfg.defer_lists); }

void read_verify(const Arg& a) {
  // The key alone asks for the port checks, as getargbool would read "rd.rdma.verify".
  if (a.value().empty()) {
    VerifySetting v;
    v.mode = VerifySetting::Mode::kPorts;
    a.cfg.verify = {v, a.where};
  } else if (auto v = parse_verify(a.value(), a.where, a.diag)) {
    a.cfg.verify = {*v, a.where};
  }
}

void read_timeout(const Arg& a) {
  if (auto t = parse_timeout(a.value(), a.where, a.diag)) a.cfg.timeout_s = {*t, a.where};
}

void read_modules(const Arg& a) {
  auto list = split_list(a.value());
  if (list.empty()) return a.bad_form();  // only separators, e.g. ","
  for (auto m : list) {
    if (auto name = parse_module_name(m, a.where, a.diag)) add_module(a.cfg, *name, a.where);
  }
}

void read_mlx4(const Arg& a) {
  auto slash = a.value().find('/');
  if (slash == std::string_view::npos) return a.bad_form();
  auto types = split(a.value().substr(slash + 1), ',');
  auto pci = parse_pci_address(a.value().substr(0, slash), a.where, a.diag);
  if (types.size() > 2) {
    return a.error(shown(a.value().substr(slash + 1)) + " gives " + std::to_string(types.size()) +
                   " port types; an mlx4 card has 2 ports");
  }
  bool ok = pci.has_value();
  std::optional<PortType> type[2];
  for (size_t i = 0; i < types.size(); ++i) {
    type[i] = parse_port_type(types[i], a.where, a.diag);
    ok = ok && type[i];
  }
  if (!ok) return;
  auto& card = a.cfg.mlx4[*pci];
  for (size_t i = 0; i < types.size(); ++i) card.type[i] = Sourced<PortType>{*type[i], a.where};
}

void read_pfc(const Arg& a) {
  auto masks = split(a.value(), '/');
  if (masks.size() > 2) return a.bad_form();
  auto tx = parse_pfc_mask(masks[0], PfcDirection::kTx, a.where, a.diag);
  auto rx = masks.size() == 2 ? parse_pfc_mask(masks[1], PfcDirection::kRx, a.where, a.diag) : tx;
  if (!tx || !rx) return;
  a.cfg.pfc_tx = Sourced<unsigned>{*tx, a.where};
  a.cfg.pfc_rx = Sourced<unsigned>{*rx, a.where};
}

void read_name(const Arg& a) {
  // Split at the first ':' like dracut's ifname=: the rest is the address.
  auto colon = a.value().find(':');
  if (colon == std::string_view::npos) return a.bad_form();
  auto name = parse_new_ifname(a.value().substr(0, colon), a.where, a.diag);
  auto key = parse_hw_key(a.value().substr(colon + 1), a.where, a.diag);
  if (name && key) set_name(a.cfg, *name, *key, a.where, a.diag);
}

// dracut's ifname=<name>:<MAC> (modules.d/40network/ifname-genrules.sh), read only to
// find clashes with our names (plan.cc validate). Its MAC is written with ':' too, so the
// name ends at the first ':'.
// rd.rdma.dcb=<ifname>:<key>=<value>[,<key>=<value>...]: the keys of [dcb <ifname>], lists
// joined with '+' (a command-line value has no spaces).
void read_dcb(const Arg& a) {
  const auto v = a.value();
  const size_t colon = v.find(':');
  if (colon == std::string_view::npos || colon + 1 == v.size()) return a.bad_form();
  auto ifname = parse_ifname(v.substr(0, colon), a.where, a.diag);
  if (!ifname) return;
  DcbSetting& s = a.cfg.dcb[*ifname];
  for (auto kv : split(v.substr(colon + 1), ',')) {
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) return a.bad_form();
    set_dcb_key(s, kv.substr(0, eq), kv.substr(eq + 1), a.where, a.diag);
  }
}

void read_ipoib(const Arg& a) {
  auto f = split(a.value(), ':');
  if (f.size() < 2 || f.size() > 3) return a.bad_form();
  auto ifname = parse_ifname(f[0], a.where, a.diag);
  auto mode = parse_ipoib_mode(f[1], a.where, a.diag);
  std::optional<unsigned> mtu;
  if (f.size() == 3 && !(mtu = parse_netdev_mtu(f[2], a.where, a.diag))) return;
  if (!ifname || !mode) return;
  auto& s = a.cfg.ipoib[*ifname];
  s.mode = Sourced<IpoibMode>{*mode, a.where};
  if (mtu) s.mtu = Sourced<unsigned>{*mtu, a.where};
}

void read_pkey(const Arg& a) {
  auto f = split(a.value(), ':');
  if (f.size() < 2 || f.size() > 3) return a.bad_form();
  auto parent = parse_ifname(f[0], a.where, a.diag);
  auto pkey = parse_pkey(f[1], a.where, a.diag);
  std::optional<std::string> child = std::string();  // none given: the default name
  if (f.size() == 3) child = parse_new_ifname(f[2], a.where, a.diag);
  if (!parent || !pkey || !child) return;
  // NetworkManager's ib.pkey= for the same partition, before or after this one, is one
  // request with it (read_nm_pkey): the child is the same whatever their order.
  if (auto* nm = nm_partition(a.cfg, *parent, *pkey)) *pkey = nm->pkey;
  set_pkey_child(a.cfg, *parent, *pkey, *child, a.where, a.diag);
}

// Where the device part of "<device>[/<port>]:<mode>[:<tos>]" ends. A PCI address and a
// GUID have colons of their own: the address ends with its function ("00.0"), a GUID's
// groups are hex digits (a mode starts with 'v').
size_t roce_device_end(std::string_view v) {
  if (starts_with(v, "pci-")) {
    const size_t dot = v.find('.');
    return v.find(':', dot == std::string_view::npos ? 0 : dot);
  }
  if (!starts_with(v, "guid-")) return v.find(':');
  size_t pos = 5;
  for (;;) {
    const size_t next = v.find(':', pos);
    const std::string_view field = v.substr(pos, next - pos);
    const size_t slash = field.find('/');
    const std::string_view digits = field.substr(0, slash);
    const bool hex = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) || c == 'x';
    });
    if (!hex) return pos == 5 ? next : pos - 1;  // this field is the mode
    if (next == std::string_view::npos || slash != std::string_view::npos) return next;
    pos = next + 1;
  }
}

void read_roce(const Arg& a) {
  const size_t end = roce_device_end(a.value());
  if (end == std::string_view::npos) return a.bad_form();
  auto f = split(a.value().substr(end + 1), ':');
  if (f.size() > 2) return a.bad_form();
  auto target = parse_roce_target(a.value().substr(0, end), a.where, a.diag);
  auto mode = parse_roce_mode(f[0], a.where, a.diag);
  std::optional<unsigned> tos;
  if (f.size() == 2 && !(tos = parse_tos(f[1], a.where, a.diag))) return;
  if (!target || !mode) return;
  auto& r = a.cfg.roce[*target];
  r.mode = Sourced<RoceMode>{*mode, a.where};
  if (tos) r.tos = Sourced<unsigned>{*tos, a.where};
}

// rd.rdma.expect=<device|*>[/<port>]:<key>=<value>[,<key>=<value>...]: the keys of
// [expect <device>[/<port>]]. The device part ends as rd.rdma.roce's does (no key starts
// with a hex digit).
void read_expect(const Arg& a) {
  const auto v = a.value();
  const size_t end = roce_device_end(v);
  if (end == std::string_view::npos || end + 1 == v.size()) return a.bad_form();
  auto target = parse_roce_target(v.substr(0, end), a.where, a.diag);
  if (!target) return;
  ExpectSetting& s = a.cfg.expect[*target];
  for (auto kv : split(v.substr(end + 1), ',')) {
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) return a.bad_form();
    set_expect_key(s, kv.substr(0, eq), kv.substr(eq + 1), a.where, a.diag);
  }
}

// rd.rdma.devname=<name>:<device>: the device (by PCI function, node GUID, interface or
// its name now) is renamed <name> (plan/rdma_names.cc).
void read_devname(const Arg& a) {
  const auto v = a.value();
  const size_t colon = v.find(':');
  if (colon == std::string_view::npos || colon + 1 == v.size()) return a.bad_form();
  auto name = parse_rdma_name(v.substr(0, colon), a.where, a.diag);
  auto sel = parse_rdma_selector(v.substr(colon + 1), false, a.where, a.diag);
  if (!name || !sel) return;
  a.cfg.rdma_names[*name] = {*sel, a.where};
}

void read_soft(const Arg& a, SoftKind kind) {
  auto f = split(a.value(), ':');
  if (f.size() > 2) return a.bad_form();
  auto netdev = parse_ifname(f[0], a.where, a.diag);
  std::optional<std::string> name = std::string();  // none given: chosen by the plan
  if (f.size() == 2) name = parse_rdma_name(f[1], a.where, a.diag);
  if (!netdev || !name) return;
  set_soft_link(a.cfg, *netdev, kind, *name, a.where, a.diag);
}

void read_rxe(const Arg& a) { read_soft(a, SoftKind::kRxe); }
void read_siw(const Arg& a) { read_soft(a, SoftKind::kSiw); }

void read_wait(const Arg& a) {
  // The command line's list replaces the files' list (rd.rdma.wait=none must win over a
  // file's "all"); several rd.rdma.wait parameters add up.
  auto& w = a.cfg.wait;
  w.erase(std::remove_if(w.begin(), w.end(),
                         [](const Sourced<WaitItem>& s) {
                           return s.source.origin != Source::Origin::kCmdline;
                         }),
          w.end());
  parse_wait_list(a.value(), a.where, a.cfg, a.diag);
}

struct Known {
  std::string_view key;
  std::string_view form;
  void (*read)(const Arg&);
  bool bare_ok;  // a boolean: may be given alone or with an empty value ("rd.rdma", "rd.rdma=")
};

constexpr Known kKnown[] = {
    {"rd.rdma", "<boolean>", read_enabled, true},
    {"rd.rdma.modules", "<module>[,<module>...]", read_modules, false},
    {"rd.rdma.modules.defer", "<boolean>", read_defer, true},
    {"rd.rdma.mlx4", "<pci>/<type1>[,<type2>]", read_mlx4, false},
    {"rd.rdma.mlx4.pfc", "<txmask>[/<rxmask>]", read_pfc, false},
    {"rd.rdma.name", "<ifname>:<guid|mac|pci-<bdf>[/<port>]|<ibdev>/<port>>", read_name, false},
    {"rd.rdma.ipoib", "<ifname>:<datagram|connected>[:<mtu>]", read_ipoib, false},
    {"rd.rdma.pkey", "<parent>:<pkey>[:<childname>]", read_pkey, false},
    {"rd.rdma.roce", "<ibdev|pci-<bdf>|guid-<guid>|netdev-<if>|*>[/<port>]:<v1|v2>[:<tos>]",
     read_roce, false},
    {"rd.rdma.rxe", "<netdev>[:<name>]", read_rxe, false},
    {"rd.rdma.dcb", "<ifname>:<key>=<value>[,<key>=<value>...]", read_dcb, false},
    {"rd.rdma.devname", "<name>:<ibdev|pci-<bdf>|guid-<guid>|netdev-<if>>", read_devname, false},
    {"rd.rdma.expect", "<device|*>[/<port>]:<key>=<value>[,<key>=<value>...]", read_expect, false},
    {"rd.rdma.siw", "<netdev>[:<name>]", read_siw, false},
    {"rd.rdma.wait", "<all|none|<device>/<port>|netdev-<if>|<ifname>>[,...]", read_wait, false},
    {"rd.rdma.timeout", "<seconds>", read_timeout, false},
    {"rd.rdma.required", "<boolean>", read_required, true},
    {"rd.rdma.verify", "<0|ports|peer[:<addr>[:<port>]]>", read_verify, true},
    {"root", "nfs[4]:<server>:/<path>[:<options>]", read_root, true},
    {"netroot", "<dracut's netroot= forms>", read_netroot, true},
    {"ib.pkey", "<parent>.<hex pkey>", read_nm_pkey, false},
    {"ifname", "<name>:<mac>", read_dracut_ifname, false},
    {"ip", "<dracut's ip= forms>", read_ip, true},
    {"bootdev", "<interface>", read_bootdev, true},
    {"BOOTIF", "<htype>-<hardware address>", read_bootif, true},
    {"rd.bootif", "<boolean>", read_rd_bootif, true},
    {"bond", "<dracut's bond= forms>", read_dracut_virtual, true},
    {"team", "<dracut's team= forms>", read_dracut_virtual, true},
    {"bridge", "<dracut's bridge= forms>", read_dracut_virtual, true},
    {"vlan", "<dracut's vlan= forms>", read_dracut_virtual, true},
    {"rd.neednet", "<boolean>", read_neednet, true},
    {"rd.nvmf.discover", "<transport>,<traddr>[,<host_traddr>[,<trsvcid>]]", read_nvmf_discover,
     false},
    {"nvmf.discover", "<transport>,<traddr>[,<host_traddr>[,<trsvcid>]]", read_nvmf_discover,
     false},
    {"rd.nvmf.hostnqn", "<NQN>", read_nvmf_hostnqn, true},
    {"nvmf.hostnqn", "<NQN>", read_nvmf_hostnqn, true},
    {"rd.nvmf.hostid", "<UUID>", read_nvmf_hostid, true},
    {"nvmf.hostid", "<UUID>", read_nvmf_hostid, true},
    {"rd.nonvmf", "<boolean>", read_nonvmf, true},
};

// Our rd.rdma keys: the ones a near miss is compared with.
std::vector<std::string_view> rd_rdma_keys() {
  std::vector<std::string_view> out;
  for (const auto& k : kKnown)
    if (starts_with(k.key, "rd.rdma")) out.push_back(k.key);
  return out;
}

void unknown_key(const CmdlineParam& p, const Source& where, Diagnostics& diag) {
  std::string key = shown(p.key);
  if (p.key == "rd.rdma" || starts_with(p.key, "rd.rdma.")) {
    if (auto near = closest_word(p.key, rd_rdma_keys()); !near.empty()) {
      return diag.error(where, "unknown parameter " + key + " (did you mean " + quote(near) + "?)");
    }
    return diag.error(where,
                      "unknown parameter " + key + " " + did_you_mean(p.key, rd_rdma_keys()));
  }
  // Other parameters belong to the kernel, dracut and friends. Only an rd.* near miss of
  // ours is worth a word (short keys like rd.dm are too close to everything to guess).
  if (starts_with(p.key, "rd.") && p.key.size() >= 7) {
    if (auto near = closest_word(p.key, rd_rdma_keys()); !near.empty()) {
      diag.warn(where, "parameter " + key + " is not read by rdma-provision (did you mean " +
                           quote(near) + "?)");
    }
  }
}

}  // namespace

std::vector<std::string_view> cmdline_keys() {
  std::vector<std::string_view> out;
  for (const auto& k : kKnown) out.push_back(k.key);
  return out;
}

// As the kernel and dracut split it (kernel_args.h): dracut's getarg runs the kernel's own
// next_arg over the command line (dracut-ng src/util/util.c), so "key="a"b" is a"b to
// dracut, not ab.
std::vector<CmdlineParam> split_cmdline(std::string_view text) {
  std::vector<CmdlineParam> out;
  for (const KernelArg& k : kernel_args(text)) {
    CmdlineParam p;
    p.raw = std::string(k.raw);
    p.unterminated_quote = k.unterminated_quote;
    p.key = std::string(k.param);
    p.has_value = k.value.has_value();
    if (k.value) p.value = std::string(*k.value);
    out.push_back(std::move(p));
  }
  return out;
}

void parse_cmdline(std::string_view text, Config& cfg, Diagnostics& diag) {
  for (const CmdlineParam& p : split_cmdline(text)) {
    const Source where = Source::cmdline(printable(p.raw));
    if (p.unterminated_quote) {
      diag.warn(where,
                "the opening '\"' is never closed: this parameter runs to the end of "
                "the command line");
    }
    const Known* known = nullptr;
    for (const auto& k : kKnown)
      if (p.key == k.key) known = &k;
    if (!known) {
      unknown_key(p, where, diag);
      continue;
    }
    Arg a{p, where, known->form, cfg, diag};
    if (p.value.empty() && !known->bare_ok) {
      a.error("missing value; expected " + std::string(known->key) + "=" +
              std::string(known->form));
      continue;
    }
    known->read(a);
  }
}

}  // namespace rp
