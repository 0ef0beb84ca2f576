// A typed Source from the text a reader would have shown for it, for tests that build a
// Config by hand: "cmdline: rd.rdma...." is the command line, a path is a line of the
// file of that format (as the reader of that file would type it), "default" the default.
#pragma once

#include <string>
#include <string_view>

#include "provision/base/source.h"

namespace rp::test {

inline Source src(std::string_view text) {
  constexpr std::string_view kCmdline = "cmdline: ";
  if (text == "default") return Source::by_default();
  if (text.substr(0, kCmdline.size()) == kCmdline)
    return Source::cmdline(std::string(text.substr(kCmdline.size())));
  std::string file(text);
  unsigned line = 0;
  if (auto colon = file.rfind(':'); colon != std::string::npos) {
    line = static_cast<unsigned>(std::stoul(file.substr(colon + 1)));
    file.resize(colon);
  }
  auto has = [&](std::string_view s) { return file.find(s) != std::string::npos; };
  Source::Origin o = Source::Origin::kNative;
  if (has("/modprobe.d/")) {
    o = Source::Origin::kModprobeD;
  } else if (has("/etc/rdma/modules/")) {
    o = Source::Origin::kRdmaCoreList;
  } else if (has("/etc/rdma/mlx4.conf")) {
    o = Source::Origin::kMlx4Conf;
  } else if (has(".rules")) {
    o = Source::Origin::kUdevRules;
  }
  return Source::at(o, file, line);
}

}  // namespace rp::test
