// bootif: the hand-over of a BOOTIF that names an InfiniBand port (plan/bootif.cc
// bootif_handoff). The dracut module's cmdline hook (97, both init flavours) writes the
// words this prints to /etc/cmdline.d, where parse-ip-opts.sh (cmdline 98) and
// nm-initrd-generator (cmdline 99, or after dracut-cmdline.service) read them.
#include <cstdio>

#include "provision/base/strings.h"
#include "provision/cli/commands.h"
#include "provision/plan/plan.h"

namespace rp {

int cmd_bootif(const Options& o) {
  auto p = prepare(o, "bootif", false);
  if (!p) return kExitUsage;
  // Invalid input is the early step's to say (once); nothing is handed over then.
  if (!p->in.diag.ok()) return kExitInvalid;
  const auto h = bootif_handoff(p->in.config);
  // Nothing to hand over, or nothing that can be: the plan says why, once, at apply.
  if (!h || h->words.empty()) return kExitOk;
  print(join(h->words, " ") + "\n");
  std::fprintf(stderr, "%s\n", h->why.c_str());
  return kExitOk;
}

}  // namespace rp
