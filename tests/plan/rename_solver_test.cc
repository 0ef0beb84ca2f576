// The rename solver alone: every step renames to a free name, every interface ends with
// its wanted name, and temporary names appear only where a target is taken.
#include "provision/plan/rename_solver.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace rp {
namespace {

using Why = RenameStep::Why;

// Runs the steps on `holders` as the kernel would (a rename to a taken name is EEXIST)
// and returns the final name -> ifindex map.
std::map<std::string, int> run(const std::vector<RenameStep>& steps,
                               std::map<std::string, int> holders) {
  for (const auto& s : steps) {
    EXPECT_EQ(holders.count(s.to), 0u) << s.from << " -> " << s.to << ": the name is taken";
    EXPECT_EQ(holders.at(s.from), s.ifindex) << s.from << " is not interface " << s.ifindex;
    holders.erase(s.from);
    holders[s.to] = s.ifindex;
  }
  return holders;
}

TEST(RenameSolver, AFreeTargetIsOneStep) {
  const std::map<std::string, int> now = {{"eth0", 2}};
  const auto steps = solve_renames({{2, "eth0", "fabric0"}}, now);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].why, Why::kWanted);
  EXPECT_EQ(steps[0].move, 0u);
  EXPECT_EQ(run(steps, now), (std::map<std::string, int>{{"fabric0", 2}}));
}

TEST(RenameSolver, AChainRunsFromItsFreeEnd) {
  // ib0 -> ib1 needs ib1 to move first (to the free ib2).
  const std::map<std::string, int> now = {{"ib0", 4}, {"ib1", 5}};
  const auto steps = solve_renames({{4, "ib0", "ib1"}, {5, "ib1", "ib2"}}, now);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].from, "ib1");
  EXPECT_EQ(steps[1].from, "ib0");
  EXPECT_EQ(run(steps, now), (std::map<std::string, int>{{"ib1", 4}, {"ib2", 5}}));
}

TEST(RenameSolver, ASwapGoesThroughOneTemporaryName) {
  const std::map<std::string, int> now = {{"x0", 7}, {"x1", 8}};
  const auto steps = solve_renames({{7, "x0", "x1"}, {8, "x1", "x0"}}, now);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].why, Why::kCycle);
  EXPECT_EQ(steps[0].to, temporary_name(steps[0].ifindex));
  EXPECT_EQ(steps[1].why, Why::kWanted);
  EXPECT_EQ(steps[2].why, Why::kWanted);
  EXPECT_EQ(steps[2].from, temporary_name(steps[0].ifindex));
  EXPECT_EQ(run(steps, now), (std::map<std::string, int>{{"x0", 8}, {"x1", 7}}));
}

TEST(RenameSolver, AThreeCycleNeedsOneTemporaryName) {
  const std::map<std::string, int> now = {{"a", 1}, {"b", 2}, {"c", 3}};
  const auto steps = solve_renames({{1, "a", "b"}, {2, "b", "c"}, {3, "c", "a"}}, now);
  ASSERT_EQ(steps.size(), 4u);
  size_t temporaries = 0;
  for (const auto& s : steps) temporaries += s.why == Why::kCycle;
  EXPECT_EQ(temporaries, 1u);
  EXPECT_EQ(run(steps, now), (std::map<std::string, int>{{"a", 3}, {"b", 1}, {"c", 2}}));
}

TEST(RenameSolver, AnUnrelatedHolderIsMovedAsideFirst) {
  // eth1 (ifindex 9) is not configured but holds the name fabric0 wants.
  const std::map<std::string, int> now = {{"eth0", 3}, {"fabric0", 9}};
  const auto steps = solve_renames({{3, "eth0", "fabric0"}}, now);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].why, Why::kUnrelated);
  EXPECT_EQ(steps[0].ifindex, 9);
  EXPECT_EQ(steps[0].to, "rename9");
  EXPECT_EQ(steps[0].move, 0u);  // the move it makes room for
  EXPECT_EQ(run(steps, now), (std::map<std::string, int>{{"fabric0", 3}, {"rename9", 9}}));
}

TEST(RenameSolver, NoMovesNoSteps) { EXPECT_TRUE(solve_renames({}, {{"ib0", 4}}).empty()); }

}  // namespace
}  // namespace rp
