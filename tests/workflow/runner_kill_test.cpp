// kill-run and kill-task (operator_action.hpp), and the reasons every stopped attempt carries:
// timelines worked out by hand in the comment above each test.

#include <gtest/gtest.h>

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace runner_kill_test {

using V = std::vector<std::string>;

// The reason of the last attempt of a task ("" when it has none).
std::string last_reason(Harness& h, const std::string& pipeline, Time logical,
                        const std::string& t) {
  const TaskInstance& i = h.task_of(pipeline, logical, t);
  return i.attempts.empty() ? "(no attempt)" : i.attempts.back().reason;
}

std::string event_message(const Harness& h, SchedulerEventKind kind) {
  for (const SchedulerEvent& e : h.store->events())
    if (e.kind == kind) return e.message;
  return "(none)";
}

// Manual pipeline m: a (30 min) -> b (10 min). Triggered 00:00: a 00:00-. kill-run at 00:10
// by alice: a's attempt killed at 00:10, b never started (killed without attempt), the run
// killed 00:00-00:10. Rerun at 00:20 clears the killed tasks: a 00:20-00:50, b 00:50-01:00,
// the run succeeded with its first start kept: 00:00-01:00.
TEST(RunnerKill, KillRunStopsItsAttemptsSaysByWhomAndCanBeRerun) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(manual("m", {task("a", minutes(30)), task("b", minutes(10), {"a"})}));
  h.trigger(day("00:00"), "m");
  OperatorAction kill;
  kill.at = day("00:10");
  kill.kind = ActionKind::kKillRun;
  kill.pipeline = "m";
  kill.logical_time = day("00:00");
  kill.by = "alice";
  h.scheduler.schedule(kill);
  h.action(ActionKind::kRerun, day("00:20"), "m", day("00:00"));
  h.scheduler.switch_on();
  h.until(day("00:15"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual killed 00:00-00:10"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "a"), "killed: 00:00-00:10 killed");
  EXPECT_EQ(last_reason(h, "m", day("00:00"), "a"), "killed by alice");
  EXPECT_EQ(h.attempts("m", day("00:00"), "b"), "killed:");
  EXPECT_EQ(event_message(h, SchedulerEventKind::kKill), "killed by alice");
  h.until(day("01:05"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual succeeded 00:00-01:00"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "a"),
            "succeeded: 00:00-00:10 killed 00:20-00:50 succeeded");
}

// Manual pipeline m: a (30 min, 2 retries) -> b (10 min, all_success); a -> d (10 min,
// all_done); c (10 min) alone. Triggered 00:00: a and c start at 00:00, c ends 00:10.
// kill-task a at 00:05 (nobody named): a's attempt killed at 00:05 and not retried (a kill is
// not a failure to retry); b upstream_failed; d runs 00:05-00:15 (all_done); the run ends at
// 00:15, failed (leaf b did not succeed).
TEST(RunnerKill, KillTaskEndsOneTaskAndTheRunGoesOn) {
  Harness h(day("00:00"));
  PipelineSpec p = manual("m", {task("a", minutes(30)), task("b", minutes(10), {"a"}),
                                task("c", minutes(10)), task("d", minutes(10), {"a"})});
  p.tasks[0].retry.limit = 2;
  p.tasks[3].trigger_rule = TriggerRule::kAllDone;
  h.scheduler.add_pipeline(p);
  h.trigger(day("00:00"), "m");
  h.action(ActionKind::kKillTask, day("00:05"), "m", day("00:00"), "a");
  h.scheduler.switch_on();
  h.until(day("00:30"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual failed 00:00-00:15"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "a"), "killed: 00:00-00:05 killed");
  EXPECT_EQ(last_reason(h, "m", day("00:00"), "a"), "killed by an operator");
  EXPECT_EQ(h.attempts("m", day("00:00"), "b"), "upstream_failed:");
  EXPECT_EQ(h.attempts("m", day("00:00"), "c"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.attempts("m", day("00:00"), "d"), "succeeded: 00:05-00:15 succeeded");
}

// Kills that cannot apply are refused with a reason, and change nothing: the run of m (one
// 10-minute task) succeeded at 00:10; kill-run at 00:20 and kill-task at 00:20 are rejected;
// a kill-task naming no task of the pipeline too.
TEST(RunnerKill, KillsOfWhatHasEndedAreRefused) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(manual("m", {task("t", minutes(10))}));
  h.trigger(day("00:00"), "m");
  h.scheduler.switch_on();
  h.until(day("00:15"));
  h.action(ActionKind::kKillRun, day("00:20"), "m", day("00:00"));
  h.until(day("00:21"));
  EXPECT_EQ(event_message(h, SchedulerEventKind::kRejected),
            "kill-run: the run has ended: it is succeeded");
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual succeeded 00:00-00:10"}));
  h.trigger(day("00:30"), "m");
  h.action(ActionKind::kKillTask, day("00:35"), "m", day("00:30"), "nope");
  h.until(day("00:50"));
  std::vector<std::string> rejected;
  for (const SchedulerEvent& e : h.store->events())
    if (e.kind == SchedulerEventKind::kRejected) rejected.push_back(e.message);
  EXPECT_EQ(rejected, (V{"kill-run: the run has ended: it is succeeded",
                         "kill-task: no task nope in the pipeline"}));
  EXPECT_EQ(h.runs("m"),
            (V{"00:00 manual succeeded 00:00-00:10", "00:30 manual succeeded 00:30-00:40"}));
}

// Every attempt stopped by the orchestrator says why. Pipeline p: one 30-minute task, run
// timeout 15 min: the 00:00 run's attempt is killed at 00:15, "the run timed out (timeout
// 15m00s)". Pipeline r, concurrency Replace, 90-minute task: the 01:00 tick replaces the 00:00
// run, whose attempt is killed at 01:00 naming the run that replaced it.
TEST(RunnerKill, AttemptsTheOrchestratorStopsCarryTheirReason) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly("p");
  p.tasks[0].simulate.duration = minutes(30);
  p.timeout = minutes(15);
  PipelineSpec r = hourly("r");
  r.tasks[0].simulate.duration = minutes(90);
  r.concurrency.policy = ConcurrencyPolicy::kReplace;
  h.scheduler.add_pipeline(p);
  h.scheduler.add_pipeline(r);
  h.scheduler.switch_on();
  h.until(day("01:05"));
  EXPECT_EQ(h.attempts("p", day("00:00"), "t"), "killed: 00:00-00:15 killed");
  EXPECT_EQ(last_reason(h, "p", day("00:00"), "t"), "the run timed out (timeout 15m00s)");
  EXPECT_EQ(h.attempts("r", day("00:00"), "t"), "killed: 00:00-01:00 killed");
  EXPECT_EQ(last_reason(h, "r", day("00:00"), "t"),
            "the run was replaced by the run for 2026-01-01T01:00:00Z (concurrency Replace)");
}

}  // namespace runner_kill_test
}  // namespace gantry::runner_test
