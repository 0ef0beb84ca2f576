// The man page's text with roff's font escapes and hyphen escapes removed, for the rows of
// the conformance tables that assert a documented difference.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace rp {

inline std::string man_page_text() {
  std::ifstream f("configs/rdma-provision.8");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string raw = ss.str(), out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size()) {
      const char n = raw[i + 1];
      if (n == 'f' && i + 2 < raw.size()) {  // \fB, \fI, \fR, \fP
        i += 2;
        continue;
      }
      if (n == '-' || n == 'e' || n == '&' || n == '%') {
        if (n == '-') out += '-';
        if (n == 'e') out += '\\';
        ++i;
        continue;
      }
    }
    out += raw[i] == '\n' ? ' ' : raw[i];
  }
  // Macro lines (".B word") become plain words.
  std::string flat;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '.' && (i == 0 || out[i - 1] == ' ') && i + 1 < out.size() &&
        std::isupper(static_cast<unsigned char>(out[i + 1]))) {
      while (i < out.size() && out[i] != ' ') ++i;
      if (!flat.empty() && flat.back() != ' ') flat += ' ';
      continue;
    }
    flat += out[i];
  }
  return flat;
}

}  // namespace rp
