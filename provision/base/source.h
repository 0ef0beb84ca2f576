// Where a value came from: a line of an input file, a kernel command-line token, or the
// program's default. Typed, so that a planner asks `origin` ("is this modprobe.d's?")
// instead of parsing the text again; str() is what messages print
// ("/etc/rdma/mlx4.conf:3", "cmdline: rd.rdma.mlx4=...", "default").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rp {

struct Source {
  enum class Origin : uint8_t {
    kDefault,       // the program's own default
    kCmdline,       // a kernel command-line token (file: the token as written)
    kNative,        // rdma-provision's configuration (and its node table)
    kModprobeD,     // a modprobe.d file: libkmod applies its options itself at load
    kRdmaCoreList,  // one of rdma-core's module lists (/etc/rdma/modules/*.conf)
    kMlx4Conf,      // rdma-core's /etc/rdma/mlx4.conf (read as its mlx4-setup.sh reads it)
    kUdevRules,     // a udev rules file (70-persistent-ipoib.rules, rdma_rename's)
    kOption,        // an option of rdma-provision's own command line (file: the option)
    kOther,         // a file of no format above (run state handed on by dracut)
  };
  Origin origin = Origin::kDefault;
  std::string file;          // the path; the token for kCmdline; "" for kDefault
  unsigned line = 0;         // 1-based; 0: the file as a whole
  std::vector<Source> also;  // further places that gave the same value (merged options)
  std::string via;           // how the value came from there ("node table"), or ""

  Source() = default;
  Source(Origin o, std::string f, unsigned l) : origin(o), file(std::move(f)), line(l) {}
  // Out of line: a config holds hundreds of sources, copied where values merge.
  Source(const Source&);
  Source(Source&&) noexcept;
  Source& operator=(const Source&);
  Source& operator=(Source&&) noexcept;
  ~Source();

  static Source by_default() { return {}; }
  static Source cmdline(std::string token) { return {Origin::kCmdline, std::move(token), 0}; }
  static Source at(Origin o, std::string file, unsigned line = 0) {
    return {o, std::move(file), line};
  }
  Source through(std::string how) const {
    Source s = *this;
    s.via = std::move(how);
    return s;
  }

  bool is_default() const { return origin == Origin::kDefault; }
  // The same input (file, or the command line), whichever line.
  bool same_input(const Source& o) const;
  // This place or one it was merged with is of `o`.
  bool any_of(Origin o) const;

  std::string str() const;
  operator std::string() const { return str(); }  // NOLINT: messages take it as text
  bool operator==(const Source& o) const;
  bool operator!=(const Source& o) const { return !(*this == o); }
};

// Messages are built by concatenation.
std::string operator+(const std::string& a, const Source& b);
std::string operator+(const char* a, const Source& b);
std::string operator+(const Source& a, const std::string& b);
std::string operator+(const Source& a, const char* b);

}  // namespace rp
