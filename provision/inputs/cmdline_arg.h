// What the kernel command-line readers share (cmdline.cc: rd.rdma.*; cmdline_dracut.cc:
// dracut's and NetworkManager's parameters): one parameter being read, and the readers of
// the other projects' parameters that the table in cmdline.cc names. Internal to them.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "provision/config/config.h"
#include "provision/inputs/cmdline.h"
#include "provision/inputs/text.h"

namespace rp::cmdline_internal {

// The token as written with control characters escaped, so every message stays one line.
inline std::string printable(std::string_view s) {
  std::string q = quote(s);
  return q.substr(1, q.size() - 2);
}

// One of our parameters being read: its text, its source and where the results go.
struct Arg {
  const CmdlineParam& param;
  const Source& where;    // the token
  std::string_view form;  // what the value should look like, for messages
  Config& cfg;
  Diagnostics& diag;

  std::string_view value() const { return param.value; }
  void error(std::string what) const { diag.error(where, std::move(what)); }
  void warn(std::string what) const { diag.warn(where, std::move(what)); }
  void bad_form() const {
    error("value " + shown(param.value) + " is not of the form " + std::string(form));
  }
};

// dracut's parameters (cmdline_dracut.cc): the boot's network, root=, netroot=, ip=,
// bootdev=, rd.neednet, ifname=, bond=/team=/bridge=/vlan=.
void boot_network(const Arg& a);
void read_root(const Arg& a);
void read_netroot(const Arg& a);
void read_ip(const Arg& a);
void read_bootdev(const Arg& a);
void read_bootif(const Arg& a);
void read_rd_bootif(const Arg& a);
void read_neednet(const Arg& a);
void read_dracut_ifname(const Arg& a);
void read_dracut_virtual(const Arg& a);

// dracut's NVMe over Fabrics parameters (cmdline_nvmf.cc): rd.nvmf.discover= (and
// nvmf.discover=), rd.nvmf.hostnqn=, rd.nvmf.hostid=, rd.nonvmf.
void read_nvmf_discover(const Arg& a);
void read_nvmf_hostnqn(const Arg& a);
void read_nvmf_hostid(const Arg& a);
void read_nonvmf(const Arg& a);

// NetworkManager's ib.pkey= (cmdline_dracut.cc), and the partition it asked for that the
// kernel makes the same child of as `pkey` on `parent` (0x8000 ORed in), or nullptr.
void read_nm_pkey(const Arg& a);
PkeyChild* nm_partition(Config& cfg, const std::string& parent, uint16_t pkey);

}  // namespace rp::cmdline_internal
