// modprobe.d as kmod reads it, and module options as the kernel parses them, row by row
// against ours. Sources: kmod's testsuite fixtures and libkmod (kmod-project/kmod at
// 84fa569), the kernel's kernel/params.c. `owner` is what kmod or the kernel does, `want`
// what rdma-provision reads. A row with `documented` is a difference on purpose: the man
// page must say so, in those words.
#include <gtest/gtest.h>

#include <string>

#include "provision/base/strings.h"
#include "provision/inputs/load.h"
#include "provision/inputs/rdma_core_files.h"
#include "tests/conformance/man_page.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

const std::string kFile = "/etc/modprobe.d/test.conf";

// What a modprobe.d file gives, in one line.
std::string summary(const std::string& text) {
  Config c;
  Diagnostics d;
  parse_modprobe_conf(text, kFile, c, d);
  Summary sum;
  auto add = [&](const std::string& s) { sum.add(s); };
  for (const auto& [m, o] : c.module_options) add("options " + m + " '" + o.value + "'");
  for (const auto& b : c.blacklist) add("blacklist " + b.value);
  for (const auto& [m, f] : c.forbidden) add("forbidden " + m);
  if (c.pfc_tx) add("pfctx=0x" + hex(c.pfc_tx->value, 2));
  if (c.pfc_rx) add("pfcrx=0x" + hex(c.pfc_rx->value, 2));
  return sum.end(d);
}

const Row kRows[] = {
    {"testsuite/rootfs-pristine/test-blacklist/etc/modprobe.d/modprobe.conf (test-blacklist.c "
     "blacklist_1)",
     "blacklist floppy\nblacklist pcspkr\n", "floppy and pcspkr filtered out",
     "blacklist floppy; blacklist pcspkr"},
    {"testsuite/rootfs-pristine/test-multi-softdep/etc/modprobe.d/dumb-softdep.conf "
     "(test-multi-softdep.c)",
     "softdep\tmod-softdep-a\tpre: mod-foo-a\nsoftdep\tmod-softdep-a\tpost: mod-foo-c\n",
     "soft dependencies, tab-separated", ""},
    {"testsuite/rootfs-pristine/test-weakdep/etc/modprobe.d/dumb-weakdep.conf (test-weakdep.c)",
     "weakdep mod-loop-a \t\nweakdep mod-loop-b mod-loop-a mod-simple\n",
     "a weak dependency (the first line, without one, is ignored)", ""},
    {"testsuite/rootfs-pristine/test-modprobe/install-cmd-loop/etc/modprobe.d/"
     "dumb-instal-loop.conf",
     "install mod-loop-b $MODPROBE --ignore-install mod-loop-b && { $MODPROBE --quiet "
     "mod-loop-a ; }\n",
     "a command run instead of loading; the module still loads through it", ""},
    {"testsuite/rootfs-pristine/test-modprobe/alias-to-none/etc/modprobe.d/bogus.conf",
     "alias mod-simple deaddood\n", "an alias to nothing", ""},
    {"testsuite/rootfs-pristine/test-new-module/from_alias/etc/modprobe.d/modprobe.conf",
     "alias ext4.* ext4\n", "an alias with a glob", ""},
    {"libkmod/libkmod-config.c: kmod_config_add_options (tabs become spaces)",
     "options mlx4_en pfctx=0x08\tpfcrx=0x08\n", "options 'pfctx=0x08 pfcrx=0x08'",
     "options mlx4_en 'pfctx=0x08 pfcrx=0x08'; pfctx=0x08; pfcrx=0x08"},
    {"libkmod/libkmod-config.c: options of every line for the module, in order",
     "options mlx4_core log_num_mgm_entry_size=-1\noptions mlx4_core debug_level=1\n",
     "'log_num_mgm_entry_size=-1 debug_level=1'",
     "options mlx4_core 'log_num_mgm_entry_size=-1 debug_level=1'"},
    {"shared/util.c: underscores (a '-' in a module name is '_')", "options mlx4-en pfctx=8\n",
     "options for mlx4_en", "options mlx4_en 'pfctx=8'; pfctx=0x08"},
    {"shared/util.c: freadline_wrapped (backslash-newline joins lines)",
     "options mlx4_en \\\n  pfctx=0x08\n", "one line 'options mlx4_en   pfctx=0x08'",
     "options mlx4_en 'pfctx=0x08'; pfctx=0x08"},
    {"shared/util.c: freadline_wrapped (backslash before another character: that character)",
     "blacklist flo\\ppy\n", "blacklist floppy", "blacklist floppy"},
    {"shared/util.c: freadline_wrapped (backslash at the end of the file: dropped)",
     "blacklist floppy\\", "blacklist floppy", "blacklist floppy"},
    {"libkmod/libkmod-config.c: kmod_config_parse ('#' first on the line)",
     "#options mlx4_en pfctx=8\n", "a comment", ""},
    {"kernel/params.c: parse_args, unknown_module_param_cb (a '#' inside an options line "
     "is a parameter the kernel ignores; the ones after it apply)",
     "options mlx4_en pfctx=0x08 # priority 3 pfcrx=0x08\n", "pfctx=0x08 and pfcrx=0x08",
     "options mlx4_en 'pfctx=0x08 # priority 3 pfcrx=0x08'; pfctx=0x08; pfcrx=0x08; "
     "1 warning(s)"},
    {"kernel/params.c: parameq ('-' and '_' are the same in a parameter's name)",
     "options ib_ipoib ipoib-enhanced=0\n", "Enhanced IPoIB off",
     "options ib_ipoib 'ipoib-enhanced=0'"},
    {"libkmod/libkmod-config.c: kmod_config_parse (options without parameters)",
     "options mlx4_en\n", "a syntax error; line ignored", "1 warning(s)"},
    {"libkmod/libkmod-config.c: kmod_config_parse (unknown command)", "blacklst floppy\n",
     "'ignoring bad line'", "1 warning(s)"},
    {"libkmod/libkmod-config.c: kmod_config_parse (include, config)", "include /etc/x.conf\n",
     "deprecated and not parsed", "1 warning(s)"},
    {"base/modprobe.h: install <module> /bin/true forbids it (modprobe runs the command)",
     "install rdma_rxe /bin/true\n", "rdma_rxe never loads", "forbidden rdma_rxe"},
    {"kernel/params.c: next_arg (quotes around a value are dropped)",
     "options mlx4_en pfctx=\"0x08\"\n", "pfctx=0x08",
     "options mlx4_en 'pfctx=\"0x08\"'; pfctx=0x08"},
    {"kernel/params.c: next_arg (a quote around the whole parameter is dropped)",
     "options mlx4_en \"pfctx=0x08\"\n", "pfctx=0x08",
     "options mlx4_en '\"pfctx=0x08\"'; pfctx=0x08"},
    {"kernel/params.c: next_arg (a quote inside a value stays: kstrtouint refuses it)",
     "options mlx4_en pfctx=0x\"08\"\n", "'0x\"08\"' is no number: the module refuses to load",
     "options mlx4_en 'pfctx=0x\"08\"'; error: /etc/modprobe.d/test.conf:1: pfctx '0x\"08\"' "
     "is not a number (a priority bitmask, e.g. 0x08)"},
    {"kernel/params.c: parse_args (each parameter set in order: the last wins)",
     "options mlx4_en pfctx=0x08 pfctx=0x04\n", "pfctx=0x04",
     "options mlx4_en 'pfctx=0x08 pfctx=0x04'; pfctx=0x04"},
    {"kernel/params.c: param_set_uint -> kstrtouint(s, 0): a leading zero is octal",
     "options mlx4_en pfctx=010\n", "pfctx=8 (octal)",
     "options mlx4_en 'pfctx=010'; pfctx=0x08; 1 warning(s)"},
    {"lib/kstrtox.c: kstrtoull (one leading '+' is taken)", "options mlx4_en pfctx=+8\n", "pfctx=8",
     "options mlx4_en 'pfctx=+8'; pfctx=0x08"},
    {"lib/kstrtox.c: kstrtoull (a '-' is not: EINVAL, the module refuses to load)",
     "options mlx4_en pfctx=-1\n", "'-1' invalid for parameter pfctx: the load fails",
     "options mlx4_en 'pfctx=-1'; error: /etc/modprobe.d/test.conf:1: pfctx '-1' is not a "
     "number (a priority bitmask, e.g. 0x08)"},
    {"lib/kstrtox.c: _parse_integer_fixup_radix (base 0: a leading 0 is octal, 8 is no octal "
     "digit)",
     "options mlx4_en pfctx=08\n", "EINVAL: the module refuses to load",
     "options mlx4_en 'pfctx=08'; error: /etc/modprobe.d/test.conf:1: pfctx '08' is not a "
     "number: with a leading zero the kernel reads octal"},
    {"kernel/params.c: parse_one (a uint parameter without a value: EINVAL)",
     "options mlx4_en pfctx\n", "the load fails",
     "options mlx4_en 'pfctx'; error: /etc/modprobe.d/test.conf:1: pfctx has no value (write "
     "pfctx=0x08 for priority 3)"},
    {"shared/util.c: freadline_wrapped keeps a CR: 'blacklist floppy\\r' names 'floppy\\r'",
     "blacklist floppy\r\n", "nothing is blacklisted (no module is called 'floppy\\r')",
     "blacklist floppy", "CRLF line ends"},
};

TEST(KmodConformance, ModprobeD) {
  for (const auto& r : kRows) {
    check_row("kmod", r.source, r.input, r.owner, summary(r.input), r.want, r.documented);
  }
}

// The directories of modprobe.d as libkmod reads them (libkmod.c default_config_paths;
// libkmod-config.c conf_files_filter_out, conf_files_insert_sorted; modprobe.d(5),
// "CONFIGURATION DIRECTORIES AND PRECEDENCE"): one list over all directories sorted by
// file name, the first directory winning for a name, a link to /dev/null or an empty file
// masking. No kmod test covers these: the rows cite the code. `files`: "path=content"
// lines, "path->target" for a link.
struct DirRow {
  const char* source;
  std::vector<const char*> files;
  const char* owner;
  const char* want;
};

std::string dir_summary(const std::vector<const char*>& files) {
  const std::string root = testing::temp_dir("modprobe-d");
  for (std::string f : files) {
    const auto arrow = f.find("->");
    const std::string path = f.substr(0, arrow == std::string::npos ? f.find('=') : arrow);
    testing::run("mkdir -p " + root + path.substr(0, path.rfind('/')));
    if (arrow != std::string::npos) {
      testing::run("ln -s " + f.substr(arrow + 2) + " " + root + path);
    } else {
      testing::run("printf '%s' '" + f.substr(f.find('=') + 1) + "' > " + root + path);
    }
  }
  InputOptions opt;
  opt.cmdline_text = "";
  Inputs in = load_inputs(Root(root), opt);
  Summary sum;
  if (in.config.pfc_tx) sum.add("pfctx=0x" + hex(in.config.pfc_tx->value, 2));
  for (const auto& f : in.files_read) sum.add("read " + f);
  return sum.end(in.diag);
}

const DirRow kDirRows[] = {
    {"libkmod-config.c: conf_files_insert_sorted (the first directory wins a name)",
     {"/lib/modprobe.d/mlx4.conf=options mlx4_en pfctx=0x08\n",
      "/etc/modprobe.d/mlx4.conf=options mlx4_en pfctx=0x04\n"},
     "/etc/modprobe.d/mlx4.conf alone: pfctx=0x04",
     "pfctx=0x04; read /etc/modprobe.d/mlx4.conf"},
    {"libkmod.c: default_config_paths (/run before /lib)",
     {"/lib/modprobe.d/mlx4.conf=options mlx4_en pfctx=0x08\n",
      "/run/modprobe.d/mlx4.conf=options mlx4_en pfctx=0x02\n"},
     "/run/modprobe.d/mlx4.conf alone: pfctx=0x02",
     "pfctx=0x02; read /run/modprobe.d/mlx4.conf"},
    {"libkmod-config.c: conf_files_insert_sorted (one order by name over all directories)",
     {"/lib/modprobe.d/a.conf=options mlx4_en pfctx=0x08\n",
      "/etc/modprobe.d/b.conf=options mlx4_en pfctx=0x04\n"},
     "a.conf, then b.conf: pfctx=0x04 (the last value)",
     "pfctx=0x04; read /lib/modprobe.d/a.conf; read /etc/modprobe.d/b.conf"},
    {"libkmod-config.c: conf_files_insert_sorted (a /lib name after an /etc one is read after)",
     {"/etc/modprobe.d/a.conf=options mlx4_en pfctx=0x04\n",
      "/lib/modprobe.d/b.conf=options mlx4_en pfctx=0x08\n"},
     "a.conf, then b.conf: pfctx=0x08",
     "pfctx=0x08; read /etc/modprobe.d/a.conf; read /lib/modprobe.d/b.conf"},
    {"libkmod-config.c: conf_files_filter_out (a link to /dev/null takes the name, reads empty)",
     {"/lib/modprobe.d/mlx4.conf=options mlx4_en pfctx=0x08\n",
      "/etc/modprobe.d/mlx4.conf->/dev/null"},
     "masked: no pfctx",
     "read /etc/modprobe.d/mlx4.conf"},
    {"libkmod-config.c: conf_files_insert_sorted (an empty file masks alike)",
     {"/lib/modprobe.d/mlx4.conf=options mlx4_en pfctx=0x08\n", "/etc/modprobe.d/mlx4.conf="},
     "masked: no pfctx",
     "read /etc/modprobe.d/mlx4.conf"},
    {"libkmod-config.c: conf_files_filter_out (a hidden file, a name not ending in .conf)",
     {"/etc/modprobe.d/.mlx4.conf=options mlx4_en pfctx=0x08\n",
      "/etc/modprobe.d/mlx4.conf.dpkg-old=options mlx4_en pfctx=0x08\n"},
     "neither is read",
     ""},
};

TEST(KmodConformance, ModprobeDDirectories) {
  for (const auto& r : kDirRows) {
    std::string files;
    for (const char* f : r.files) files += std::string(f) + " | ";
    check_row("kmod", r.source, files.c_str(), r.owner, dir_summary(r.files), r.want, nullptr);
  }
}

}  // namespace
}  // namespace rp
