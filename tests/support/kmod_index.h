// Test support: fake module trees for libkmod. libkmod reads only the binary indexes
// (modules.dep.bin, modules.alias.bin, ...), which depmod cannot build without real .ko
// ELF files, so tests write the binary format themselves (format described in kmod's
// libkmod/libkmod-index.c) along with the text forms a human would read in a diff.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rp::testing {

// Writer for kmod's binary index format (version 2.1): a radix trie whose nodes are
// written children first; each node offset carries flags for the parts present (prefix,
// children, values). Integers are big-endian.
class KmodIndexWriter {
 public:
  KmodIndexWriter();
  ~KmodIndexWriter();
  KmodIndexWriter(KmodIndexWriter&&) noexcept;
  KmodIndexWriter& operator=(KmodIndexWriter&&) noexcept;

  // Values of one key are kept in priority order (lower first), as depmod writes them.
  void insert(const std::string& key, const std::string& value, uint32_t priority);
  std::string bytes() const;
  // False (with a message on stderr) when the file cannot be written.
  bool write_to(const std::string& path) const;

 private:
  struct Node;
  std::unique_ptr<Node> root_;
};

// One module of a fake tree. Paths are relative to the module directory.
struct FakeModule {
  std::string name;               // "ib_core"
  std::string path;               // "kernel/drivers/infiniband/core/ib_core.ko"
  std::vector<std::string> deps;  // full dependency list as modules.dep has it (paths)
  bool file_present = true;       // false: listed in modules.dep, .ko missing (stale tree)
};

struct FakeModuleTree {
  std::string kernel_release;
  std::vector<FakeModule> modules;  // in depmod's order
  // Normalised alias pattern (dashes -> underscores, wildcards allowed) -> module name.
  std::vector<std::pair<std::string, std::string>> aliases;
  std::vector<std::string> builtin;            // modules.builtin
  std::map<std::string, std::string> symbols;  // "symbol:x" -> module
};

// Writes <root>/lib/modules/<kver>/ with modules.dep, modules.alias (text and .bin),
// modules.symbols.bin, modules.builtin(.bin), modules.builtin.alias.bin, and an empty
// placeholder for every present .ko (libkmod stat()s dependency paths; dry runs never
// open them). Also writes <root>/proc/sys/kernel/osrelease. False on an I/O error.
bool write_module_tree(const std::string& root, const FakeModuleTree& tree);

// Writes a text file, creating its parent directories. False on an I/O error.
bool write_text(const std::string& path, const std::string& text);

}  // namespace rp::testing
