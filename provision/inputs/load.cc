#include "provision/inputs/load.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include "provision/base/sort.h"
#include "provision/base/strings.h"
#include "provision/inputs/cmdline.h"
#include "provision/inputs/dhcp_root.h"
#include "provision/inputs/native_conf.h"
#include "provision/inputs/networkmanager.h"
#include "provision/inputs/rdma_core_files.h"

namespace rp {
namespace {

using Reader = void (*)(std::string_view, const std::string&, Config&, Diagnostics&);

void read_one(const Root& root, const std::string& path, Reader reader, Inputs& in,
              bool must_exist) {
  auto text = root.read(path);
  if (!text) {
    const Error& e = text.error();
    // Absent is ENOENT with no directory entry; anything else at the path (a symlink
    // loop, a dangling link, a directory, an unreadable file) is an error naming it.
    struct stat st;
    const bool entry = ::lstat(root.path(path).c_str(), &st) == 0;
    if (must_exist || e.errnum != ENOENT || entry) {
      std::string what = e.errnum ? e.what + " (" + errno_text(e.errnum) + ")" : e.what;
      // Under --root every input path is read inside that tree: say where it looked.
      if (!root.is_live()) what += " (read under --root as " + root.path(path) + ")";
      in.diag.error(path, what);
    }
    return;
  }
  // Empty may be a pipe read without waiting (Root::read): a configuration is a file.
  if (text->empty() && root.is_fifo(path)) {
    in.diag.error(path, "is a named pipe, not a configuration file");
    return;
  }
  in.files_read.push_back(path);
  reader(*text, path, in.config, in.diag);
}

void read_dir(const Root& root, const std::string& dir, Reader reader, Inputs& in) {
  for (const auto& name : root.list(dir)) {
    if (ends_with(name, ".conf")) read_one(root, dir + "/" + name, reader, in, false);
  }
}

// modprobe.d as libkmod reads it (libkmod.c default_config_paths, libkmod-config.c
// conf_files_insert_sorted): these directories in priority order, every *.conf file of
// them read in one order by file name, a name in an earlier directory masking the same
// name in later ones (/etc/modprobe.d/mlx4.conf hides /lib/modprobe.d/mlx4.conf). Debian
// merges /usr/lib into /lib.
void read_modprobe_d(const Root& root, Inputs& in) {
  static const char* const kDirs[] = {"/etc/modprobe.d", "/run/modprobe.d",
                                      "/usr/local/lib/modprobe.d", "/lib/modprobe.d"};
  std::map<std::string, std::string> by_name;  // file name -> the directory that wins
  for (const char* dir : kDirs) {
    for (const auto& name : root.list(dir)) {
      if (name.size() > 5 && ends_with(name, ".conf") && name[0] != '.') {
        by_name.emplace(name, dir);
      }
    }
  }
  for (const auto& [name, dir] : by_name) {
    read_one(root, dir + "/" + name, parse_modprobe_conf, in, false);
  }
}

// systemd .link files as udev's net_setup_link finds them (link-config.c
// link_config_load, conf-files.c conf_files_list_strv): *.link in these directories, a name
// in an earlier one masking the same name in later ones (an empty file or a link to
// /dev/null masks and is nothing), hidden files skipped, all read in order of file name.
void read_link_files(const Root& root, Inputs& in) {
  static const char* const kDirs[] = {"/etc/systemd/network", "/run/systemd/network",
                                      "/usr/local/lib/systemd/network", "/usr/lib/systemd/network",
                                      "/lib/systemd/network"};
  std::map<std::string, std::string> by_name;  // file name -> the directory that wins
  for (const char* dir : kDirs)
    for (const auto& name : root.list(dir))
      if (name.size() > 5 && ends_with(name, ".link") && name[0] != '.') by_name.emplace(name, dir);
  std::vector<LinkFileText> files;
  for (const auto& [name, dir] : by_name) {
    const std::string path = dir + "/" + name;
    auto text = root.read(path);
    if (!text || text->empty()) continue;  // masked, or unreadable as udev finds it
    in.files_read.push_back(path);
    files.push_back({path, std::move(text).value()});
  }
  parse_link_files(files, in.config, in.diag);
}

// ib.pkey= is NetworkManager's parameter: nm-initrd-generator (src/nm-initrd-generator/
// nmi-cmdline-reader.c, reader_parse_ib_pkey) makes a connection for that partition, and
// NetworkManager creates the child itself. In an image with NetworkManager (dracut's
// 35network-manager installs the generator) both creating it would race: leave it to NM.
// Where dracut's 35network-manager takes the generator from (module-setup.sh:
// inst_multiple -o /usr/{lib,libexec}{,/NetworkManager}/nm-initrd-generator).
constexpr const char* kNmGenerators[] = {"/usr/libexec/nm-initrd-generator",
                                         "/usr/lib/nm-initrd-generator",
                                         "/usr/libexec/NetworkManager/nm-initrd-generator",
                                         "/usr/lib/NetworkManager/nm-initrd-generator"};

bool has_nm_generator(const Root& root) {
  for (const char* g : kNmGenerators)
    if (root.exists(g)) return true;
  return false;
}

// dracut's network-manager module installs the generator with `inst_multiple -o`: an
// image built on a host without it has NetworkManager and nothing that writes its
// connections (nm-lib.sh nm_generate_connections runs the generator), so no interface is
// configured and a network root never comes. Said once, by the early step, in the
// initramfs only (the real root does not need the generator).
void check_nm_generator(const Root& root, Inputs& in) {
  if (!root.exists("/etc/initrd-release") || !root.exists("/usr/sbin/NetworkManager")) return;
  if (has_nm_generator(root)) return;
  in.diag.warn("/usr/sbin/NetworkManager",
               "NetworkManager is in this initramfs but nm-initrd-generator is not (dracut's "
               "network-manager module installs it only when the build host has it: Debian's "
               "network-manager package): nothing will configure the network, and a root over "
               "NFS cannot be mounted");
}

void leave_ib_pkey_to_networkmanager(Inputs& in) {
  if (!in.config.boot.network_manager) return;
  auto& pkeys = in.config.pkeys;
  for (auto it = pkeys.begin(); it != pkeys.end();) {
    const PkeyChild& c = it->second;
    if (!c.nm_source) {
      ++it;
      continue;
    }
    if (c.source == c.nm_source) {  // ib.pkey= alone (or last) asked for it
      in.diag.warn(c.source,
                   "left to NetworkManager: this image has nm-initrd-generator, which creates "
                   "the partition " +
                       c.nm_name + " itself");
    } else if (c.child_name() == c.nm_name) {
      // Our parameter asks for the very child NM creates: one creator, NM.
      in.diag.warn(c.source, "the same partition as " + *c.nm_source +
                                 ", which NetworkManager creates in this image (it has "
                                 "nm-initrd-generator): left to NetworkManager");
    } else {
      // Two interfaces for one partition on one parent: the kernel would give both (rtnl
      // children may share a P_Key, ipoib_vlan.c), nobody wants that.
      in.diag.error(c.source, "asks for partition 0x" + hex(c.full_pkey(), 4) + " on " + c.parent +
                                  " as " + quote(c.child_name()) + ", and " + *c.nm_source +
                                  " asks NetworkManager (in this image) for it as " +
                                  quote(c.nm_name) + ": give it one name, or drop one of them");
    }
    in.config.boot.nm_pkeys.push_back(c);
    it = pkeys.erase(it);
  }
}

// rdma-core's device naming rule, from the directory udev takes it from: a file in /etc
// masks the same name in /run, which masks /usr/lib and /lib (udev(7), "Rules Files"); an
// empty file or a link to /dev/null disables it. Our own shadow copy in /run (written by
// udev-rules, see report/handoff.h) is skipped: it is derived from the one below it.
void read_rdma_rename_rules(const Root& root, Inputs& in) {
  for (const char* dir :
       {"/etc/udev/rules.d", "/run/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d"}) {
    const std::string path = std::string(dir) + "/" + kRdmaRenameRules;
    if (!root.exists(path)) continue;
    auto text = root.read(path);
    if (!text) return;  // unreadable (or /dev/null): nothing renames
    if (text->find(kRdmaRenameGuardMarker) != std::string::npos) continue;
    if (text->find("rdma_rename") == std::string::npos) return;  // emptied by the admin
    in.config.boot.rdma_rename_rules =
        Sourced<std::string>{*text, Source::at(Source::Origin::kUdevRules, path)};
    return;
  }
}

// rd.rdma.verify=peer names no peer: the NFS server of root= is checked. Said at image
// build (check) when that server can never be known: a host name (the binary resolves no
// names, and an initramfs has no resolver configured before the network), or no NFS root.
void check_verify_peer(const Config& cfg, Diagnostics& d) {
  const auto& v = cfg.verify;
  if (v.value.mode != VerifySetting::Mode::kPeer || v.value.peer || cfg.boot.nfs_server) return;
  // An NVMe over Fabrics root over RDMA: its targets are the peers (nvmf's verify-nvmf).
  if (!cfg.boot.nvmf_rdma().empty()) return;
  if (cfg.boot.nfs_server_unknown && cfg.boot.nfs_server_unknown->value.empty()) return;  // DHCP's
  d.warn(v.source,
         cfg.boot.nfs_server_unknown
             ? "peer: " + cfg.boot.nfs_server_unknown->source +
                   " names the NFS server by host name (" + cfg.boot.nfs_server_unknown->value +
                   "): the peer cannot be known (no name is resolved); the check " +
                   "will fail at boot: write rd.rdma.verify=peer:ADDR"
             : std::string("peer: no address given and root= names no NFS server: "
                           "the check will fail at boot: write rd.rdma.verify=peer:ADDR"));
}

// nodes.d/*.conf: the per-node table in several files (a fleet's table kept per rack or
// per generated batch), each row as under [nodes]. A key listed twice, in one file or
// two, is an error naming both places (native_conf.cc node_row). Hidden files and
// editors' leftovers (not ending in .conf) are skipped.
void read_nodes_d(const Root& root, const std::string& config_path, Inputs& in) {
  const std::string dir = nodes_d_dir(config_path);
  std::vector<std::string> names;
  for (auto& name : root.list(dir))
    if (name.size() > 5 && name[0] != '.' && ends_with(name, ".conf")) names.push_back(name);
  sort_by(names);  // getdents64 gives no order
  for (const auto& name : names) read_one(root, dir + "/" + name, parse_node_table_file, in, false);
}

}  // namespace

std::string nodes_d_dir(const std::string& config_path) {
  const size_t slash = config_path.rfind('/');
  return (slash == std::string::npos ? std::string(".") : config_path.substr(0, slash)) +
         "/nodes.d";
}

std::string read_dhcp_root(const Root& root, const std::string& iface, Config& cfg) {
  if (cfg.boot.nfs_server || !cfg.boot.nfs_server_unknown ||
      !cfg.boot.nfs_server_unknown->value.empty())
    return "";
  // dracut's DHCP handlers write it before they source the online hooks: network-legacy's
  // dhclient-script.sh (BOUND, BOUND6), network-manager's nm-run.sh dhcpopts_create,
  // 01systemd-networkd's networkd-run.sh (dracut-ng 106).
  std::vector<std::string> names;
  for (const auto& n : root.list("/tmp")) {
    if (starts_with(n, "dhclient.") && ends_with(n, ".dhcpopts") &&
        (iface.empty() || n == "dhclient." + iface + ".dhcpopts"))
      names.push_back(n);
  }
  std::string said;
  for (const auto& n : names) {
    const std::string path = "/tmp/" + n;
    const DhcpRootServer s = dhcp_root_server(root.read_or(path, ""));
    if (s.address) {
      cfg.boot.nfs_server =
          Sourced<IpAddress>{*s.address, Source::at(Source::Origin::kOther, path).through(s.from)};
      return "the NFS server " + s.address->str() + " from DHCP (" + path + ": " + s.from + ")";
    }
    if (!s.name.empty())
      said = path + ": " + s.from + " names the NFS server by host name (" + s.name +
             "), which is not resolved";
  }
  if (!said.empty()) return said;
  return "no DHCP root-path " + (iface.empty() ? std::string("recorded") : "from " + iface) + " (" +
         cfg.boot.nfs_server_unknown->source + ")";
}

// The host's NVMe identity where a target over RDMA is connected (rd.nvmf.discover=rdma,...)
// and the command line gives none: /etc/nvme/hostnqn and hostid, as nvme-cli reads them
// (fabrics.c nvmf_hostnqn_from_file) and dracut's 95nvmf carries them into the image.
void read_nvme_host(const Root& root, Inputs& in) {
  BootContext& boot = in.config.boot;
  if (boot.nvmf_rdma().empty()) return;
  auto one = [&](const char* path, std::optional<Sourced<std::string>>& out) {
    if (out || !root.exists(path)) return;
    auto text = root.read(path);
    if (!text || trim(*text).empty()) return;
    in.files_read.push_back(path);
    out = Sourced<std::string>{std::string(trim(*text)), Source::at(Source::Origin::kOther, path)};
  };
  one("/etc/nvme/hostnqn", boot.nvmf_hostnqn);
  one("/etc/nvme/hostid", boot.nvmf_hostid);
}

Inputs load_inputs(const Root& root, const InputOptions& opt) {
  Inputs in;
  read_one(root, "/etc/rdma/mlx4.conf", parse_mlx4_conf, in, false);
  read_dir(root, "/etc/rdma/modules", parse_modules_conf, in);
  read_modprobe_d(root, in);
  read_link_files(root, in);
  read_one(root, "/etc/udev/rules.d/70-persistent-ipoib.rules", parse_ipoib_rules, in, false);
  read_rdma_rename_rules(root, in);
  read_one(root, opt.config_path, parse_native_conf, in, opt.config_path_given);
  read_nodes_d(root, opt.config_path, in);

  if (opt.cmdline_text) {
    parse_cmdline(*opt.cmdline_text, in.config, in.diag);
  } else if (opt.cmdline_file) {
    Root host("/");
    auto text = host.read(*opt.cmdline_file);
    if (!text)
      in.diag.error(*opt.cmdline_file, text.error().str());
    else
      parse_cmdline(*text, in.config, in.diag);
  } else if (root.exists("/proc/cmdline")) {
    auto text = root.read("/proc/cmdline");
    if (!text)
      in.diag.error("/proc/cmdline", text.error().str());
    else
      parse_cmdline(*text, in.config, in.diag);
  }
  if (opt.network_manager) {
    in.config.boot.network_manager = Source::at(Source::Origin::kOption, "--network-manager");
  } else if (root.exists("/etc/initrd-release")) {
    for (const char* g : kNmGenerators)
      if (root.exists(g)) in.config.boot.network_manager = Source::at(Source::Origin::kOther, g);
  }
  read_nvme_host(root, in);
  check_networkmanager(in.config, in.diag);
  leave_ib_pkey_to_networkmanager(in);
  check_nm_generator(root, in);
  check_node_table_names(in.config, in.diag);
  check_node_rows(in.config, in.diag);
  check_verify_peer(in.config, in.diag);
  return in;
}

}  // namespace rp
