// Node pools in the simulated world (sim/node_pools.hpp): the autoscaler's scale-ups become
// nodes after the provisioning delay, idle nodes leave after the cool-down, spot nodes are
// reclaimed after a notice, and the cost meter bills node-hours. Timelines by hand below.

#include "sim/node_pools.hpp"

#include <gtest/gtest.h>

#include "engine/core/event_loop.hpp"
#include "sim/simulation.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace node_pools_test {

using namespace gantry::testing;

NodePoolSpec pool(std::string name, CapacityType capacity, int min, int max, int initial) {
  NodePoolSpec p;
  p.name = std::move(name);
  p.node_class = 0;
  p.rack = 0;
  p.min_nodes = min;
  p.max_nodes = max;
  p.initial_nodes = initial;
  p.provisioning = DelayDistribution::constant(minutes(3));
  p.price_per_hour = capacity == CapacityType::kSpot ? 4 : 10;
  p.capacity = capacity;
  if (capacity == CapacityType::kSpot) p.reclaim = SpotReclaim{hours(1), minutes(2)};
  return p;
}

// No node of its own: every node comes from the pools.
ScenarioSpec pooled(std::vector<NodePoolSpec> pools, std::vector<JobSpec> jobs) {
  Topology t = dgx_rack(0);
  ScenarioSpec s = scenario_with(std::move(t), std::move(jobs));
  s.autoscaling.pools = std::move(pools);
  return s;
}

JobSpec two_nodes_job(Duration submit, int64_t steps) {
  return training_job("j", Framework::kTensorFlow, {role(RoleKind::kWorker, 2, 8)}, submit, steps,
                      milliseconds(100), 0);
}

TEST(NodePools, ScaleUpAfterTheDelayAndDownAfterTheCoolDown) {
  // The autoscaler looks every 10 s: at 10 s it asks for 2 nodes (one per 8-GPU Worker); they
  // are up 3 min later, at 190 s, and the job is placed at once. It runs 100 steps of about
  // 100 ms from 195 s (pod start-up 5 s) and ends near 205 s. The call at 210 s sees both
  // nodes empty; they leave at the first call 10 min later (810 s; the 10 min after the
  // scale-up at 10 s ended at 610 s). Billed: 2 nodes × 620 s = 0.34444 node-hours, at 10 an
  // hour 3.4444. (A 20-minute horizon: without one the run would end with its last job.)
  ScenarioSpec s =
      pooled({pool("od", CapacityType::kOnDemand, 0, 4, 0)}, {two_nodes_job(Duration{}, 100)});
  s.horizon = minutes(20);
  const SimulationRun run = run_simulation(s);
  const JobLog& j = run.log.jobs[0];
  EXPECT_EQ(*j.bound - kT0, seconds(190));
  EXPECT_EQ(j.state, JobState::kFinished);
  EXPECT_GT(*j.finished - kT0, seconds(205));
  EXPECT_LT(*j.finished - kT0, seconds(210));
  ASSERT_EQ(run.log.pools.size(), 1u);
  const PoolLog& p = run.log.pools[0];
  EXPECT_EQ(p.nodes_added, 2);
  EXPECT_EQ(p.nodes_removed, 2);
  EXPECT_EQ(p.peak_nodes, 2);
  EXPECT_EQ(p.reclaims, 0);
  EXPECT_EQ(run.end - kT0, minutes(20));
  EXPECT_NEAR(p.node_hours, 2 * 620.0 / 3600, 1e-9);
  EXPECT_NEAR(p.cost, 10 * 2 * 620.0 / 3600, 1e-9);
  EXPECT_TRUE(run.cluster->removed(0));
  EXPECT_TRUE(run.cluster->removed(1));
}

TEST(NodePools, WithoutAHorizonTheRunEndsWithItsLastJob) {
  // The nodes would be scaled down at 810 s; the run ends when the job does, near 205 s, and
  // bills the nodes up to then: 2 × (end − 190 s).
  const SimulationRun run = run_simulation(
      pooled({pool("od", CapacityType::kOnDemand, 0, 4, 0)}, {two_nodes_job(Duration{}, 100)}));
  EXPECT_EQ(run.end, *run.log.jobs[0].finished);
  EXPECT_NEAR(run.log.pools[0].node_hours, 2 * (run.end - kT0 - seconds(190)).seconds() / 3600,
              1e-9);
}

TEST(NodePools, InitialNodesAreUpAtTheStartAndMinIsKept) {
  // Two initial nodes (min 2): the job starts at once, and nothing is ever scaled down.
  const SimulationRun run = run_simulation(
      pooled({pool("od", CapacityType::kOnDemand, 2, 4, 2)}, {two_nodes_job(Duration{}, 100)}));
  EXPECT_EQ(*run.log.jobs[0].bound - kT0, Duration{});
  EXPECT_EQ(run.log.pools[0].nodes_removed, 0);
  EXPECT_EQ(run.cluster->node_count(), 2);
}

TEST(NodePools, ASpotReclaimKillsARigidJobAndTheMinimumIsRestored) {
  // One spot node (min 1), a rigid 8-GPU job for 5 h (180,000 steps of 100 ms); reclaims come
  // once an hour on average, so the node goes before the job is done: the job is killed
  // (SpotReclaim, a failure), the autoscaler asks for a new node (min 1), and the job starts
  // again on it 3 min later.
  JobSpec job = training_job("j", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)},
                             Duration{}, 180'000, milliseconds(100), 0);
  job.work.checkpoint_every = minutes(10);
  ScenarioSpec s = pooled({pool("spot", CapacityType::kSpot, 1, 1, 1)}, {job});
  s.horizon = hours(48);
  const SimulationRun run = run_simulation(s);
  const JobLog& j = run.log.jobs[0];
  ASSERT_FALSE(j.evicted.empty());
  EXPECT_EQ(j.evicted[0].reason, "SpotReclaim");
  EXPECT_EQ(j.failures, static_cast<int>(j.evicted.size()));
  const PoolLog& p = run.log.pools[0];
  EXPECT_GE(p.reclaims, 1);
  // Each reclaimed node is replaced (min 1), unless the run ends while its replacement is on
  // its way.
  EXPECT_GE(p.nodes_added, p.reclaims);
  EXPECT_LE(p.nodes_added, 1 + p.reclaims);
  EXPECT_EQ(p.nodes_removed, p.reclaims);
  EXPECT_TRUE(p.spot);
  EXPECT_EQ(j.state, JobState::kFinished);
  EXPECT_NEAR(j.useful_spot_gpu_seconds, j.useful_gpu_seconds, 1e-6) << "only spot nodes";
}

TEST(NodePools, AnElasticJobShrinksOffAReclaimedNodeAtTheNotice) {
  // Two spot nodes added by hand, an elastic job of two 8-GPU Workers (min 1). The notice for
  // node 0 comes at 60 s: the job checkpoints and shrinks off it (Worker 0 leaves, nothing is
  // lost); the reclaim at 180 s then finds nothing of it to kill.
  std::vector<JobSpec> jobs = {training_job("e", Framework::kTensorFlow,
                                            {role(RoleKind::kWorker, 2, 8)}, Duration{}, 180'000,
                                            milliseconds(100), 0)};
  jobs[0].elastic = ElasticSpec{1, 2, 1, seconds(30)};
  jobs[0].work.checkpoint_every = minutes(10);
  const auto loop = EventLoop::virtual_time(kT0);
  Cluster cluster(dgx_rack(0));
  Scheduler scheduler{SchedulerConfig{}};
  TrainingWorld world(*loop, cluster, scheduler, SimParameters{}, jobs);
  const NodeId a = world.add_node(NodeInfo{"spot-0", 0, 0}, true);
  const NodeId b = world.add_node(NodeInfo{"spot-1", 0, 0}, true);
  world.start();
  loop->schedule_at(kT0 + seconds(60), [&] { world.spot_notice(a); });
  loop->schedule_at(kT0 + seconds(180), [&] { world.remove_node(a, kReasonSpotReclaim); });
  loop->run_until(kT0 + seconds(300));
  const SimulationLog log = world.take_log();
  const JobLog& j = log.jobs[0];
  EXPECT_TRUE(j.evicted.empty());
  EXPECT_EQ(j.resizes, 1);
  EXPECT_EQ(j.lost_steps, 0) << "the loss was announced";
  EXPECT_EQ(j.failures, 0);
  ASSERT_EQ(j.pods.size(), 1u);
  EXPECT_EQ(j.pods[0].node, b);
  EXPECT_EQ(j.pod_ids, std::vector<int32_t>{1});
  EXPECT_TRUE(cluster.removed(a));
  EXPECT_TRUE(cluster.check_invariants());
}

TEST(NodePools, TheSameSeedGivesTheSameRun) {
  JobSpec job = training_job("j", Framework::kTensorFlow, {role(RoleKind::kWorker, 1, 8)},
                             Duration{}, 180'000, milliseconds(100), 0);
  ScenarioSpec s = pooled({pool("spot", CapacityType::kSpot, 1, 2, 1)}, {job, job});
  s.horizon = hours(48);
  const SimulationRun a = run_simulation(s), b = run_simulation(s);
  EXPECT_EQ(a.log.events.size(), b.log.events.size());
  EXPECT_EQ(a.log.pools[0].cost, b.log.pools[0].cost);
  s.seed = 2;
  EXPECT_NE(run_simulation(s).log.pools[0].cost, a.log.pools[0].cost) << "reclaims are drawn";
}

}  // namespace node_pools_test
}  // namespace gantry
