// What the conformance tables share: a row (the owner's vector, what the owner does, what
// we read), its check, the summary line, and the man page's text with roff's font and
// hyphen escapes removed, for the rows that assert a documented difference.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "provision/config/config.h"

namespace rp {

// BOOTIF as we read it, for a summary: "bootif off" (rd.bootif=0), "bootif mac <MAC>",
// "bootif guid <GUID>", or "" without one.
inline std::string bootif_summary(const BootContext& boot) {
  if (boot.bootif_off) return "bootif off";
  if (!boot.bootif) return "";
  const auto& b = *boot.bootif;
  return b.form == BootContext::BootIf::Form::kMac
             ? "bootif mac " + HwKey{HwKey::By::kMac, b.value, {}, {}, 0}.str()
             : "bootif guid " + HwKey::of_guid(PortGuid{b.value}).str();
}

inline std::string man_page_text() {
  std::stringstream ss;
  for (const char* page : {"configs/rdma-provision.8", "configs/rdma-provision.cmdline.7",
                           "configs/rdma-provision.conf.5"}) {
    std::ifstream f(page);
    ss << f.rdbuf() << "\n";
  }
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

struct Row {
  const char* source;                // the owner's repo path: test or function
  const char* input;                 // what is read
  const char* owner;                 // what the owner's code does with it
  const char* want;                  // what we read (the table's summary())
  const char* documented = nullptr;  // on purpose: the man page says this
};

// One row: what we read is `want`; a difference on purpose is in the man page.
inline void check_row(const char* owner_name, const char* source, const char* input,
                      const char* owner, const std::string& got, const char* want,
                      const char* documented) {
  SCOPED_TRACE(std::string(source) + "\n  input: " + input + "\n  " + owner_name + ": " + owner);
  EXPECT_EQ(got, want);
  if (documented) {
    EXPECT_NE(man_page_text().find(documented), std::string::npos)
        << "the man page does not say: " << documented;
  }
}

// A summary: its parts joined by "; ", then the number of warnings and each error.
class Summary {
 public:
  void add(const std::string& s) { out_ += (out_.empty() ? "" : "; ") + s; }
  std::string end(const Diagnostics& d) {
    if (!d.warnings.empty()) add(std::to_string(d.warnings.size()) + " warning(s)");
    for (const auto& e : d.errors) add("error: " + e.str());
    return out_;
  }

 private:
  std::string out_;
};

}  // namespace rp
