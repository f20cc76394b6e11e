// Capacity plans (sim/plan/): a deterministic batch on two priced pools worked out by hand, the
// evidence of minimality, an SLO nothing meets, services' SLOs, determinism, and the plan
// file's errors. Erlang C's answers for an M/M/c queue: plan_queueing_test.cpp.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/config/config_errors.hpp"
#include "report/plan_report.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_run.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "tests/sim/plan/plan_fixture.hpp"

namespace gantry {
namespace plan_test {

using testing::eight_jobs_base;
using testing::kGrownMmcPlan;
using testing::kMmcBase;
using testing::mmc_base;

class Plan : public testing::PlanFolder {};

// Two pools, one node of either doing the same work: 4 nodes are needed; the cheap pool
// holds at most 2, so the cheapest is cheap 2 + pricey 2 = 2 × $1 + 2 × $3 = $8/hour (all
// pricey, 4 × $3 = $12). One node fewer in either pool leaves 3 nodes: waits up to 2 h.
TEST_F(Plan, TwoPricedPoolsByHand) {
  const PlanSpec plan = load_plan_file(plan_file(eight_jobs_base(), R"(  pools:
  - {class: cheap, min: 0, max: 2, pricePerNodeHour: 1}
  - {class: pricey, min: 0, max: 16, pricePerNodeHour: 3}
  slo: {wait.max: 1h}
)"));
  const PlanVariants variants(plan);
  const PlanRun run = run_plan(plan, variants, 1);
  const PlanStepResult& step = run.result.steps[0];
  ASSERT_NE(step.answer, nullptr);
  EXPECT_EQ(step.answer->sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_DOUBLE_EQ(step.answer->cost_per_hour, 8);
  EXPECT_DOUBLE_EQ(step.answer->slos[0].stats.mean, 3600);
  EXPECT_DOUBLE_EQ(step.answer->slos[0].pessimistic, 3600) << "every seed alike: no spread";
  ASSERT_EQ(step.neighbours.size(), 2u);
  EXPECT_EQ(neighbour(step, 0).sizes, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(neighbour(step, 1).sizes, (std::vector<int64_t>{2, 1}));
  for (const PlanNeighbour& n : step.neighbours)
    EXPECT_DOUBLE_EQ(n.evaluation->slos[0].stats.mean, 7200);
  // The frontier: cost ascending, p95 wait strictly falling.
  for (size_t i = 1; i < step.frontier.size(); ++i) {
    EXPECT_GT(step.frontier[i]->cost_per_hour, step.frontier[i - 1]->cost_per_hour);
    EXPECT_LT(step.frontier[i]->stats.back().mean, step.frontier[i - 1]->stats.back().mean);
  }
  const std::string text =
      plan_text_report(plan, variants.slos(), run.evaluators[0]->metrics(), run.result);
  EXPECT_NE(text.find("growth 1×: cheap 2, pricey 2 — $8.00/hour"), std::string::npos) << text;
  EXPECT_NE(text.find("cheap 1, pricey 2 ($7.00/hour): wait.max 2h00m > 1h00m"), std::string::npos)
      << text;
}

// Two nodes at most: waits 0, 0, 1, 1, 2, 2, 3, 3 h, so wait.max is 3 h, 2 h over its limit.
TEST_F(Plan, AnSloNothingMeetsIsAnAnswerWithTheShortfall) {
  const PlanSpec plan = load_plan_file(plan_file(eight_jobs_base(), R"(  pools:
  - {class: cheap, min: 0, max: 1, pricePerNodeHour: 1}
  - {class: pricey, min: 0, max: 1, pricePerNodeHour: 3}
  slo: {wait.max: 1h}
)"));
  const PlanVariants variants(plan);
  const PlanRun run = run_plan(plan, variants, 1);
  EXPECT_EQ(run.result.steps[0].answer, nullptr);
  const nlohmann::ordered_json j =
      plan_json(plan, variants.slos(), run.evaluators[0]->metrics(), run.result);
  EXPECT_TRUE(j["steps"][0]["answer"].is_null());
  ASSERT_EQ(j["steps"][0]["unmet"].size(), 1u);
  EXPECT_EQ(j["steps"][0]["unmet"][0]["metric"], "wait.max");
  EXPECT_DOUBLE_EQ(j["steps"][0]["unmet"][0]["by"].get<double>(), 7200);
  const std::string text =
      plan_text_report(plan, variants.slos(), run.evaluators[0]->metrics(), run.result);
  EXPECT_NE(text.find("wait.max is 3h00m (pessimistic 3h00m), 2h00m over its limit of 1h00m"),
            std::string::npos)
      << text;
}

TEST_F(Plan, TheSameAnswerOnOneThreadOrTwo) {
  const PlanSpec plan = load_plan_file(plan_file(mmc_base(2000), R"(  pools:
  - {class: box, min: 6, max: 14, pricePerNodeHour: 1}
  slo: {wait.p95: 30m}
)"));
  const PlanVariants variants(plan);
  const PlanRun one = run_plan(plan, variants, 1), two = run_plan(plan, variants, 2);
  EXPECT_EQ(plan_json(plan, variants.slos(), one.evaluators[0]->metrics(), one.result).dump(),
            plan_json(plan, variants.slos(), two.evaluators[0]->metrics(), two.result).dump());
}

// A service's own SLO (slo.p99Latency: 3s in canary-10) is planned without being restated.
TEST_F(Plan, ServicesArePlannedByTheirOwnSlo) {
  const std::string canary =
      read_text_file(std::string(GANTRY_SOURCE_DIR) + "/scenarios/serving/canary-10.yaml");
  const PlanSpec plan = load_plan_file(plan_file(canary, R"(  pools:
  - {class: a10x4, min: 1, max: 6, pricePerNodeHour: 4}
)"));
  const PlanVariants variants(plan);
  ASSERT_EQ(variants.slos().size(), 1u);
  EXPECT_EQ(variants.slos()[0].metric, "service.chat.p99");
  EXPECT_DOUBLE_EQ(variants.slos()[0].limit, 3);
  EXPECT_TRUE(variants.slos()[0].from_service);
  const PlanRun run = run_plan(plan, variants, 2);
  const PlanStepResult& step = run.result.steps[0];
  ASSERT_NE(step.answer, nullptr);
  EXPECT_LE(step.answer->slos[0].pessimistic, 3);
  for (const PlanNeighbour& n : step.neighbours) EXPECT_FALSE(n.evaluation->feasible);
}

TEST_F(Plan, MistakesAreNamedAtTheirLine) {
  const std::string file = (dir_ / "plan.yaml").string();
  EXPECT_EQ(error(kMmcBase,
                  "  pools:\n  - {class: gpu, min: 1, max: 4, pricePerNodeHour: 1}\n"
                  "  slo: {wait.p95: 1h}\n"),
            file +
                ":7:5: spec.pools[0].class: plan-base.yaml declares no node class 'gpu' (its "
                "classes: box)");
  EXPECT_EQ(error(kMmcBase,
                  "  pools:\n  - {class: box, min: 4, max: 2, pricePerNodeHour: 1}\n"
                  "  slo: {wait.p95: 1h}\n"),
            file + ":7:31: spec.pools[0].max: max (2) is below min (4)");
  EXPECT_EQ(error(kMmcBase,
                  "  pools:\n  - {class: box, min: 1, max: 2, pricePerNodeHour: 1}\n"
                  "  slo: {goodput: 1.5}\n"),
            file + ":8:18: spec.slo.goodput: expected a number from 0 to 1, got '1.5'");
  EXPECT_EQ(error(kMmcBase,
                  "  pools:\n  - {class: box, min: 1, max: 2, pricePerNodeHour: 1}\n"
                  "  slo: {wait.p95: soon}\n"),
            file +
                ":8:19: spec.slo.wait.p95: expected a duration such as 90s, 1h30m or 500ms, "
                "got 'soon'");
  EXPECT_EQ(error(kMmcBase, "  pools:\n  - {class: box, min: 1, max: 2, pricePerNodeHour: 1}\n"),
            file +
                ":5:9: spec.slo: nothing to plan for: give spec.slo (e.g. {wait.p95: 1h}), or "
                "an slo to a service of plan-base.yaml");
  EXPECT_NE(error(kMmcBase,
                  "  pools:\n  - {class: box, min: 1, max: 2, pricePerNodeHour: 1}\n"
                  "  slo: {wait.p96: 1h}\n")
                .find(file + ":8:9: spec.slo.wait.p96: unknown metric 'wait.p96'"),
            std::string::npos);
}

// The seam `gantry plan --on kubernetes` uses: every run goes through the runner, round by
// round, with the seeds the local evaluator uses (the base's spec.seed 1 + the seed index), and
// what the runner answers is what the plan judges.
TEST_F(Plan, AnInjectedRunnerRunsEveryRoundWithTheLocalSeeds) {
  const PlanSpec plan = load_plan_file(plan_file(mmc_base(200), kGrownMmcPlan));
  const PlanVariants variants(plan);
  std::vector<PlanBatch> batches;
  const PlanBatchRunner local = local_plan_runner(1);
  const PlanRun seen = run_plan(plan, variants, [&](const PlanBatch& batch) {
    batches.push_back(batch);
    return local(batch);
  });
  const PlanRun plain = run_plan(plan, variants, 1);
  EXPECT_EQ(plan_json(plan, variants.slos(), seen.evaluators[0]->metrics(), seen.result).dump(),
            plan_json(plan, variants.slos(), plain.evaluators[0]->metrics(), plain.result).dump());
  ASSERT_GE(batches.size(), 2u);
  // Round 1: the largest configuration (16 nodes) at seeds 1 and 2.
  ASSERT_EQ(batches[0].runs.size(), 2u);
  EXPECT_EQ(batches[0].round, 1u);
  EXPECT_EQ(batches[0].growth, 1.5);
  EXPECT_EQ(batches[0].runs[0].sizes, (std::vector<int64_t>{16}));
  EXPECT_EQ(batches[0].runs[0].seed, 1u);
  EXPECT_EQ(batches[0].runs[1].seed, 2u);
  size_t runs = 0, more_seeds = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    EXPECT_EQ(batches[i].round, i + 1);
    runs += batches[i].runs.size();
    // A round of added seeds (an interval straddled the limit): seeds 3 and 4.
    if (batches[i].runs.front().seed == 3) {
      ++more_seeds;
      EXPECT_EQ(batches[i].runs.back().seed, 4u);
    }
  }
  EXPECT_EQ(runs, seen.result.simulations);
  EXPECT_GE(more_seeds, 1u) << "the answer, 13 nodes, is judged at 4 seeds";
}

// A batch as `gantry plan --on kubernetes` writes it (a Sweep of the plan's base: the racks
// and the seed at their paths, the growth in spec.growth) simulates exactly the plan's own
// scenario: the same trajectory, event for event.
TEST_F(Plan, ASweepPointWithTheRacksSeedAndGrowthIsThePlansScenario) {
  const PlanSpec plan = load_plan_file(plan_file(mmc_base(200), kGrownMmcPlan));
  const PlanVariants variants(plan);
  const std::vector<int64_t> sizes{11};
  const SweepSpec sweep = load_sweep_file(write("batch.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: batch}
spec:
  base: plan-base.yaml
  growth: 1.5
  axes:
  - {name: racks, path: spec.cluster.racks}
  - {name: runSeed, path: spec.seed}
  points:
  - {racks: )" + variants.racks_yaml(sizes) + R"(, runSeed: 3}
)"));
  const std::vector<ScenarioSpec> points = build_sweep_variants(sweep);
  ASSERT_EQ(points.size(), 1u);
  ScenarioSpec planned = variants.scenario(1.5, sizes);
  planned.seed += 2;  // seed index 2 of the base's seed 1
  // 200 jobs × 1.5 = 300 jobs, every 10 min / 1.5 = 400 s.
  EXPECT_EQ(points[0].workload.generators[0].count, 300);
  EXPECT_EQ(points[0].workload.generators[0].mean_interarrival, Duration::from_seconds(400));
  EXPECT_EQ(points[0].seed, 3u);
  EXPECT_EQ(trajectory_fingerprint(run_simulation(points[0]).log),
            trajectory_fingerprint(run_simulation(planned).log));
}

TEST_F(Plan, ASweepsGrowthOutOfBoundsIsAnErrorAtItsLine) {
  const auto error = [&](const std::string& base, const std::string& growth) -> std::string {
    write("g-base.yaml", base);
    const std::string file = write("g.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: g}
spec:
  base: g-base.yaml
  growth: )" + growth + R"(
  axes:
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [1]}
)");
    try {
      build_sweep_variants(load_sweep_file(file));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string file = (dir_ / "g.yaml").string();
  EXPECT_NE(error(kMmcBase, "0").find(file + ":6:11: spec.growth: "), std::string::npos)
      << error(kMmcBase, "0");
  // 20,000 jobs × 60 = 1,200,000, past a scenario's 1,000,000.
  EXPECT_NE(error(kMmcBase, "60")
                .find(file + ":6:11: spec.growth: growth 60 makes 1200000 jobs "
                             "at the point nodes=1; a scenario has at most "
                             "1000000"),
            std::string::npos)
      << error(kMmcBase, "60");
  EXPECT_EQ(error(kMmcBase, "50"), "no error") << "20,000 × 50 = 1,000,000 jobs: the limit";
}

}  // namespace plan_test
}  // namespace gantry
