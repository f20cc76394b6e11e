// scenarios/llama3-failures-30d.yaml against the published failure rate it is built from:
// Llama 3's 419 unexpected interruptions in 54 days on 16,384 H100 GPUs (A. Dubey et al., "The
// Llama 3 Herd of Models", arXiv:2407.21783, §3.3.4, Table 5). Labelled slow (a 30-day run of
// 20,000 jobs on 16,384 GPUs).

#include <gtest/gtest.h>

#include <cmath>

#include "sim/reliability_summary.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "tests/scenarios/allocation_invariant.hpp"

namespace gantry {
namespace {

TEST(FailureScenario, Llama3RateOn16kGpusFor30Days) {
  const SimulationRun run = testing::run_checked(
      load_scenario_file(std::string(GANTRY_SOURCE_DIR) + "/scenarios/llama3-failures-30d.yaml"),
      "llama3-failures-30d.yaml");
  const ReliabilitySummary r = summarize_reliability(run.log);
  // Interruptions: 419 × 30 / 54 = 232.8 expected; a Poisson count, so ±4σ = ±4·√232.8 = ±61.
  const double expected = 419.0 * 30 / 54;
  EXPECT_NEAR(static_cast<double>(r.fault_events), expected, 4 * std::sqrt(expected));
  // A job on k GPUs sees an interruption every 54 d / 419 × 16,384 / k: for the rigid 256-GPU
  // jobs (the only ones of 65–512 GPUs) 3.0931 h × 64 = 197.96 h. The estimate from n failures
  // has a relative standard error of 1/√n; allow 4 of them.
  const double cluster_mtbf_h = 54.0 * 24 / 419;
  bool seen = false;
  for (const SizeClassReliability& c : r.by_size) {
    if (c.min_gpus != 65) continue;
    seen = true;
    ASSERT_GT(c.failures, 20);
    const double want = cluster_mtbf_h * 16384 / 256;
    EXPECT_NEAR(c.mtbf_hours, want, 4 * want / std::sqrt(static_cast<double>(c.failures)))
        << c.failures << " failures";
  }
  EXPECT_TRUE(seen);
  // Checkpoints every 30 min keep the loss small: goodput above 90 %.
  EXPECT_GT(r.goodput, 0.9);
  EXPECT_LT(r.goodput, 1.0);
  const RunSummary s = summarize(run);
  EXPECT_EQ(s.jobs_total, 20'000);
  EXPECT_GT(s.jobs_finished, 19'500) << "some are still running at the horizon";
}

}  // namespace
}  // namespace gantry
