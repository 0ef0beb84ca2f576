// The kernel command-line reader: /proc/cmdline text in, Config values out (rd.rdma.* and
// NetworkManager's ib.pkey=). Pure, like nm-initrd-generator's reader: no files, no kernel.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "provision/config/config.h"

namespace rp {

// One parameter as the kernel and dracut split it: whitespace separates parameters except
// inside double quotes, and the quotes themselves are dropped (param="a b" -> a b).
struct CmdlineParam {
  std::string raw;    // as written, quotes included: the source of every value it gives
  std::string key;    // before the first '='
  std::string value;  // after the first '=' (empty when there is none)
  bool has_value = false;
  bool unterminated_quote = false;  // an opening '"' was never closed
};
std::vector<CmdlineParam> split_cmdline(std::string_view text);

// Reads /proc/cmdline text. Fills cfg from rd.rdma.* (and ib.pkey=) parameters; other
// parameters are ignored. Errors/warnings go to diag; the source of each value is
// "cmdline: <the whole token>". The grammar is in configs/rdma-provision.cmdline.7.
void parse_cmdline(std::string_view text, Config& cfg, Diagnostics& diag);

// Every parameter the reader knows (rd.rdma, rd.rdma.*, ib.pkey), from its table.
std::vector<std::string_view> cmdline_keys();

}  // namespace rp
