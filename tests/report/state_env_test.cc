// state.env: the dracut hooks source it with /bin/sh, so every value must come back
// exactly as the binary had it, whatever it contains (quotes, newlines, $, backquotes).
#include <gtest/gtest.h>

#include <fstream>

#include "provision/base/strings.h"
#include "provision/report/handoff.h"
#include "tests/support/fixture.h"
#include "tests/support/source.h"

namespace rp {
namespace {

using rp::test::src;

// Sources `env` in /bin/sh and prints variable `key` with a marker after it, so trailing
// newlines are kept.
std::string sourced(const std::string& env, const std::string& key) {
  const std::string file = testing::temp_dir("env") + "/state.env";
  std::ofstream(file) << env;
  int st = -1;
  std::string out =
      testing::run("/bin/sh -c '. \"$0\" && printf \"%s|\" \"$" + key + "\"' " + file, &st);
  EXPECT_EQ(st, 0) << env;
  EXPECT_FALSE(out.empty() || out.back() != '|') << out;
  if (!out.empty()) out.pop_back();
  return out;
}

const std::string kAwkward[] = {
    "",
    "plain",
    "it's",
    "''",
    "a 'quoted' word",
    "two\nlines\n",
    "$HOME ${PATH} $(echo no) `echo no`",
    "back\\slash \\' \\n",
    "semi; colon && amp | pipe > redirect",
    "\"double\" and 'single' \" ' ",
    "tab\tand trailing space ",
    "# not a comment",
};

TEST(ShellQuote, SourcingGivesEveryValueBackExactly) {
  for (const std::string& v : kAwkward) {
    EXPECT_EQ(sourced("V=" + shell_quote(v) + "\n", "V"), v) << quote(v);
  }
}

TEST(ShellQuote, SingleQuotesWithEmbeddedQuoteClosedAndReopened) {
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

Plan plan_of(std::vector<Action> actions) {
  Plan p;
  p.actions = std::move(actions);
  return p;
}

TEST(StateEnv, AfterApplyGivesExitCodeSummaryCountsAndErrors) {
  Config cfg;
  cfg.required = {true, src("cmdline: rd.rdma.required=1")};
  cfg.names["fabric0"] = {HwKey{HwKey::By::kMac, 0x525400770002}, src("cmdline: rd.rdma.name=...")};
  cfg.names["storage0"] = {HwKey{HwKey::By::kGuid, 0xf4521403007bcba1}, src("conf:3")};
  Plan plan =
      plan_of({Action{SetRoceMode{"rxe0", 1, RoceMode::kV1}, "RoCE v2", "x"},
               Action{LinkUp{"fabric0"}, "down", "y"}, Action{WaitPort{"rxe0", 1}, "DOWN", "z"}});
  ApplyReport r;
  r.outcomes = {Outcome::failed(make_error("rxe0/1 default_roce_mode", "it's `$(bad)`\nsecond")),
                Outcome::done(), Outcome::timed_out(make_error("rxe0/1", "not ACTIVE"))};
  r.done = 1;
  r.failed = 1;
  r.timed_out = 1;
  const std::string env = state_env(cfg, plan, &r);
  EXPECT_EQ(sourced(env, "RP_ENABLED"), "1");
  EXPECT_EQ(sourced(env, "RP_REQUIRED"), "1");
  EXPECT_EQ(sourced(env, "RP_TIMEOUT"), "60");  // config.h: the default deadline
  EXPECT_EQ(sourced(env, "RP_EXIT_CODE"), "3");
  EXPECT_EQ(sourced(env, "RP_SUMMARY"), r.summary());
  EXPECT_EQ(sourced(env, "RP_DONE"), "1");
  EXPECT_EQ(sourced(env, "RP_FAILED"), "1");
  EXPECT_EQ(sourced(env, "RP_TIMED_OUT"), "1");
  EXPECT_EQ(sourced(env, "RP_SKIPPED"), "0");
  EXPECT_EQ(sourced(env, "RP_ERRORS"),
            r.outcomes[0].error.str() + "\n" + r.outcomes[2].error.str());
  EXPECT_NE(r.outcomes[0].error.str().find("it's `$(bad)`\nsecond"), std::string::npos);
  EXPECT_EQ(sourced(env, "RP_NAMES"), "fabric0 storage0");
}

TEST(StateJson, TheErrorOfEveryFailedOrTimedOutActionIsRecorded) {
  // The real root's service reads why the early run did not finish from state.json.
  Config cfg;
  Plan plan =
      plan_of({Action{LinkUp{"fabric0"}, "down", "y"}, Action{WaitPort{"rxe0", 1}, "DOWN", "z"},
               Action{SetRoceTos{"rxe0", 1, 106}, "0", "x"}});
  ApplyReport r;
  r.outcomes = {Outcome::done(), Outcome::timed_out(make_error("rxe0/1", "not ACTIVE")),
                Outcome::failed(make_error("rxe0/1 default_roce_tos", "refused"))};
  r.done = r.timed_out = r.failed = 1;
  const std::string json = state_json(cfg, plan, &r);
  EXPECT_NE(json.find("\"error\": \"rxe0/1: not ACTIVE\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"error\": \"rxe0/1 default_roce_tos: refused\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"error\": null"), std::string::npos) << json;  // the done one
}

TEST(StateEnv, DisabledHasNoExitCodeAndSaysSo) {
  Config cfg;
  Plan plan;
  plan.enabled = false;
  const std::string env = state_env(cfg, plan, nullptr);
  EXPECT_EQ(sourced(env, "RP_ENABLED"), "0");
  EXPECT_EQ(sourced(env, "RP_REQUIRED"), "0");
  EXPECT_EQ(sourced(env, "RP_EXIT_CODE"), "");
  EXPECT_EQ(sourced(env, "RP_DONE"), "");
  EXPECT_EQ(sourced(env, "RP_ERRORS"), "");
  EXPECT_EQ(sourced(env, "RP_NAMES"), "");
}

TEST(StateEnv, OfInvalidInputsGivesTheBinarysReadingOfRequiredAndTheErrors) {
  Config cfg;
  cfg.required = {true, src("/etc/rdma-provision/rdma-provision.conf:3")};
  Diagnostics diag;
  diag.error("cmdline: rd.rdma.mlx=1", "unknown parameter 'rd.rdma.mlx'");
  diag.error("cmdline: rd.rdma.roce=*:v9", "RoCE mode 'v9' is not one of v1, v2");
  cfg.timeout_s = {7, src("cmdline: rd.rdma.timeout=7")};
  const std::string env = inputs_state_env(cfg, diag);
  EXPECT_EQ(sourced(env, "RP_REQUIRED"), "1");
  EXPECT_EQ(sourced(env, "RP_TIMEOUT"), "7");  // the hooks' watchdog reads it
  EXPECT_EQ(sourced(env, "RP_ENABLED"), "1");
  EXPECT_EQ(sourced(env, "RP_EXIT_CODE"), "2");
  EXPECT_EQ(sourced(env, "RP_SUMMARY"), "invalid input: 2 errors");
  EXPECT_EQ(sourced(env, "RP_ERRORS"), diag.errors[0].str() + "\n" + diag.errors[1].str());
  const std::string valid = inputs_state_env(Config{}, Diagnostics{});
  EXPECT_EQ(sourced(valid, "RP_EXIT_CODE"), "");
  EXPECT_EQ(sourced(valid, "RP_REQUIRED"), "0");
}

TEST(StateEnv, EveryLineIsACommentOrOneAssignment) {
  Config cfg;
  Plan plan;
  ApplyReport r;
  const std::string env = state_env(cfg, plan, &r);
  for (const auto& line : split(env, '\n')) {
    if (line.empty() || line.front() == '#') continue;
    EXPECT_TRUE(starts_with(line, "RP_") && line.find("='") != std::string_view::npos &&
                line.back() == '\'')
        << line;
  }
}

}  // namespace
}  // namespace rp
