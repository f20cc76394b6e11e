// The serving what-ifs shipped in scenarios/serving/ (issue #14): each result their opening
// comments state.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "adapters/traces/trace_ref_loader.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "tests/scenarios/allocation_invariant.hpp"

namespace gantry {
namespace {

ServiceReport run_service(const std::string& name) {
  const SimulationRun run = testing::run_checked(
      load_scenario_file(std::string(GANTRY_SOURCE_DIR) + "/scenarios/" + name, trace_loaders()),
      name);
  EXPECT_EQ(run.services.size(), 1u);
  return run.services.front();
}

// The intervals after the first `skip` (the first cold starts) as one figure: the share of
// requests within the SLO.
double steady_slo(const ServiceReport& s, size_t skip) {
  double within = 0, served = 0;
  for (size_t i = skip; i < s.intervals.size(); ++i) {
    within += s.intervals[i].slo_attainment * static_cast<double>(s.intervals[i].served);
    served += static_cast<double>(s.intervals[i].served);
  }
  return within / served;
}

TEST(ServingScenarios, HpaOnGpuUtilisationHoldsItsMaximumWhereKpaFlaps) {
  const ServiceReport hpa = run_service("serving/hpa-vs-kpa-hpa.yaml");
  const ServiceReport kpa = run_service("serving/hpa-vs-kpa-kpa.yaml");
  EXPECT_EQ(hpa.requests, kpa.requests);  // the same trace, looped over the same 6 hours
  // HPA: 12 replicas ready from about 10 minutes on, no cold start after that.
  ASSERT_GT(hpa.intervals.size(), 10u);
  for (size_t i = 3; i < hpa.intervals.size(); ++i) {
    EXPECT_DOUBLE_EQ(hpa.intervals[i].ready_replicas, 12.0) << "interval " << i;
    EXPECT_EQ(hpa.intervals[i].cold_starts, 0) << "interval " << i;
  }
  EXPECT_EQ(hpa.cold_starts, 12);
  // KPA: fewer GPU-hours, many more cold starts, fewer requests within the SLO.
  EXPECT_LT(kpa.gpu_hours, 0.9 * hpa.gpu_hours);
  EXPECT_GT(kpa.cold_starts, 50 * hpa.cold_starts);
  EXPECT_GT(steady_slo(hpa, 2), 0.94);
  EXPECT_LT(steady_slo(kpa, 2), steady_slo(hpa, 2) - 0.05);
  // Knative's scale-down-delay (5 min) stops the flapping: under a fifth of the cold starts,
  // the HPA's share within the SLO, still fewer GPU-hours than the HPA.
  const ServiceReport delayed = run_service("serving/hpa-vs-kpa-kpa-delay.yaml");
  EXPECT_LT(delayed.cold_starts, kpa.cold_starts / 5);
  EXPECT_GT(steady_slo(delayed, 2), steady_slo(hpa, 2) - 0.01);
  EXPECT_LT(delayed.gpu_hours, 0.95 * hpa.gpu_hours);
}

TEST(ServingScenarios, TheModelCacheHalvesTheColdStartsOfAServiceAtZero) {
  const ServiceReport cache = run_service("serving/scale-to-zero-cache.yaml");
  const ServiceReport none = run_service("serving/scale-to-zero-nocache.yaml");
  // The same requests (the same seed and Poisson load) and mostly cold starts.
  EXPECT_EQ(cache.requests, none.requests);
  EXPECT_GT(cache.cold_starts, cache.requests / 2);
  // Cold starts: the load alone (25 s) with the cache, download + load (26 + 25 s) without;
  // the first one pulls the image too (40 + 26 + 25 s) either way.
  EXPECT_DOUBLE_EQ(cache.cold_start_s.percentile(50), 25.0);
  EXPECT_DOUBLE_EQ(none.cold_start_s.percentile(50), 51.0);
  EXPECT_DOUBLE_EQ(cache.cold_start_s.max(), 91.0);
  // A request at zero waits for podStartup (5 s) + the cold start, then its 1.19 s of work.
  EXPECT_NEAR(cache.p50_s, 5 + 25 + 1.195, 31.2 / 64);
  EXPECT_NEAR(none.p50_s, 5 + 51 + 1.195, 57.2 / 64);
}

TEST(ServingScenarios, ACanaryAtTenPercentServesTenPercent) {
  const ServiceReport s = run_service("serving/canary-10.yaml");
  ASSERT_EQ(s.predictors.size(), 2u);
  EXPECT_EQ(s.predictors[0].traffic_percent, 90);
  EXPECT_EQ(s.predictors[1].traffic_percent, 10);
  // Binomial share: n ≈ 432,000, σ = sqrt(n · 0.1 · 0.9) ≈ 197, 4 σ ≈ 790.
  const auto n = static_cast<double>(s.requests);
  EXPECT_NEAR(static_cast<double>(s.predictors[1].requests), 0.1 * n, 790.0);
  // The canary's requests take 1.30 s on its half-GPU replicas, v1's 1.19 s (bucket midpoints).
  EXPECT_NEAR(s.predictors[0].p99_s, 1.195, 1.195 / 64);
  EXPECT_NEAR(s.predictors[1].p99_s, 1.303, 1.303 / 64);
}

// Cold starts in three tiers, as the Alibaba GenAI 2026 trace's base-model loads fall
// (scenarios/data/alibaba-genai/basemodel_update_latency.csv): the share of loads under 8 s
// (the model on the node: load only), from 8 s to 29 s (image there, model downloaded) and
// above (a fresh node: image pull too).
struct Tiers {
  double fast = 0, middle = 0, slow = 0;
};
Tiers tiers_of(const std::vector<double>& seconds) {
  Tiers t;
  for (double s : seconds) (s < 8 ? t.fast : s < 29 ? t.middle : t.slow) += 1;
  const auto n = static_cast<double>(seconds.size());
  return {t.fast / n, t.middle / n, t.slow / n};
}

TEST(ServingScenarios, ColdStartsFallInTheGenAiTracesTiers) {
  std::ifstream in(std::string(GANTRY_SOURCE_DIR) +
                   "/scenarios/data/alibaba-genai/basemodel_update_latency.csv");
  std::string line;
  std::getline(in, line);  // timestamp_anon,value,container_ip
  std::vector<double> trace;
  while (std::getline(in, line)) trace.push_back(std::stod(line.substr(line.find(',') + 1)) / 1000);
  ASSERT_EQ(trace.size(), 7531u);
  const Tiers want = tiers_of(trace);
  const ServiceReport s = run_service("serving/genai-cold-starts.yaml");
  const Tiers got = tiers_of(s.cold_start_s.samples());
  // The trace's shares, computed here from the file: 35.3 %, 26.6 %, 38.1 %.
  EXPECT_NEAR(want.fast, 0.353, 0.001);
  EXPECT_NEAR(want.middle, 0.266, 0.001);
  EXPECT_NEAR(want.slow, 0.381, 0.001);
  // The simulation's, from hundreds of cold starts: within 8 points each.
  EXPECT_GT(s.cold_starts, 500);
  EXPECT_NEAR(got.fast, want.fast, 0.08);
  EXPECT_NEAR(got.middle, want.middle, 0.08);
  EXPECT_NEAR(got.slow, want.slow, 0.08);
  // The tiers' durations are the scenario's parameters: load, + download, + image pull.
  EXPECT_DOUBLE_EQ(s.cold_start_s.min(), 2.8);
  EXPECT_DOUBLE_EQ(s.cold_start_s.max(), 2.8 + 19 + 15);
}

}  // namespace
}  // namespace gantry
