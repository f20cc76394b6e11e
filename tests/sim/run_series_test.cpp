// Plot series of a run: the empirical CDF by hand, and the GPU allocation of a two-job run on
// one 8-GPU node worked out from its timeline.

#include "sim/run_series.hpp"

#include <gtest/gtest.h>

#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace run_series_test {

using namespace gantry::testing;

TEST(EmpiricalCdf, ValuesAndDownsampling) {
  using P = std::vector<std::pair<double, double>>;
  EXPECT_EQ(empirical_cdf({3, 1, 2, 4}, 10), (P{{1, 0.25}, {2, 0.5}, {3, 0.75}, {4, 1.0}}));
  // n = 5, max 2: step ceil(5/2) = 3, keeps index 2 (x = 3, F = 3/5), then the last (5, 1).
  EXPECT_EQ(empirical_cdf({5, 4, 3, 2, 1}, 2), (P{{3, 0.6}, {5, 1.0}}));
  EXPECT_TRUE(empirical_cdf({}, 10).empty());
}

// Job a: 4 GPUs, submitted at 0, bound at 0, running at 5 s (one start stage), 1000 steps of
// 100 ms + 2·3·2 µs = 100.012 ms → ends at 105.012 s. Job b: 8 GPUs, submitted at 1 s, waits for
// a and is bound at 105.012 s, runs from 110.012 s, 10 steps of 100 ms + 2·7·2 µs = 100.028 ms
// → ends at 111.01228 s. Allocation of 8 GPUs: 0 s 0.5, 105.012 s 1.0 (a's release and b's
// bind at one instant keep one point), 111.01228 s 0. Waits 5 s and 110.012 − 1 = 109.012 s.
TEST(RunSeries, AllocationAndCdfsOfATwoJobRun) {
  ScenarioSpec s = scenario_with(
      dgx_rack(1), {training_job("a", Framework::kPyTorch, {role(RoleKind::kWorker, 1, 4)},
                                 seconds(0), 1000, milliseconds(100), 0),
                    training_job("b", Framework::kPyTorch, {role(RoleKind::kWorker, 1, 8)},
                                 seconds(1), 10, milliseconds(100), 0)});
  const SimulationRun run = run_simulation(s);
  const RunSeries series = run_series(run);
  using T = std::vector<std::pair<Time, double>>;
  EXPECT_EQ(series.gpu_allocation, (T{{kT0, 0.5},
                                      {kT0 + microseconds(105'012'000), 1.0},
                                      {kT0 + microseconds(111'012'280), 0.0}}));
  using P = std::vector<std::pair<double, double>>;
  EXPECT_EQ(series.wait_cdf, (P{{5.0, 0.5}, {109.012, 1.0}}));
  EXPECT_EQ(series.jct_cdf, (P{{105.012, 0.5}, {110.01228, 1.0}}));

  // With a horizon of 200 s the run ends later than its last change: the last ratio again at
  // its end, so a plot spans the whole run.
  s.horizon = seconds(200);
  EXPECT_EQ(run_series(run_simulation(s)).gpu_allocation, (T{{kT0, 0.5},
                                                             {kT0 + microseconds(105'012'000), 1.0},
                                                             {kT0 + microseconds(111'012'280), 0.0},
                                                             {kT0 + seconds(200), 0.0}}));
}

}  // namespace run_series_test
}  // namespace gantry
