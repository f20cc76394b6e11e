#include "sim/queue_summary.hpp"

#include <gtest/gtest.h>

#include "tests/sim/queue_fixtures.hpp"

namespace gantry {
namespace queue_summary_test {

using namespace gantry::testing;

// The run of tests/sim/queue_fixtures.hpp, queue by queue.
TEST(QueueSummary, FiguresOfEachQueueWorkedOutByHand) {
  const SimulationRun run = lab_run();
  const std::vector<QueueSummary> rows = summarize_queues(run.log, lab_admission());
  ASSERT_EQ(rows.size(), 3u);

  // research: train-a and train-b, both admitted. Admission waits: train-a 60 − 0 = 60 s,
  // train-b 270 − 30 = 240 s. Sorted {60, 240}, n = 2:
  //   p50: h = (2 − 1)·0.50 = 0.5  → 60 + 0.5·(240 − 60) = 150 s
  //   p95: h = (2 − 1)·0.95 = 0.95 → 60 + 0.95·(240 − 60) = 231 s
  // GPU-hours 43,200 / 3,600 = 12 used, 14,400 / 3,600 = 4 borrowed, 0 lent.
  // Preemptions suffered: train-a's Preempted and InCohortReclamation = 2 (train-b's two
  // PodsReadyTimeouts are no preemption). Caused: train-b preempted train-a = 1.
  // Lost: 2,700 / 3,600 = 0.75 GPU-hours.
  const QueueSummary& research = rows[0];
  EXPECT_EQ(research.name, "research");
  EXPECT_EQ(research.cohort, "lab");
  EXPECT_EQ(research.jobs, 2);
  EXPECT_EQ(research.admitted, 2);
  EXPECT_EQ(research.admission_wait_s.count, 2);
  EXPECT_DOUBLE_EQ(research.admission_wait_s.p50, 150.0);
  EXPECT_DOUBLE_EQ(research.admission_wait_s.p95, 231.0);
  EXPECT_DOUBLE_EQ(research.admission_wait_s.mean, 150.0);  // (60 + 240) / 2
  EXPECT_DOUBLE_EQ(research.admission_wait_s.max, 240.0);
  EXPECT_DOUBLE_EQ(research.gpu_hours_used, 12.0);
  EXPECT_DOUBLE_EQ(research.gpu_hours_borrowed, 4.0);
  EXPECT_DOUBLE_EQ(research.gpu_hours_lent, 0.0);
  EXPECT_EQ(research.preemptions_suffered, 2);
  EXPECT_EQ(research.preemptions_caused, 1);
  EXPECT_DOUBLE_EQ(research.lost_gpu_hours, 0.75);

  // prod: urgent (admitted, wait 55m − 50m = 300 s) and eval (never admitted): one sample, so
  // p50 = p95 = 300 s. 21,600 / 3,600 = 6 used, 0 borrowed, 14,400 / 3,600 = 4 lent.
  // Suffered 0; caused 1 (urgent reclaimed from train-a). Lost 0.
  const QueueSummary& prod = rows[1];
  EXPECT_EQ(prod.name, "prod");
  EXPECT_EQ(prod.jobs, 2);
  EXPECT_EQ(prod.admitted, 1);
  EXPECT_DOUBLE_EQ(prod.admission_wait_s.p50, 300.0);
  EXPECT_DOUBLE_EQ(prod.admission_wait_s.p95, 300.0);
  EXPECT_DOUBLE_EQ(prod.gpu_hours_used, 6.0);
  EXPECT_DOUBLE_EQ(prod.gpu_hours_borrowed, 0.0);
  EXPECT_DOUBLE_EQ(prod.gpu_hours_lent, 4.0);
  EXPECT_EQ(prod.preemptions_suffered, 0);
  EXPECT_EQ(prod.preemptions_caused, 1);
  EXPECT_DOUBLE_EQ(prod.lost_gpu_hours, 0.0);

  // scratch: in no cohort, no jobs, no QueueLog: all zero, no wait sample.
  const QueueSummary& scratch = rows[2];
  EXPECT_EQ(scratch.name, "scratch");
  EXPECT_EQ(scratch.cohort, "");
  EXPECT_EQ(scratch.jobs, 0);
  EXPECT_EQ(scratch.admitted, 0);
  EXPECT_EQ(scratch.admission_wait_s.count, 0);
  EXPECT_DOUBLE_EQ(scratch.gpu_hours_used, 0.0);
  EXPECT_EQ(scratch.preemptions_suffered + scratch.preemptions_caused, 0);
}

// Rows follow the configuration's order, not the log's nor the alphabet's.
TEST(QueueSummary, RowsInConfigurationOrder) {
  const SimulationRun run = lab_run();
  AdmissionConfig reordered = lab_admission();
  std::swap(reordered.queues[0], reordered.queues[2]);  // scratch, prod, research
  const std::vector<QueueSummary> rows = summarize_queues(run.log, reordered);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "scratch");
  EXPECT_EQ(rows[2].name, "research");
  EXPECT_DOUBLE_EQ(rows[2].gpu_hours_used, 12.0) << "QueueLogs are matched by name";
  EXPECT_EQ(rows[2].jobs, 2);
}

TEST(QueueSummary, EmptyWhenAdmissionIsOff) {
  const SimulationRun run = lab_run();
  EXPECT_TRUE(summarize_queues(run.log, AdmissionConfig{}).empty());
}

TEST(QueueSummary, WhichReasonsArePreemptions) {
  EXPECT_TRUE(is_preemption("Preempted"));
  EXPECT_TRUE(is_preemption("InCohortReclamation"));
  EXPECT_TRUE(is_preemption("InCohortFairSharing"));
  EXPECT_FALSE(is_preemption("PodsReadyTimeout"));
  EXPECT_FALSE(is_preemption("withdrawn"));
}

// jobs_inactive_at_end counts the job admission deactivated (train-b), apart from the pending
// (eval) and finished (train-a, urgent) ones: 4 = 2 finished + 1 queued + 1 inactive.
TEST(QueueSummary, RunSummaryCountsInactiveJobs) {
  const RunSummary s = summarize(lab_run());
  EXPECT_EQ(s.jobs_total, 4);
  EXPECT_EQ(s.jobs_finished, 2);
  EXPECT_EQ(s.jobs_queued_at_end, 1);
  EXPECT_EQ(s.jobs_running_at_end, 0);
  EXPECT_EQ(s.jobs_inactive_at_end, 1);
}

}  // namespace queue_summary_test
}  // namespace gantry
