// The effective configuration: every value after all inputs are merged (rdma-core's
// files, modprobe.d, the native configuration and its node table, the kernel command
// line), each with the place it came from, as `systemd-analyze cat-config` shows a merged
// unit. The text form is the native configuration's own syntax with the sources as
// comments, so that it reads back into the same values (tests/report/effective_test).
#pragma once

#include <string>
#include <vector>

#include "provision/config/config.h"

namespace rp {

struct EffectiveValue {
  std::string section;  // the native section header without brackets: "general", "name fab0"
  std::string key;      // "timeout", "match", ...
  std::string value;    // as the native configuration writes it
  Source source;
  // Read from another project's input and not settable in the native configuration
  // (dracut's ifname=, ip=, root=; modprobe.d's install): shown as a comment.
  bool foreign = false;
};

// In a fixed order: [general], [modules], [module X], [mlx4 X], [pfc], [roce X],
// [ipoib X], [pkey X Y], [name X], [rxe X], [siw X], [address X], then the foreign values.
std::vector<EffectiveValue> effective_values(const Config& cfg);

// `files`: the inputs read, for the header.
std::string effective_text(const Config& cfg, const std::vector<std::string>& files);
std::string effective_json(const Config& cfg, const std::vector<std::string>& files);

// What an invalid input leaves undone, for apply's refusal: the sections that set
// something ("[name fab0], [ipoib fab0], 2 module loads"), or "" when nothing is set.
std::string not_applied_summary(const Config& cfg);

}  // namespace rp
