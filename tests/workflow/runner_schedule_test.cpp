// Run scheduler: schedules, catch-up, concurrency and dependsOnPast (run_scheduler.hpp,
// SCHEDULE / CONCURRENCY / DEPENDS ON PAST). Every expected timeline is worked out by hand in
// the comment above it. Pipelines are hourly ("0 * * * *", UTC) from 2026-01-01T00:00Z unless
// said otherwise; times are that day's, UTC.

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

using V = std::vector<std::string>;

// Switched on at 03:30, catchup true, maxActiveRuns 1, one 20-minute task.
// Ticks 00, 01, 02, 03 are overdue: four catchup runs, started one at a time, oldest first:
//   00 03:30-03:50, 01 03:50-04:10, 02 04:10-04:30, 03 04:30-04:50.
// Tick 04:00 (on time, "schedule") queues behind them: 04:50-05:10. Tick 05:00: 05:10-05:30.
// Until 05:30 nothing ever overlaps: no catch-up flood.
TEST(RunnerSchedule, CatchupSerializesOldestFirstUnderMaxActiveRuns) {
  Harness h(day("03:30"));
  PipelineSpec p = hourly();
  p.tasks[0].simulate.duration = minutes(20);
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("03:30"));
  // Right after switch-on: one run running, three queued.
  EXPECT_EQ(h.runs(), (V{"00:00 catchup running 03:30--", "01:00 catchup queued ---",
                         "02:00 catchup queued ---", "03:00 catchup queued ---"}));
  h.until(day("05:30"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 catchup succeeded 03:30-03:50", "01:00 catchup succeeded 03:50-04:10",
               "02:00 catchup succeeded 04:10-04:30", "03:00 catchup succeeded 04:30-04:50",
               "04:00 schedule succeeded 04:50-05:10", "05:00 schedule succeeded 05:10-05:30"}));
}

// The same catch-up bounded by a backlog (slice 1, at most 2 queued runs): runs are made as
// others start, and the timeline is the same to the minute, the catch-up's runs and the
// schedule's after them (maxActiveRuns 1, 20-minute runs, switched on at 03:30).
TEST(RunnerSchedule, ABacklogBoundedCatchUpMakesTheSameTimeline) {
  const auto timeline = [](bool bounded) {
    Harness h(day("03:30"));
    if (bounded) {
      h.scheduler.set_catch_up_slice(1);
      h.scheduler.set_catch_up_backlog(2);
    }
    PipelineSpec p = hourly();
    p.tasks[0].simulate.duration = minutes(20);
    h.scheduler.add_pipeline(p);
    h.scheduler.switch_on();
    h.until(day("06:30"));
    return h.runs();
  };
  const V bounded = timeline(true);
  EXPECT_EQ(bounded, timeline(false));
  EXPECT_EQ(bounded,
            (V{"00:00 catchup succeeded 03:30-03:50", "01:00 catchup succeeded 03:50-04:10",
               "02:00 catchup succeeded 04:10-04:30", "03:00 catchup succeeded 04:30-04:50",
               "04:00 schedule succeeded 04:50-05:10", "05:00 schedule succeeded 05:10-05:30",
               "06:00 schedule succeeded 06:00-06:20"}));
}

// A backlog below maxActiveRuns is raised to it (SchedulerCore::set_catch_up_backlog()): with
// 3 runs at once and a backlog of 1, switched on at 03:30, the overdue 00:00, 01:00, 02:00
// start together, then 03:00 when they end at 03:50, as without a bound.
TEST(RunnerSchedule, ABacklogBelowMaxActiveRunsMakesTheSameTimeline) {
  const auto timeline = [](bool bounded) {
    Harness h(day("03:30"));
    if (bounded) {
      h.scheduler.set_catch_up_slice(1);
      h.scheduler.set_catch_up_backlog(1);
    }
    PipelineSpec p = hourly();
    p.concurrency.max_active_runs = 3;
    p.tasks[0].simulate.duration = minutes(20);
    h.scheduler.add_pipeline(p);
    h.scheduler.switch_on();
    h.until(day("04:30"));
    return h.runs();
  };
  const V bounded = timeline(true);
  EXPECT_EQ(bounded, timeline(false));
  EXPECT_EQ(bounded,
            (V{"00:00 catchup succeeded 03:30-03:50", "01:00 catchup succeeded 03:30-03:50",
               "02:00 catchup succeeded 03:30-03:50", "03:00 catchup succeeded 03:50-04:10",
               "04:00 schedule succeeded 04:00-04:20"}));
}

// catchup false, switched on at 03:30: overdue ticks 00, 01, 02, 03 (4 of them).
// (a) maxMissedRuns 100, no deadline: only 03:00 runs (catchup) 03:30-03:40; 04:00 on time.
TEST(RunnerSchedule, CatchupFalseRunsOnlyTheMostRecentTick) {
  Harness h(day("03:30"));
  PipelineSpec p = hourly();
  p.schedule->catchup = false;
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("04:30"));
  EXPECT_EQ(h.runs(),
            (V{"03:00 catchup succeeded 03:30-03:40", "04:00 schedule succeeded 04:00-04:10"}));
}

// (b) startingDeadline 20m: 03:00 was due 30 minutes before 03:30 > 20m, and no overdue tick
// lies within 20 minutes: nothing starts, event missed-deadline. 04:00 runs on time.
TEST(RunnerSchedule, CatchupFalseStartingDeadlinePassed) {
  Harness h(day("03:30"));
  PipelineSpec p = hourly();
  p.schedule->catchup = false;
  p.schedule->starting_deadline = minutes(20);
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("04:30"));
  EXPECT_EQ(h.runs(), (V{"04:00 schedule succeeded 04:00-04:10"}));
  EXPECT_TRUE(h.has_event(SchedulerEventKind::kMissedDeadline));
  EXPECT_FALSE(h.has_event(SchedulerEventKind::kTooManyMissed));
}

// (c) startingDeadline 40m: 03:00 is 30 minutes old <= 40m: it runs (catchup).
TEST(RunnerSchedule, CatchupFalseWithinStartingDeadline) {
  Harness h(day("03:30"));
  PipelineSpec p = hourly();
  p.schedule->catchup = false;
  p.schedule->starting_deadline = minutes(40);
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("03:45"));
  EXPECT_EQ(h.runs(), (V{"03:00 catchup succeeded 03:30-03:40"}));
}

// (d) maxMissedRuns 3 < 4 overdue ticks: none starts, event too-many-missed.
// (e) deadline 90m, maxMissedRuns 1: overdue ticks counted within 90 minutes of 03:30 are 02:00
// (exactly 90m: counted) and 03:00 = 2 > 1: none starts either.
// (f) maxMissedRuns 4 = 4 overdue: not more than the limit, 03:00 runs.
TEST(RunnerSchedule, CatchupFalseMaxMissedRuns) {
  struct Case {
    int64_t max_missed;
    std::optional<Duration> deadline;
    bool runs;
  };
  for (Case c :
       {Case{3, std::nullopt, false}, Case{1, minutes(90), false}, Case{4, std::nullopt, true}}) {
    Harness h(day("03:30"));
    PipelineSpec p = hourly();
    p.schedule->catchup = false;
    p.schedule->max_missed_runs = c.max_missed;
    p.schedule->starting_deadline = c.deadline;
    h.scheduler.add_pipeline(p);
    h.scheduler.switch_on();
    h.until(day("03:45"));
    EXPECT_EQ(h.runs(), c.runs ? V{"03:00 catchup succeeded 03:30-03:40"} : V{}) << c.max_missed;
    EXPECT_EQ(h.has_event(SchedulerEventKind::kTooManyMissed), !c.runs) << c.max_missed;
  }
}

// Switched on at the schedule's start, 00:00, until 02:30; 10-minute task.
// trigger: the run for tick t starts at t: 00 00:00-00:10, 01 01:00-01:10, 02 02:00-02:10.
// interval: the run for t starts when [t, t+1h) has ended: 00 01:00-01:10, 01 02:00-02:10;
// tick 02's interval ends at 03:00, after the horizon: no run yet.
TEST(RunnerSchedule, TriggerVersusIntervalSemantics) {
  for (ScheduleSemantics sem : {ScheduleSemantics::kTrigger, ScheduleSemantics::kInterval}) {
    Harness h(day("00:00"));
    PipelineSpec p = hourly();
    p.schedule->semantics = sem;
    h.scheduler.add_pipeline(p);
    h.scheduler.switch_on();
    h.until(day("02:30"));
    if (sem == ScheduleSemantics::kTrigger) {
      EXPECT_EQ(h.runs(),
                (V{"00:00 schedule succeeded 00:00-00:10", "01:00 schedule succeeded 01:00-01:10",
                   "02:00 schedule succeeded 02:00-02:10"}));
    } else {
      EXPECT_EQ(h.runs(), (V{"00:00 schedule succeeded 01:00-01:10",
                             "01:00 schedule succeeded 02:00-02:10"}));
    }
  }
}

// Forbid, 90-minute task, from 00:00: 00 runs 00:00-01:30; tick 01:00 finds it in flight:
// recorded skipped at 01:00 (its task skipped, no attempt); tick 02:00 finds nothing in
// flight: 02:00-03:30; tick 03:00 skipped.
TEST(RunnerSchedule, ForbidRecordsSkippedRuns) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.concurrency.policy = ConcurrencyPolicy::kForbid;
  p.concurrency.max_active_runs = 5;
  p.tasks[0].simulate.duration = minutes(90);
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("03:45"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 schedule succeeded 00:00-01:30", "01:00 schedule skipped 01:00-01:00",
               "02:00 schedule succeeded 02:00-03:30", "03:00 schedule skipped 03:00-03:00"}));
  EXPECT_EQ(h.attempts("p", day("01:00"), "t"), "skipped:");
  EXPECT_TRUE(h.has_event(SchedulerEventKind::kForbidSkip));
}

// Replace, 90-minute task: tick 01:00 kills run 00 (its attempt 00:00-01:00 killed) and starts
// 01 at 01:00; tick 02:00 kills 01 and starts 02, still running at 02:30.
TEST(RunnerSchedule, ReplaceKillsTheRunInFlight) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.concurrency.policy = ConcurrencyPolicy::kReplace;
  p.tasks[0].simulate.duration = minutes(90);
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("02:30"));
  EXPECT_EQ(h.runs(), (V{"00:00 schedule killed 00:00-01:00", "01:00 schedule killed 01:00-02:00",
                         "02:00 schedule running 02:00--"}));
  EXPECT_EQ(h.attempts("p", day("00:00"), "t"), "killed: 00:00-01:00 killed");
}

// keepLatest 2, maxActiveRuns 1, 20-minute task, switched on at 03:30 with catch-up.
// Runs are created oldest first at 03:30: 00 (starts at once), 01 (queued: 2 in flight),
// 02 (3 in flight > 2: the oldest, 00, running, is killed and expired; 01 starts),
// 03 (01 expired the same way; 02 starts). 02 03:30-03:50, 03 03:50-04:10.
// Tick 04:00: in flight {03 running, 04 queued} = 2, nothing expires; 04 runs 04:10-04:30.
TEST(RunnerSchedule, KeepLatestExpiresOlderRunsEvenRunning) {
  Harness h(day("03:30"));
  PipelineSpec p = hourly();
  p.concurrency.keep_latest = 2;
  p.tasks[0].simulate.duration = minutes(20);
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("04:45"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 catchup expired 03:30-03:30", "01:00 catchup expired 03:30-03:30",
               "02:00 catchup succeeded 03:30-03:50", "03:00 catchup succeeded 03:50-04:10",
               "04:00 schedule succeeded 04:10-04:30"}));
  // Ready tasks are started once the event that made them ready is done (dispatch), so run
  // 00's task was still waiting for its slot when 00 expired in the same instant: killed
  // without an attempt.
  EXPECT_EQ(h.attempts("p", day("00:00"), "t"), "killed:");
}

// Run-level dependsOnPast, maxActiveRuns 3, 30-minute task, from 00:00.
// Run 00 starts 00:00; its attempt is failed at 00:10: run 00 failed at 00:10.
// Ticks 01:00 and 02:00 queue runs whose previous run did not succeed: they stall.
// mark-success of run 00 at 02:15: 01 starts 02:15-02:45; 02 waits for 01: 02:45-03:15;
// tick 03:00's run waits for 02: 03:15-03:45.
TEST(RunnerSchedule, DependsOnPastStallsUntilMarkSuccess) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.depends_on_past = true;
  p.concurrency.max_active_runs = 3;
  p.tasks[0].simulate.duration = minutes(30);
  h.scheduler.add_pipeline(p);
  h.action(ActionKind::kFail, day("00:10"), "p", day("00:00"), "t");
  h.action(ActionKind::kMarkSuccess, day("02:15"), "p", day("00:00"));
  h.scheduler.switch_on();
  h.until(day("02:14"));
  EXPECT_EQ(h.runs(), (V{"00:00 schedule failed 00:00-00:10", "01:00 schedule queued ---",
                         "02:00 schedule queued ---"}));
  h.until(day("03:50"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 schedule succeeded 00:00-02:15", "01:00 schedule succeeded 02:15-02:45",
               "02:00 schedule succeeded 02:45-03:15", "03:00 schedule succeeded 03:15-03:45"}));
  // Marking success turns the failed task into a succeeded one; its attempt stays failed.
  EXPECT_EQ(h.attempts("p", day("00:00"), "t"), "succeeded: 00:00-00:10 failed");
}

// Task-level dependsOnPast on b in a -> b (10 minutes each), maxActiveRuns 3.
// Run 00: a 00:00-00:10, b 00:10-, failed at 00:15 by the fail action: run 00 failed.
// Run 01: a 01:00-01:10; b's previous instance (run 00's b) failed: b waits.
// Run 02: a 02:00-02:10; b waits for run 01's b (pending).
// mark-success of run 00 at 02:30: run 01's b 02:30-02:40 (run 01 succeeded at 02:40),
// which releases run 02's b: 02:40-02:50.
TEST(RunnerSchedule, TaskDependsOnPastWaitsForThePreviousInstance) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.concurrency.max_active_runs = 3;
  p.tasks = {task("a", minutes(10)), task("b", minutes(10), {"a"})};
  p.tasks[1].depends_on_past = true;
  h.scheduler.add_pipeline(p);
  h.action(ActionKind::kFail, day("00:15"), "p", day("00:00"), "b");
  h.action(ActionKind::kMarkSuccess, day("02:30"), "p", day("00:00"));
  h.scheduler.switch_on();
  h.until(day("02:29"));
  EXPECT_EQ(h.attempts("p", day("01:00"), "b"), "pending:");
  EXPECT_EQ(h.attempts("p", day("02:00"), "b"), "pending:");
  h.until(day("02:55"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 schedule succeeded 00:00-02:30", "01:00 schedule succeeded 01:00-02:40",
               "02:00 schedule succeeded 02:00-02:50"}));
  EXPECT_EQ(h.attempts("p", day("01:00"), "b"), "succeeded: 02:30-02:40 succeeded");
  EXPECT_EQ(h.attempts("p", day("02:00"), "b"), "succeeded: 02:40-02:50 succeeded");
}

// "0 2 * * *" in America/New_York from 2026-03-07T00:00Z to 2026-03-10T00:00Z.
// 2026-03-07 02:00 EST = 07:00Z. 2026-03-08: clocks jump 02:00 EST -> 03:00 EDT, 02:00 never
// shows; cron.hpp runs a fixed-time job in the gap at the end of the gap, 03:00 EDT = 07:00Z,
// once. 2026-03-09 02:00 EDT = 06:00Z. Exactly three runs, one per local day.
TEST(RunnerSchedule, DaylightSavingSpringForwardGivesOneRunThatDay) {
  Harness h(at("2026-03-07T00:00:00Z"));
  PipelineSpec p = hourly();
  p.schedule->cron = "0 2 * * *";
  p.schedule->timezone = "America/New_York";
  p.schedule->start = at("2026-03-07T00:00:00Z");
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(at("2026-03-10T00:00:00Z"));
  std::vector<std::string> lts;
  for (const gantry::Run& r : h.scheduler.timeline()) lts.push_back(format_rfc3339(r.logical_time));
  EXPECT_EQ(lts, (V{"2026-03-07T07:00:00Z", "2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"}));
}

// schedule.end is inclusive: start 00:00, end 02:00 -> runs 00, 01, 02 and nothing at 03:00.
TEST(RunnerSchedule, EndIsInclusive) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.schedule->end = day("02:00");
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  h.until(day("05:00"));
  EXPECT_EQ(h.runs().size(), 3u);
}

}  // namespace
}  // namespace gantry::runner_test
