// `apply --root <fixture copy>` with every golden case (tests/plan/cases.h), as an
// administrator runs it: one line per planned action plus a summary, the files the plan
// touches hold the wanted values afterwards, and a second run changes nothing.
//
// A fixture is a plain directory: the file-backed actions (mlx4 port type and MTU, the
// rdma_cm configfs values) really write into it; the actions that only the running kernel
// can carry out (netlink, modules) are reported as skipped, and what depends on them too.
// Kernel behaviour a directory cannot show is tested over the fake kernel (tests/apply) and
// on the real kernel (tests/netns, tests/e2e).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/plan/cases.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

// What each case must end with on a plain fixture tree.
struct Expected {
  int exit_code;
  const char* summary;  // the summary line without its duration
};

const std::map<std::string, Expected> kExpected = {
    {"cx3_eth_eth", {0, "1 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"cx3_single_builtin", {0, "0 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    // The module load acts on the running kernel only; the RoCE defaults wait for it.
    {"sriov_ari_rdma_core_names", {0, "0 done, 0 already, 0 checked, 4 skipped, 0 failed"}},
    // Module loads and links act on the running kernel only: here every action is
    // skipped, and so is what waits for them (the RoCE defaults wait for rdma_cm).
    {"opa_ipoib_root", {0, "0 done, 0 already, 0 checked, 3 skipped, 0 failed"}},
    {"cx5_initramfs_wait_verify", {0, "0 done, 0 already, 0 checked, 7 skipped, 0 failed"}},
    {"cx5_initramfs_wait_all", {0, "0 done, 0 already, 0 checked, 7 skipped, 0 failed"}},
    {"cx3_ib_ib_mtu", {0, "2 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    // The reload of mlx4_en and the netlink actions need the kernel; the RoCE defaults and
    // the wait for the (ACTIVE) port 1 do not.
    {"cx3_full", {0, "2 done, 0 already, 0 checked, 7 skipped, 0 failed"}},
    {"cx3_already_there", {0, "0 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"cx3_absent_card", {0, "0 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    // eno1 is the management NIC (e1000e): invalid input unless allowed.
    {"cx3_name_collision", {2, nullptr}},
    {"cx3_name_collision_allowed", {0, "0 done, 0 already, 0 checked, 2 skipped, 0 failed"}},
    // Read-only port files of an SR-IOV function: refused with the reason, exit 1.
    {"sriov_read_only", {1, "0 done, 0 already, 0 checked, 0 skipped, 2 failed"}},
    {"cx5_ib_connected_refused", {2, nullptr}},
    {"cx5_ib_mtu_over_link", {2, nullptr}},
    {"cx5_ib_pkeys", {0, "0 done, 0 already, 0 checked, 5 skipped, 0 failed"}},
    {"cx5_ib_netlink_child", {0, "0 done, 0 already, 0 checked, 1 skipped, 0 failed"}},
    {"cx5_roce_all_ports", {0, "4 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"cx5_roce_wait_all", {0, "4 done, 0 already, 0 checked, 2 skipped, 0 failed"}},
    {"cx5_roce_by_pci_guid", {0, "2 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"cx5_roce_rdma_core_name", {0, "1 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"cx5_renamed_kernel_name", {0, "0 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"cx5_renamed_by_netdev", {0, "1 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"cx5_roce_swap_names", {0, "0 done, 0 already, 0 checked, 4 skipped, 0 failed"}},
    // The renames act on the running kernel only; what names the new names waits for them.
    {"cx5_roce_devname_swap", {0, "0 done, 0 already, 0 checked, 6 skipped, 0 failed"}},
    // The HCA as expected, the port at EDR where NDR is expected: a failed action, exit 1.
    {"cx5_ib_expect", {1, "0 done, 0 already, 1 checked, 0 skipped, 1 failed"}},
    {"rxe_existing", {0, "1 done, 0 already, 0 checked, 1 skipped, 0 failed"}},
    {"rxe_v1_refused", {2, nullptr}},
    // Loading rdma_rxe and creating the link need the kernel; the rest waits for them.
    {"rxe_new_link", {0, "0 done, 0 already, 0 checked, 4 skipped, 0 failed"}},
    {"rxe_new_link_by_netdev", {0, "0 done, 0 already, 0 checked, 4 skipped, 0 failed"}},
    // eth0 has its Soft-RoCE link already (as rxe0): nothing is created, the notes say
    // why, and the wait for rxe1/1, which can never be met, fails at once (exit 1).
    {"rxe_exists_as_another_name", {1, "0 done, 0 already, 0 checked, 0 skipped, 1 failed"}},
    // An X710 (i40e, 0x1572): no iWARP, so no irdma.
    {"siw_existing", {0, "0 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    // Port 2 of every card is INIT (no subnet manager); wait=all involves only the ports
    // the node table names, and mlx4_1/2 (ibstor1) never becomes ACTIVE: the deadline.
    {"four_hca_node_table", {3, "0 done, 0 already, 0 checked, 6 skipped, 0 failed, 1 timed out"}},
    {"four_hca_wait_all_alone", {0, "0 done, 0 already, 0 checked, 0 skipped, 0 failed"}},
    {"disabled", {0, nullptr}},
};

// The kinds whose effect is a file a fixture tree holds; the rest act through netlink or
// libkmod, or wait for the kernel.
const std::set<std::string> kFileKinds = {"port-type", "port-mtu", "roce-mode", "roce-tos"};

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The file of a file-backed action, from the plan's object text.
std::string file_of(const std::string& root, const std::string& kind, const std::string& obj) {
  std::smatch m;
  if (kind == "port-type" && std::regex_match(obj, m, std::regex(R"((\S+) port (\d))"))) {
    return root + "/sys/bus/pci/devices/" + m[1].str() + "/mlx4_port" + m[2].str();
  }
  if (kind == "port-mtu" && std::regex_match(obj, m, std::regex(R"((\S+) port (\d) MTU)"))) {
    return root + "/sys/bus/pci/devices/" + m[1].str() + "/mlx4_port" + m[2].str() + "_mtu";
  }
  if (std::regex_match(obj, m, std::regex(R"(([^/]+)/(\d+))"))) {
    return root + "/sys/kernel/config/rdma_cm/" + m[1].str() + "/ports/" + m[2].str() + "/" +
           (kind == "roce-mode" ? "default_roce_mode" : "default_roce_tos");
  }
  return "";
}

// Every path and the contents of every regular file (not times): what a second run must
// leave unchanged (no write, no mkdir or rmdir).
std::string contents_digest(const std::string& root) {
  return testing::run("cd '" + root +
                      "' && { find . ! -path './run/*' | sort; find . -type f ! -path './run/*' "
                      "-print0 | sort -z | xargs -0 md5sum; } | md5sum");
}

class ApplyOnFixture : public ::testing::TestWithParam<testing::Case> {};

TEST_P(ApplyOnFixture, OneLinePerActionWantedFilesAndNothingOnASecondRun) {
  const testing::Case& c = GetParam();
  auto exp_it = kExpected.find(c.name);
  ASSERT_NE(exp_it, kExpected.end()) << "no expectation for case " << c.name;
  const Expected& exp = exp_it->second;

  const std::string root = testing::unpack_fixture(c.fixture);
  if (c.config) {
    testing::run("mkdir -p '" + root + "/etc/rdma-provision'");
    std::ofstream(root + "/etc/rdma-provision/rdma-provision.conf") << c.config;
  }
  // A short deadline: a wait that cannot end on a fixture ends at it (the last
  // rd.rdma.timeout on the command line wins).
  const std::string cmdline = std::string(c.cmdline) + " rd.rdma.timeout=3";
  const std::string inputs = " --root " + root + " --cmdline-string '" + cmdline + "'";

  int st = -1;
  const std::string plan_out =
      testing::run(testing::tool_binary() + " plan --json" + inputs + " 2>/dev/null", &st);
  const std::string marker = root + "/../before-apply";
  testing::run("touch '" + marker + "'");
  const std::string out =
      testing::run(testing::tool_binary() + " apply --log stderr" + inputs + " 2>&1", &st);
  EXPECT_EQ(st, exp.exit_code) << out;
  // Writes stay confined (#16 item 8, Root::check_write): every path apply created or
  // changed is under /sys (configfs included) or /run.
  std::istringstream changed(
      testing::run("cd '" + root + "' && find . -mindepth 1 -newer '" + marker + "'"));
  for (std::string p; std::getline(changed, p);) {
    EXPECT_TRUE(p.rfind("./sys/", 0) == 0 || p.rfind("./run", 0) == 0) << "apply wrote " << p;
  }
  if (!exp.summary) {  // invalid input or disabled: nothing applied, no summary
    EXPECT_EQ(out.find("summary:"), std::string::npos) << out;
    return;
  }
  ASSERT_EQ(st == 2, false) << out;
  auto plan = nlohmann::json::parse(plan_out);

  // One outcome line per planned action, naming the action as the plan does.
  size_t lines_with_outcome = 0;
  std::set<std::string> settled;  // file-backed actions that ended done or already
  for (const auto& a : plan["actions"]) {
    const std::string kind = a["kind"], obj = a["object"];
    const std::regex line_re(
        "(done|already|checked|skipped|failed|timed-out)  " +
        std::regex_replace(kind, std::regex(R"([-])"), R"(\-)") + " +" +
        std::regex_replace(obj, std::regex(R"([.^$|()\[\]{}*+?\\/])"), R"(\$&)") + ": ");
    int n = 0;
    std::string outcome;
    std::istringstream lines(out);
    for (std::string l; std::getline(lines, l);) {
      std::smatch m;
      if (std::regex_search(l, m, line_re)) {
        ++n;
        outcome = m[1];
      }
    }
    EXPECT_EQ(n, 1) << kind << " " << obj << "\n" << out;
    lines_with_outcome += n;

    if (kFileKinds.count(kind) && (outcome == "done" || outcome == "already")) {
      settled.insert(kind + " " + obj);
      const std::string file = file_of(root, kind, obj);
      ASSERT_FALSE(file.empty()) << kind << " " << obj;
      EXPECT_EQ(trimmed(read_text(file)), a["wanted"].get<std::string>()) << file << "\n" << out;
    }
    // wait-port and check-link only read sysfs: they run on a fixture too.
    if (!kFileKinds.count(kind) && kind != "wait-port" && kind != "check-link" &&
        outcome != "skipped") {
      ADD_FAILURE() << kind << " " << obj << " acts on the kernel, yet ended " << outcome;
    }
  }
  EXPECT_EQ(lines_with_outcome, plan["actions"].size()) << out;
  EXPECT_NE(out.find(std::string("rdma-provision: summary: ") + exp.summary + " in "),
            std::string::npos)
      << out;

  // A second run: what the first settled is not planned again (what it could not do, a
  // read-only port type or a device created over netlink on a fixture, is), and applying
  // leaves the tree's paths and contents as they are (no write, no mkdir).
  const auto replan = nlohmann::json::parse(
      testing::run(testing::tool_binary() + " plan --json" + inputs + " 2>/dev/null", &st));
  for (const auto& a : replan["actions"]) {
    const std::string key = a["kind"].get<std::string>() + " " + a["object"].get<std::string>();
    EXPECT_FALSE(settled.count(key)) << "planned again after apply: " << key;
  }
  const std::string before = contents_digest(root);
  const std::string again =
      testing::run(testing::tool_binary() + " apply --log stderr" + inputs + " 2>&1", &st);
  EXPECT_NE(again.find("summary: 0 done,"), std::string::npos) << again;
  EXPECT_EQ(contents_digest(root), before) << again;
}

INSTANTIATE_TEST_SUITE_P(Golden, ApplyOnFixture, ::testing::ValuesIn(testing::kGoldenCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rp
