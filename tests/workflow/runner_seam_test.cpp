// The executor seam (task_executor.hpp, THE CONTRACT; run_scheduler.hpp, RESTART): durable
// attempt ids, adoption of attempts an executor still holds after a restart, timeouts counted
// from the running report, acknowledged kills. Most tests drive a ScriptedExecutor by hand;
// times are 2026-01-01, UTC, and every expectation is worked out in the comment above it.

#include "tests/workflow/runner_test_harness.hpp"
#include "tests/workflow/scripted_executor.hpp"

namespace gantry::runner_test {
namespace {

using V = std::vector<std::string>;

// One life of a scheduler on a shared store with a scripted executor.
struct Life {
  Life(Time t0, MemoryRunStore& store, ScriptedExecutor& exec, const PipelineSpec& spec,
       std::vector<PoolSpec> pools = {})
      : loop(EventLoop::virtual_time(t0)), scheduler(*loop, store, exec) {
    for (const PoolSpec& p : pools) scheduler.add_pool(p);
    scheduler.add_pipeline(spec);
  }
  // A later life: continue from the store, then switch on.
  void restart() {
    scheduler.recover();
    scheduler.switch_on();
  }
  void trigger(Time when) {
    OperatorAction a;
    a.at = when;
    a.kind = ActionKind::kTrigger;
    a.pipeline = "p";
    scheduler.schedule(a);
  }
  const TaskInstance& task(Time logical, const std::string& name = "t") {
    for (const TaskInstance& t : scheduler.find_run("p", logical)->tasks)
      if (t.name == name) return t;
    ADD_FAILURE() << name;
    static const TaskInstance kNone;
    return kNone;
  }
  std::unique_ptr<EventLoop> loop;
  RunScheduler scheduler;
};

bool has_event(const MemoryRunStore& store, SchedulerEventKind kind) {
  for (const SchedulerEvent& e : store.events())
    if (e.kind == kind) return true;
  return false;
}

// Manual pipeline "p", one 30-minute task t in pool "gpu" (1 slot), runs unbounded.
PipelineSpec pooled() {
  PipelineSpec p = manual("p", {task("t", minutes(30))});
  p.tasks[0].pool = "gpu";
  return p;
}
const PoolSpec kGpu{"gpu", 1, std::nullopt, {}};

// Life 1 of the restart tests, on `store`: at 00:00 a manual run of `spec`; its attempt 1 is
// queued by the executor and, when `runs`, running from 00:05; the scheduler dies at 00:05.
void first_life(MemoryRunStore& store, const PipelineSpec& spec, bool runs) {
  ScriptedExecutor exec;
  Life life1(day("00:00"), store, exec, spec, {kGpu});
  life1.scheduler.switch_on();
  life1.trigger(day("00:00"));
  life1.loop->run_until(day("00:05"));
  ASSERT_EQ(exec.started, (std::vector<AttemptId>{1}));
  if (runs) exec.run(1, day("00:05"));
}

// Life 1 (00:00): a manual run at 00:00; its attempt 1 is queued by the executor and runs from
// 00:05; the scheduler dies. Life 2 (00:20): the executor still holds attempt 1, so recover()
// adopts it (event adopted-attempt, no lost attempt): it keeps its pool slot, so a second
// manual run at 00:20 waits. The executor re-reports the running start (00:05, already
// recorded: no change) and ends the attempt at 00:35: run 00 succeeded 00:00-00:35 with its
// single attempt; the pool slot goes to run 00:20's task, attempt 2 (the next id after the
// stored 1), at 00:35.
TEST(RunnerSeam, AnAttemptTheExecutorStillHoldsIsAdopted) {
  MemoryRunStore store;
  first_life(store, pooled(), true);
  ScriptedExecutor exec({1});
  Life life2(day("00:20"), store, exec, pooled(), {kGpu});
  life2.restart();
  life2.trigger(day("00:20"));
  life2.loop->run_until(day("00:20"));
  EXPECT_EQ(exec.asked, (std::vector<AttemptId>{1}));
  EXPECT_TRUE(exec.started.empty()) << "the adopted attempt holds the pool's only slot";
  EXPECT_TRUE(has_event(store, SchedulerEventKind::kAdoptedAttempt));
  EXPECT_FALSE(has_event(store, SchedulerEventKind::kLostAttempt));
  exec.run(1, day("00:05"));
  life2.loop->run_until(day("00:35"));
  exec.finish(1);
  const TaskInstance& t = life2.task(day("00:00"));
  ASSERT_EQ(t.attempts.size(), 1u);
  EXPECT_EQ(t.attempts[0].state, AttemptState::kSucceeded);
  EXPECT_EQ(t.attempts[0].start, day("00:00"));
  EXPECT_EQ(t.attempts[0].running, day("00:05"));
  EXPECT_EQ(t.attempts[0].end, day("00:35"));
  EXPECT_EQ(life2.scheduler.find_run("p", day("00:00"))->state, RunState::kSucceeded);
  EXPECT_EQ(exec.started, (std::vector<AttemptId>{2}));
  EXPECT_EQ(life2.task(day("00:20")).attempts.at(0).start, day("00:35"));
}

// As above with a 40-minute per-attempt timeout and an executor that never ends the attempt:
// the timeout counts from the recorded running start, 00:05 + 40m = 00:45 (not from the
// request at 00:00, nor from the adoption at 00:20). At 00:45 the attempt is killed (the
// executor acknowledges) and ends as timeout; no retries: run failed at 00:45.
TEST(RunnerSeam, AdoptedAttemptTimesOutFromItsRecordedRunningStart) {
  MemoryRunStore store;
  PipelineSpec p = pooled();
  p.tasks[0].timeout = minutes(40);
  first_life(store, p, true);
  ScriptedExecutor exec({1});
  Life life2(day("00:20"), store, exec, p, {kGpu});
  life2.restart();
  life2.loop->run_until(day("00:44"));
  EXPECT_TRUE(exec.killed.empty());
  life2.loop->run_until(day("00:45"));
  EXPECT_EQ(exec.killed, (std::vector<AttemptId>{1}));
  EXPECT_FALSE(exec.holds(1));
  const TaskInstance& t = life2.task(day("00:00"));
  EXPECT_EQ(t.attempts.at(0).state, AttemptState::kTimeout);
  EXPECT_EQ(t.attempts.at(0).end, day("00:45"));
  EXPECT_EQ(life2.scheduler.find_run("p", day("00:00"))->state, RunState::kFailed);
}

// Life 2's executor does not hold attempt 1 (it was lost with the cluster, say): the lost
// rules apply (default kRerun): attempt 1 ends lost at 00:20 and attempt 2 starts at once.
TEST(RunnerSeam, AnAttemptTheExecutorDoesNotHoldFollowsTheLostRules) {
  MemoryRunStore store;
  first_life(store, pooled(), false);
  ScriptedExecutor exec;
  Life life2(day("00:20"), store, exec, pooled(), {kGpu});
  life2.restart();
  life2.loop->run_until(day("00:20"));
  EXPECT_EQ(exec.asked, (std::vector<AttemptId>{1}));
  EXPECT_EQ(exec.started, (std::vector<AttemptId>{2}));
  const TaskInstance& t = life2.task(day("00:00"));
  ASSERT_EQ(t.attempts.size(), 2u);
  EXPECT_EQ(t.attempts[0].state, AttemptState::kLost);
  EXPECT_EQ(t.attempts[0].end, day("00:20"));
  EXPECT_TRUE(has_event(store, SchedulerEventKind::kLostAttempt));
  EXPECT_FALSE(has_event(store, SchedulerEventKind::kAdoptedAttempt));
}

// A 10-minute per-attempt timeout and an attempt the executor queues from 00:00 to 00:30: at
// 00:25 nothing has timed out (25 minutes since the request, but it never ran); it runs from
// 00:30, so it times out at 00:40: killed, "timeout", start 00:00, running 00:30.
TEST(RunnerSeam, TimeoutCountsFromRunningNotFromTheRequest) {
  MemoryRunStore store;
  ScriptedExecutor exec;
  PipelineSpec p = manual("p", {task("t", minutes(30))});
  p.tasks[0].timeout = minutes(10);
  Life life(day("00:00"), store, exec, p);
  life.scheduler.switch_on();
  life.trigger(day("00:00"));
  life.loop->run_until(day("00:25"));
  EXPECT_TRUE(exec.killed.empty());
  EXPECT_FALSE(life.task(day("00:00")).attempts.at(0).running.has_value()) << "queued";
  life.loop->run_until(day("00:30"));
  exec.run(1, day("00:30"));
  life.loop->run_until(day("00:40") - microseconds(1));
  EXPECT_TRUE(exec.killed.empty());
  life.loop->run_until(day("00:40"));
  EXPECT_EQ(exec.killed, (std::vector<AttemptId>{1}));
  const Attempt& a = life.task(day("00:00")).attempts.at(0);
  EXPECT_EQ(a.state, AttemptState::kTimeout);
  EXPECT_EQ(a.start, day("00:00"));
  EXPECT_EQ(a.running, day("00:30"));
  EXPECT_EQ(a.end, day("00:40"));
  EXPECT_EQ(store.runs().begin()->second.tasks[0].attempts.at(0).running, day("00:30"))
      << "the running start is stored";
}

// Run timeout 15m, two independent tasks a (attempt 1) and b (attempt 2) that never end. The
// executor loses track of b at 00:10 without a word. At 00:15 the run times out and both are
// killed: a is acknowledged (kKilled), b is not (kUnknown): event kill-unknown for task b. The
// scheduler's record stands either way: both attempts killed at 00:15, run failed.
TEST(RunnerSeam, KillsAreAcknowledged) {
  MemoryRunStore store;
  ScriptedExecutor exec;
  PipelineSpec p = manual("p", {task("a", minutes(30)), task("b", minutes(30))});
  p.timeout = minutes(15);
  Life life(day("00:00"), store, exec, p);
  life.scheduler.switch_on();
  life.trigger(day("00:00"));
  life.loop->run_until(day("00:10"));
  ASSERT_EQ(exec.started, (std::vector<AttemptId>{1, 2}));
  exec.forget(2);
  life.loop->run_until(day("00:15"));
  EXPECT_EQ(exec.killed, (std::vector<AttemptId>{1, 2}));
  int unknown = 0;
  for (const SchedulerEvent& e : store.events()) {
    if (e.kind != SchedulerEventKind::kKillUnknown) continue;
    ++unknown;
    EXPECT_EQ(e.task, "b");
  }
  EXPECT_EQ(unknown, 1);
  EXPECT_EQ(life.task(day("00:00"), "a").attempts.at(0).state, AttemptState::kKilled);
  EXPECT_EQ(life.task(day("00:00"), "b").attempts.at(0).state, AttemptState::kKilled);
  EXPECT_EQ(life.scheduler.find_run("p", day("00:00"))->end, day("00:15"));
}

// What a listener hears from the simulated executor.
struct Spy final : AttemptListener {
  void attempt_running(AttemptId id, Time at) override {
    heard.push_back("running " + std::to_string(id) + " " + hm(at));
  }
  void attempt_finished(AttemptId id, const AttemptResult&) override {
    heard.push_back("finished " + std::to_string(id));
  }
  V heard;
};

// A 10-minute task started at 00:00 as attempt 1: nothing during start(); then, at 00:00 but
// from a loop event of its own, running 1 00:00; finished at 00:10; a kill then is kUnknown.
// Attempt 2, killed at 00:00 before its running report: kKilled, and nothing is reported.
TEST(RunnerSeam, SimulatedExecutorReportsRunningFromTheLoop) {
  auto loop = EventLoop::virtual_time(day("00:00"));
  SimulatedExecutor exec(*loop, 1);
  const PipelineSpec p = manual("p", {task("t", minutes(10))});
  AttemptRequest r;
  r.pipeline = &p;
  r.task = &p.tasks[0];
  r.id = 1;
  Spy spy;
  exec.start(r, spy);
  EXPECT_TRUE(spy.heard.empty());
  loop->run_until(day("00:00"));
  EXPECT_EQ(spy.heard, (V{"running 1 00:00"}));
  loop->run_until(day("00:10"));
  EXPECT_EQ(spy.heard, (V{"running 1 00:00", "finished 1"}));
  EXPECT_EQ(exec.kill(1), KillAck::kUnknown);
  r.id = 2;
  exec.start(r, spy);
  EXPECT_EQ(exec.kill(2), KillAck::kKilled);
  EXPECT_EQ(exec.kill(2), KillAck::kUnknown);
  loop->run();
  EXPECT_EQ(spy.heard.size(), 2u);
  EXPECT_FALSE(exec.adopt(1, spy));
}

}  // namespace
}  // namespace gantry::runner_test
