// summarize_cost() over a hand-made log: totals, the spot/on-demand split and the costs per
// finished job and per useful GPU-hour, worked out by hand.

#include "sim/cost_summary.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

TEST(CostSummary, SplitsSpotAndOnDemandAndDividesByUsefulWork) {
  SimulationLog log;
  log.pools.push_back(PoolLog{"od", false, 10, 20, 200, 4, 2, 0, 3});  // 20 node-h at 10
  log.pools.push_back(PoolLog{"spot", true, 4, 30, 120, 6, 5, 3, 4});  // 30 node-h at 4
  log.jobs.resize(3);
  // 400 useful GPU-hours, 100 of them on spot; two jobs finished.
  log.jobs[0].useful_gpu_seconds = 300 * 3600.0;
  log.jobs[0].useful_spot_gpu_seconds = 100 * 3600.0;
  log.jobs[0].state = JobState::kFinished;
  log.jobs[1].useful_gpu_seconds = 100 * 3600.0;
  log.jobs[1].state = JobState::kFinished;
  log.jobs[2].state = JobState::kRunning;
  const CostSummary c = summarize_cost(log);
  EXPECT_DOUBLE_EQ(c.cost, 320);
  EXPECT_DOUBLE_EQ(c.spot_cost, 120);
  EXPECT_DOUBLE_EQ(c.on_demand_cost, 200);
  EXPECT_DOUBLE_EQ(c.node_hours, 50);
  EXPECT_EQ(c.jobs_finished, 2);
  EXPECT_DOUBLE_EQ(c.per_finished_job, 160);
  EXPECT_DOUBLE_EQ(c.per_useful_gpu_hour, 320.0 / 400);
  EXPECT_DOUBLE_EQ(c.spot_per_useful_gpu_hour, 120.0 / 100);
  EXPECT_DOUBLE_EQ(c.on_demand_per_useful_gpu_hour, 200.0 / 300);
}

TEST(CostSummary, NothingRanMeansNoRatios) {
  SimulationLog log;
  log.pools.push_back(PoolLog{"od", false, 10, 1, 10, 1, 1, 0, 1});
  const CostSummary c = summarize_cost(log);
  EXPECT_EQ(c.per_finished_job, 0);
  EXPECT_EQ(c.per_useful_gpu_hour, 0);
  EXPECT_EQ(c.spot_per_useful_gpu_hour, 0);
}

}  // namespace
}  // namespace gantry
