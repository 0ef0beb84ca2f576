// dracut-ng's reading of the kernel command line, row by row against ours: getarg's
// splitting (TEST-80-GETARG), getargbool, ip=, bootdev=, ifname=, root=/netroot=. Each row
// cites the dracut-ng file and test or function it comes from (dracut-ng at 02e7ae10);
// `owner` is what dracut does, `want` what rdma-provision reads. A row with `documented`
// is a difference on purpose: the man page must say so, in those words.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "provision/inputs/cmdline.h"
#include "tests/conformance/man_page.h"

namespace rp {
namespace {

// What a command line gives, in one line: the values dracut also decides.
std::string summary(const std::string& text) {
  Config c;
  Diagnostics d;
  parse_cmdline(text, c, d);
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (!c.enabled.source.is_default()) add("enabled=" + std::to_string(c.enabled.value));
  if (!c.required.source.is_default()) add("required=" + std::to_string(c.required.value));
  for (const auto& m : c.modules) add("module " + m.value);
  if (c.boot.network) add("network");
  for (const auto& i : c.boot.ifaces) add("iface " + i.value);
  if (c.boot.nfs_server) add("nfs " + c.boot.nfs_server->value.str());
  for (const auto& [name, key] : c.boot.dracut_ifnames)
    add("ifname " + name + "=" + key.value.str());
  for (const auto& t : c.boot.nvmf)
    add("nvmf " + t.transport + " " + t.traddr + " " + t.host_traddr + " " + t.trsvcid);
  if (c.boot.nonvmf) add("nonvmf");
  if (const std::string b = bootif_summary(c.boot); !b.empty()) add(b);
  if (c.boot.nvmf_hostnqn) add("hostnqn " + c.boot.nvmf_hostnqn->value);
  for (const auto& w : d.warnings) add("warning: " + w.str());
  for (const auto& e : d.errors) add("error: " + e.str());
  return out;
}

// getarg's splitting: dracut-util's next_arg is the kernel's. The test's keys are
// replaced by ours (rd.rdma.modules takes any text and shows it back as module names).
const Row kSplit[] = {
    {"test/TEST-80-GETARG/test.sh: key3=\"  val  3  \"", "rd.rdma.modules=\"  ib_ipoib  \"",
     "value '  val  3  ': the quotes around a value are dropped", "module ib_ipoib"},
    {"test/TEST-80-GETARG/test.sh: \"key  5=val  5\"", "\"rd.rdma.modules=ib_ipoib rdma_ucm\"",
     "key 'key  5', value 'val  5': a quote around the whole word is dropped",
     "module ib_ipoib; module rdma_ucm"},
    {"test/TEST-80-GETARG/test.sh: \"key 6=\"\"val  6\"", "\"rd.rdma.modules=\"\"ib_ipoib\"",
     "value '\"val  6': only the word's opening quote and its last one go; the value's "
     "own opening quote stays",
     "error: cmdline: \"rd.rdma.modules=\"\"ib_ipoib\": module name '\"ib_ipoib' may contain "
     "only letters, digits, '_' and '-'"},
    {"test/TEST-80-GETARG/test.sh: key7=\"foo\"bar\" baz=\"end", "rd.rdma.modules=\"ib\"x\" y=\"z",
     "value 'foo\"bar\" baz=\"end': inner quotes stay; the word runs on while a quote is open",
     "error: cmdline: rd.rdma.modules=\"ib\"x\" y=\"z: module name 'ib\"x\"' may contain only "
     "letters, digits, '_' and '-'; error: cmdline: rd.rdma.modules=\"ib\"x\" y=\"z: module "
     "name 'y=\"z' may contain only letters, digits, '_' and '-'"},
    {"test/TEST-80-GETARG/test.sh: key1=0 (getarg key1 prints 0)", "rd.rdma=0", "value '0'",
     "enabled=0"},
    {"test/TEST-80-GETARG/test.sh: key2=val key2=val2 (getarg prints val2)",
     "rd.rdma.timeout=5 rd.rdma.timeout=7 rd.rdma.required=1 rd.rdma.required=0",
     "the last occurrence wins", "required=0"},
};

// getargbool (modules.d/80base/dracut-lib.sh): false only for 0, no, off; the key alone,
// or any other value, is true.
const Row kBool[] = {
    {"test/TEST-80-GETARG/test.sh: getargbool 1 rd.lvm (\"rd.lvm\" alone)", "rd.rdma.required",
     "true", "required=1"},
    {"test/TEST-80-GETARG/test.sh: getargbool 0 rd.auto (\"rd.auto=0 rd.auto\")",
     "rd.rdma.required=0 rd.rdma.required", "true: the bare key, last, wins", "required=1"},
    {"test/TEST-80-GETARG/test.sh: getargbool 0 rd.auto (\"rd.auto rd.auto=1 rd.auto=0\")",
     "rd.rdma.required rd.rdma.required=1 rd.rdma.required=0", "false: the last value, 0",
     "required=0"},
    {"modules.d/80base/dracut-lib.sh: getargbool (off)", "rd.rdma.required=off", "false",
     "required=0"},
    {"modules.d/80base/dracut-lib.sh: getargbool (\"false\" is none of 0/no/off)",
     "rd.rdma.required=false", "true", "required=0",
     "dracut's getargbool reads every other value as true"},
    {"modules.d/80base/dracut-lib.sh: getargbool (any other value)", "rd.rdma.required=maybe",
     "true",
     "error: cmdline: rd.rdma.required=maybe: value 'maybe' is not a boolean (1/0, yes/no, on/off, "
     "true/false)",
     "dracut's getargbool reads every other value as true"},
    {"modules.d/80base/dracut-lib.sh: getargbool 0 rd.neednet (rd.neednet=false)",
     "rd.neednet=false", "true: the network is needed", "network"},
    {"modules.d/80base/dracut-lib.sh: getargbool 0 rd.neednet (rd.neednet=0)", "rd.neednet=0",
     "false", ""},
};

// ip= (modules.d/45net-lib/net-lib.sh ip_to_var), bootdev=, ifname=
// (45net-lib/ifname-genrules.sh), root=/netroot= (74nfs/parse-nfsroot.sh, nfs-lib.sh).
const Row kNetwork[] = {
    // BOOTIF: the boot device (plan/bootif.cc says what it names, and hands an InfiniBand
    // port's interface over, cli/bootif.cc).
    {"modules.d/45net-lib/net-lib.sh: fix_bootif (pxelinux's htype stripped, lower case)",
     "BOOTIF=01-52-54-00-77-00-0A", "52:54:00:77:00:0a", "bootif mac 52:54:00:77:00:0a"},
    {"modules.d/45net-lib/net-lib.sh: fix_bootif (six bytes kept)", "BOOTIF=52:54:00:77:00:02",
     "52:54:00:77:00:02", "bootif mac 52:54:00:77:00:02"},
    {"modules.d/35network-legacy/parse-ip-opts.sh: getargbool 1 rd.bootif",
     "BOOTIF=01-52-54-00-77-00-02 rd.bootif=0", "BOOTIF not put in IFACES nor net.bootdev",
     "bootif off"},
    {"modules.d/35network-legacy/parse-ip-opts.sh: getargbool 1 rd.bootif (the last wins)",
     "rd.bootif=0 BOOTIF=01-52-54-00-77-00-02 rd.bootif=1", "BOOTIF is the boot device",
     "bootif mac 52:54:00:77:00:02"},
    {"modules.d/45net-lib/net-lib.sh: ip_to_var (one field)", "ip=dhcp",
     "autoconf dhcp, no interface", "network"},
    {"modules.d/45net-lib/net-lib.sh: ip_to_var (<interface>:dhcp)", "ip=ib0:dhcp",
     "dev ib0, autoconf dhcp", "network; iface ib0"},
    {"modules.d/45net-lib/net-lib.sh: ip_to_var (<interface>:either6:<mtu>)", "ip=ib0:either6:2044",
     "dev ib0, mtu 2044", "network; iface ib0"},
    {"modules.d/45net-lib/net-lib.sh: ip_to_var (static, interface sixth)",
     "ip=10.0.0.2::10.0.0.1:255.255.255.0:node1:ib-a:none", "dev ib-a, autoconf none",
     "network; iface ib-a"},
    {"modules.d/45net-lib/net-lib.sh: ip_to_var (static, bracketed IPv6)",
     "ip=[fd00::2]::[fd00::1]:64:node1:ib0:none", "dev ib0 (the brackets keep the colons)",
     "network; iface ib0"},
    {"modules.d/45net-lib/net-lib.sh: ip_to_var (off alone)", "ip=off", "autoconf off", ""},
    {"modules.d/45net-lib/net-lib.sh: ip_to_var (<interface>:link6 is not dracut's)",
     "ip=ib0:link6", "no interface: read as the static form (ip ib0, peer link6)",
     "network; iface ib0", "either's reading names the interface"},
    {"modules.d/45net-lib/ifname-genrules.sh: a rule for ATTR{type}==\"1\" and the MAC",
     "ifname=lan0:52:54:00:12:34:56", "lan0 for the MAC 52:54:00:12:34:56",
     "ifname lan0=52:54:00:12:34:56"},
    {"modules.d/45net-lib/net-lib.sh: parse_ifname_opts (upper case made lower for udev)",
     "ifname=lan0:52:54:00:AB:CD:EF", "lan0 for the MAC 52:54:00:ab:cd:ef",
     "ifname lan0=52:54:00:ab:cd:ef"},
    {"modules.d/45net-lib/net-lib.sh: parse_ifname_opts (21 fields: a 20-byte address); "
     "ifname-genrules.sh (ATTR{type}==\"1\")",
     "ifname=ib-a:80:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1",
     "accepted, but the rule is for Ethernet: the IPoIB interface is never renamed",
     "warning: cmdline: ifname=ib-a:80:00:02:08:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:cb:a1: "
     "dracut writes a rule for ATTR{type}==\"1\" (Ethernet) from a 20-byte address "
     "(modules.d/45net-lib/ifname-genrules.sh), which never renames an IPoIB interface: name "
     "it with rd.rdma.name=ib-a:<port GUID> (its last 8 bytes)",
     "a rename that cannot happen is a warning"},
    {"modules.d/45net-lib/net-lib.sh: parse_ifname_opts (neither 7 nor 21 fields: die)",
     "ifname=ib-a:f4:52:14:03:00:7b:cb:a1", "die \"Invalid arguments for ifname=\"",
     "error: cmdline: ifname=ib-a:f4:52:14:03:00:7b:cb:a1: dracut stops the boot on this "
     "(\"Invalid arguments for ifname=\", net-lib.sh parse_ifname_opts takes <name> and a 6- "
     "or 20-byte address); it is of the form <name>:<mac>"},
    // modules.d/95nvmf/parse-nvmf-boot-connections.sh (dracut 059, dracut-ng 106):
    // parse_nvmf_discover (IFS=, ; 2 to 4 fields; defaults none and 4420), the lines after.
    {"95nvmf parse_nvmf_discover: <transport>,<traddr> (defaults)",
     "rd.nvmf.discover=rdma,10.0.0.1",
     "--transport=rdma --traddr=10.0.0.1 --host-traddr=none --trsvcid=4420 in discovery.conf",
     "network; nvmf rdma 10.0.0.1 none 4420"},
    {"95nvmf parse_nvmf_discover: every field", "rd.nvmf.discover=rdma,10.0.0.1,10.0.0.2,4421",
     "host-traddr 10.0.0.2, trsvcid 4421", "network; nvmf rdma 10.0.0.1 10.0.0.2 4421"},
    {"95nvmf parse_nvmf_discover: an empty field keeps its default",
     "rd.nvmf.discover=tcp,10.0.0.1,,", "host-traddr none, trsvcid 4420",
     "network; nvmf tcp 10.0.0.1 none 4420"},
    {"95nvmf parse_nvmf_discover: brackets are not stripped", "rd.nvmf.discover=rdma,[fd00::1]",
     "--traddr=[fd00::1]", "network; nvmf rdma [fd00::1] none 4420"},
    {"95nvmf: the old spelling (getargs rd.nvmf.discover -d nvmf.discover=)",
     "nvmf.discover=rdma,10.0.0.1", "read as rd.nvmf.discover",
     "network; nvmf rdma 10.0.0.1 none 4420"},
    {"95nvmf parse_nvmf_discover: fc,auto", "rd.nvmf.discover=fc,auto",
     "FC autodiscovery (nvmf-autoconnect.sh)", "nvmf fc auto none "},
    {"95nvmf parse_nvmf_discover: one field", "rd.nvmf.discover=rdma",
     "warn \"Invalid arguments\", skipped",
     "warning: cmdline: rd.nvmf.discover=rdma: not "
     "<transport>,<traddr>[,<host_traddr>[,<trsvcid>]] "
     "(2 to 4 fields): dracut's 95nvmf skips it (parse_nvmf_discover), and so does rdma-provision"},
    {"95nvmf parse_nvmf_discover: five fields (no host_iface field)",
     "rd.nvmf.discover=rdma,10.0.0.1,none,4420,ib0", "warn \"Invalid arguments\", skipped",
     "warning: cmdline: rd.nvmf.discover=rdma,10.0.0.1,none,4420,ib0: not "
     "<transport>,<traddr>[,<host_traddr>[,<trsvcid>]] (2 to 4 fields): dracut's 95nvmf skips it "
     "(parse_nvmf_discover), and so does rdma-provision"},
    {"95nvmf parse_nvmf_discover: traddr is mandatory", "rd.nvmf.discover=rdma,,10.0.0.2",
     "warn, skipped",
     "warning: cmdline: rd.nvmf.discover=rdma,,10.0.0.2: the target address "
     "(traddr) is mandatory: dracut's 95nvmf skips it (parse_nvmf_discover), and so does "
     "rdma-provision"},
    {"95nvmf parse_nvmf_discover: an unknown transport", "rd.nvmf.discover=ib,10.0.0.1",
     "warn \"unsupported transport\", skipped",
     "warning: cmdline: rd.nvmf.discover=ib,10.0.0.1: unsupported transport 'ib' (rdma, tcp or "
     "fc): dracut's 95nvmf skips it (parse_nvmf_discover), and so does rdma-provision"},
    {"95nvmf parse_nvmf_discover: fc needs the host's address", "rd.nvmf.discover=fc,nn-0x1:pn-0x2",
     "warn, skipped",
     "warning: cmdline: rd.nvmf.discover=fc,nn-0x1:pn-0x2: an FC target without "
     "the host's address: dracut's 95nvmf skips it (parse_nvmf_discover), and so does "
     "rdma-provision"},
    {"95nvmf: rd.nonvmf (getargbool 0): nothing is queued",
     "rd.nonvmf rd.nvmf.discover=rdma,10.0.0.1", "no discovery, no connect",
     "network; nvmf rdma 10.0.0.1 none 4420; nonvmf"},
    {"95nvmf: rd.nvmf.hostnqn= written to /etc/nvme/hostnqn",
     "rd.nvmf.hostnqn=nqn.2014-08.org.nvmexpress:uuid:1b4e28ba", "/etc/nvme/hostnqn",
     "hostnqn nqn.2014-08.org.nvmexpress:uuid:1b4e28ba"},
    {"modules.d/74nfs/parse-nfsroot.sh: root=nfs:<server>:/<path>",
     "root=nfs:10.0.0.1:/srv/root:proto=rdma,port=20049", "server 10.0.0.1",
     "network; nfs 10.0.0.1"},
    {"modules.d/74nfs/parse-nfsroot.sh: netroot= on the command line is ignored for NFS",
     "root=nfs:10.0.0.1:/a netroot=nfs:10.0.0.2:/b", "server 10.0.0.1 (root=)",
     "network; nfs 10.0.0.1"},
    {"modules.d/74nfs/parse-nfsroot.sh: netroot= first, root= after",
     "netroot=nfs:10.0.0.2:/b root=nfs:10.0.0.1:/a", "server 10.0.0.1 (root=)",
     "network; nfs 10.0.0.1"},
    {"modules.d/74nfs/parse-nfsroot.sh: netroot=nfs:... alone", "netroot=nfs:10.0.0.2:/b",
     "no NFS root (netroot=$root, empty)", "network"},
    {"modules.d/74nfs/nfs-lib.sh: nfsroot_to_var (nfs4, bracketed IPv6 server)",
     "root=nfs4:[fd00::1]:/srv/root", "server fd00::1", "network; nfs fd00::1"},
    {"modules.d/45net-lib/net-lib.sh: bootdev=", "bootdev=ib0", "the boot interface ib0",
     "network; iface ib0"},
};

void check(const Row& r) {
  check_row("dracut", r.source, r.input, r.owner, summary(r.input), r.want, r.documented);
}

TEST(DracutConformance, GetargSplitting) {
  for (const auto& r : kSplit) check(r);
}
TEST(DracutConformance, Getargbool) {
  for (const auto& r : kBool) check(r);
}
TEST(DracutConformance, NetworkAndRoot) {
  for (const auto& r : kNetwork) check(r);
}

}  // namespace
}  // namespace rp
