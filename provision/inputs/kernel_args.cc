#include "provision/inputs/kernel_args.h"

namespace rp {
namespace {

// The kernel's _ctype _S class (lib/ctype.c): 9-13, 32 and 160 (Latin-1 no-break space).
bool kernel_space(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 9 && u <= 13) || u == 32 || u == 160;
}

}  // namespace

// kernel/params.c next_arg, step by step: a leading '"' opens a quote; the word ends at a
// space outside quotes; the first '=' past the word's first character splits it; a value
// opening with '"' loses that quote and, when the word ends with '"', that one too; a word
// that opened with '"' loses a final '"'.
std::vector<KernelArg> kernel_args(std::string_view text) {
  std::vector<KernelArg> out;
  size_t pos = 0;
  for (;;) {
    while (pos < text.size() && kernel_space(text[pos])) ++pos;
    if (pos == text.size()) return out;
    KernelArg a;
    const size_t start = pos;
    const bool quoted = text[pos] == '"';
    const size_t args = quoted ? pos + 1 : pos;  // next_arg's `args` after args++
    bool in_quote = quoted;
    size_t equals = 0;  // as in next_arg: 0 means none (an '=' first in the word is not one)
    size_t i = args;
    for (; i < text.size(); ++i) {
      if (kernel_space(text[i]) && !in_quote) break;
      if (equals == 0 && text[i] == '=') equals = i - args;
      if (text[i] == '"') in_quote = !in_quote;
    }
    a.raw = text.substr(start, i - start);
    a.unterminated_quote = in_quote;
    size_t end = i;  // one past the last character kept
    bool cut = false;
    if (equals == 0) {
      a.param = text.substr(args, end - args);
    } else {
      a.param = text.substr(args, equals);
      size_t v = args + equals + 1;
      if (v < end && text[v] == '"') {
        ++v;
        if (text[end - 1] == '"') {
          cut = true;
          if (end - 1 >= v) --end;
        }
      }
      a.value = text.substr(v, end > v ? end - v : 0);
    }
    if (quoted && !cut && end > args && text[end - 1] == '"') {
      --end;
      if (a.value) {
        const size_t v = static_cast<size_t>(a.value->data() - text.data());
        a.value = text.substr(v, end > v ? end - v : 0);
      } else {
        a.param = text.substr(args, end - args);
      }
    }
    out.push_back(a);
    pos = i;
  }
}

}  // namespace rp
