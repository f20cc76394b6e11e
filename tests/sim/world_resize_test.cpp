// Resizing a running job's elastic Worker role through the seam: the scheduler decides
// (Scheduler::resize(): a scale-out places and assumes the new pods, a scale-in names the new
// size), the simulated world carries it out (TrainingWorld::apply(ResizeAction): checkpoint,
// new pod set, restart, step time re-derived) and reports kResized. Timelines derived by hand.
//
// Step times (sim/step_time.hpp): no gradient bytes, so the all-reduce costs only its latency,
// 2(n − 1) hops of the NVSwitch latency 2 µs on one DGX node (dgx_rack()), n = GPUs in the ring:
//   4 GPUs: 100 ms + 2·3·2 µs = 100.012 ms        8 GPUs: 100 ms + 2·7·2 µs = 100.028 ms
// A job with only a Worker role has one start stage: running podStartup (5 s) after its bind.

#include <gtest/gtest.h>

#include <sstream>

#include "engine/core/event_loop.hpp"
#include "engine/policy/action_log.hpp"
#include "engine/policy/scheduler.hpp"
#include "sim/simulation.hpp"
#include "sim/training_world.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace world_resize_test {

using namespace gantry::testing;

JobSpec elastic(std::string name, int workers, Duration submit = Duration{}) {
  return training_job(std::move(name), Framework::kPyTorch, {role(RoleKind::kWorker, workers, 4)},
                      submit, 1000, milliseconds(100), 0);
}

struct Fixture {
  Fixture(int nodes, std::vector<JobSpec> j) : jobs(std::move(j)), cluster(dgx_rack(nodes)) {
    world = std::make_unique<TrainingWorld>(*loop, cluster, scheduler, SimParameters{}, jobs);
    world->set_action_log(&log);
  }
  // At `at`, the scheduler resizes job 0 to `replicas` workers and the world carries it out.
  void resize_at(Time at, int replicas) {
    loop->schedule_at(at, [this, replicas] {
      Result<std::optional<ResizeAction>> r = scheduler.resize(cluster, 0, replicas, loop->now());
      ASSERT_TRUE(r) << r.error();
      ASSERT_TRUE(r.value().has_value());
      action = *r.value();
      ASSERT_TRUE(world->apply(action));
      EXPECT_TRUE(cluster.check_invariants());
    });
  }
  std::vector<JobSpec> jobs;  // before the world, which keeps a reference
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(kT0);
  Cluster cluster;
  Scheduler scheduler{SchedulerConfig{}};
  std::ostringstream actions;
  ActionLog log{actions, cluster};
  std::unique_ptr<TrainingWorld> world;
  ResizeAction action;
};

// 1 worker (4 GPUs) running from 5 s at 100.012 ms a step. At 30 s it has run 25 s:
// 25,000,000 / 100,012 = 249.97 → 249 whole steps, kept by the checkpoint. Scale-out to 2: the
// new pod is placed next to the first (binpack prefers the fuller node; both pods on node 0),
// the job restarts and runs again at 35 s on 8 GPUs. Its spec asks for 4, so a step computes
// for 100 ms · 4 / 8 = 50 ms (step_time.hpp: strong scaling), 50.028 ms a step; 751 steps left:
// 751 × 50,028 µs = 37,571,028 µs, so it ends at 35 s + 37.571028 s = 72.571028 s.
TEST(WorldResize, ScaleOutPlacesTheNewPodsAndRederivesTheStepTime) {
  Fixture f(2, {elastic("e", 1)});
  f.world->start();
  f.resize_at(kT0 + seconds(30), 2);
  f.loop->run_until(kT0 + seconds(30));
  ASSERT_EQ(f.action.added.size(), 1u);
  EXPECT_EQ(f.action.first_added, 1);
  EXPECT_EQ(f.action.added[0].node, 0) << "next to the running pod";
  EXPECT_NE(f.cluster.allocation_of(AllocationOwner{0, 1}), nullptr) << "assumed at the decision";
  EXPECT_EQ(f.cluster.free(0).gpus, 0);
  f.loop->run();
  const JobLog& e = f.world->log().jobs[0];
  EXPECT_EQ(e.state, JobState::kFinished);
  EXPECT_EQ(e.resizes, 1);
  EXPECT_EQ(e.lost_steps, 0) << "a resize checkpoints first";
  EXPECT_EQ(*e.running - kT0, seconds(5)) << "the first start is kept";
  EXPECT_EQ(e.step.ring_size, 8);
  EXPECT_EQ(*e.finished - kT0, microseconds(72'571'028));
  EXPECT_EQ(f.scheduler.workloads().find(0)->state, WorkloadState::kFinished);
  EXPECT_EQ(f.cluster.allocation_count(), 0u);
  EXPECT_TRUE(f.cluster.check_invariants());
  const std::string log = f.actions.str();
  EXPECT_NE(
      log.find(R"("kind":"resize","workload":0,"replicas":2,"pods":[{"pod":1,"node":"r1-n000")"),
      std::string::npos)
      << log;
  EXPECT_NE(log.find(R"("kind":"resized","workload":0)"), std::string::npos) << log;
}

// 2 workers (8 GPUs) running from 5 s at 100.028 ms a step; at 30 s: 25,000,000 / 100,028 =
// 249.93 → 249 steps. Scale-in to 1: pod 1's 4 GPUs are free at once, so job w (4 GPUs, waiting
// since 1 s) is bound at 30 s. Job e runs again at 35 s on 4 of the 8 GPUs its spec asks for:
// 100 ms · 8 / 4 = 200 ms of compute, 200.012 ms a step: 751 × 200,012 µs = 150,209,012 µs,
// ends at 185.209012 s.
TEST(WorldResize, ScaleInFreesTheHighestPodsAtOnce) {
  Fixture f(1, {elastic("e", 2), elastic("w", 1, seconds(1))});
  f.world->start();
  f.resize_at(kT0 + seconds(30), 1);
  f.loop->run();
  EXPECT_TRUE(f.action.added.empty());
  const JobLog& e = f.world->log().jobs[0];
  EXPECT_EQ(e.pods.size(), 1u);
  EXPECT_EQ(e.step.ring_size, 4);
  EXPECT_EQ(*e.finished - kT0, microseconds(185'209'012));
  const JobLog& w = f.world->log().jobs[1];
  EXPECT_EQ(*w.bound - kT0, seconds(30)) << "placed in the GPUs the scale-in freed";
  EXPECT_EQ(f.cluster.allocation_count(), 0u);
  EXPECT_TRUE(f.cluster.check_invariants());
}

// What the scheduler refuses, each time changing nothing.
TEST(WorldResize, RefusalsLeaveTheWorkloadAsItWas) {
  Fixture f(1, {elastic("e", 1),
                training_job("tf", Framework::kTensorFlow,
                             {role(RoleKind::kWorker, 1, 2), role(RoleKind::kEvaluator, 1, 0)},
                             Duration{}, 1000, milliseconds(100), 0)});
  f.world->start();
  f.loop->run_until(kT0 + seconds(1));
  const auto refused = [&](JobId id, int replicas, const std::string& why) {
    Result<std::optional<ResizeAction>> r =
        f.scheduler.resize(f.cluster, id, replicas, f.loop->now());
    ASSERT_FALSE(r) << "resize " << id << " to " << replicas;
    EXPECT_NE(r.error().find(why), std::string::npos) << r.error();
  };
  refused(0, 2, "is bound; only a running workload can be resized");
  f.loop->run_until(kT0 + seconds(10));
  refused(0, 0, "replicas must be at least 1");
  refused(1, 2, "no trailing Worker role");
  refused(0, 3, "2 more Worker pods do not fit now");  // 4 + 2 of 8 GPUs in use; 8 more needed
  refused(7, 2, "no workload 7");
  EXPECT_EQ(f.cluster.allocation_count(), 3u) << "e's pod, tf's two pods; nothing assumed";
  Result<std::optional<ResizeAction>> same = f.scheduler.resize(f.cluster, 0, 1, f.loop->now());
  ASSERT_TRUE(same);
  EXPECT_FALSE(same.value().has_value()) << "already 1 replica: nothing to do";
  Result<std::optional<ResizeAction>> shrink = f.scheduler.resize(f.cluster, 1, 1, f.loop->now());
  EXPECT_FALSE(shrink) << "tf's last role is an Evaluator";
  EXPECT_TRUE(f.cluster.check_invariants());
}

// A job evicted while it restarts after a scale-out gives back every pod, the added ones too;
// nothing is lost (the resize checkpointed), and it comes back at its spec's size.
TEST(WorldResize, EvictionDuringTheRestartReleasesTheAddedPods) {
  Fixture f(2, {elastic("e", 1)});
  f.world->start();
  f.resize_at(kT0 + seconds(30), 2);
  f.loop->schedule_at(kT0 + seconds(32), [&] {
    ASSERT_TRUE(f.world->apply(EvictAction{0, "preempted"}));
    EXPECT_EQ(f.cluster.allocation_of(AllocationOwner{0, 1}), nullptr);
  });
  f.loop->run();
  const JobLog& e = f.world->log().jobs[0];
  EXPECT_EQ(e.lost_steps, 0);
  EXPECT_EQ(e.state, JobState::kFinished);
  EXPECT_EQ(e.pods.size(), 1u) << "placed again as its spec says: one worker";
  EXPECT_EQ(f.cluster.allocation_count(), 0u);
  EXPECT_TRUE(f.cluster.check_invariants());
}

// Issue 22: scale-out-idle grew a job only when some other event caused a cycle. One elastic
// job of 2 Workers × 8 GPUs (elastic 1..3, scale step 1, resize cost 0) alone on 4 idle DGX
// nodes, scale-out-idle on. Step compute 1.5 s for the spec's 16 GPUs, no gradient bytes, 4,800
// steps. Rings span nodes: α = 5 µs (InfiniBand), all-reduce 2(n − 1) · 5 µs.
//   0 s       bound, 2 Workers on nodes 0 and 1 (binpack)
//   5 s       running (podStartup 5 s). Its start gives the policy a cycle at once: nothing is
//             pending and node 2 is idle, so it grows by the most steps that fit: to 3 (its
//             maximum). The resize checkpoints (0 steps done in 0 s) and restarts the pods.
//   10 s      running again on 24 GPUs: compute 1.5 s · 16 / 24 = 1 s, all-reduce
//             2 · 23 · 5 µs = 230 µs: 1.00023 s a step; 4,800 steps = 4,801.104 s
//   4,811.104 s  finished.
// Before the fix no cycle came after 5 s, so it ran at 2 Workers: 1.5 s + 2 · 15 · 5 µs =
// 1.50015 s a step, 4,800 steps = 7,200.72 s, finished at 7,205.72 s (2 h).
TEST(WorldResize, ScaleOutIdleGrowsAJobWhenItStartsRunning) {
  JobSpec e = training_job("e", Framework::kPyTorch, {role(RoleKind::kWorker, 2, 8)}, Duration{},
                           4800, milliseconds(1500), 0);
  e.elastic = ElasticSpec{1, 3, 1, Duration{}};
  ScenarioSpec s = scenario_with(dgx_rack(4), {e});
  s.policy.elasticity.add(ElasticPolicy::kScaleOutIdle);
  const SimulationRun run = run_simulation(s);
  const JobLog& j = run.log.jobs[0];
  EXPECT_EQ(*j.running - kT0, seconds(5));
  EXPECT_EQ(j.resizes, 1);
  ASSERT_EQ(j.pods.size(), 3u);
  EXPECT_EQ(j.step.ring_size, 24);
  EXPECT_EQ(j.step.total, microseconds(1'000'230));
  EXPECT_EQ(*j.finished - kT0, microseconds(4'811'104'000));
  std::vector<std::pair<int64_t, EventKind>> resizes;
  for (const SimEvent& ev : run.log.events)
    if (ev.kind == EventKind::kResize) resizes.emplace_back((ev.time - kT0).micros(), ev.kind);
  EXPECT_EQ(resizes, (std::vector<std::pair<int64_t, EventKind>>{{5'000'000, EventKind::kResize}}));
}

}  // namespace world_resize_test
}  // namespace gantry
