// clear-task, mark-task-success and mark-task-failed (operator_action.hpp): what preview()
// says each would change, and what applying it then does, on timelines worked out by hand in
// the comment above each test.

#include <gtest/gtest.h>

#include <variant>

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace runner_task_actions_test {

using V = std::vector<std::string>;

OperatorAction task_action(ActionKind kind, Time now, const std::string& task,
                           const std::string& by = "") {
  OperatorAction a;
  a.at = now;
  a.kind = kind;
  a.pipeline = "m";
  a.logical_time = day("00:00");
  a.task = task;
  a.by = by;
  return a;
}

// "task from->to[ stops N]" for each change of a plan, or "refused: WHY".
V changes(const std::variant<TaskActionPlan, std::string>& planned) {
  if (const auto* why = std::get_if<std::string>(&planned)) return {"refused: " + *why};
  V out;
  const auto& plan = std::get<TaskActionPlan>(planned);
  out.push_back("run " + std::string(to_string(plan.run_from)) + "->" +
                std::string(to_string(plan.run_to)));
  for (const TaskChange& c : plan.tasks) {
    out.push_back(c.task + " " + std::string(to_string(c.from)) + "->" +
                  std::string(to_string(c.to)) +
                  (c.stops_attempt ? " stops " + std::to_string(*c.stops_attempt) : ""));
  }
  return out;
}

std::string last_reason(Harness& h, const std::string& t) {
  const TaskInstance& i = h.task_of("m", day("00:00"), t);
  return i.attempts.empty() ? "(no attempt)" : i.attempts.back().reason;
}

// Manual pipeline m: a (10 min; fails its first attempt, succeeds its second) -> b (10 min)
// -> c (10 min); d (10 min) alone. Triggered 00:00: a fails 00:00-00:10 (no retry), b and c
// upstream_failed, d succeeds 00:00-00:10: the run failed 00:00-00:10. At 00:20, clear a with
// its downstream: a, b, c back to pending (d is not downstream of a), the run queued. Applied:
// a 00:20-00:30 succeeded, b 00:30-00:40, c 00:40-00:50; the run succeeded 00:00-00:50.
TEST(RunnerTaskActions, ClearWithDownstreamRunsTheTaskAndItsDownstreamAgain) {
  Harness h(day("00:00"));
  PipelineSpec p = manual("m", {task("a", minutes(10)), task("b", minutes(10), {"a"}),
                                task("c", minutes(10), {"b"}), task("d", minutes(10))});
  p.tasks[0].simulate.outcomes = {"failed", "succeeded"};
  h.scheduler.add_pipeline(p);
  h.trigger(day("00:00"), "m");
  h.scheduler.switch_on();
  h.until(day("00:20"));
  ASSERT_EQ(h.runs("m"), (V{"00:00 manual failed 00:00-00:10"}));
  OperatorAction clear = task_action(ActionKind::kClearTask, day("00:20"), "a", "alice");
  EXPECT_EQ(changes(h.scheduler.preview(clear)), (V{"run failed->queued", "a failed->pending"}));
  clear.downstream = true;
  EXPECT_EQ(changes(h.scheduler.preview(clear)),
            (V{"run failed->queued", "a failed->pending", "b upstream_failed->pending",
               "c upstream_failed->pending"}));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual failed 00:00-00:10"})) << "a preview changes nothing";
  EXPECT_EQ(h.scheduler.apply(clear), std::nullopt);
  h.until(day("01:00"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual succeeded 00:00-00:50"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "a"),
            "succeeded: 00:00-00:10 failed 00:20-00:30 succeeded");
  EXPECT_EQ(h.attempts("m", day("00:00"), "b"), "succeeded: 00:30-00:40 succeeded");
  EXPECT_EQ(h.attempts("m", day("00:00"), "c"), "succeeded: 00:40-00:50 succeeded");
  EXPECT_EQ(h.attempts("m", day("00:00"), "d"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_TRUE(h.has_event(SchedulerEventKind::kClearTask));
}

// Manual pipeline m: x (10 min) -> y (10 min, always fails). Run at 00:00: x succeeds
// 00:00-00:10, y fails 00:10-00:20, the run failed. Clearing y with its upstream takes x and
// y; with failedOnly, y alone; clearing x with failedOnly clears nothing and is refused.
TEST(RunnerTaskActions, ClearUpstreamAndFailedOnlySelectTheTasks) {
  Harness h(day("00:00"));
  PipelineSpec p = manual("m", {task("x", minutes(10)), task("y", minutes(10), {"x"})});
  p.tasks[1].simulate.outcomes = {"failed"};
  h.scheduler.add_pipeline(p);
  h.trigger(day("00:00"), "m");
  h.scheduler.switch_on();
  h.until(day("00:30"));
  ASSERT_EQ(h.runs("m"), (V{"00:00 manual failed 00:00-00:20"}));
  OperatorAction clear = task_action(ActionKind::kClearTask, day("00:30"), "y");
  clear.upstream = true;
  EXPECT_EQ(changes(h.scheduler.preview(clear)),
            (V{"run failed->queued", "x succeeded->pending", "y failed->pending"}));
  clear.failed_only = true;
  EXPECT_EQ(changes(h.scheduler.preview(clear)), (V{"run failed->queued", "y failed->pending"}));
  OperatorAction none = task_action(ActionKind::kClearTask, day("00:30"), "x");
  none.failed_only = true;
  EXPECT_EQ(changes(h.scheduler.preview(none)),
            (V{"refused: nothing to clear: no task of the selection failed, was upstream_failed "
               "or killed"}));
  EXPECT_EQ(h.scheduler.apply(none),
            "nothing to clear: no task of the selection failed, was upstream_failed or killed");
  // Applied: y alone runs again 00:30-00:40 and fails again; x keeps its one attempt.
  EXPECT_EQ(h.scheduler.apply(clear), std::nullopt);
  h.until(day("01:00"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual failed 00:00-00:40"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "x"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.attempts("m", day("00:00"), "y"), "failed: 00:10-00:20 failed 00:30-00:40 failed");
}

// Manual pipeline m: a (30 min) -> b (10 min). Run at 00:00, a running. At 00:05 clearing a
// stops its attempt ("cleared by carol") and runs it again 00:05-00:35; at 00:10 marking it
// succeeded by alice stops that one ("marked success by alice"): b 00:10-00:20, the run
// succeeded 00:00-00:20.
TEST(RunnerTaskActions, ClearAndMarkSuccessStopTheRunningAttemptSayingByWhom) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(manual("m", {task("a", minutes(30)), task("b", minutes(10), {"a"})}));
  h.trigger(day("00:00"), "m");
  h.scheduler.switch_on();
  h.until(day("00:05"));
  const OperatorAction clear = task_action(ActionKind::kClearTask, day("00:05"), "a", "carol");
  EXPECT_EQ(changes(h.scheduler.preview(clear)),
            (V{"run running->running", "a running->pending stops 0"}));
  EXPECT_EQ(h.scheduler.apply(clear), std::nullopt);
  EXPECT_EQ(last_reason(h, "a"), "") << "the new attempt";
  h.until(day("00:10"));
  const OperatorAction mark = task_action(ActionKind::kMarkTaskSuccess, day("00:10"), "a", "alice");
  EXPECT_EQ(changes(h.scheduler.preview(mark)),
            (V{"run running->running", "a running->succeeded stops 1"}));
  EXPECT_EQ(h.scheduler.apply(mark), std::nullopt);
  EXPECT_EQ(last_reason(h, "a"), "marked success by alice");
  h.until(day("00:30"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual succeeded 00:00-00:20"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "a"), "succeeded: 00:00-00:05 killed 00:05-00:10 killed");
  EXPECT_EQ(h.task_of("m", day("00:00"), "a").attempts.front().reason, "cleared by carol");
  EXPECT_EQ(h.attempts("m", day("00:00"), "b"), "succeeded: 00:10-00:20 succeeded");
  // The run has ended: marking refuses, naming the way to run the task again.
  EXPECT_EQ(h.scheduler.apply(task_action(ActionKind::kMarkTaskFailed, day("00:30"), "b")),
            "the run has ended: it is succeeded; clear the task to run it again");
}

// Manual pipeline m: a (10 min, fails) -> b (10 min); c (10 min) alone. Run at 00:00: a fails
// 00:00-00:10, b upstream_failed, c succeeds: the run failed 00:00-00:10. At 00:20 a is marked
// succeeded (fixed by hand): b, stopped by a's failure, runs again 00:20-00:30 and the run
// succeeds 00:00-00:30. Marking c, succeeded already, is refused.
TEST(RunnerTaskActions, MarkSuccessInAnEndedRunRunsTheDownstreamItStopped) {
  Harness h(day("00:00"));
  PipelineSpec p =
      manual("m", {task("a", minutes(10)), task("b", minutes(10), {"a"}), task("c", minutes(10))});
  p.tasks[0].simulate.outcomes = {"failed"};
  h.scheduler.add_pipeline(p);
  h.trigger(day("00:00"), "m");
  h.scheduler.switch_on();
  h.until(day("00:20"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual failed 00:00-00:10"}));
  const OperatorAction mark = task_action(ActionKind::kMarkTaskSuccess, day("00:20"), "a", "dan");
  EXPECT_EQ(changes(h.scheduler.preview(mark)),
            (V{"run failed->queued", "a failed->succeeded", "b upstream_failed->pending"}));
  EXPECT_EQ(h.scheduler.apply(mark), std::nullopt);
  h.until(day("00:40"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual succeeded 00:00-00:30"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "a"), "succeeded: 00:00-00:10 failed");
  EXPECT_EQ(h.attempts("m", day("00:00"), "b"), "succeeded: 00:20-00:30 succeeded");
  EXPECT_EQ(h.scheduler.apply(task_action(ActionKind::kMarkTaskSuccess, day("00:40"), "c")),
            "task c is succeeded already");
}

// Manual pipeline m: a (30 min) -> b (10 min); c (10 min) alone. Run at 00:00. At 00:05 a is
// marked failed by bob: its attempt stopped ("marked failed by bob"), no retry, b
// upstream_failed; c succeeds 00:00-00:10 and the run ends failed at 00:10. Marking a failed
// again was refused at 00:05 already: it is failed.
TEST(RunnerTaskActions, MarkFailedEndsTheTaskAndItsDownstreamFollow) {
  Harness h(day("00:00"));
  PipelineSpec p =
      manual("m", {task("a", minutes(30)), task("b", minutes(10), {"a"}), task("c", minutes(10))});
  p.tasks[0].retry.limit = 2;
  h.scheduler.add_pipeline(p);
  h.trigger(day("00:00"), "m");
  h.scheduler.switch_on();
  h.until(day("00:05"));
  const OperatorAction mark = task_action(ActionKind::kMarkTaskFailed, day("00:05"), "a", "bob");
  EXPECT_EQ(h.scheduler.apply(mark), std::nullopt);
  EXPECT_EQ(h.scheduler.apply(mark), "task a is failed already");
  EXPECT_EQ(last_reason(h, "a"), "marked failed by bob");
  h.until(day("00:30"));
  EXPECT_EQ(h.runs("m"), (V{"00:00 manual failed 00:00-00:10"}));
  EXPECT_EQ(h.attempts("m", day("00:00"), "a"), "failed: 00:00-00:05 killed");
  EXPECT_EQ(h.attempts("m", day("00:00"), "b"), "upstream_failed:");
  // Unknown task and pending-only selections are refused.
  EXPECT_EQ(h.scheduler.apply(task_action(ActionKind::kClearTask, day("00:30"), "zz")),
            "no task zz in the pipeline");
}

}  // namespace runner_task_actions_test
}  // namespace gantry::runner_test
