// The simulated world under faults (sim/fault_event.hpp): failed nodes, racks and GPUs kill the
// jobs on them, which restart from their last checkpoint after the restart delay wherever they
// fit; drains cordon, wait, evict and keep the node for maintenance. Timelines by hand below.

#include <gtest/gtest.h>

#include "engine/core/event_loop.hpp"
#include "engine/policy/scheduler.hpp"
#include "sim/training_world.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace world_fault_test {

using namespace gantry::testing;

// Job A (as in world_eviction_test.cpp): Master 4 GPUs + Worker 4 GPUs on one DGX node, 1000
// steps of 108.778 ms; bound at 0 s, running at 10 s, alone it ends at 118.778 s.
JobSpec job_a(Duration checkpoint_every, Duration checkpoint_cost = Duration{}) {
  JobSpec a = training_job("a", Framework::kPyTorch,
                           {role(RoleKind::kMaster, 1, 4), role(RoleKind::kWorker, 1, 4)},
                           seconds(0), 1000, milliseconds(100), 1'500'000'000);
  a.work.checkpoint_every = checkpoint_every;
  a.work.checkpoint_cost = checkpoint_cost;
  return a;
}

struct Fixture {
  Fixture(Topology topology, std::vector<JobSpec> js, Duration restart_delay = Duration{})
      : jobs(std::move(js)), cluster(std::move(topology)) {
    SimParameters params;
    params.restart_delay = restart_delay;
    world = std::make_unique<TrainingWorld>(*loop, cluster, scheduler, params, jobs);
  }
  void run(std::vector<FaultEvent> faults) {
    world->schedule_faults(std::move(faults));
    world->start();
    loop->run();
    log = world->take_log();
  }
  std::vector<JobSpec> jobs;  // before the world, which keeps a reference
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(kT0);
  Cluster cluster;
  Scheduler scheduler{SchedulerConfig{}};
  std::unique_ptr<TrainingWorld> world;
  SimulationLog log;
};

FaultEvent fault(Duration at, FaultAction action, NodeId node, Duration duration = Duration{}) {
  FaultEvent e;
  e.at = kT0 + at;
  e.action = action;
  e.node = node;
  e.duration = duration;
  e.cause = "injected";
  return e;
}

// Two DGX nodes in two racks.
Topology two_racks() {
  Topology t = dgx_rack(2);
  t.racks.push_back("r2");
  t.nodes[1].rack = 1;
  return t;
}

TEST(WorldFaults, ANodeFailureKillsTheJobWhichRestartsFromItsCheckpointElsewhere) {
  // Checkpoints every 91 steps (10 s / 108.778 ms). Node 0 fails at 60 s: 50 s of running is
  // 459 steps, the last checkpoint holds 455 (5 × 91), 4 are lost. The job may be placed again
  // at 60 + 30 = 90 s: on node 1, running at 100 s, 545 steps = 59.28401 s, done at 159.28401 s.
  Fixture f(dgx_rack(2), {job_a(seconds(10))}, seconds(30));
  f.run({fault(seconds(60), FaultAction::kNodeDown, 0)});
  const JobLog& a = f.log.jobs[0];
  ASSERT_EQ(a.evicted.size(), 1u);
  EXPECT_EQ(a.evicted[0].reason, "NodeFailure");
  EXPECT_EQ(a.evicted[0].at - kT0, seconds(60));
  EXPECT_EQ(a.failures, 1);
  EXPECT_EQ(a.lost_steps, 4);
  ASSERT_EQ(f.log.faults.size(), 1u);
  EXPECT_EQ(f.log.faults[0].jobs, 1);
  EXPECT_EQ(f.log.faults[0].cause, "injected");
  EXPECT_EQ(*a.bound - kT0, seconds(90));
  EXPECT_EQ(a.pods[0].node, 1);
  EXPECT_EQ(*a.finished - kT0, microseconds(159'284'010));
  // GPU time (8 GPUs): lost 4 × 0.108778 × 8 = 3.480896; allocated 60 s and 69.28401 s:
  // 1034.27208; useful 1000 × 0.108778 × 8 = 870.224; running 50 + 59.28401 s.
  EXPECT_NEAR(a.lost_gpu_seconds, 3.480896, 1e-9);
  EXPECT_NEAR(a.allocated_gpu_seconds, 1034.27208, 1e-6);
  EXPECT_NEAR(a.useful_gpu_seconds, 870.224, 1e-6);
  EXPECT_NEAR(a.running_seconds, 109.28401, 1e-6);
  // The failed node stays out: its capacity is held, and it is not ready.
  EXPECT_FALSE(f.cluster.ready(0));
  EXPECT_EQ(f.cluster.free(0).gpus, 0);
  EXPECT_EQ(f.cluster.allocation_count(), 1u) << "only the failed node's hold";
  EXPECT_TRUE(f.cluster.check_invariants());
}

TEST(WorldFaults, ANodeComesBackByItselfAfterItsRepairTime) {
  // One node, down at 60 s for 100 s, no restart delay: the job waits for the node, is bound at
  // 160 s, runs at 170 s and ends 545 steps later at 229.28401 s.
  Fixture f(dgx_rack(1), {job_a(seconds(10))});
  f.run({fault(seconds(60), FaultAction::kNodeDown, 0, seconds(100))});
  const JobLog& a = f.log.jobs[0];
  EXPECT_EQ(*a.bound - kT0, seconds(160));
  EXPECT_EQ(*a.finished - kT0, microseconds(229'284'010));
  EXPECT_TRUE(f.cluster.ready(0));
  EXPECT_EQ(f.cluster.allocation_count(), 0u) << "the hold is gone";
  EXPECT_TRUE(f.cluster.check_invariants());
}

TEST(WorldFaults, AnExplicitUpEndsEveryOutageAndVoidsTheirOwnEnds) {
  // Down at 60 s "for 1000 s", up by hand at 100 s, down again by hand at 120 s with no end:
  // the first outage's end (at 1060 s) must not bring the node back.
  Fixture f(dgx_rack(1), {job_a(seconds(10))});
  f.run({fault(seconds(60), FaultAction::kNodeDown, 0, seconds(1000)),
         fault(seconds(100), FaultAction::kNodeUp, 0),
         fault(seconds(120), FaultAction::kNodeDown, 0)});
  const JobLog& a = f.log.jobs[0];
  EXPECT_EQ(a.failures, 2) << "killed at 60 s, and again at 120 s after restarting at 100 s";
  EXPECT_FALSE(a.finished.has_value());
  EXPECT_FALSE(f.cluster.ready(0));
  EXPECT_EQ(a.state, JobState::kPending);
}

TEST(WorldFaults, ARackFailureKillsItsNodesJobsOnly) {
  // Rack r1 (node 0) fails at 60 s for an hour: the job restarts on node 1 (rack r2) at once.
  Fixture f(two_racks(), {job_a(seconds(10))});
  FaultEvent rack;
  rack.at = kT0 + seconds(60);
  rack.action = FaultAction::kRackDown;
  rack.rack = 0;
  rack.duration = hours(1);
  f.run({rack});
  const JobLog& a = f.log.jobs[0];
  ASSERT_EQ(a.evicted.size(), 1u);
  EXPECT_EQ(a.evicted[0].reason, "RackFailure");
  EXPECT_EQ(*a.bound - kT0, seconds(60));
  EXPECT_EQ(a.pods[0].node, 1);
  EXPECT_TRUE(f.cluster.ready(0)) << "back after the hour";
  EXPECT_TRUE(f.cluster.check_invariants());
}

TEST(WorldFaults, AFailedGpuKillsOnlyTheJobsUsingItAndStaysOutOfService) {
  // Two 4-GPU workers on one node; GPU 5 fails at 20 s. Only the job holding GPU 5 dies; it fits
  // again only when the other job leaves (3 GPUs are left next to it), on GPUs without GPU 5.
  std::vector<JobSpec> jobs;
  for (const char* name : {"x", "y"})
    jobs.push_back(training_job(name, Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 4)},
                                seconds(0), 500, milliseconds(100), 0));
  Fixture f(dgx_rack(1), jobs);
  FaultEvent gpu = fault(seconds(20), FaultAction::kGpuFail, 0);
  gpu.gpu = 5;
  f.run({gpu});
  int killed = -1;
  for (int j = 0; j < 2; ++j)
    if (!f.log.jobs[static_cast<size_t>(j)].evicted.empty()) killed = j;
  ASSERT_NE(killed, -1);
  const JobLog& victim = f.log.jobs[static_cast<size_t>(killed)];
  const JobLog& other = f.log.jobs[static_cast<size_t>(1 - killed)];
  EXPECT_EQ(victim.evicted[0].reason, "GPUFailure");
  EXPECT_TRUE(other.evicted.empty());
  EXPECT_EQ(*victim.bound, *other.finished) << "it waits for 4 healthy GPUs";
  EXPECT_EQ(victim.pods[0].gpu_mask & (uint64_t{1} << 5), 0u);
  EXPECT_EQ(victim.state, JobState::kFinished);
  EXPECT_EQ(f.cluster.free(0).gpus, 7) << "GPU 5 is held until repaired";
  EXPECT_TRUE(f.cluster.check_invariants());
}

TEST(WorldFaults, ADrainWaitsForJobsToEndThenKeepsTheNodeForMaintenance) {
  // Drain at 50 s, deadline 2 min, maintenance 1 h. Job A ends by itself at 118.778 s, before
  // the deadline: maintenance from then to 3718.778 s. Job B (submitted at 60 s) waits for the
  // node to be uncordoned.
  JobSpec b = job_a(Duration{});
  b.name = "b";
  b.submit = kT0 + seconds(60);
  Fixture f(dgx_rack(1), {job_a(Duration{}), b});
  FaultEvent drain = fault(seconds(50), FaultAction::kDrain, 0, hours(1));
  drain.deadline = minutes(2);
  f.run({drain});
  EXPECT_TRUE(f.log.jobs[0].evicted.empty());
  EXPECT_EQ(*f.log.jobs[0].finished - kT0, microseconds(118'778'000));
  EXPECT_EQ(*f.log.jobs[1].bound - kT0, microseconds(3'718'778'000));
  EXPECT_FALSE(f.cluster.cordoned(0));
}

TEST(WorldFaults, ADrainEvictsWhatIsLeftAtItsDeadline) {
  // Drain at 50 s, deadline 20 s: job A is evicted at 70 s (a drain is no failure: no restart
  // delay, not counted in failures); maintenance 10 min to 670 s, then A is placed again.
  Fixture f(dgx_rack(1), {job_a(Duration{})}, hours(5));
  FaultEvent drain = fault(seconds(50), FaultAction::kDrain, 0, minutes(10));
  drain.deadline = seconds(20);
  f.run({drain});
  const JobLog& a = f.log.jobs[0];
  ASSERT_EQ(a.evicted.size(), 1u);
  EXPECT_EQ(a.evicted[0].reason, "Drain");
  EXPECT_EQ(a.evicted[0].at - kT0, seconds(70));
  EXPECT_EQ(a.failures, 0);
  EXPECT_EQ(*a.bound - kT0, seconds(670));
  // Recorded: the drain (no job yet), then its deadline with the one job it evicted.
  ASSERT_EQ(f.log.faults.size(), 2u);
  EXPECT_EQ(f.log.faults[0].jobs, 0);
  EXPECT_EQ(f.log.faults[1].at - kT0, seconds(70));
  EXPECT_EQ(f.log.faults[1].jobs, 1);
}

TEST(WorldFaults, CheckpointWritesCostRunningTime) {
  // Checkpoint every 91 steps, 2 s each: 1000 steps need (1000 − 1) / 91 = 10 checkpoints, so
  // the job ends 20 s later than without: 118.778 + 20 = 138.778 s. Allocated 138.778 × 8 GPU-s,
  // useful 1000 × 0.108778 × 8 = 870.224.
  Fixture f(dgx_rack(1), {job_a(seconds(10), seconds(2))});
  f.run({});
  const JobLog& a = f.log.jobs[0];
  EXPECT_EQ(*a.finished - kT0, microseconds(138'778'000));
  EXPECT_NEAR(a.allocated_gpu_seconds, 138.778 * 8, 1e-6);
  EXPECT_NEAR(a.useful_gpu_seconds, 870.224, 1e-6);
}

TEST(WorldFaults, AFailureWhileACheckpointIsWrittenLosesTheStepsBeforeIt) {
  // Cycles of 91 steps (9.898798 s) + 2 s = 11.898798 s from 10 s. Killed at 60 s (50 s in):
  // 4 cycles (47.595192 s, 364 steps saved), then 2.404808 s = 22 steps: 386 done, 22 lost.
  Fixture f(dgx_rack(2), {job_a(seconds(10), seconds(2))});
  f.run({fault(seconds(60), FaultAction::kNodeDown, 0)});
  const JobLog& a = f.log.jobs[0];
  EXPECT_EQ(a.lost_steps, 22);
  EXPECT_EQ(a.steps_done, 1000);
}

TEST(WorldFaults, TheSameFaultsGiveTheSameRun) {
  const auto run_once = [] {
    Fixture f(two_racks(), {job_a(seconds(10)), job_a(seconds(5))}, seconds(7));
    FaultEvent gpu = fault(seconds(33), FaultAction::kGpuFail, 1, hours(1));
    gpu.gpu = 2;
    f.run({fault(seconds(20), FaultAction::kNodeDown, 0, seconds(40)), gpu});
    std::vector<int64_t> trace;
    for (const SimEvent& e : f.log.events) trace.push_back((e.time - kT0).micros() * 16 + e.job);
    return trace;
  };
  EXPECT_EQ(run_once(), run_once());
}

}  // namespace world_fault_test
}  // namespace gantry
