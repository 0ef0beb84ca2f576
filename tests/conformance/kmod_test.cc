// modprobe.d as kmod reads it, and module options as the kernel parses them, row by row
// against ours. Sources: kmod's testsuite fixtures and libkmod (kmod-project/kmod at
// 84fa569), the kernel's kernel/params.c. `owner` is what kmod or the kernel does, `want`
// what rdma-provision reads. A row with `documented` is a difference on purpose: the man
// page must say so, in those words.
#include <gtest/gtest.h>

#include <string>

#include "provision/base/strings.h"
#include "provision/inputs/rdma_core_files.h"
#include "tests/conformance/man_page.h"

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
    {"shared/util.c: freadline_wrapped keeps a CR: 'blacklist floppy\\r' names 'floppy\\r'",
     "blacklist floppy\r\n", "nothing is blacklisted (no module is called 'floppy\\r')",
     "blacklist floppy", "CRLF line ends"},
};

TEST(KmodConformance, ModprobeD) {
  for (const auto& r : kRows) {
    check_row("kmod", r.source, r.input, r.owner, summary(r.input), r.want, r.documented);
  }
}

}  // namespace
}  // namespace rp
