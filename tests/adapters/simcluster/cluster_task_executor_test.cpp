#include "adapters/simcluster/cluster_task_executor.hpp"

#include <gtest/gtest.h>

#include "engine/core/event_loop.hpp"
#include "engine/policy/scheduler.hpp"
#include "tests/sim/sim_fixtures.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"
#include "workflow/runner/memory_run_store.hpp"
#include "workflow/runner/run_scheduler.hpp"
#include "workflow/runner/simulated_executor.hpp"

namespace gantry {
namespace cluster_task_executor_test {

using namespace gantry::testing;

PipelineSpec training_pipeline() {
  PipelineSpec p;
  p.name = "train";
  TaskSpec fit;
  fit.name = "fit";
  fit.template_kind = TaskTemplate::kPyTorchJob;
  fit.replicas = {{"master", 1}, {"worker", 1}};
  fit.resources = Resources{8'000, 64ll << 30, 4};
  fit.simulate.duration = minutes(10);
  p.tasks.push_back(fit);
  return p;
}

TEST(JobForTask, RolesInStartOrderWithTheTaskResources) {
  const PipelineSpec p = training_pipeline();
  AttemptRequest r;
  r.pipeline = &p;
  r.task = &p.tasks[0];
  r.logical_time = kT0;
  r.requests = p.tasks[0].resources;
  const JobSpec job = job_for_task(r);
  EXPECT_EQ(job.name, "train/fit@2026-01-01T00:00:00Z#0");
  EXPECT_EQ(job.framework, Framework::kPyTorch);
  ASSERT_EQ(job.roles.size(), 2u);
  EXPECT_EQ(job.roles[0].kind, RoleKind::kMaster);
  EXPECT_EQ(job.roles[1].kind, RoleKind::kWorker);
  EXPECT_EQ(job.roles[1].per_replica, (Resources{8'000, 64ll << 30, 4}));
  EXPECT_EQ(job.total_gpus(), 8);
  EXPECT_EQ(job.work.steps * job.work.step_compute_ref.micros(), minutes(10).micros());
}

// One 8-GPU node whose eight GPUs a background job holds from 0 s (timing below), and the
// executor in front of it.
struct BusyNode {
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(kT0);
  Cluster cluster{dgx_rack(1)};
  Scheduler scheduler{SchedulerConfig{}};
  const std::vector<JobSpec> background{training_job("bg", Framework::kTensorFlow,
                                                     {role(RoleKind::kWorker, 1, 8)}, seconds(0),
                                                     3600, seconds(1), 0)};
  TrainingWorld world{*loop, cluster, scheduler, SimParameters{}, background};
  SimulatedExecutor containers{*loop, 1};
  ClusterTaskExecutor executor{world, containers};
};

// One 8-GPU node. A background job holds all eight GPUs from 0 s; a manual run of a pipeline
// whose task is a PyTorchJob (master 4 GPUs + worker 4 GPUs) is triggered at 60 s and must wait.
//   background: 1 worker × 8 GPUs, 3600 steps of 1 s; n = 8 on one NVSwitch island, S = 0:
//     all-reduce = 2·7·2 µs = 28 µs per step -> 3600 × 1.000028 s = 3600.1008 s; bound at 0,
//     running at 5 s (one start stage), ends at 3605.1008 s.
//   task: submitted at 60 s; bound at 3605.1008 s; master running +5 s, worker +5 s ->
//     running at 3615.1008 s; 1000 steps of 0.6 s + 28 µs -> 600.028 s; ends at 4215.1288 s.
// The attempt lasts from 60 s to 4215.1288 s: queueing for GPUs counts in the task's time; it
// is reported running at 3615.1008 s, when both pods run (its timeout would count from there).
TEST(ClusterTaskExecutor, DistributedTaskWaitsForGpusHeldByTheScenario) {
  BusyNode node;
  auto& [loop, cluster, scheduler, background, world, containers, executor] = node;
  MemoryRunStore store;
  RunScheduler runs(*loop, store, executor);
  runs.add_pipeline(training_pipeline());
  world.start();
  runs.switch_on();
  OperatorAction trigger;
  trigger.at = kT0 + seconds(60);
  trigger.kind = ActionKind::kTrigger;
  trigger.pipeline = "train";
  runs.schedule(trigger);
  loop->run();

  const std::vector<gantry::Run> timeline = runs.timeline();
  ASSERT_EQ(timeline.size(), 1u);
  const gantry::Run& run = timeline[0];
  EXPECT_EQ(run.state, RunState::kSucceeded);
  ASSERT_EQ(run.tasks.size(), 1u);
  ASSERT_EQ(run.tasks[0].attempts.size(), 1u);
  const Attempt& a = run.tasks[0].attempts[0];
  EXPECT_EQ(a.start, kT0 + seconds(60));
  EXPECT_EQ(a.running, kT0 + microseconds(3'615'100'800));
  EXPECT_EQ(*a.end, kT0 + microseconds(4'215'128'800));
  EXPECT_EQ(a.state, AttemptState::kSucceeded);
  const JobLog& job = world.log().jobs.at(1);
  EXPECT_EQ(job.spec->name, "train/fit@2026-01-01T00:01:00Z#0");
  EXPECT_EQ(*job.bound - kT0, microseconds(3'605'100'800));
  EXPECT_EQ(cluster.free_gpus(), 8) << "everything released";
}

// What a listener hears from the executor.
struct Heard final : AttemptListener {
  void attempt_running(AttemptId id, Time at) override {
    log.push_back("running " + std::to_string(id) + " at " + std::to_string((at - kT0).micros()));
  }
  void attempt_finished(AttemptId id, const AttemptResult&) override {
    log.push_back("finished " + std::to_string(id));
  }
  std::vector<std::string> log;
};

// The kill contract (task_executor.hpp). One 8-GPU node held by the background job of the test
// above (bound at 0 s) until 3605.1008 s. Attempt 1 (8 GPUs) is started at 1 s: queued behind
// it. Killed at
// 60 s it is acknowledged (kKilled), its job leaves the queue (withdrawn, never bound) and
// nothing is ever reported for it; a second kill is kUnknown, as is an id never started.
// Attempt 2, started at 60 s, runs when the background ends: bound 3605.1008 s, running 5 s
// later, 3610.1008 s, reported once.
TEST(ClusterTaskExecutor, KillWithdrawsAQueuedJobAndIsAcknowledged) {
  BusyNode node;
  auto& [loop, cluster, scheduler, background, world, containers, executor] = node;
  world.start();
  PipelineSpec p = training_pipeline();
  p.tasks[0].replicas = {{"worker", 1}};
  p.tasks[0].resources.gpus = 8;
  AttemptRequest r;
  r.pipeline = &p;
  r.task = &p.tasks[0];
  r.requests = p.tasks[0].resources;
  r.id = 1;
  Heard heard;
  loop->run_until(kT0 + seconds(1));
  executor.start(r, heard);
  loop->run_until(kT0 + seconds(60));
  EXPECT_EQ(executor.kill(1), KillAck::kKilled);
  EXPECT_EQ(executor.kill(1), KillAck::kUnknown);
  EXPECT_EQ(executor.kill(99), KillAck::kUnknown);
  r.id = 2;
  executor.start(r, heard);
  loop->run();
  const JobLog& killed = world.log().jobs.at(static_cast<size_t>(executor.job_of(1)));
  EXPECT_EQ(killed.state, JobState::kWithdrawn);
  EXPECT_FALSE(killed.bound.has_value());
  EXPECT_EQ(heard.log, (std::vector<std::string>{"running 2 at 3610100800", "finished 2"}));
  EXPECT_EQ(cluster.free_gpus(), 8);
}

// Container tasks never touch the cluster: they run in the fallback executor.
TEST(ClusterTaskExecutor, ContainerTasksUseTheFallback) {
  const auto loop = EventLoop::virtual_time(kT0);
  Cluster cluster(dgx_rack(1));
  Scheduler scheduler(SchedulerConfig{});
  const std::vector<JobSpec> none;
  TrainingWorld world(*loop, cluster, scheduler, SimParameters{}, none);
  SimulatedExecutor containers(*loop, 1);
  ClusterTaskExecutor executor(world, containers);
  MemoryRunStore store;
  RunScheduler runs(*loop, store, executor);
  PipelineSpec p = training_pipeline();
  p.tasks[0].template_kind = TaskTemplate::kContainer;
  p.tasks[0].replicas.clear();
  runs.add_pipeline(p);
  runs.switch_on();
  OperatorAction trigger;
  trigger.at = kT0;
  trigger.kind = ActionKind::kTrigger;
  trigger.pipeline = "train";
  runs.schedule(trigger);
  loop->run();
  const std::vector<gantry::Run> all = runs.timeline();
  const gantry::Run& run = all.at(0);
  EXPECT_EQ(run.state, RunState::kSucceeded);
  EXPECT_EQ(*run.tasks[0].attempts[0].end - run.tasks[0].attempts[0].start, minutes(10));
  EXPECT_TRUE(world.log().jobs.empty());
}

// Issue 8: a task that no placement can ever satisfy used to show "running" forever. Its
// attempt now ends at once (on the next turn of the loop) as error, with the reason, and the
// run fails; nothing is submitted to the cluster.
gantry::Run run_once(const PipelineSpec& p) {
  const auto loop = EventLoop::virtual_time(kT0);
  Cluster cluster(dgx_rack(1));
  Scheduler scheduler(SchedulerConfig{});
  const std::vector<JobSpec> none;
  TrainingWorld world(*loop, cluster, scheduler, SimParameters{}, none);
  SimulatedExecutor containers(*loop, 1);
  ClusterTaskExecutor executor(world, containers);
  MemoryRunStore store;
  RunScheduler runs(*loop, store, executor);
  runs.add_pipeline(p);
  runs.switch_on();
  OperatorAction trigger;
  trigger.at = kT0;
  trigger.kind = ActionKind::kTrigger;
  trigger.pipeline = p.name;
  runs.schedule(trigger);
  loop->run();
  EXPECT_TRUE(world.log().jobs.empty()) << "nothing submitted";
  return runs.timeline().at(0);
}

TEST(ClusterTaskExecutor, TaskThatCanNeverFitFailsWithTheReason) {
  // One node of 8 GPUs; master 1 + worker 2 pods of 4 GPUs = 12 GPUs at once. Each role alone
  // fits (two 4-GPU pods per node), the total does not.
  PipelineSpec p = training_pipeline();
  p.tasks[0].replicas = {{"master", 1}, {"worker", 2}};
  const gantry::Run run = run_once(p);
  EXPECT_EQ(run.state, RunState::kFailed);
  ASSERT_EQ(run.tasks.at(0).attempts.size(), 1u);
  const Attempt& a = run.tasks[0].attempts[0];
  EXPECT_EQ(a.state, AttemptState::kError);
  EXPECT_EQ(*a.end, kT0);
  EXPECT_EQ(a.reason,
            "can never be placed on the cluster: it needs 12 GPUs at once, but the "
            "cluster has 8");

  // A GPU type the catalog knows but no node has.
  PipelineSpec h100 = training_pipeline();
  h100.tasks[0].gpu_type = "H100-80G";
  EXPECT_EQ(run_once(h100).tasks.at(0).attempts.at(0).reason,
            "can never be placed on the cluster: it asks for GPU type H100-80G, which no node of "
            "the cluster has");
}

// The same tasks are found before a replay starts, at the task's position in its file.
TEST(ClusterTaskExecutor, CheckTasksFitNamesTheTask) {
  PipelineSpec p = training_pipeline();
  p.tasks[0].replicas = {{"master", 1}, {"worker", 2}};
  p.tasks[0].where = SourceLocation{"p.yaml", 7, 5};
  try {
    check_tasks_fit({p}, dgx_rack(1));
    ADD_FAILURE() << "expected PipelineErrors";
  } catch (const PipelineErrors& e) {
    EXPECT_EQ(std::string(e.what()),
              "p.yaml:7:5: spec.tasks[0]: task fit of pipeline train can never be placed on the "
              "--cluster scenario's cluster: it needs 12 GPUs at once, but the cluster has 8");
  }
  EXPECT_NO_THROW(check_tasks_fit({training_pipeline()}, dgx_rack(1)));  // 8 GPUs: fits
}

}  // namespace cluster_task_executor_test
}  // namespace gantry
