#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace training_world_test {

using namespace gantry::testing;

// Two 8-GPU nodes. Job A (PyTorch, Master 4 GPUs + Worker 4 GPUs) arrives at 0 s; job B
// (TensorFlow, 2 Workers × 8 GPUs) at 1 s and must wait for A's GPUs.
//
// A: binpack puts both pods on node 0, GPUs 0-3 and 4-7: one NVSwitch island, n = 8.
//    all-reduce = 2·7/8 · 1.5e9 B / 300e9 B/s = 8.75 ms, + 2·7·2 µs = 28 µs  -> 8.778 ms
//    step = 100 ms + 8.778 ms = 108.778 ms; 1000 steps = 108.778 s
//    bound 0 s; Master running at 5 s (podStartup), Worker at 10 s -> running at 10 s
//    finish = 10 + 108.778 = 118.778 s; wait 10 s; JCT 118.778 s
// B: needs both nodes: bound when A finishes at 118.778 s; workers only, one stage -> running
//    at 123.778 s. Over nodes, B = min(NIC 200e9, NVSwitch 300e9) = 200e9 B/s, α = 5 µs, n = 16:
//    all-reduce = 2·15/16 · 1e9 / 200e9 = 9.375 ms, + 2·15·5 µs = 150 µs -> 9.525 ms
//    step = 100 ms + 9.525 ms = 109.525 ms; 500 steps = 54.7625 s
//    finish = 123.778 + 54.7625 = 178.5405 s; wait = 123.778 − 1 = 122.778 s; JCT 177.5405 s
ScenarioSpec two_job_scenario() {
  return scenario_with(dgx_rack(2),
                       {training_job("a", Framework::kPyTorch,
                                     {role(RoleKind::kMaster, 1, 4), role(RoleKind::kWorker, 1, 4)},
                                     seconds(0), 1000, milliseconds(100), 1'500'000'000),
                        training_job("b", Framework::kTensorFlow, {role(RoleKind::kWorker, 2, 8)},
                                     seconds(1), 500, milliseconds(100), 1'000'000'000)});
}

ScenarioSpec testing_two_jobs() { return two_job_scenario(); }

TEST(TrainingWorld, HandDerivedTimelineOfTwoJobs) {
  const SimulationRun run = run_simulation(two_job_scenario());
  ASSERT_EQ(run.log.jobs.size(), 2u);
  const JobLog& a = run.log.jobs[0];
  const JobLog& b = run.log.jobs[1];
  EXPECT_EQ(a.spec->name, "a");
  EXPECT_EQ(*a.bound - kT0, seconds(0));
  EXPECT_EQ(*a.running - kT0, seconds(10));
  EXPECT_EQ(a.step.total, microseconds(108'778));
  EXPECT_EQ(*a.finished - kT0, microseconds(118'778'000));

  EXPECT_EQ(*b.bound - kT0, microseconds(118'778'000));
  EXPECT_EQ(*b.running - kT0, microseconds(123'778'000));
  EXPECT_EQ(b.step.total, microseconds(109'525));
  EXPECT_EQ(b.step.bottleneck, "InfiniBand");
  EXPECT_EQ(*b.finished - kT0, microseconds(178'540'500));
  EXPECT_EQ(run.end - kT0, microseconds(178'540'500));
}

// Issue 8: 10^14 steps of 150 ms (1.5e19 us, past int64) used to wrap the finish time into the
// past, so the job "finished" at once. The world schedules nothing past kLatestTime: such a
// job stays running, the run ends with its last real event, and nothing is negative.
TEST(TrainingWorld, JobEndingPastTheLatestInstantStaysRunning) {
  ScenarioSpec s = scenario_with(
      dgx_rack(1), {training_job("long", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)},
                                 seconds(0), 100'000'000'000'000, milliseconds(150), 0),
                    training_job("late", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)},
                                 seconds(1), 1, seconds(1), 0)});
  // "late" arrives past kLatestTime: never submitted.
  s.workload.jobs[1].submit = kLatestTime + seconds(1);
  const SimulationRun run = run_simulation(s);
  const RunSummary sum = summarize(run);
  EXPECT_EQ(sum.jobs_finished, 0);
  EXPECT_EQ(sum.jobs_running_at_end, 1);
  EXPECT_EQ(sum.jobs_queued_at_end, 1);
  ASSERT_EQ(run.log.jobs.size(), 2u);
  const JobLog& long_job = run.log.jobs[0];
  EXPECT_EQ(*long_job.running - kT0, seconds(5));  // one start stage of 5 s
  EXPECT_FALSE(long_job.finished.has_value());
  EXPECT_EQ(run.end - kT0, seconds(5));  // the last event: the job went running
  EXPECT_EQ(sum.wait_s.max, 5.0);
}

TEST(TrainingWorld, SummaryOfTwoJobs) {
  const RunSummary s = summarize(run_simulation(two_job_scenario()));
  EXPECT_EQ(s.jobs_total, 2);
  EXPECT_EQ(s.jobs_finished, 2);
  EXPECT_DOUBLE_EQ(s.wait_s.mean, (10.0 + 122.778) / 2);
  EXPECT_DOUBLE_EQ(s.jct_s.max, 177.5405);
  // Allocated GPUs: 8 over [0, 118.778), 16 over [118.778, 178.5405); 16 GPUs in all.
  const double allocated = 8 * 118.778 + 16 * (178.5405 - 118.778);
  EXPECT_NEAR(s.gpu_allocation_ratio, allocated / (16 * 178.5405), 1e-9);
  // Busy GPUs: 8 over [10, 118.778), 16 over [123.778, 178.5405).
  const double busy = 8 * (118.778 - 10) + 16 * (178.5405 - 123.778);
  EXPECT_NEAR(s.gpu_busy_ratio, busy / (16 * 178.5405), 1e-9);
}

TEST(TrainingWorld, SeriesCoalescesChangesAtOneInstant) {
  const SimulationRun run = run_simulation(two_job_scenario());
  // A's release and B's bind happen at 118.778 s: one point (16 allocated), not two.
  std::vector<std::pair<int64_t, int64_t>> allocated;  // (µs, GPU milli)
  for (const SeriesPoint& p : run.log.series)
    if (allocated.empty() || allocated.back().second != p.allocated_milli ||
        allocated.back().first != (p.time - kT0).micros())
      allocated.emplace_back((p.time - kT0).micros(), p.allocated_milli);
  const std::vector<std::pair<int64_t, int64_t>> expected{{0, 8000},
                                                          {10'000'000, 8000},
                                                          {118'778'000, 16'000},
                                                          {123'778'000, 16'000},
                                                          {178'540'500, 0}};
  EXPECT_EQ(allocated, expected);
}

// Issue 22: a pod on a share of a GPU counted the whole GPU (popcount of its GPU mask), so four
// pods of 0.25 on a 1-GPU cluster reported 400 % allocated. One node of one A100; one job of
// four Workers of gpu "0.25", all on GPU 0: 4 × 250 = 1000 milli, exactly the one GPU, from the
// bind at 0 s until the job ends, which is when the run ends. Allocation ratio: 1 GPU over the
// whole run / 1 GPU = 1.0 (it was 4.0).
TEST(TrainingWorld, ASharedGpuCountsEachPodsShare) {
  Topology t = dgx_rack(1);
  t.classes[0].capacity.gpus = 1;
  t.classes[0].island_size = 1;
  JobSpec quarter = training_job("q", Framework::kPyTorch, {role(RoleKind::kWorker, 4, 0)},
                                 seconds(0), 100, milliseconds(100), 0);
  quarter.roles[0].per_replica.gpu_milli = 250;
  const SimulationRun run = run_simulation(scenario_with(std::move(t), {quarter}));
  const JobLog& q = run.log.jobs[0];
  ASSERT_TRUE(q.finished.has_value());
  ASSERT_EQ(q.pods.size(), 4u);
  for (const PodPlacement& p : q.pods) EXPECT_EQ(p.gpu_mask, 1u) << "all four share GPU 0";
  ASSERT_FALSE(run.log.series.empty());
  EXPECT_EQ(run.log.series.front().time, kT0);
  EXPECT_EQ(run.log.series.front().allocated_milli, 1000);
  for (const SeriesPoint& p : run.log.series) EXPECT_LE(p.allocated_milli, 1000);
  EXPECT_EQ(run.log.series.back().allocated_milli, 0);
  EXPECT_EQ(run.end, *q.finished);
  const RunSummary s = summarize(run);
  EXPECT_EQ(s.total_gpus, 1);
  EXPECT_DOUBLE_EQ(s.gpu_allocation_ratio, 1.0);
}

// A whole-GPU Master and two Workers of 0.5 on one node of 2 GPUs: 1000 + 2 × 500 = 2000 milli,
// the node's two GPUs (it was 3: one per pod), so 100 % allocated over the run (it was 150 %).
// The Workers' share comes from the last role, the Master's from the first.
TEST(TrainingWorld, WholeAndSharedGpusOfOneJobAddUp) {
  Topology t = dgx_rack(1);
  t.classes[0].capacity.gpus = 2;
  t.classes[0].island_size = 2;
  JobSpec mixed = training_job("m", Framework::kPyTorch,
                               {role(RoleKind::kMaster, 1, 1), role(RoleKind::kWorker, 2, 0)},
                               seconds(0), 100, milliseconds(100), 0);
  mixed.roles[1].per_replica.gpu_milli = 500;
  const SimulationRun run = run_simulation(scenario_with(std::move(t), {mixed}));
  ASSERT_TRUE(run.log.jobs[0].finished.has_value());
  EXPECT_EQ(run.log.series.front().allocated_milli, 2000);
  EXPECT_DOUBLE_EQ(summarize(run).gpu_allocation_ratio, 1.0);
}

// A 24-GPU job can never fit on two 8-GPU nodes: it stays queued, holds nothing, and the
// 8-GPU job submitted after it still runs (best-effort FIFO); the run ends when nothing is
// left to happen.
TEST(TrainingWorld, JobThatNeverFitsStaysQueuedWithoutHoldingResources) {
  ScenarioSpec s = scenario_with(
      dgx_rack(2), {training_job("huge", Framework::kTensorFlow, {role(RoleKind::kWorker, 3, 8)},
                                 seconds(0), 10, milliseconds(100), 0),
                    training_job("small", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)},
                                 seconds(1), 10, milliseconds(100), 0)});
  const SimulationRun run = run_simulation(s);
  EXPECT_EQ(run.log.jobs[0].state, JobState::kPending);
  EXPECT_FALSE(run.log.jobs[0].bound.has_value());
  EXPECT_EQ(run.log.jobs[1].state, JobState::kFinished);
  // small: bound at 1 s, running at 6 s, 10 steps × 100 ms (n = 8 but S = 0: only latency,
  // 2·7·2 µs = 28 µs per step) -> 10 × 100.028 ms = 1.00028 s -> finish at 7.00028 s.
  EXPECT_EQ(*run.log.jobs[1].finished - kT0, microseconds(7'000'280));
  EXPECT_EQ(run.queued_at_end, 1u);
  EXPECT_EQ(run.cluster->free_gpus(), 16) << "nothing left allocated";
}

// Under a horizon, jobs still running are reported as such and the clock stops there.
TEST(TrainingWorld, HorizonCutsTheRun) {
  ScenarioSpec s = two_job_scenario();
  s.horizon = seconds(60);
  const SimulationRun run = run_simulation(s);
  EXPECT_EQ(run.end - kT0, seconds(60));
  EXPECT_EQ(run.log.jobs[0].state, JobState::kRunning);
  EXPECT_EQ(run.log.jobs[1].state, JobState::kPending);
  const RunSummary summary = summarize(run);
  EXPECT_EQ(summary.jobs_running_at_end, 1);
  EXPECT_EQ(summary.jobs_queued_at_end, 1);
}

// Priority order: with one 8-GPU node busy until A finishes, the later high-priority job C
// starts before the earlier low-priority job B once A is done.
TEST(TrainingWorld, PriorityQueueStartsHighPriorityFirst) {
  JobSpec a = training_job("a", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)}, seconds(0),
                           100, milliseconds(100), 0);
  JobSpec b = training_job("b", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)}, seconds(1),
                           100, milliseconds(100), 0);
  JobSpec c = b;
  c.name = "c";
  c.submit = kT0 + seconds(2);
  c.priority = 10;
  ScenarioSpec s = scenario_with(dgx_rack(1), {a, b, c});
  s.policy.order = QueueOrder::kPriority;
  const SimulationRun prio = run_simulation(s);
  EXPECT_LT(*prio.log.jobs[2].bound, *prio.log.jobs[1].bound);
  s.policy.order = QueueOrder::kFifo;
  const SimulationRun fifo = run_simulation(s);
  EXPECT_LT(*fifo.log.jobs[1].bound, *fifo.log.jobs[2].bound);
}

}  // namespace training_world_test
}  // namespace gantry

namespace gantry {
namespace training_world_test {

// The action log of the two-job scenario above, by hand: each job is bound, then confirmed,
// runs and finishes; A on node 0 (both 4-GPU pods), B on both nodes (8 GPUs each).
TEST(TrainingWorld, ActionLogOfTwoJobs) {
  std::ostringstream out;
  run_simulation(testing_two_jobs(), {}, &out);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[0], R"({"t":"2026-01-01T00:00:00Z","kind":"bind","workload":0,"pods":[)"
                      R"({"pod":0,"node":"r1-n000","gpus":[0,1,2,3],"gpuMilli":0},)"
                      R"({"pod":1,"node":"r1-n000","gpus":[4,5,6,7],"gpuMilli":0}]})");
  EXPECT_EQ(lines[1], R"({"t":"2026-01-01T00:00:00Z","kind":"bound","workload":0})");
  EXPECT_EQ(lines[2], R"({"t":"2026-01-01T00:00:10Z","kind":"running","workload":0})");
  EXPECT_EQ(lines[3], R"({"t":"2026-01-01T00:01:58.778Z","kind":"finished","workload":0})");
  EXPECT_EQ(lines[4], R"({"t":"2026-01-01T00:01:58.778Z","kind":"bind","workload":1,"pods":[)"
                      R"({"pod":0,"node":"r1-n000","gpus":[0,1,2,3,4,5,6,7],"gpuMilli":0},)"
                      R"({"pod":1,"node":"r1-n001","gpus":[0,1,2,3,4,5,6,7],"gpuMilli":0}]})");
  EXPECT_EQ(lines[7], R"({"t":"2026-01-01T00:02:58.5405Z","kind":"finished","workload":1})");
}

}  // namespace training_world_test
}  // namespace gantry
