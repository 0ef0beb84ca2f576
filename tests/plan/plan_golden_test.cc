// Golden tests of `plan`: each case is a fixture tree plus a command line (and maybe a
// native config); the action list, text and JSON, must match tests/plan/golden/. After an
// intended change: UPDATE_GOLDEN=1 bazel run //tests/plan:plan_golden_test
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "provision/inputs/load.h"
#include "provision/plan/plan.h"
#include "provision/resolve/node_table.h"
#include "tests/plan/cases.h"
#include "tests/support/fixture.h"

namespace rp {
namespace {

using Case = testing::Case;

std::string golden_dir() {
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    return std::string(ws) + "/tests/plan/golden/";
  }
  return "tests/plan/golden/";
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class PlanGolden : public ::testing::TestWithParam<Case> {};

TEST_P(PlanGolden, MatchesTheRecordedActionList) {
  const Case& c = GetParam();
  Root root(testing::unpack_fixture(c.fixture));
  Inventory inv = discover(root, Detail::kPlan);  // what check/plan/apply read
  InputOptions opt;
  opt.cmdline_text = c.cmdline;
  if (c.config) {
    const std::string dir = root.path("/etc/rdma-provision");
    testing::run("mkdir -p '" + dir + "'");
    std::ofstream(dir + "/rdma-provision.conf") << c.config;
  }
  Inputs in = load_inputs(root, opt);
  in.config = resolve_node_table(inv, in.config);
  std::string text, json;
  for (const auto& e : in.diag.errors) text += "input error: " + e.str() + "\n";
  for (const auto& w : in.diag.warnings) text += "input warning: " + w.str() + "\n";
  if (in.diag.ok()) {
    Plan plan = make_plan(in.config, inv);
    text += plan_text(plan);
    json = plan_json(plan);
  }
  const std::string base = golden_dir() + c.name;
  if (std::getenv("UPDATE_GOLDEN")) {
    // Only `bazel run` writes into the source tree; under `bazel test` (CI) the goldens
    // would be written into the sandbox and the comparison skipped: fail instead.
    ASSERT_NE(std::getenv("BUILD_WORKSPACE_DIRECTORY"), nullptr)
        << "UPDATE_GOLDEN works under `bazel run` only";
    std::ofstream(base + ".txt") << text;
    std::ofstream(base + ".json") << json;
    GTEST_SKIP() << "updated " << base;
  }
  EXPECT_EQ(text, read_file(base + ".txt")) << "case " << c.name;
  EXPECT_EQ(json, read_file(base + ".json")) << "case " << c.name;
}

INSTANTIATE_TEST_SUITE_P(Cases, PlanGolden, ::testing::ValuesIn(testing::kGoldenCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rp
