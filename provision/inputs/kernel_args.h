// The kernel's splitting of "param=value" words (kernel/params.c next_arg), which the
// command line (dracut-util's getarg is a copy of it, dracut-ng src/util/util.c) and module
// options (modprobe.d `options`, handed to init_module and parsed by parse_args) both obey.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace rp {

struct KernelArg {
  std::string_view raw;    // the word as written, quotes included
  std::string_view param;  // before the first '=' (a leading '"' of the word dropped)
  std::optional<std::string_view> value;  // after it, nullopt when there is no '='
  bool unterminated_quote = false;        // a '"' opened and never closed: ran to the end
};

// Words separated by the kernel's spaces (\t \n \v \f \r, ' ' and 0xa0) outside double
// quotes. Only a quote opening the word or the value, and the word's last character when
// it is a quote, are removed; quotes inside stay ("a="b"c" gives b"c).
std::vector<KernelArg> kernel_args(std::string_view text);

}  // namespace rp
