// The plan's answer on an M/M/c queue is Erlang C's (plan_fixture.hpp has the arithmetic).
// About 5 s optimised (20,000 jobs per run: fewer start the queue empty for too long a share
// of the run, and the mean wait comes out 10-15 % low), so labelled slow: the sanitizer pass
// leaves it to the optimised build.

#include <gtest/gtest.h>

#include "tests/sim/plan/plan_fixture.hpp"

namespace gantry {
namespace plan_queueing_test {

using testing::kMmcBase;

class Plan : public testing::PlanFolder {};

TEST_F(Plan, MmcAnswersAreErlangCs) {
  const PlanSpec plan = load_plan_file(plan_file(kMmcBase, R"(  forecast: {growth: [1.0, 1.5]}
  pools:
  - {class: box, min: 1, max: 32, pricePerNodeHour: 1}
  slo: {wait.mean: 6m}
)"));
  const PlanVariants variants(plan);
  const PlanRun run = run_plan(plan, variants, 2);
  ASSERT_EQ(run.result.steps.size(), 2u);
  const auto wait = [](const PlanEvaluation& e) { return e.slos[0].stats.mean; };
  const PlanStepResult& now = run.result.steps[0];
  ASSERT_NE(now.answer, nullptr);
  EXPECT_EQ(now.answer->sizes, std::vector<int64_t>{9});
  EXPECT_DOUBLE_EQ(now.answer->cost_per_hour, 9);
  EXPECT_NEAR(wait(*now.answer), 235.2, 0.1 * 235.2);
  EXPECT_EQ(neighbour(now, 0).sizes, std::vector<int64_t>{8});
  EXPECT_FALSE(neighbour(now, 0).feasible);
  EXPECT_NEAR(wait(neighbour(now, 0)), 642.6, 0.1 * 642.6);
  const PlanStepResult& later = run.result.steps[1];
  ASSERT_NE(later.answer, nullptr);
  EXPECT_EQ(later.answer->sizes, std::vector<int64_t>{12});
  EXPECT_NEAR(wait(*later.answer), 319.2, 0.1 * 319.2);
  EXPECT_NEAR(wait(neighbour(later, 0)), 774.8, 0.1 * 774.8);
  // Bisection over 1..32, not the grid: fewer than the 32 × 3 × 2 runs of every size.
  EXPECT_LT(run.result.simulations, 96u);
  EXPECT_EQ(run.result.full_grid_simulations, 192);
}

}  // namespace plan_queueing_test
}  // namespace gantry
