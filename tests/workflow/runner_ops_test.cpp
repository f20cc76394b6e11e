// Run scheduler: operator actions, backfill and restart (run_scheduler.hpp, OPERATOR ACTIONS,
// BACKFILL, RESTART). Hourly pipelines from 2026-01-01T00:00Z unless said otherwise; times are
// that day's, UTC; expected timelines worked out by hand in the comments.

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

using V = std::vector<std::string>;

// catchup true, maxActiveRuns 1, 30-minute task, on at 00:00: run 00 00:00-00:30.
// Down 00:50 .. up 03:10: ticks 01, 02, 03 are missed; at 03:10 they are caught up, all
// overdue ("catchup"), serialised: 01 03:10-03:40, 02 03:40-04:10, 03 04:10-04:40; tick 04:00
// (on time) queues behind: 04:40-05:10; tick 05:00 too: 05:10-, still running at 05:15.
TEST(RunnerOps, SchedulerDownThenUpCatchesUp) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.tasks[0].simulate.duration = minutes(30);
  h.scheduler.add_pipeline(p);
  h.action(ActionKind::kSchedulerDown, day("00:50"));
  h.action(ActionKind::kSchedulerUp, day("03:10"));
  h.scheduler.switch_on();
  h.until(day("03:00"));
  EXPECT_EQ(h.runs(), (V{"00:00 schedule succeeded 00:00-00:30"}));
  EXPECT_FALSE(h.scheduler.up());
  h.until(day("05:15"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 schedule succeeded 00:00-00:30", "01:00 catchup succeeded 03:10-03:40",
               "02:00 catchup succeeded 03:40-04:10", "03:00 catchup succeeded 04:10-04:40",
               "04:00 schedule succeeded 04:40-05:10", "05:00 schedule running 05:10--"}));
}

// A 70-minute task, down 00:30 .. up 02:00. The attempt keeps running in the world and ends
// at 01:10 (its recorded end); the scheduler learns it at 02:00, so run 00 ends at 02:00.
// At 02:00 tick 01 is overdue (catchup) and tick 02 is due exactly now (schedule):
// 01 02:00-03:10, 02 03:10-04:20; tick 03:00 queues, starts 04:20 (running at 04:30); tick
// 04:00 queues behind it.
TEST(RunnerOps, CompletionsDuringDowntimeAreSeenAtUp) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.tasks[0].simulate.duration = minutes(70);
  h.scheduler.add_pipeline(p);
  h.action(ActionKind::kSchedulerDown, day("00:30"));
  h.action(ActionKind::kSchedulerUp, day("02:00"));
  h.scheduler.switch_on();
  h.until(day("04:30"));
  EXPECT_EQ(h.attempts("p", day("00:00"), "t"), "succeeded: 00:00-01:10 succeeded");
  EXPECT_EQ(h.runs(),
            (V{"00:00 schedule succeeded 00:00-02:00", "01:00 catchup succeeded 02:00-03:10",
               "02:00 schedule succeeded 03:10-04:20", "03:00 schedule running 04:20--",
               "04:00 schedule queued ---"}));
}

// A manual trigger while the scheduler is down is rejected (event), nothing is created.
TEST(RunnerOps, ActionsWhileDownAreRejected) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(manual("p", {task("t", minutes(10))}));
  h.action(ActionKind::kSchedulerDown, day("00:10"));
  h.trigger(day("00:20"));
  h.scheduler.switch_on();
  h.until(day("01:00"));
  EXPECT_TRUE(h.runs().empty());
  EXPECT_TRUE(h.has_event(SchedulerEventKind::kRejected));
}

// catchup false, pause at 00:30, resume at 03:30: ticks 01, 02, 03 were missed while paused;
// at resume only the most recent, 03, runs (catchup) 03:30-03:40; 04:00 on time.
TEST(RunnerOps, PauseAndResumeApplyCatchupRules) {
  Harness h(day("00:00"));
  PipelineSpec p = hourly();
  p.schedule->catchup = false;
  h.scheduler.add_pipeline(p);
  h.action(ActionKind::kPause, day("00:30"));
  h.action(ActionKind::kResume, day("03:30"));
  h.scheduler.switch_on();
  h.until(day("04:30"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 schedule succeeded 00:00-00:10", "03:00 catchup succeeded 03:30-03:40",
               "04:00 schedule succeeded 04:00-04:10"}));
}

// a -> b -> c, 10 minutes each; b's outcomes are [failed, succeeded], no retries.
// Run at 00:00: a 00:00-00:10, b 00:10-00:20 failed, c upstream_failed: run failed 00:20.
// rerun at 00:30: b and c are cleared (a stays succeeded), the run goes back to running:
// b's second attempt (outcome succeeded) 00:30-00:40, c 00:40-00:50; run succeeded at
// 00:50, its start still 00:00.
TEST(RunnerOps, RerunClearsFailedTasks) {
  TaskSpec b = task("b", minutes(10), {"a"});
  b.simulate.outcomes = {"failed", "succeeded"};
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(manual("p", {task("a", minutes(10)), b, task("c", minutes(10), {"b"})}));
  h.scheduler.switch_on();
  h.trigger(day("00:00"));
  h.action(ActionKind::kRerun, day("00:30"), "p", day("00:00"));
  h.until(day("00:25"));
  EXPECT_EQ(h.runs(), (V{"00:00 manual failed 00:00-00:20"}));
  h.until(day("01:00"));
  EXPECT_EQ(h.runs(), (V{"00:00 manual succeeded 00:00-00:50"}));
  EXPECT_EQ(h.attempts("p", day("00:00"), "a"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.attempts("p", day("00:00"), "b"),
            "succeeded: 00:10-00:20 failed 00:30-00:40 succeeded");
  EXPECT_EQ(h.attempts("p", day("00:00"), "c"), "succeeded: 00:40-00:50 succeeded");
}

// A 30-minute task with limit 1, delay 1m; the fail action at 00:10 fails the running
// attempt: #1 00:00-00:10 failed, #2 00:11-00:41 succeeded.
TEST(RunnerOps, FailActionFailsTheRunningAttempt) {
  TaskSpec t = task("t", minutes(30));
  t.retry.limit = 1;
  t.retry.delay = minutes(1);
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(manual("p", {t}));
  h.scheduler.switch_on();
  h.trigger(day("00:00"));
  h.action(ActionKind::kFail, day("00:10"), "p", day("00:00"), "t");
  h.until(day("01:00"));
  EXPECT_EQ(h.attempts("p", day("00:00"), "t"),
            "succeeded: 00:00-00:10 failed 00:11-00:41 succeeded");
}

// catchup false, maxActiveRuns 1, 10-minute task, on at 02:30: only run 02 (catchup) is
// created and starts 02:30-02:40. A backfill of [00:00, 03:00] at 02:30 finds 02 existing
// (untouched) and creates 00, 01 and 03 (3 created, 03 ahead of its tick). Oldest first:
// 00 02:40-02:50, 01 02:50-03:00, 03 03:00-03:10. At 03:00 the tick finds run 03 existing:
// no second run. 04:00 on time.
// Then backfill [00:00, 01:00] with rerun all at 04:30: both run again (2 rerun):
// 00 04:30-04:40, 01 04:40-04:50, each task now with two attempts; starts unchanged.
TEST(RunnerOps, BackfillNeverDuplicates) {
  Harness h(day("02:30"));
  PipelineSpec p = hourly();
  p.schedule->catchup = false;
  h.scheduler.add_pipeline(p);
  h.scheduler.switch_on();
  BackfillReport r = h.scheduler.backfill("p", day("00:00"), day("03:00"));
  EXPECT_EQ(r.created, 3u);
  EXPECT_EQ(r.untouched, 1u);
  EXPECT_EQ(h.scheduler.runs_in_flight(), 4u);  // 02 running; 00, 01, 03 queued
  OperatorAction again;
  again.at = day("04:30");
  again.kind = ActionKind::kBackfill;
  again.pipeline = "p";
  again.from = day("00:00");
  again.to = day("01:00");
  again.rerun = BackfillRerun::kAll;
  h.scheduler.schedule(again);
  h.until(day("04:15"));
  EXPECT_EQ(h.runs(),
            (V{"00:00 backfill succeeded 02:40-02:50", "01:00 backfill succeeded 02:50-03:00",
               "02:00 catchup succeeded 02:30-02:40", "03:00 backfill succeeded 03:00-03:10",
               "04:00 schedule succeeded 04:00-04:10"}));
  EXPECT_EQ(h.scheduler.runs_in_flight(), 0u);
  h.until(day("04:55"));
  EXPECT_EQ(h.runs().size(), 5u);
  EXPECT_EQ(h.runs()[0], "00:00 backfill succeeded 02:40-04:40");
  EXPECT_EQ(h.runs()[1], "01:00 backfill succeeded 02:50-04:50");
  EXPECT_EQ(h.attempts("p", day("01:00"), "t"),
            "succeeded: 02:50-03:00 succeeded 04:40-04:50 succeeded");
}

// backfill --rerun failed touches only finished runs that did not succeed: run 00 failed
// (fail action at 00:05), run 01 succeeded 01:00-01:10. Backfill [00:00, 01:00] rerun failed
// at 01:30: 00 runs again 01:30-01:40; 01 keeps its single attempt.
TEST(RunnerOps, BackfillRerunFailedOnly) {
  Harness h(day("00:00"));
  h.scheduler.add_pipeline(hourly());
  h.action(ActionKind::kFail, day("00:05"), "p", day("00:00"), "t");
  OperatorAction b;
  b.at = day("01:30");
  b.kind = ActionKind::kBackfill;
  b.pipeline = "p";
  b.from = day("00:00");
  b.to = day("01:00");
  b.rerun = BackfillRerun::kFailed;
  h.scheduler.schedule(b);
  h.scheduler.switch_on();
  h.until(day("01:50"));
  EXPECT_EQ(h.attempts("p", day("00:00"), "t"),
            "succeeded: 00:00-00:05 failed 01:30-01:40 succeeded");
  EXPECT_EQ(h.attempts("p", day("01:00"), "t"), "succeeded: 01:00-01:10 succeeded");
  EXPECT_EQ(h.store->events().back().message,
            "[2026-01-01T00:00:00Z, 2026-01-01T01:00:00Z]: 0 created, 1 rerun, 1 untouched");
}

// Restart with LostAttempts::kError (the behaviour before issue 8, kept as an option).
// Life 1 (on at 00:00, catchup true, maxActiveRuns 1, 30-minute task) runs until
// 02:15: 00 00:00-00:30, 01 01:00-01:30, 02 running since 02:00. It dies there.
// Life 2 starts at 03:20 on the same store, recover() then switch_on():
//   run 02's attempt was lost: closed as error at 03:20; no retry (limit 0): failed, run 02
//   failed at 03:20. The last tick seen is 02:00, so 03:00 is caught up: 03:20-03:50.
// Every (pipeline, logical time) exists once.
// Life 3 starts at 04:05 on the same store WITHOUT recover(): its catch-up from the start
// tries 00..04; the store refuses 00..03 (they exist) and only 04 is new.
TEST(RunnerOps, RestartNeverDuplicatesRuns) {
  MemoryRunStore store;
  PipelineSpec p = hourly();
  p.tasks[0].simulate.duration = minutes(30);
  {
    Harness life1(day("00:00"), 1, &store);
    life1.scheduler.add_pipeline(p);
    life1.scheduler.switch_on();
    life1.until(day("02:15"));
    EXPECT_EQ(store.runs().size(), 3u);
  }
  {
    Harness life2(day("03:20"), 1, &store);
    life2.scheduler.add_pipeline(p);
    life2.scheduler.set_lost_attempts(LostAttempts::kError);
    life2.scheduler.recover();
    life2.scheduler.switch_on();
    life2.until(day("03:55"));
    EXPECT_EQ(life2.runs(),
              (V{"00:00 schedule succeeded 00:00-00:30", "01:00 schedule succeeded 01:00-01:30",
                 "02:00 schedule failed 02:00-03:20", "03:00 catchup succeeded 03:20-03:50"}));
    EXPECT_EQ(life2.attempts("p", day("02:00"), "t"), "failed: 02:00-03:20 error");
    EXPECT_TRUE(life2.has_event(SchedulerEventKind::kLostAttempt));
    EXPECT_EQ(store.refused_creations(), 0u);
  }
  {
    Harness life3(day("04:05"), 1, &store);
    life3.scheduler.add_pipeline(p);
    life3.scheduler.switch_on();
    life3.until(day("04:06"));
    EXPECT_EQ(store.refused_creations(), 4u);
    EXPECT_EQ(store.runs().size(), 5u);
    EXPECT_EQ(life3.scheduler.run_count(), 1u);
  }
  // The store agrees with life 2's view: each logical time once, with its state.
  std::vector<std::string> stored;
  for (const auto& [key, run] : store.runs()) {
    stored.push_back(hm(key.logical_time) + " " + std::string(to_string(run.state)));
  }
  EXPECT_EQ(stored, (V{"00:00 succeeded", "01:00 succeeded", "02:00 failed", "03:00 succeeded",
                       "04:00 running"}));
}

// Restart with the default LostAttempts::kRerun. Life 1 as above (02's attempt running since
// 02:00 when it dies at 02:15); the task has no retries (limit 0, OnFailure).
// Life 2 at 03:20: the attempt is closed as lost at 03:20 and a new one starts at once,
// 03:20-03:50, succeeded: run 02 succeeded 02:00-03:50. With limit 0 a retry would not have
// been allowed at all: the rerun is not one. maxActiveRuns 1 holds the caught-up 03:00 until
// then: 03:50-04:20; the 04:00 tick (on time) queues behind it and runs from 04:20.
// Attempt ids go on after the greatest stored: life 1 gave 1, 2, 3 (runs 00, 01, 02); life 2
// gives 4 (run 02's replacement), 5 (run 03), 6 (run 04). No id is given twice.
TEST(RunnerOps, RestartRerunsLostAttemptsWithoutSpendingRetries) {
  MemoryRunStore store;
  PipelineSpec p = hourly();
  p.tasks[0].simulate.duration = minutes(30);
  {
    Harness life1(day("00:00"), 1, &store);
    life1.scheduler.add_pipeline(p);
    life1.scheduler.switch_on();
    life1.until(day("02:15"));
  }
  Harness life2(day("03:20"), 1, &store);
  life2.scheduler.add_pipeline(p);
  life2.scheduler.recover();
  life2.scheduler.switch_on();
  life2.until(day("04:25"));
  EXPECT_EQ(life2.runs(),
            (V{"00:00 schedule succeeded 00:00-00:30", "01:00 schedule succeeded 01:00-01:30",
               "02:00 schedule succeeded 02:00-03:50", "03:00 catchup succeeded 03:50-04:20",
               "04:00 schedule running 04:20--"}));
  EXPECT_EQ(life2.attempts("p", day("02:00"), "t"),
            "succeeded: 02:00-03:20 lost 03:20-03:50 succeeded");
  EXPECT_TRUE(life2.has_event(SchedulerEventKind::kLostAttempt));
  const std::vector<Attempt>& lost = life2.task_of("p", day("02:00"), "t").attempts;
  EXPECT_EQ(lost.at(0).id, 3u);
  EXPECT_EQ(lost.at(1).id, 4u);
  EXPECT_EQ(life2.task_of("p", day("03:00"), "t").attempts.at(0).id, 5u);
  EXPECT_EQ(life2.task_of("p", day("04:00"), "t").attempts.at(0).id, 6u);
}

// The retry budget after a restart counts attempts that were not lost. Task: limit 1, 10-minute
// attempts, outcomes failed, then succeeded (per attempt index: attempt 0 failed, 1 and later
// succeeded). Life 1 (on at 00:00) dies at 00:15: attempt 0 failed 00:00-00:10, the retry
// (delay 10 s) running since 00:10:10. Life 2 at 01:00: the retry is lost; its replacement
// 01:00-01:10 is still retry 1 (allowed, limit 1) and succeeds.
TEST(RunnerOps, LostRetryIsRunAgainWithinTheLimit) {
  MemoryRunStore store;
  PipelineSpec p = hourly();
  p.schedule->start = day("00:00");
  p.tasks[0].simulate.duration = minutes(10);
  p.tasks[0].simulate.outcomes = {"failed", "succeeded"};
  p.tasks[0].retry.limit = 1;
  p.tasks[0].retry.delay = seconds(10);
  {
    Harness life1(day("00:00"), 1, &store);
    life1.scheduler.add_pipeline(p);
    life1.scheduler.switch_on();
    life1.until(day("00:15"));
  }
  Harness life2(day("01:00"), 1, &store);
  life2.scheduler.add_pipeline(p);
  life2.scheduler.recover();
  life2.scheduler.switch_on();
  life2.until(day("01:10"));
  const TaskInstance& t = life2.task_of("p", day("00:00"), "t");
  ASSERT_EQ(t.attempts.size(), 3u);
  EXPECT_EQ(t.attempts[0].state, AttemptState::kFailed);
  EXPECT_EQ(t.attempts[1].state, AttemptState::kLost);
  EXPECT_EQ(t.attempts[1].start, day("00:00") + minutes(10) + seconds(10));
  EXPECT_EQ(t.attempts[1].end, day("01:00"));
  EXPECT_EQ(t.attempts[2].start, day("01:00"));
  EXPECT_EQ(t.attempts[2].end, day("01:10"));
  EXPECT_EQ(t.attempts[2].state, AttemptState::kSucceeded);
  EXPECT_EQ(t.state, TaskState::kSucceeded);
}

// A day of a 15-minute cron with log-normal durations, random failures and retries, and a
// second pipeline: the same seed gives the same JSON timeline; another seed a different one;
// and adding the second pipeline does not change the first one's timeline.
TEST(RunnerOps, DeterministicTimeline) {
  auto build = [](bool with_second) {
    std::vector<PipelineSpec> out;
    PipelineSpec a = hourly("a");
    a.schedule->cron = "*/15 * * * *";
    a.concurrency.max_active_runs = 3;
    a.tasks = {task("x", minutes(5)), task("y", minutes(5), {"x"})};
    for (TaskSpec& t : a.tasks) {
      t.simulate.p90 = minutes(12);
      t.simulate.failure_probability = 0.3;
      t.retry.limit = 2;
    }
    out.push_back(a);
    if (with_second) {
      PipelineSpec b = a;
      b.name = "b";
      out.push_back(b);
    }
    return out;
  };
  auto timeline = [&](uint64_t seed, bool with_second, const std::string& only) {
    Harness h(day("00:00"), seed);
    for (const PipelineSpec& p : build(with_second)) h.scheduler.add_pipeline(p);
    h.scheduler.switch_on();
    h.until(day("00:00") + days(1));
    std::vector<gantry::Run> runs;
    for (const gantry::Run& r : h.scheduler.timeline()) {
      if (r.pipeline == only) runs.push_back(r);
    }
    return write_timeline_json(runs);
  };
  const std::string first = timeline(7, false, "a");
  EXPECT_EQ(first, timeline(7, false, "a"));
  EXPECT_NE(first, timeline(8, false, "a"));
  EXPECT_EQ(first, timeline(7, true, "a"));
  EXPECT_NE(first.find("\"failed\""), std::string::npos);  // the failures were exercised
}

}  // namespace
}  // namespace gantry::runner_test
