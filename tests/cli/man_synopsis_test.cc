// rdma-provision(8) against the binary's own help: every command in SYNOPSIS and under
// EXIT STATUS, every option of every command in SYNOPSIS and with an entry under Options.
// The help is generated from the command table (cli/commands.cc), so a command or option
// added there and not documented fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/fixture.h"

namespace rp {
namespace {

std::string man_page() {
  std::ifstream f("configs/rdma-provision.8");
  EXPECT_TRUE(f) << "configs/rdma-provision.8 not in runfiles";
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The lines from `.SH title` (or `.SS title`) to the next heading of that level.
std::string chapter(const std::string& page, const std::string& heading) {
  const size_t at = page.find("\n" + heading + "\n");
  EXPECT_NE(at, std::string::npos) << heading;
  if (at == std::string::npos) return "";
  const std::string level = heading.substr(0, 3);  // ".SH" or ".SS"
  size_t end = page.find("\n" + level + " ", at + 1);
  if (level == ".SS") end = std::min(end, page.find("\n.SH ", at + 1));
  return page.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::string roff(const std::string& option) {  // "--udev-settle" as the page writes it
  std::string out;
  for (char c : option) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

std::vector<std::string> commands() {
  const std::string help = testing::run(testing::tool_binary() + " --help");
  std::vector<std::string> out;
  std::regex row(R"(^  ([a-z][a-z-]+) \[)");
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) out.push_back(m[1]);
  }
  return out;
}

std::set<std::string> options_of(const std::string& command) {
  const std::string help = testing::run(testing::tool_binary() + " " + command + " --help");
  std::set<std::string> out;
  std::regex opt(R"(^  (--[a-z-]+))");
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, opt)) out.insert(m[1]);
  }
  return out;
}

TEST(ManPage, SynopsisOptionsAndExitStatusCoverEveryCommandAndOption) {
  const std::string page = man_page();
  const std::string synopsis = chapter(page, ".SH SYNOPSIS");
  const std::string options = chapter(page, ".SS Options");
  const std::string exit_status = chapter(page, ".SH EXIT STATUS");
  const auto cmds = commands();
  ASSERT_GE(cmds.size(), 11u);
  for (const auto& c : cmds) {
    EXPECT_NE(synopsis.find(".B rdma-provision " + c), std::string::npos)
        << c << " is not in SYNOPSIS";
    EXPECT_TRUE(std::regex_search(exit_status, std::regex("\\.BR? (.*[ \"])?" + c + "\\b")))
        << c << " is not under EXIT STATUS";
    for (const auto& o : options_of(c)) {
      EXPECT_NE(synopsis.find(roff(o)), std::string::npos)
          << o << " (" << c << ") is not in SYNOPSIS";
      EXPECT_TRUE(std::regex_search(
          options, std::regex("\n\\.BI?R? (\\\\-h\", \")?" +
                              std::regex_replace(roff(o), std::regex(R"(\\)"), R"(\\)") + "\\b")))
          << o << " (" << c << ") has no entry under Options";
    }
  }
  EXPECT_NE(options.find(".BR \\-h \", \" \\-\\-help"), std::string::npos);
}

}  // namespace
}  // namespace rp
