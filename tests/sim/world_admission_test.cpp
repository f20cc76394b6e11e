// Admission in the simulated world: a preemption's eviction is carried out at once, recorded
// with its reason and preemptor, the victim resumes from its last checkpoint and its lost GPU
// time is counted; the queues' GPU time is integrated; waitForPodsReady deactivates a job whose
// pods start too slowly. Timelines derived by hand below.

#include <gtest/gtest.h>

#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace world_admission_test {

using namespace gantry::testing;

constexpr int64_t kGpu = 1000;

QueueSpec queue(std::string name, int64_t gpus) {
  QueueSpec q;
  q.name = std::move(name);
  q.cohort = "lab";
  q.nominal[kQuotaGpu] = gpus * kGpu;
  q.reclaim_within_cohort = PreemptionPolicy::kAny;
  return q;
}

JobSpec one_node_job(std::string name, std::string queue_name, Duration submit, int64_t steps) {
  JobSpec j = training_job(std::move(name), Framework::kPyTorch, {role(RoleKind::kWorker, 1, 8)},
                           submit, steps, milliseconds(100), 0);
  j.queue = std::move(queue_name);
  return j;
}

// One 8-GPU node. "prod" owns the 8 GPUs, "research" owns none and borrows. Step of an 8-GPU
// worker on one NVSwitch island, no gradient bytes: 100 ms + 2(8 − 1) · 2 µs = 100.028 ms.
//   r1 (research, 10,000 steps, checkpoint every 60 s = 599 steps: 60,000,000 / 100,028 =
//   599.8): admitted at 0 s borrowing all 8, running at 5 s.
//   p1 (prod, 100 steps) arrives at 305 s; prod is within its nominal quota and reclaims: r1 is
//   evicted at 305 s (InCohortReclamation, by p1) after 300 s of running: 300,000,000 / 100,028
//   = 2999 whole steps; the last checkpoint is at 5 × 599 = 2995: 4 steps lost, 4 × 0.100028 s
//   × 8 GPUs = 3.200896 GPU-s. p1 is admitted at 305 s, runs at 310 s, ends at 310 s + 100 ×
//   100.028 ms = 320.0028 s. r1 is admitted again then, runs at 325.0028 s and does its last
//   7005 steps: 7005 × 100,028 µs = 700.69614 s, ending at 1025.69894 s.
// GPU time: research uses 8 GPUs over [0, 305) and [320.0028, 1025.69894]: 2440 + 8 ×
// 705.69614 = 8085.56912 GPU-s, all borrowed; prod uses 8 × 15.0028 = 120.0224 GPU-s and lends
// what research borrows (it is the only queue with quota left unused): 8085.56912 GPU-s.
TEST(WorldAdmission, ReclaimEvictsTheBorrowerWhichResumesFromItsCheckpoint) {
  ScenarioSpec s = scenario_with(dgx_rack(1), {one_node_job("r1", "research", seconds(0), 10'000),
                                               one_node_job("p1", "prod", seconds(305), 100)});
  s.workload.jobs[0].work.checkpoint_every = seconds(60);
  s.policy.order = QueueOrder::kPriority;
  s.policy.admission.queues = {queue("prod", 8), queue("research", 0)};
  const SimulationRun run = run_simulation(s);
  const JobLog& r1 = run.log.jobs[0];
  const JobLog& p1 = run.log.jobs[1];
  ASSERT_EQ(r1.evicted.size(), 1u);
  EXPECT_EQ(r1.evicted[0].at - kT0, seconds(305));
  EXPECT_EQ(r1.evicted[0].reason, "InCohortReclamation");
  EXPECT_EQ(r1.evicted[0].by, 1);
  EXPECT_EQ(r1.lost_steps, 4);
  EXPECT_NEAR(r1.lost_gpu_seconds, 3.200896, 1e-9);
  EXPECT_EQ(*r1.admitted - kT0, seconds(0)) << "the first admission";
  EXPECT_EQ(r1.replicas, 1);
  EXPECT_EQ(*p1.admitted - kT0, seconds(305));
  EXPECT_EQ(*p1.finished - kT0, microseconds(320'002'800));
  EXPECT_EQ(*r1.finished - kT0, microseconds(1'025'698'940));
  ASSERT_EQ(run.log.queues.size(), 2u);
  EXPECT_EQ(run.log.queues[0].name, "prod");
  EXPECT_NEAR(run.log.queues[0].used_gpu_seconds, 120.0224, 1e-6);
  EXPECT_NEAR(run.log.queues[0].borrowed_gpu_seconds, 0, 1e-9);
  EXPECT_NEAR(run.log.queues[0].lent_gpu_seconds, 8085.56912, 1e-6);
  EXPECT_NEAR(run.log.queues[1].used_gpu_seconds, 8085.56912, 1e-6);
  EXPECT_NEAR(run.log.queues[1].borrowed_gpu_seconds, 8085.56912, 1e-6);
  EXPECT_NEAR(run.log.queues[1].lent_gpu_seconds, 0, 1e-9);
  // Same scenario, same seed: the same trajectory.
  EXPECT_EQ(summarize(run).fingerprint, summarize(run_simulation(s)).fingerprint);
}

// Pods that take 40 min to start under a 30 min waitForPodsReady timeout with backoffLimit 1:
// admitted at 0, evicted at 30 min, requeued once after 60 s, admitted at 31 min, evicted at
// 61 min: requeued once already = the limit, so it is deactivated and never runs.
TEST(WorldAdmission, PodsThatNeverGetReadyDeactivateTheJob) {
  ScenarioSpec s = scenario_with(dgx_rack(1), {one_node_job("slow", "prod", seconds(0), 10)});
  s.sim.pod_startup = minutes(40);
  s.policy.order = QueueOrder::kPriority;
  s.policy.admission.queues = {queue("prod", 8)};
  s.policy.admission.wait_for_pods_ready =
      WaitForPodsReadyConfig{minutes(30), seconds(60), seconds(3600), 1};
  const SimulationRun run = run_simulation(s);
  const JobLog& j = run.log.jobs[0];
  EXPECT_EQ(j.state, JobState::kInactive);
  ASSERT_EQ(j.evicted.size(), 2u);
  EXPECT_EQ(j.evicted[0].at - kT0, minutes(30));
  EXPECT_EQ(j.evicted[1].at - kT0, minutes(61));
  EXPECT_EQ(j.evicted[1].reason, "PodsReadyTimeout");
  EXPECT_FALSE(j.running.has_value());
  EXPECT_EQ(run.queued_at_end, 0u);
}

}  // namespace world_admission_test
}  // namespace gantry
