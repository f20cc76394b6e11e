// Capacity plans (sim/plan/): answers worked out by hand (Erlang C for an M/M/c queue; a
// deterministic batch on two priced pools), the evidence of minimality, an SLO nothing meets,
// services' SLOs, determinism, and the plan file's errors.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/config/config_errors.hpp"
#include "report/plan_report.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_run.hpp"
#include "tests/sim/sweep/sweep_fixture.hpp"

namespace gantry {
namespace plan_test {

using testing::SweepFolder;

// M/M/c: Poisson arrivals every 10 min on average (λ = 6/h), exponential service of mean 1 h
// (3,600 steps of 1 s, steps: {mean: 3600}; μ = 1/h), one 1-GPU node per server, no start-up
// time: offered load a = λ/μ = 6 Erlangs. Erlang C, C(c, a) = [a^c/c! · c/(c−a)] /
// [Σ_{k<c} a^k/k! + a^c/c! · c/(c−a)], mean wait W_q = C(c, a) / (cμ − λ):
//   a = 6: c = 8 -> 642.6 s, c = 9 -> 235.2 s
//   a = 9 (growth 1.5): c = 11 -> 774.8 s, c = 12 -> 319.2 s
// With the SLO mean wait <= 6 min (360 s) the answers are 9 and 12 nodes.
const char* kMmcBase = R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: mmc}
spec:
  seed: 1
  start: 2026-01-01T00:00:00Z
  cluster:
    fabric: {kind: InfiniBand}
    storage: {bandwidth: 100GB/s}
    nodeClasses:
    - {name: box, cpu: "64", memory: 512Gi, gpu: {type: A100-80G, count: 1}, nic: 200Gbps}
    racks:
    - {name: r1, class: box, nodes: 8}
  workload:
    generators:
    - kind: Poisson
      name: m
      count: 20000
      meanInterarrival: 10m
      mix:
      - {weight: 1, gpus: 1, gpusPerPod: 1, steps: {mean: 3600}, stepCompute: 1s, gradientSize: 0}
  sim: {podStartup: 0s}
)";

// Eight 1-hour 1-GPU jobs at 0 s on 1-GPU nodes of two classes, the same GPU: n nodes in all
// give waits of 0, 1, 2, ... h in groups of n, so wait.max <= 1 h needs n >= 4.
std::string eight_jobs_base() {
  std::string jobs;
  for (int i = 0; i < 8; ++i)
    jobs += "    - {name: j" + std::to_string(i) +
            ", submit: 0s, framework: PyTorch, roles: [{kind: Worker, replicas: 1, resources: "
            "{cpu: 1, memory: 1Gi, gpu: 1}}], work: {steps: 3600, stepCompute: 1s, "
            "gradientSize: 0}}\n";
  return R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: eight}
spec:
  seed: 7
  start: 2026-01-01T00:00:00Z
  cluster:
    fabric: {kind: InfiniBand}
    storage: {bandwidth: 100GB/s}
    nodeClasses:
    - {name: cheap, cpu: "64", memory: 512Gi, gpu: {type: A100-80G, count: 1}, nic: 200Gbps}
    - {name: pricey, cpu: "64", memory: 512Gi, gpu: {type: A100-80G, count: 1}, nic: 200Gbps}
    racks:
    - {name: r1, class: cheap, nodes: 1}
    - {name: r2, class: pricey, nodes: 1}
  workload:
    jobs:
)" + jobs +
         "  sim: {podStartup: 0s}\n";
}

class Plan : public SweepFolder {
 protected:
  std::string plan_file(const std::string& base, const std::string& spec) {
    write("plan-base.yaml", base);
    return write("plan.yaml",
                 "apiVersion: gantry.dev/v1\nkind: Plan\nmetadata: {name: p}\nspec:\n  base: "
                 "plan-base.yaml\n" +
                     spec);
  }
  std::string error(const std::string& base, const std::string& spec) {
    try {
      const PlanSpec plan = load_plan_file(plan_file(base, spec));
      PlanVariants variants(plan);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected an error for\n" << spec;
    return "";
  }
  const PlanEvaluation& neighbour(const PlanStepResult& step, size_t pool) {
    for (const PlanNeighbour& n : step.neighbours)
      if (n.pool == pool) return *n.evaluation;
    ADD_FAILURE() << "no neighbour for pool " << pool;
    return *step.largest;
  }
};

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
  const PlanSpec plan = load_plan_file(plan_file(kMmcBase, R"(  pools:
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

}  // namespace plan_test
}  // namespace gantry
