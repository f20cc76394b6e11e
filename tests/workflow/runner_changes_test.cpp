// Pipelines that change while the scheduler runs (run_scheduler.hpp, PIPELINES THAT CHANGE):
// added after switch-on, replaced, removed, and operator actions that report their refusal.
// Timelines worked out by hand; the hourly pipeline's task takes 10 minutes.

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

// Switched on at 00:30 with no pipeline; at 02:30 hourly "p" (start 00:00, catchup true) is
// put: its ticks 00:00, 01:00, 02:00 are overdue and each gets a catch-up run at once (one at
// a time: maxActiveRuns defaults to 1): 02:30-02:40, 02:40-02:50, 02:50-03:00; then 03:00 on time.
TEST(RunnerChanges, APipelinePutAfterSwitchOnCatchesUp) {
  Harness h(day("00:30"));
  h.scheduler.switch_on();
  h.until(day("02:30"));
  h.scheduler.put_pipeline(hourly());
  h.until(day("03:10"));
  EXPECT_EQ(h.runs(),
            (std::vector<std::string>{
                "00:00 catchup succeeded 02:30-02:40", "01:00 catchup succeeded 02:40-02:50",
                "02:00 catchup succeeded 02:50-03:00", "03:00 schedule succeeded 03:00-03:10"}));
}

// p runs hourly from 00:00 (task t). At 01:30 it is replaced by a version with tasks t and u
// (u after t) on a two-hourly cron: the runs so far keep their task t and gain u as pending
// (as a restart would give them); the next tick of "0 */2 * * *" after the last looked at
// (01:00) is 02:00, whose run has both tasks: t 02:00-02:10, u 02:10-02:20.
TEST(RunnerChanges, ReplacingKeepsRunsAndContinuesWithTheNewTasksAndCron) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(hourly());
  h.scheduler.switch_on();
  h.until(day("01:30"));
  PipelineSpec v2 = hourly();
  v2.schedule->cron = "0 */2 * * *";
  v2.tasks.push_back(task("u", minutes(10), {"t"}));
  h.scheduler.put_pipeline(v2);
  h.until(day("03:00"));
  EXPECT_EQ(h.runs(), (std::vector<std::string>{"00:00 schedule succeeded 00:00-00:10",
                                                "01:00 schedule succeeded 01:00-01:10",
                                                "02:00 schedule succeeded 02:00-02:20"}));
  EXPECT_EQ(h.attempts("p", day("02:00"), "u"), "succeeded: 02:10-02:20 succeeded");
  EXPECT_EQ(h.attempts("p", day("01:00"), "u"), "pending:");
}

// While a run is in flight (00:05: the 00:00 run's task runs until 00:10) the pipeline can be
// neither replaced nor removed, and nothing changes; at 00:15 both work. After the removal no
// tick runs (01:00 passes without a run) and actions are refused with a reason; the runs stay.
TEST(RunnerChanges, BusyPipelinesAreRefusedAndRemovedOnesStop) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(hourly());
  h.scheduler.switch_on();
  h.until(day("00:05"));
  EXPECT_THROW(h.scheduler.put_pipeline(hourly()), PipelineBusy);
  EXPECT_THROW(h.scheduler.remove_pipeline("p"), PipelineBusy);
  h.until(day("00:15"));
  EXPECT_TRUE(h.scheduler.remove_pipeline("p"));
  EXPECT_FALSE(h.scheduler.remove_pipeline("p")) << "already removed";
  h.until(day("01:30"));
  EXPECT_EQ(h.runs(), (std::vector<std::string>{"00:00 schedule succeeded 00:00-00:10"}));
  OperatorAction trigger;
  trigger.at = day("01:30");
  trigger.kind = ActionKind::kTrigger;
  trigger.pipeline = "p";
  EXPECT_EQ(h.scheduler.apply(trigger), std::optional<std::string>("no such pipeline"));
  EXPECT_THROW(h.scheduler.backfill("p", day("00:00"), day("01:00")), std::invalid_argument);
  // Put again: it comes back after its last tick (00:00): 01:00 is overdue, caught up at once.
  h.scheduler.put_pipeline(hourly());
  h.until(day("01:45"));
  EXPECT_EQ(h.runs().back(), "01:00 catchup succeeded 01:30-01:40");
}

TEST(RunnerChanges, ActionsSayWhyTheyWereRefused) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(hourly());
  h.scheduler.switch_on();
  h.until(day("00:15"));
  OperatorAction rerun;
  rerun.at = day("00:15");
  rerun.kind = ActionKind::kRerun;
  rerun.pipeline = "p";
  rerun.logical_time = day("00:00");
  EXPECT_EQ(h.scheduler.apply(rerun), std::optional<std::string>("the run is succeeded"));
  rerun.logical_time = day("00:30");
  EXPECT_EQ(h.scheduler.apply(rerun), std::optional<std::string>("no run at this logical time"));
  OperatorAction trigger = rerun;
  trigger.kind = ActionKind::kTrigger;
  EXPECT_EQ(h.scheduler.apply(trigger), std::nullopt) << "applied";
}

}  // namespace
}  // namespace gantry::runner_test
