// The scheduler core (scheduler_core.hpp) stepped by hand, as Ninja's Plan is: no executor;
// the test takes the attempts ready() hands out and reports how they ended. A manual run of a
// diamond  a -> b, a -> c, (b, c) -> d  on 2026-01-01 (UTC); the loop is only the clock.

#include "workflow/runner/scheduler_core.hpp"

#include <gtest/gtest.h>

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

using V = std::vector<std::string>;

PipelineSpec diamond() {
  return manual("p", {task("a", minutes(10)), task("b", minutes(10), {"a"}),
                      task("c", minutes(10), {"a"}), task("d", minutes(10), {"b", "c"})});
}

struct Stepper {
  explicit Stepper(const PipelineSpec& spec)
      : loop(EventLoop::virtual_time(day("00:00"))), core(*loop, store) {
    core.add_pipeline(spec);
    core.switch_on();
    OperatorAction trigger;
    trigger.at = day("00:00");
    trigger.kind = ActionKind::kTrigger;
    trigger.pipeline = spec.name;
    core.apply(trigger);
  }
  // Task names of the attempts ready() hands out now, in start order; remembers their ids.
  V ready() {
    V out;
    for (const AttemptRequest& r : core.ready()) {
      out.push_back(r.task->name);
      ids[r.task->name] = r.id;
    }
    return out;
  }
  void finish(const std::string& task, AttemptOutcome outcome = AttemptOutcome::kSucceeded) {
    core.attempt_finished(ids.at(task), AttemptResult{outcome, {}});
  }
  std::string state(const std::string& task) const {
    for (const TaskInstance& t : run().tasks)
      if (t.name == task) return std::string(to_string(t.state));
    return "?";
  }
  const Run& run() const { return *core.find_run("p", day("00:00")); }

  std::unique_ptr<EventLoop> loop;
  MemoryRunStore store;
  SchedulerCore core;
  std::map<std::string, AttemptId> ids;
};

// a is the only root: ready() hands out a alone (attempt 1). Nothing more until it ends.
// a succeeded: b and c are ready at the same instant with the same priority, so in task order
// (b, c). b and c succeeded: d. d succeeded: the run (leaf d) succeeded.
TEST(SchedulerCore, DiamondHandsOutWorkInDependencyOrder) {
  Stepper s(diamond());
  EXPECT_EQ(s.ready(), (V{"a"}));
  EXPECT_EQ(s.ids.at("a"), 1u);
  EXPECT_EQ(s.ready(), V{}) << "a is running; nothing else may start";
  EXPECT_EQ(s.state("a"), "running");
  s.finish("a");
  EXPECT_EQ(s.ready(), (V{"b", "c"}));
  s.finish("b");
  EXPECT_EQ(s.ready(), V{}) << "d waits for c";
  s.finish("c");
  EXPECT_EQ(s.ready(), (V{"d"}));
  EXPECT_EQ(s.run().state, RunState::kRunning);
  s.finish("d");
  EXPECT_EQ(s.run().state, RunState::kSucceeded);
  EXPECT_EQ(s.core.runs_in_flight(), 0u);
}

// Priority before task order: c (priority 5) before b among the tasks a releases.
TEST(SchedulerCore, ReadyOrderIsPriorityThenTaskOrder) {
  PipelineSpec p = diamond();
  p.tasks[2].priority = 5;
  Stepper s(p);
  s.ready();
  s.finish("a");
  EXPECT_EQ(s.ready(), (V{"c", "b"}));
}

// b fails (no retries): d (all_success) can never run: upstream_failed at once, while c is
// still running; the run ends when c does, failed (its leaf d is upstream_failed).
// With d's rule all_done, d waits for c and then runs: the run succeeds with d.
TEST(SchedulerCore, TaskFinishedAppliesTriggerRules) {
  {
    Stepper s(diamond());
    s.ready();
    s.finish("a");
    s.ready();
    s.finish("b", AttemptOutcome::kFailed);
    EXPECT_EQ(s.state("b"), "failed");
    EXPECT_EQ(s.state("d"), "upstream_failed");
    EXPECT_EQ(s.run().state, RunState::kRunning) << "c is still running";
    s.finish("c");
    EXPECT_EQ(s.ready(), V{});
    EXPECT_EQ(s.run().state, RunState::kFailed);
  }
  {
    PipelineSpec p = diamond();
    p.tasks[3].trigger_rule = TriggerRule::kAllDone;
    Stepper s(p);
    s.ready();
    s.finish("a");
    s.ready();
    s.finish("b", AttemptOutcome::kFailed);
    EXPECT_EQ(s.state("d"), "pending");
    s.finish("c");
    EXPECT_EQ(s.ready(), (V{"d"}));
    s.finish("d");
    EXPECT_EQ(s.run().state, RunState::kSucceeded);
  }
}

// parallelism 1: after a, only b (task order) gets the slot; c when b ends.
TEST(SchedulerCore, ParallelismHoldsTheRestBack) {
  PipelineSpec p = diamond();
  p.parallelism = 1;
  Stepper s(p);
  s.ready();
  s.finish("a");
  EXPECT_EQ(s.ready(), (V{"b"}));
  s.finish("b");
  EXPECT_EQ(s.ready(), (V{"c"}));
}

// Run timeout 15m. a ends at 00:05 (the clock moved by hand); b and c start at 00:05. At
// 00:15 the run times out: the core gives up b and c (kill orders, in task order), b and c end
// killed at 00:15, d never started: killed; the run failed at 00:15. A late report of b's end
// is ignored.
TEST(SchedulerCore, RunTimeoutOrdersKills) {
  PipelineSpec p = diamond();
  p.timeout = minutes(15);
  Stepper s(p);
  s.ready();
  s.loop->run_until(day("00:05"));
  s.finish("a");
  EXPECT_EQ(s.ready(), (V{"b", "c"}));
  EXPECT_TRUE(s.core.take_kills().empty());
  s.loop->run_until(day("00:15"));
  const std::vector<KillOrder> kills = s.core.take_kills();
  ASSERT_EQ(kills.size(), 2u);
  EXPECT_EQ(kills[0].id, s.ids.at("b"));
  EXPECT_EQ(kills[1].id, s.ids.at("c"));
  EXPECT_EQ(s.state("b"), "killed");
  EXPECT_EQ(s.state("d"), "killed");
  EXPECT_EQ(s.run().state, RunState::kFailed);
  EXPECT_EQ(s.run().end, day("00:15"));
  s.finish("b");
  EXPECT_EQ(s.run().tasks[1].attempts.back().state, AttemptState::kKilled);
  EXPECT_TRUE(s.core.take_kills().empty());
}

// A catch-up in slices (gantry serve, issue 22): the hourly pipeline switched on at 03:30 has
// 4 overdue ticks (00..03). With a slice of 3, the switch-on creates 00, 01, 02 and leaves the
// rest to the loop's next event, which creates 03; then the next tick is 04:00. The runs, in
// logical order, are those of an unsliced catch-up; only the first may start (maxActiveRuns 1).
TEST(SchedulerCore, ALongCatchUpGoesOnInTheLoopsNextEvents) {
  auto loop = EventLoop::virtual_time(day("03:30"));
  MemoryRunStore store;
  SchedulerCore core(*loop, store);
  core.set_catch_up_slice(3);
  core.add_pipeline(hourly());
  core.switch_on();
  EXPECT_EQ(core.run_count(), 3u);
  EXPECT_EQ(core.last_tick("p"), day("02:00"));
  ASSERT_TRUE(loop->run_one());
  EXPECT_EQ(core.run_count(), 4u);
  EXPECT_EQ(core.last_tick("p"), day("03:00"));
  EXPECT_EQ(loop->next_timer(), day("04:00")) << "the next tick, no further slice";
  V runs;
  for (const gantry::Run& r : core.timeline())
    runs.push_back(hm(r.logical_time) + " " + std::string(to_string(r.trigger)) + " " +
                   std::string(to_string(r.state)));
  EXPECT_EQ(runs, (V{"00:00 catchup running", "01:00 catchup queued", "02:00 catchup queued",
                     "03:00 catchup queued"}));
}

// A catch-up held by its backlog (set_catch_up_backlog(2), slice 1): switched on at 10:30 with
// ticks 00..10 overdue (11 runs), maxActiveRuns 1. The first slice makes run 00, which starts;
// the next slices make 01 and 02 (2 queued: the backlog) and the catch-up waits: 3 runs exist,
// not 11, while nothing finishes (no executor here). RunnerSchedule.* checks that the runs
// come out the same once they do.
TEST(SchedulerCore, ACatchUpWaitsWhileItsBacklogIsFull) {
  auto loop = EventLoop::virtual_time(day("10:30"));
  MemoryRunStore store;
  SchedulerCore core(*loop, store);
  core.set_catch_up_slice(1);
  core.set_catch_up_backlog(2);
  core.add_pipeline(hourly());
  core.switch_on();
  while (loop->next_timer() && *loop->next_timer() == day("10:30")) ASSERT_TRUE(loop->run_one());
  EXPECT_EQ(core.run_count(), 3u);
  EXPECT_EQ(core.last_tick("p"), day("02:00"));
  EXPECT_FALSE(loop->next_timer()) << "no slice pending and no tick armed: the catch-up waits";
}

}  // namespace
}  // namespace gantry::runner_test
