// Sweeps end to end in process (sim/sweep/): the variants and their errors, figures worked out
// by hand, a point's figures against run_simulation of the same variant written by hand, the
// same results on one thread or two, the confidence interval, and the results database.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "engine/config/config_errors.hpp"
#include "report/sweep_report.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_metrics.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_shards.hpp"
#include "sim/sweep/sweep_stats.hpp"
#include "sim/sweep/sweep_store.hpp"
#include "sim/sweep/sweep_summary.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "tests/sim/scenario_text.hpp"
#include "tests/sim/sweep/sweep_fixture.hpp"

namespace gantry {
namespace sweep_test {

using testing::kHandBase;
using testing::replace_first;
using testing::SweepFolder;

// Runs every run of `s` on `threads` threads; the results by (point, seed).
std::vector<SweepRunResult> run_all(const SweepSpec& s, unsigned threads) {
  const std::vector<ScenarioSpec> variants = build_sweep_variants(s);
  std::vector<SweepRunResult> out;
  SweepRunOptions o{.threads = threads,
                    .finished = [&](const SweepRunResult& r) { out.push_back(r); }};
  run_sweep(s, variants, o);
  std::sort(out.begin(), out.end(), [](const SweepRunResult& a, const SweepRunResult& b) {
    return std::pair(a.point, a.seed_index) < std::pair(b.point, b.seed_index);
  });
  return out;
}

class Sweep : public SweepFolder {
 protected:
  std::string variants_error(const std::string& spec) {
    try {
      build_sweep_variants(load_sweep_file(sweep(spec)));
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected an error for\n" << spec;
    return "";
  }
};

// Four 1-hour jobs at 0 s on 1, 2 and 4 one-GPU nodes (sweep_fixture.hpp):
//   1 node:  waits 0, 1, 2, 3 h -> mean 1.5 h = 5,400 s, max 3 h = 10,800 s;
//            completions 1, 2, 3, 4 h -> mean 2.5 h = 9,000 s
//   2 nodes: waits 0, 0, 1, 1 h -> mean 1,800 s, max 3,600 s; completions mean 1.5 h = 5,400 s
//   4 nodes: no wait; completions 3,600 s
// The GPUs are busy from the start to the last end on every size (4 GPU-hours of work on n
// GPUs over 4/n hours): allocation 100 %. Every seed gives the same (the jobs are explicit), so
// n = 3 and the interval is 0.
TEST_F(Sweep, FiguresWorkedOutByHand) {
  const SweepSpec s = load_sweep_file(sweep(R"(  seeds: 3
  axes:
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [1, 2, 4]}
  metrics: [wait.mean, wait.max, jct.mean, gpu.allocated, jobs.finished]
)"));
  const SweepSummary summary = summarize_sweep(s, run_all(s, 2));
  ASSERT_EQ(summary.points.size(), 3u);
  EXPECT_EQ(summary.runs_done, 9u);
  const double expected[3][5] = {
      {5400, 10800, 9000, 1, 4}, {1800, 3600, 5400, 1, 4}, {0, 0, 3600, 1, 4}};
  for (size_t p = 0; p < 3; ++p)
    for (size_t m = 0; m < 5; ++m) {
      EXPECT_NEAR(summary.points[p].metrics[m].mean, expected[p][m], 1e-6) << p << " " << m;
      EXPECT_EQ(summary.points[p].metrics[m].n, 3);
      EXPECT_NEAR(summary.points[p].metrics[m].ci95, 0, 1e-9);
    }
  const nlohmann::ordered_json j = sweep_json(s, summary);
  EXPECT_EQ(j["points"][1]["values"]["nodes"], "2");
  EXPECT_DOUBLE_EQ(j["points"][1]["metrics"]["wait.max"]["mean"].get<double>(), 3600);
  EXPECT_EQ(j["points"][1]["metrics"]["wait.max"]["n"], 3);
  EXPECT_EQ(j["runs"]["total"], 9);
}

// seeds: 1 reproduces run_simulation of the variant: quickstart with its placement and load
// edited by hand, seed 42 (the base's) and 43 (seed index 1).
TEST_F(Sweep, APointIsTheSimulationOfTheVariantWrittenByHand) {
  const std::string quickstart = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  const std::string text = read_text_file(quickstart);
  write("quickstart.yaml", text);
  const SweepSpec s = load_sweep_file(write("q.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: q}
spec:
  base: quickstart.yaml
  seeds: 2
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread]}
  - {name: load, path: "spec.workload.generators[0].meanInterarrival", values: [120s]}
  metrics: [wait.p95, jct.mean, gpu.allocated, goodput, jobs.unfinished]
)"));
  const std::vector<SweepRunResult> runs = run_all(s, 2);
  ASSERT_EQ(runs.size(), 4u);
  const std::string edited =
      replace_first(replace_first(text, "placement: binpack", "placement: spread"),
                    "meanInterarrival: 150s", "meanInterarrival: 120s");
  ScenarioSpec by_hand = load_scenario_text(edited, quickstart);
  for (int seed_index : {0, 1}) {
    by_hand.seed = 42 + seed_index;
    const SimulationRun run = run_simulation(by_hand);
    const SweepRunResult& point = runs[2 + seed_index];  // spread is the second point
    EXPECT_EQ(point.seed, by_hand.seed);
    EXPECT_EQ(point.fingerprint, trajectory_fingerprint(run.log));
    const RunSummary summary = summarize(run);
    EXPECT_EQ(point.metrics[0], summary.wait_s.p95);
    EXPECT_EQ(point.metrics[1], summary.jct_s.mean);
    EXPECT_EQ(point.metrics[2], summary.gpu_allocation_ratio);
    EXPECT_EQ(point.metrics[4], summary.jobs_total - summary.jobs_finished);
  }
  EXPECT_NE(runs[0].fingerprint, runs[1].fingerprint) << "seeds differ";
  EXPECT_NE(runs[0].fingerprint, runs[2].fingerprint) << "placements differ";
}

TEST_F(Sweep, TheSameResultsOnOneThreadOrTwo) {
  const std::string quickstart = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  write("quickstart.yaml", read_text_file(quickstart));
  const SweepSpec s = load_sweep_file(write("q.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: q}
spec:
  base: quickstart.yaml
  seeds: 3
  axes:
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [6, 8]}
)"));
  const std::vector<SweepRunResult> one = run_all(s, 1), two = run_all(s, 2);
  ASSERT_EQ(one.size(), 6u);
  ASSERT_EQ(two.size(), 6u);
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].fingerprint, two[i].fingerprint) << i;
    EXPECT_EQ(one[i].metrics, two[i].metrics) << i;
  }
}

// mean 3, s = √2.5 = 1.5811, t(0.975, 4) = 2.7764 (tables), half-width 2.7764 × 1.5811 / √5
// = 1.9632. A NaN (a run without the figure) is left out; one value has no interval.
TEST(SweepStats, StudentsIntervalByHand) {
  EXPECT_NEAR(student_t975(4), 2.7764, 1e-4);
  EXPECT_NEAR(student_t975(1), 12.7062, 1e-4);
  const MetricStats s = metric_stats({1, 2, NAN, 3, 4, 5});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.ci95, 1.9632, 1e-4);
  const MetricStats one = metric_stats({7});
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.mean, 7);
  EXPECT_TRUE(std::isnan(one.ci95));
  EXPECT_TRUE(std::isnan(metric_stats({NAN}).mean));
}

TEST_F(Sweep, AWrongValueIsNamedInTheSweepFileWithTheBaseField) {
  const std::string file = (dir_ / "sweep.yaml").string();
  EXPECT_EQ(variants_error(R"(  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, binpak]}
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [1, two]}
)"),
            file +
                ":7:70: spec.axes[0].values[1]: 'binpak' at spec.policy.placement of "
                "base.yaml: unknown placement policy 'binpak'; known: binpack, spread, "
                "topology, random, dotproduct, gpuclustering, gpupacking, bestfit, fgd\n" +
                file +
                ":8:68: spec.axes[1].values[1]: 'two' at spec.cluster.racks[0].nodes of "
                "base.yaml: expected an integer from 0 to 100000, got 'two'");
}

TEST_F(Sweep, APathTheBaseDoesNotHaveIsNamedWithTheBaseFile) {
  const std::string file = (dir_ / "sweep.yaml").string();
  EXPECT_EQ(variants_error("  axes:\n  - {name: p, path: \"spec.polcy[0].x\", values: [x]}\n"),
            file +
                ":7:21: spec.axes[0].path: spec.polcy[0].x: there is no field 'polcy' in "
                "spec (its fields: seed, start, cluster, workload, sim) in base.yaml");
  EXPECT_EQ(variants_error("  axes:\n  - {name: p, path: \"spec.cluster.racks[1].nodes\", "
                           "values: [2]}\n"),
            file +
                ":7:21: spec.axes[0].path: spec.cluster.racks[1].nodes: spec.cluster.racks "
                "has 1 item in base.yaml");
  // Absent fields are added, and the scenario's reader judges them, at the value.
  EXPECT_EQ(variants_error("  axes:\n  - {name: p, path: spec.polcy.placement, values: [x]}\n"),
            file +
                ":7:52: spec.axes[0].values[0]: 'x' at spec.polcy of base.yaml: unknown "
                "field 'polcy'; expected one of: seed, start, horizon, cluster, workload, "
                "policy, sim, failures, autoscaling");
  EXPECT_EQ(variants_error("  axes:\n  - {name: p, path: spec.sim.podStratup, values: [1s]}\n"),
            file +
                ":7:51: spec.axes[0].values[0]: '1s' at spec.sim.podStratup of base.yaml: "
                "unknown field 'podStratup'; expected one of: podStartup, restartDelay, "
                "serviceReportInterval");
}

TEST_F(Sweep, AnExperimentBaseIsRefusedAtTheBaseField) {
  write("experiment.yaml", R"(apiVersion: gantry.dev/v1
kind: Experiment
metadata: {name: e}
spec: {type: Fragmentation}
)");
  const std::string file = write("e.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: s}
spec:
  base: experiment.yaml
  axes:
  - {name: a, path: spec.seeds, values: [1, 2]}
)");
  try {
    build_sweep_variants(load_sweep_file(file));
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              file +
                  ":5:9: spec.base: experiment.yaml is an Experiment; a sweep varies a "
                  "Scenario (an Experiment lists its own variants, policies and seeds)");
  }
}

// A point whose values are each fine but make a scenario that is not: named at the point, with
// the base's field. One error however many points repeat it.
TEST_F(Sweep, AnInvalidCombinationIsNamedAtThePoint) {
  const std::string file = (dir_ / "sweep.yaml").string();
  const std::string e = variants_error(R"(  axes:
  - {name: gpus, path: "spec.workload.jobs[0].roles[0].resources.gpu", values: [1, 2]}
  - {name: seeds, path: spec.seed, values: [1, 2]}
  metrics: [cost.total, service.chat.p99]
)");
  EXPECT_NE(e.find(file +
                   ":8:45: spec.axes[1].values[0]: the point gpus=2, seeds=1 makes an "
                   "invalid scenario: " +
                   (dir_ / "base.yaml").string() +
                   ":16:96: spec.workload.jobs[0].roles[0].resources: no node class can hold "
                   "one pod of cpu 1000m, memory 1Gi, gpu 2"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find(file + ":9:12: spec.metrics: metric 'cost.total': base.yaml has no node "
                          "pools (spec.autoscaling), so nothing is priced"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("metric 'service.chat.p99': base.yaml has no service 'chat'"), std::string::npos)
      << e;
  size_t count = 0;
  for (size_t at = e.find("nothing is priced"); at != std::string::npos;
       at = e.find("nothing is priced", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << "reported once for the two valid points";
}

// The database holds a row per run as it is recorded; a resumed store keeps them, and one
// whose sweep or base changed is refused.
TEST_F(Sweep, TheStoreKeepsRunsAndRefusesAnotherSweep) {
  const std::string file = sweep(R"(  seeds: 2
  axes:
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [1, 2]}
)");
  const SweepSpec s = load_sweep_file(file);
  const std::string db = (dir_ / "results.db").string();
  const std::string text = read_text_file(file);
  const std::vector<SweepRunResult> all = run_all(s, 1);
  {
    SweepStore store(db, s, text, kHandBase, false);
    store.record(all[0]);
    store.record(all[3]);
  }
  SweepStore resumed(db, s, text, kHandBase, true);
  const std::vector<SweepRunResult> kept = resumed.runs();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].point, 1u);
  EXPECT_EQ(kept[1].seed_index, 1);
  EXPECT_EQ(kept[1].fingerprint, all[3].fingerprint);
  EXPECT_EQ(kept[1].metrics, all[3].metrics);
  EXPECT_THROW(SweepStore(db, s, text + "# changed\n", kHandBase, true), GantryError);
  EXPECT_THROW(SweepStore(db, s, text, std::string(kHandBase) + "# changed\n", true), GantryError);
  SweepStore fresh(db, s, text, kHandBase, false);
  EXPECT_TRUE(fresh.runs().empty()) << "without resume, a new sweep starts empty";
}

TEST_F(Sweep, TheTextReportHasATablePerMetric) {
  const SweepSpec s = load_sweep_file(sweep(R"(  seeds: 2
  axes:
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [1, 2]}
  metrics: [wait.max, gpu.allocated]
)"));
  const std::string text = sweep_text_report(s, summarize_sweep(s, run_all(s, 1)));
  EXPECT_EQ(text,
            "sweep s: 2 points × 2 seeds of base.yaml; runs 4 of 4\n"
            "\n"
            "wait.max\n"
            "  nodes  mean   ± 95% CI  n\n"
            "  1      3h00m  ± 0s      2\n"
            "  2      1h00m  ± 0s      2\n"
            "\n"
            "gpu.allocated\n"
            "  nodes  mean     ± 95% CI  n\n"
            "  1      100.0 %  ± 0.0 %   2\n"
            "  2      100.0 %  ± 0.0 %   2\n");
  const std::vector<NamedChart> charts = sweep_charts(s, summarize_sweep(s, run_all(s, 1)));
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].file, "wait.max.svg");
  EXPECT_NE(charts[0].svg.find("wait.max (hours)"), std::string::npos);
}

// 10 runs in 4 shards: 3, 3, 2, 2 (the first ones the larger), in order, each run once.
TEST(SweepShards, SplitCoversEveryRunOnceInOrder) {
  const std::vector<ShardRange> s = split_runs(10, 4);
  ASSERT_EQ(s.size(), 4u);
  const size_t sizes[] = {3, 3, 2, 2};
  size_t next = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    EXPECT_EQ(s[k].begin, next);
    EXPECT_EQ(s[k].end - s[k].begin, sizes[k]);
    next = s[k].end;
  }
  EXPECT_EQ(next, 10u);
  EXPECT_EQ(split_runs(3, 5).size(), 3u) << "no empty shard";
  EXPECT_TRUE(split_runs(0, 4).empty());
  ASSERT_EQ(split_runs(7, 0).size(), 1u);
  EXPECT_EQ(split_runs(7, 0)[0].end, 7u);
  SweepSpec sweep;
  sweep.seeds = 3;
  EXPECT_EQ(run_at(sweep, 0), (std::pair<size_t, int>{0, 0}));
  EXPECT_EQ(run_at(sweep, 5), (std::pair<size_t, int>{1, 2}));
  EXPECT_EQ(run_at(sweep, 6), (std::pair<size_t, int>{2, 0}));
}

}  // namespace sweep_test
}  // namespace gantry
