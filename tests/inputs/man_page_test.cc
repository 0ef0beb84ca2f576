// The man pages document every key the readers know, straight from their tables: each
// command-line parameter under KERNEL COMMAND LINE, each [section] of the native config
// with its keys (and the fields of a [nodes] row) under CONFIGURATION FILE.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "provision/inputs/cmdline.h"
#include "provision/inputs/native_conf.h"

namespace rp {
namespace {

// The three pages together: rdma-provision(8), rdma-provision.cmdline(7) (KERNEL COMMAND
// LINE) and rdma-provision.conf(5) (CONFIGURATION FILE).
std::string man_page() {
  std::stringstream ss;
  for (const char* page : {"configs/rdma-provision.8", "configs/rdma-provision.cmdline.7",
                           "configs/rdma-provision.conf.5"}) {
    std::ifstream f(page);
    EXPECT_TRUE(f) << page << " not in runfiles";
    ss << f.rdbuf() << "\n";
  }
  return ss.str();
}

// The text as a reader sees it: font escapes, hyphen and zero-width escapes and double
// quotes removed.
std::string plain(const std::string& roff) {
  std::string out;
  for (size_t i = 0; i < roff.size(); ++i) {
    if (roff[i] == '"') continue;
    if (roff[i] != '\\' || i + 1 == roff.size()) {
      out += roff[i];
      continue;
    }
    char e = roff[++i];
    if (e == 'f') {
      ++i;  // \fB, \fI, \fR, \fP
    } else if (e == '-' || e == ' ') {
      out += e == '-' ? '-' : ' ';
    }  // \& and \% print nothing
  }
  return out;
}

// The lines of the chapter `.SH <title>` (up to the next .SH), made plain.
std::vector<std::string> chapter(const std::string& page, const std::string& title) {
  std::vector<std::string> out;
  std::istringstream in(page);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(".SH ", 0) == 0) inside = plain(line.substr(4)) == title;
    if (inside) out.push_back(plain(line));
  }
  EXPECT_FALSE(out.empty()) << "no chapter .SH " << title;
  return out;
}

// The word a tag line (".B", ".BI", ".BR", ".IB") starts with: "rd.rdma.mlx4=", "timeout".
std::string tag(const std::string& line) {
  for (const char* macro : {".B ", ".BI ", ".BR ", ".IB "}) {
    if (line.rfind(macro, 0) != 0) continue;
    std::istringstream words(line.substr(std::string(macro).size()));
    std::string first;
    words >> first;
    return first;
  }
  return "";
}

bool documents(const std::string& tag, std::string_view key) {
  const std::string k(key);
  return tag == k || tag.rfind(k + "=", 0) == 0 || tag.rfind(k + "[", 0) == 0;
}

TEST(ManPage, DocumentsEveryCommandLineParameter) {
  const auto lines = chapter(man_page(), "KERNEL COMMAND LINE");
  for (std::string_view key : cmdline_keys()) {
    bool found = false;
    for (const auto& line : lines) found |= documents(tag(line), key);
    EXPECT_TRUE(found) << key << " has no entry under KERNEL COMMAND LINE";
  }
}

// The section a ".SS [kind ...]" line introduces, or "".
std::string section_of(const std::string& line) {
  if (line.rfind(".SS [", 0) != 0) return "";
  size_t end = line.find_first_of(" ]", 5);
  return line.substr(5, end == std::string::npos ? std::string::npos : end - 5);
}

TEST(ManPage, DocumentsEveryNativeConfigSectionAndKey) {
  const auto lines = chapter(man_page(), "CONFIGURATION FILE");
  std::set<std::pair<std::string, std::string>> documented;  // (section, tag)
  std::set<std::string> sections;
  std::string current;
  for (const auto& line : lines) {
    if (line.rfind(".SS ", 0) == 0) {
      current = section_of(line);
      sections.insert(current);
    } else if (!current.empty() && !tag(line).empty()) {
      documented.insert({current, tag(line)});
    }
  }
  for (std::string_view s : native_conf_sections()) {
    EXPECT_TRUE(sections.count(std::string(s)))
        << "[" << s << "] has no .SS under CONFIGURATION FILE";
  }
  for (const auto& [section, key] : native_conf_keys()) {
    bool found = false;
    for (const auto& [s, t] : documented) found |= s == section && documents(t, key);
    EXPECT_TRUE(found) << "[" << section << "] " << key << " is not documented";
  }
  // And nothing the reader does not know is documented as a section.
  const auto known = native_conf_sections();
  for (const auto& s : sections) {
    EXPECT_NE(std::find(known.begin(), known.end(), s), known.end())
        << "the man page documents [" << s << "], which the reader does not know";
  }
}

}  // namespace
}  // namespace rp
