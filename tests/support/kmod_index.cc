#include "tests/support/kmod_index.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace rp::testing {

namespace fs = std::filesystem;

namespace {

constexpr uint32_t kIndexMagic = 0xB007F457;
constexpr uint32_t kIndexVersion = 0x00020001;  // major 2, minor 1
constexpr uint32_t kHasPrefix = 0x80000000;
constexpr uint32_t kHasValues = 0x40000000;
constexpr uint32_t kHasChildren = 0x20000000;

void put_u32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((v >> shift) & 0xff));
}

}  // namespace

struct KmodIndexWriter::Node {
  std::map<unsigned char, std::unique_ptr<Node>> children;
  std::vector<std::pair<uint32_t, std::string>> values;  // (priority, value)

  // Writes this node (children first) and returns its offset with the flag bits.
  uint32_t write(std::string* out) const {
    // Path compression: a chain of value-less single-child nodes becomes the prefix of
    // the first node that has values or several children.
    const Node* node = this;
    std::string prefix;
    while (node->values.empty() && node->children.size() == 1) {
      prefix.push_back(static_cast<char>(node->children.begin()->first));
      node = node->children.begin()->second.get();
    }
    std::vector<uint32_t> child_offsets;
    unsigned char first = 0, last = 0;
    if (!node->children.empty()) {
      first = node->children.begin()->first;
      last = node->children.rbegin()->first;
      child_offsets.assign(last - first + 1, 0);
      for (const auto& [c, child] : node->children) child_offsets[c - first] = child->write(out);
    }
    uint32_t offset = static_cast<uint32_t>(out->size());
    if (!prefix.empty()) {
      out->append(prefix);
      out->push_back('\0');
      offset |= kHasPrefix;
    }
    if (!child_offsets.empty()) {
      out->push_back(static_cast<char>(first));
      out->push_back(static_cast<char>(last));
      for (uint32_t o : child_offsets) put_u32(out, o);
      offset |= kHasChildren;
    }
    if (!node->values.empty()) {
      auto sorted = node->values;
      std::stable_sort(sorted.begin(), sorted.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      put_u32(out, static_cast<uint32_t>(sorted.size()));
      for (const auto& [priority, value] : sorted) {
        put_u32(out, priority);
        out->append(value);
        out->push_back('\0');
      }
      offset |= kHasValues;
    }
    return offset;
  }
};

KmodIndexWriter::KmodIndexWriter() : root_(std::make_unique<Node>()) {}
KmodIndexWriter::~KmodIndexWriter() = default;
KmodIndexWriter::KmodIndexWriter(KmodIndexWriter&&) noexcept = default;
KmodIndexWriter& KmodIndexWriter::operator=(KmodIndexWriter&&) noexcept = default;

void KmodIndexWriter::insert(const std::string& key, const std::string& value, uint32_t priority) {
  Node* node = root_.get();
  for (unsigned char c : key) {
    auto& child = node->children[c];
    if (!child) child = std::make_unique<Node>();
    node = child.get();
  }
  node->values.emplace_back(priority, value);
}

std::string KmodIndexWriter::bytes() const {
  std::string out;
  put_u32(&out, kIndexMagic);
  put_u32(&out, kIndexVersion);
  put_u32(&out, 0);  // root offset, patched once the root is written (it comes last)
  const uint32_t root = root_->write(&out);
  std::string be;
  put_u32(&be, root);
  out.replace(8, 4, be);
  return out;
}

bool KmodIndexWriter::write_to(const std::string& path) const {
  std::ofstream f(path, std::ios::binary);
  f << bytes();
  if (!f.good()) std::fprintf(stderr, "cannot write %s\n", path.c_str());
  return f.good();
}

bool write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream f(path);
  f << text;
  if (!f.good()) std::fprintf(stderr, "cannot write %s\n", path.c_str());
  return f.good();
}

bool write_module_tree(const std::string& root, const FakeModuleTree& tree) {
  const std::string moddir = root + "/lib/modules/" + tree.kernel_release;
  bool ok = write_text(root + "/proc/sys/kernel/osrelease", tree.kernel_release + "\n");

  std::string dep_txt;
  KmodIndexWriter dep_bin;
  uint32_t priority = 0;
  for (const auto& m : tree.modules) {
    std::string line = m.path + ":";
    for (const auto& d : m.deps) line += " " + d;
    dep_txt += line + "\n";
    dep_bin.insert(m.name, line, priority++);
    if (m.file_present) ok &= write_text(moddir + "/" + m.path, "");
  }
  ok &= write_text(moddir + "/modules.dep", dep_txt);
  ok &= dep_bin.write_to(moddir + "/modules.dep.bin");

  std::string alias_txt = "# Aliases extracted from modules themselves.\n";
  KmodIndexWriter alias_bin;
  priority = 0;
  for (const auto& [alias, module] : tree.aliases) {
    alias_txt += "alias " + alias + " " + module + "\n";
    alias_bin.insert(alias, module, priority++);
  }
  ok &= write_text(moddir + "/modules.alias", alias_txt);
  ok &= alias_bin.write_to(moddir + "/modules.alias.bin");

  KmodIndexWriter symbols_bin;
  priority = 0;
  for (const auto& [symbol, module] : tree.symbols) symbols_bin.insert(symbol, module, priority++);
  ok &= symbols_bin.write_to(moddir + "/modules.symbols.bin");

  std::string builtin_txt;
  KmodIndexWriter builtin_bin;
  for (const auto& name : tree.builtin) {
    builtin_txt += "kernel/" + name + ".ko\n";
    builtin_bin.insert(name, "", 0);
  }
  ok &= write_text(moddir + "/modules.builtin", builtin_txt);
  ok &= builtin_bin.write_to(moddir + "/modules.builtin.bin");
  ok &= KmodIndexWriter().write_to(moddir + "/modules.builtin.alias.bin");
  return ok;
}

}  // namespace rp::testing
