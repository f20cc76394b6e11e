// The shipped sweeps and plans (scenarios/sweeps/, scenarios/plans/) do what their headers
// promise.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_run.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_summary.hpp"
#include "sim/sweep/sweep_variants.hpp"

namespace gantry {
namespace shipped_sweeps_test {

std::string shipped(const std::string& name) {
  return std::string(GANTRY_SOURCE_DIR) + "/scenarios/" + name;
}

// placement-vs-load.yaml: 3 placements × 3 loads × 3 rack sizes, 5 seeds. The mean p95 wait
// falls (or stays) as racks grow and as arrivals thin out, for every placement, and spread
// waits longest at every (load, size).
TEST(ShippedSweeps, PlacementVsLoadKeepsItsPromises) {
  const SweepSpec s = load_sweep_file(shipped("sweeps/placement-vs-load.yaml"));
  ASSERT_EQ(s.points.size(), 27u);
  ASSERT_EQ(s.metrics.front(), "wait.p95");
  std::vector<SweepRunResult> runs;
  run_sweep(s, build_sweep_variants(s),
            {.threads = 2, .finished = [&](const SweepRunResult& r) { runs.push_back(r); }});
  const SweepSummary summary = summarize_sweep(s, runs);
  ASSERT_EQ(summary.runs_done, 135u);
  // p95[placement][load][nodes], in the file's value order (load 90s, 120s, 150s; nodes 6, 8, 10).
  double p95[3][3][3];
  for (const SweepPointSummary& p : summary.points)
    p95[p.point / 9][(p.point / 3) % 3][p.point % 3] = p.metrics[0].mean;
  for (int placement = 0; placement < 3; ++placement)
    for (int load = 0; load < 3; ++load)
      for (int nodes = 0; nodes < 3; ++nodes) {
        if (nodes > 0) {
          EXPECT_LE(p95[placement][load][nodes], p95[placement][load][nodes - 1])
              << s.points[static_cast<size_t>(placement * 9 + load * 3 + nodes)].values[0].text;
        }
        if (load > 0) {
          EXPECT_LE(p95[placement][load][nodes], p95[placement][load - 1][nodes]);
        }
        if (placement != 1) {
          EXPECT_GT(p95[1][load][nodes], p95[placement][load][nodes]) << "spread waits longest";
        }
      }
}

// next-year.yaml at its first forecast step: an answer whose SLO holds, each pool's next
// cheaper neighbour missing it, found with a small part of the grid's simulations.
TEST(ShippedPlans, NextYearAnswersItsFirstStepWithEvidence) {
  PlanSpec plan = load_plan_file(shipped("plans/next-year.yaml"));
  ASSERT_EQ(plan.growth, (std::vector<double>{1.0, 1.25, 1.5}));
  plan.growth = {1.0};
  const PlanVariants variants(plan);
  const PlanRun run = run_plan(plan, variants, 2);
  const PlanStepResult& step = run.result.steps.front();
  ASSERT_NE(step.answer, nullptr);
  EXPECT_TRUE(step.answer->feasible);
  EXPECT_LE(step.answer->slos[0].pessimistic, 1800);
  ASSERT_EQ(step.neighbours.size(), 2u);
  for (const PlanNeighbour& n : step.neighbours) EXPECT_FALSE(n.evaluation->feasible);
  EXPECT_LT(static_cast<double>(run.result.simulations), 0.1 * run.result.full_grid_simulations);
}

TEST(ShippedSweeps, EveryShippedSweepAndPlanIsCovered) {
  int sweeps = 0, plans = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::string(GANTRY_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\nkind: Sweep") != std::string::npos) ++sweeps;
    if (text.find("\nkind: Plan") != std::string::npos) ++plans;
  }
  EXPECT_EQ(sweeps, 1) << "add a test above for the new sweep's promised result";
  EXPECT_EQ(plans, 1) << "add a test above for the new plan's promised result";
}

}  // namespace shipped_sweeps_test
}  // namespace gantry
