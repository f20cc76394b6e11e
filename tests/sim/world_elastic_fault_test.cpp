// Elastic jobs under faults (et-operator's rules, TrainingWorld::survive_elastic()): a lost
// Worker is replaced under a new index (restartPolicy OnFailure), or the job shrinks to the
// survivors (Never, or a planned loss such as a drain), as long as minReplicas remain; else the
// job dies and restarts whole. Timelines by hand below.

#include <gtest/gtest.h>

#include "engine/core/event_loop.hpp"
#include "engine/policy/scheduler.hpp"
#include "sim/training_world.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace world_elastic_fault_test {

using namespace gantry::testing;

// Four 8-GPU Workers, one per DGX node (binpack fills nodes 0..3 in order), elastic 2..4 with a
// 30 s resize cost; 100,000 steps of 100 ms (it runs for hours), checkpoints every 10 s.
JobSpec elastic_job(int min, RestartPolicy policy) {
  JobSpec j = training_job("llm-ft", Framework::kPyTorch, {role(RoleKind::kWorker, 4, 8)},
                           seconds(0), 100'000, milliseconds(100), 0);
  j.elastic = ElasticSpec{min, 4, 1, seconds(30)};
  j.restart_policy = policy;
  j.work.checkpoint_every = seconds(10);
  return j;
}

struct Fixture {
  Fixture(int nodes, JobSpec job) : jobs{std::move(job)}, cluster(dgx_rack(nodes)) {
    world = std::make_unique<TrainingWorld>(*loop, cluster, scheduler, SimParameters{}, jobs);
  }
  // Runs to `until` with `faults`, then takes the log.
  void run(std::vector<FaultEvent> faults, Time until) {
    world->schedule_faults(std::move(faults));
    world->start();
    loop->run_until(until);
    log = world->take_log();
  }
  const JobLog& job() const { return log.jobs[0]; }
  std::vector<JobSpec> jobs;
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(kT0);
  Cluster cluster;
  Scheduler scheduler{SchedulerConfig{}};
  std::unique_ptr<TrainingWorld> world;
  SimulationLog log;
};

FaultEvent node_down(Duration at, NodeId node) {
  FaultEvent e;
  e.at = kT0 + at;
  e.action = FaultAction::kNodeDown;
  e.node = node;
  e.cause = "injected";
  return e;
}

TEST(WorldElasticFaults, OnFailureReplacesTheLostWorkerUnderANewIndex) {
  // Node 2 (Worker 2) fails at 60 s: Worker 4 takes its place on node 4; the job never leaves
  // its placement, and runs again 30 s later (resizeCost).
  Fixture f(5, elastic_job(2, RestartPolicy::kOnFailure));
  f.run({node_down(seconds(60), 2)}, kT0 + seconds(100));
  const JobLog& j = f.job();
  EXPECT_TRUE(j.evicted.empty());
  EXPECT_EQ(j.failures, 1);
  EXPECT_EQ(j.resizes, 1);
  EXPECT_EQ(j.pod_ids, (std::vector<int32_t>{0, 1, 3, 4}));
  ASSERT_EQ(j.pods.size(), 4u);
  EXPECT_EQ(j.pods[3].node, 4);
  EXPECT_GT(j.lost_steps, 0) << "the survivors went back to the last checkpoint";
  EXPECT_EQ(j.state, JobState::kRunning);
  // The last running event: 60 s + 30 s.
  Time last_running;
  for (const SimEvent& e : f.log.events)
    if (e.kind == EventKind::kRunning) last_running = e.time;
  EXPECT_EQ(last_running - kT0, seconds(90));
  EXPECT_TRUE(f.cluster.check_invariants());
}

TEST(WorldElasticFaults, NeverShrinksToTheSurvivors) {
  Fixture f(5, elastic_job(2, RestartPolicy::kNever));
  f.run({node_down(seconds(60), 2)}, kT0 + seconds(100));
  EXPECT_TRUE(f.job().evicted.empty());
  EXPECT_EQ(f.job().pod_ids, (std::vector<int32_t>{0, 1, 3}));
  EXPECT_EQ(f.cluster.free_gpus(), 8) << "nodes 0, 1, 3 busy; 2 down and held; 4 free";
}

TEST(WorldElasticFaults, WithoutRoomForAReplacementItContinuesOnFewer) {
  // Four nodes only: no spare for Worker 4, so the job goes on with three (≥ minReplicas 2).
  Fixture f(4, elastic_job(2, RestartPolicy::kOnFailure));
  f.run({node_down(seconds(60), 2)}, kT0 + seconds(100));
  EXPECT_TRUE(f.job().evicted.empty());
  EXPECT_EQ(f.job().pod_ids, (std::vector<int32_t>{0, 1, 3}));
}

TEST(WorldElasticFaults, BelowMinReplicasTheJobDiesWhole) {
  // minReplicas 4 and no spare: the job is killed and waits for four healthy nodes.
  Fixture f(4, elastic_job(4, RestartPolicy::kNever));
  f.run({node_down(seconds(60), 2)}, kT0 + seconds(100));
  ASSERT_EQ(f.job().evicted.size(), 1u);
  EXPECT_EQ(f.job().evicted[0].reason, "NodeFailure");
  EXPECT_EQ(f.job().state, JobState::kPending);
}

TEST(WorldElasticFaults, ADrainShrinksTheJobWithoutLosingWork) {
  // A drain is planned: the job checkpoints and leaves node 1 at the deadline (0 s), nothing
  // lost; Never or not, a planned loss shrinks (no replacement is asked for).
  Fixture f(5, elastic_job(2, RestartPolicy::kOnFailure));
  FaultEvent drain = node_down(seconds(60), 1);
  drain.action = FaultAction::kDrain;
  drain.duration = hours(1);
  f.run({drain}, kT0 + seconds(100));
  EXPECT_TRUE(f.job().evicted.empty());
  EXPECT_EQ(f.job().failures, 0);
  EXPECT_EQ(f.job().lost_steps, 0);
  EXPECT_EQ(f.job().pod_ids, (std::vector<int32_t>{0, 2, 3}));
}

TEST(WorldElasticFaults, UnderExitCodeAFailedGpuIsNotRetried) {
  // A failed GPU makes the worker exit with 1: not in 128 < code < 255, so ExitCode does not
  // recreate it and the job shrinks; a lost node (137) is recreated.
  Fixture gpu(5, elastic_job(2, RestartPolicy::kExitCode));
  FaultEvent e = node_down(seconds(60), 2);
  e.action = FaultAction::kGpuFail;
  e.gpu = 0;
  gpu.run({e}, kT0 + seconds(100));
  EXPECT_EQ(gpu.job().pod_ids, (std::vector<int32_t>{0, 1, 3}));

  Fixture node(5, elastic_job(2, RestartPolicy::kExitCode));
  node.run({node_down(seconds(60), 2)}, kT0 + seconds(100));
  EXPECT_EQ(node.job().pod_ids, (std::vector<int32_t>{0, 1, 3, 4}));
}

// A job restarting after a resize (30 s of resizeCost) is resized again before it runs: the
// scheduler sees it running, so the world takes the second resize and the restart starts over:
// scale-in to 3 at 60 s, to 2 at 70 s, running again at 70 + 30 = 100 s on Workers 0 and 1.
TEST(WorldElasticFaults, AJobRestartingAfterAResizeMayBeResizedAgain) {
  Fixture f(5, elastic_job(2, RestartPolicy::kOnFailure));
  const auto resize_at = [&](Duration at, int workers) {
    f.loop->schedule_at(kT0 + at, [&f, workers] {
      Result<std::optional<ResizeAction>> r =
          f.scheduler.resize(f.cluster, 0, workers, f.loop->now());
      ASSERT_TRUE(r) << r.error();
      ASSERT_TRUE(r.value().has_value());
      ASSERT_TRUE(f.world->apply(*r.value()));
    });
  };
  resize_at(seconds(60), 3);
  resize_at(seconds(70), 2);
  f.run({}, kT0 + seconds(200));
  const JobLog& j = f.job();
  EXPECT_EQ(j.resizes, 2);
  EXPECT_EQ(j.pod_ids, (std::vector<int32_t>{0, 1}));
  Time last_running;
  for (const SimEvent& e : f.log.events)
    if (e.kind == EventKind::kRunning) last_running = e.time;
  EXPECT_EQ(last_running - kT0, seconds(100));
  EXPECT_TRUE(f.cluster.check_invariants());
}

}  // namespace world_elastic_fault_test
}  // namespace gantry
