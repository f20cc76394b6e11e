// summarize_reliability() over a hand-made log: goodput, lost GPU-hours, restarts per job and
// the MTBF seen by each job size, worked out by hand.

#include "sim/reliability_summary.hpp"

#include <gtest/gtest.h>

#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace reliability_summary_test {

using namespace gantry::testing;

TEST(ReliabilitySummary, GoodputRestartsAndMtbfBySize) {
  const std::vector<JobSpec> specs = {
      training_job("eight", Framework::kPyTorch, {role(RoleKind::kWorker, 1, 8)}, seconds(0), 1,
                   seconds(1), 0),
      training_job("one", Framework::kPyTorch, {role(RoleKind::kWorker, 1, 1)}, seconds(0), 1,
                   seconds(1), 0),
      training_job("big", Framework::kPyTorch, {role(RoleKind::kWorker, 8, 8)}, seconds(0), 1,
                   seconds(1), 0),
  };
  SimulationLog log;
  log.jobs.resize(3);
  for (size_t i = 0; i < 3; ++i) log.jobs[i].spec = &specs[i];
  // 8 GPUs: 1000 GPU-s allocated, 800 useful, 50 lost, an hour running, killed twice.
  log.jobs[0].allocated_gpu_seconds = 1000;
  log.jobs[0].useful_gpu_seconds = 800;
  log.jobs[0].lost_gpu_seconds = 50;
  log.jobs[0].running_seconds = 3600;
  log.jobs[0].failures = 2;
  log.jobs[0].evictions = 3;  // one more for a preemption
  // 1 GPU: 200 GPU-s, all useful, two hours, never failed.
  log.jobs[1].allocated_gpu_seconds = 200;
  log.jobs[1].useful_gpu_seconds = 200;
  log.jobs[1].running_seconds = 7200;
  // 64 GPUs: never ran.
  log.faults.resize(4);

  const ReliabilitySummary r = summarize_reliability(log);
  EXPECT_EQ(r.fault_events, 4);
  EXPECT_EQ(r.jobs_killed, 2);
  EXPECT_EQ(r.jobs_evicted, 3);
  EXPECT_NEAR(r.allocated_gpu_hours, 1200.0 / 3600, 1e-12);
  EXPECT_NEAR(r.useful_gpu_hours, 1000.0 / 3600, 1e-12);
  EXPECT_NEAR(r.lost_gpu_hours, 50.0 / 3600, 1e-12);
  EXPECT_NEAR(r.goodput, 1000.0 / 1200, 1e-12);
  EXPECT_DOUBLE_EQ(r.restarts_per_job, 1.0) << "2 failures over the 2 jobs that ran";
  EXPECT_EQ(r.max_restarts, 2);
  ASSERT_EQ(r.by_size.size(), 2u) << "the 64-GPU class had no job that ran";
  EXPECT_EQ(r.by_size[0].min_gpus, 1);
  EXPECT_EQ(r.by_size[0].max_gpus, 1);
  EXPECT_DOUBLE_EQ(r.by_size[0].running_hours, 2);
  EXPECT_EQ(r.by_size[0].mtbf_hours, 0) << "no failure: no MTBF";
  EXPECT_EQ(r.by_size[1].min_gpus, 2);
  EXPECT_EQ(r.by_size[1].max_gpus, 8);
  EXPECT_DOUBLE_EQ(r.by_size[1].mtbf_hours, 0.5) << "1 h running, 2 failures";
}

TEST(ReliabilitySummary, AnEmptyLogHasNoGoodput) {
  const ReliabilitySummary r = summarize_reliability(SimulationLog{});
  EXPECT_EQ(r.goodput, 0);
  EXPECT_TRUE(r.by_size.empty());
}

}  // namespace reliability_summary_test
}  // namespace gantry
