// The simulated world carries out evictions and withdrawals: progress is settled, work since the
// last checkpoint is lost and counted, the job resumes from its checkpoint, and a withdrawn job
// never runs again. Timelines derived by hand below.

#include <gtest/gtest.h>

#include "engine/core/event_loop.hpp"
#include "engine/policy/scheduler.hpp"
#include "sim/training_world.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace world_eviction_test {

using namespace gantry::testing;

// One 8-GPU node. Job A: Master 4 GPUs + Worker 4 GPUs, 1000 steps of 100 ms compute and
// 1.5 GB all-reduce: step = 108.778 ms (see training_world_test.cpp); bound at 0 s, running at
// 10 s (two start stages of 5 s). Evicted at 60 s after 50 s of running:
//   50,000,000 µs / 108,778 µs = 459 whole steps (459.65; the step in flight is lost).
// Requeued at 60 s and placed again at once (the node is free): running at 70 s.
std::vector<JobSpec> job_a(Duration checkpoint_every) {
  JobSpec a = training_job("a", Framework::kPyTorch,
                           {role(RoleKind::kMaster, 1, 4), role(RoleKind::kWorker, 1, 4)},
                           seconds(0), 1000, milliseconds(100), 1'500'000'000);
  a.work.checkpoint_every = checkpoint_every;
  return {a};
}

struct Fixture {
  explicit Fixture(Duration checkpoint_every, std::vector<JobSpec> more = {})
      : jobs(job_a(checkpoint_every)) {
    for (JobSpec& j : more) jobs.push_back(std::move(j));
    world = std::make_unique<TrainingWorld>(*loop, cluster, scheduler, SimParameters{}, jobs);
  }
  void run(Time evict_at) {
    world->start();
    loop->schedule_at(evict_at, [this] { ASSERT_TRUE(world->apply(EvictAction{0, "preempted"})); });
    loop->run();
  }
  std::vector<JobSpec> jobs;  // before the world, which keeps a reference
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(kT0);
  Cluster cluster{dgx_rack(1)};
  Scheduler scheduler{SchedulerConfig{}};
  std::unique_ptr<TrainingWorld> world;
};

TEST(WorldEviction, WithoutCheckpointsEveryStepIsLost) {
  // All 459 steps lost; the rerun does 1000 steps again: 70 s + 108.778 s = 178.778 s.
  Fixture f(Duration{});
  f.run(kT0 + seconds(60));
  const JobLog& a = f.world->log().jobs[0];
  EXPECT_EQ(a.lost_steps, 459);
  EXPECT_EQ(a.evictions, 1);
  EXPECT_EQ(a.state, JobState::kFinished);
  EXPECT_EQ(*a.running - kT0, seconds(70));
  EXPECT_EQ(*a.finished - kT0, microseconds(178'778'000));
  EXPECT_EQ(f.scheduler.workloads().find(0)->evictions, 1);
  EXPECT_EQ(f.cluster.allocation_count(), 0u);
  EXPECT_TRUE(f.cluster.check_invariants());
}

TEST(WorldEviction, ACheckpointKeepsTheStepsBeforeIt) {
  // Checkpoint every 10 s = every 91 steps (10,000,000 / 108,778 = 91.9). At 459 steps the last
  // checkpoint was at 455 (5 × 91): 4 steps lost. The rerun does 545 steps: 545 × 108.778 ms =
  // 59.28401 s, from 70 s to 129.28401 s.
  Fixture f(seconds(10));
  f.run(kT0 + seconds(60));
  const JobLog& a = f.world->log().jobs[0];
  EXPECT_EQ(a.lost_steps, 4);
  EXPECT_EQ(*a.finished - kT0, microseconds(129'284'010));
  EXPECT_EQ(a.steps_done, 1000);
}

TEST(WorldEviction, EvictingAStartingJobLosesNothingAndCancelsItsStart) {
  // At 7 s the master runs (5 s) and the worker is starting: nothing ran, nothing is lost. The
  // job is placed again at 7 s: stages at 12 s and 17 s, ends at 17 + 108.778 = 125.778 s.
  Fixture f(Duration{});
  f.run(kT0 + seconds(7));
  const JobLog& a = f.world->log().jobs[0];
  EXPECT_EQ(a.lost_steps, 0);
  EXPECT_EQ(*a.running - kT0, seconds(17));
  EXPECT_EQ(*a.finished - kT0, microseconds(125'778'000));
  int finishes = 0;
  for (const SimEvent& e : f.world->log().events) finishes += e.kind == EventKind::kFinish;
  EXPECT_EQ(finishes, 1) << "the cancelled timers never fired";
}

TEST(WorldEviction, AWithdrawnJobGivesItsGpusBackAndNeverRuns) {
  Fixture f(Duration{});
  f.world->start();
  f.loop->schedule_at(kT0 + seconds(30), [&] { ASSERT_TRUE(f.world->withdraw(0)); });
  f.loop->run();
  const JobLog& a = f.world->log().jobs[0];
  EXPECT_EQ(a.state, JobState::kWithdrawn);
  EXPECT_FALSE(a.finished.has_value());
  EXPECT_EQ(f.scheduler.workloads().find(0)->state, WorkloadState::kWithdrawn);
  EXPECT_EQ(f.cluster.free(0).gpus, 8);
  EXPECT_EQ(f.world->log().events.back().time - kT0, seconds(30))
      << "nothing ran after the withdrawal";
  EXPECT_FALSE(f.world->withdraw(0)) << "already withdrawn";
  EXPECT_FALSE(f.world->apply(EvictAction{0, "again"})) << "not placed";
}

TEST(WorldEviction, AQueuedJobIsWithdrawnWithoutEverBeingPlaced) {
  // Two jobs that each need the whole node: the second waits; withdrawn at 5 s, it never runs.
  Fixture f(Duration{}, {training_job("b", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)},
                                      seconds(1), 10, milliseconds(100), 0)});
  f.world->start();
  f.loop->schedule_at(kT0 + seconds(5), [&] { ASSERT_TRUE(f.world->withdraw(1)); });
  f.loop->run();
  EXPECT_EQ(f.world->log().jobs[1].state, JobState::kWithdrawn);
  EXPECT_FALSE(f.world->log().jobs[1].bound.has_value());
  EXPECT_EQ(f.world->log().jobs[0].state, JobState::kFinished);
  EXPECT_EQ(f.scheduler.queued(), 0u);
}

}  // namespace world_eviction_test
}  // namespace gantry
