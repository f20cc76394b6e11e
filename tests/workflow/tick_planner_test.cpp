// The tick planner (tick_planner.hpp) alone: no loop, no runs. Hourly schedules ("0 * * * *",
// UTC) from 2026-01-01T00:00Z unless said otherwise; times are that day's, UTC; every plan is
// worked out by hand in the comment above it.

#include "workflow/runner/tick_planner.hpp"

#include <gtest/gtest.h>

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

ScheduleSpec every_hour() {
  ScheduleSpec s;
  s.cron = "0 * * * *";
  s.start = day("00:00");
  return s;
}

// "HH:MM trigger" for each planned run.
std::vector<std::string> runs_of(const TickPlan& plan) {
  std::vector<std::string> out;
  for (const PlannedTick& t : plan.runs)
    out.push_back(hm(t.tick) + " " + std::string(to_string(t.trigger)));
  return out;
}

using V = std::vector<std::string>;

// catchup true, nothing looked at yet, now 03:30: ticks 00, 01, 02, 03 are all overdue, each
// gets a catchup run; the last tick looked at is 03:00 and the next is due at 04:00.
TEST(TickPlanner, CatchupTrueGivesEveryOverdueTick) {
  const TickPlanner planner(every_hour());
  const TickPlan plan = planner.plan(std::nullopt, day("03:30"));
  EXPECT_EQ(runs_of(plan), (V{"00:00 catchup", "01:00 catchup", "02:00 catchup", "03:00 catchup"}));
  EXPECT_EQ(plan.last_tick, day("03:00"));
  EXPECT_EQ(plan.missed, MissedTicks::kNone);
  EXPECT_EQ(planner.next_due(plan.last_tick), day("04:00"));
}

// Now exactly 03:00: 03:00 is due now ("schedule"), the three before it are overdue.
// From last tick 02:00 at 03:00: only 03:00, on time.
TEST(TickPlanner, TickDueNowIsSchedule) {
  const TickPlanner planner(every_hour());
  EXPECT_EQ(runs_of(planner.plan(std::nullopt, day("03:00"))),
            (V{"00:00 catchup", "01:00 catchup", "02:00 catchup", "03:00 schedule"}));
  EXPECT_EQ(runs_of(planner.plan(day("02:00"), day("03:00"))), (V{"03:00 schedule"}));
}

// On a wall clock the tick timer armed for 03:00 fires a little later, here at 03:00:00.5 (at
// --speed 600 a millisecond late is 0.6 s of simulated time). The tick the timer was armed for
// is on time ("schedule"), with catchup true and false; without `on_time` it would be a
// catch-up. A tick due after the timer's instant and already past (the loop fell a whole period
// behind: timer for 03:00, now 04:00:00.5) is still overdue.
TEST(TickPlanner, TheTickATimerWasArmedForIsOnTimeWhenTheTimerFiresLate) {
  const Time late = day("03:00") + milliseconds(500);
  const TickPlanner planner(every_hour());
  EXPECT_EQ(runs_of(planner.plan(day("02:00"), late)), (V{"03:00 catchup"}));
  EXPECT_EQ(runs_of(planner.plan(day("02:00"), late, day("03:00"))), (V{"03:00 schedule"}));
  EXPECT_EQ(runs_of(planner.plan(day("02:00"), day("04:00") + milliseconds(500), day("03:00"))),
            (V{"03:00 schedule", "04:00 catchup"}));
  ScheduleSpec s = every_hour();
  s.catchup = false;
  const TickPlanner latest(s);
  const TickPlan plan = latest.plan(day("02:00"), late, day("03:00"));
  EXPECT_EQ(runs_of(plan), (V{"03:00 schedule"}));
  EXPECT_EQ(plan.overdue, 0);
  EXPECT_EQ(plan.missed, MissedTicks::kNone);
}

// Before the start nothing is due and nothing was looked at.
TEST(TickPlanner, NothingDueBeforeTheStart) {
  const TickPlanner planner(every_hour());
  const TickPlan plan = planner.plan(std::nullopt, day("00:00") - minutes(30));
  EXPECT_TRUE(plan.runs.empty());
  EXPECT_FALSE(plan.last_tick.has_value());
  EXPECT_EQ(planner.next_due(std::nullopt), day("00:00"));
}

// catchup false at 03:30: only 03:00 runs (catchup); 4 overdue ticks <= maxMissedRuns 100.
// At 03:00 exactly: 03:00 runs on time, the older ones are dropped silently.
TEST(TickPlanner, CatchupFalseRunsOnlyTheMostRecent) {
  ScheduleSpec s = every_hour();
  s.catchup = false;
  const TickPlanner planner(s);
  const TickPlan late = planner.plan(std::nullopt, day("03:30"));
  EXPECT_EQ(runs_of(late), (V{"03:00 catchup"}));
  EXPECT_EQ(late.overdue, 4);
  EXPECT_EQ(late.last_tick, day("03:00"));
  const TickPlan on_time = planner.plan(std::nullopt, day("03:00"));
  EXPECT_EQ(runs_of(on_time), (V{"03:00 schedule"}));
  EXPECT_EQ(on_time.missed, MissedTicks::kNone);
}

// startingDeadline 20m at 03:30: 03:00 was due 30 minutes ago > 20m and no overdue tick is
// within 20 minutes (n = 0): none starts, past the deadline; the tick still counts as looked at.
// With 40m: 03:00 is 30 minutes old <= 40m: n = 1, it runs.
TEST(TickPlanner, CatchupFalseStartingDeadline) {
  ScheduleSpec s = every_hour();
  s.catchup = false;
  s.starting_deadline = minutes(20);
  const TickPlan missed = TickPlanner(s).plan(std::nullopt, day("03:30"));
  EXPECT_TRUE(missed.runs.empty());
  EXPECT_EQ(missed.missed, MissedTicks::kPastDeadline);
  EXPECT_EQ(missed.missed_tick, day("03:00"));
  EXPECT_EQ(missed.missed_due, day("03:00"));
  EXPECT_EQ(missed.overdue, 0);
  EXPECT_EQ(missed.last_tick, day("03:00"));
  s.starting_deadline = minutes(40);
  EXPECT_EQ(runs_of(TickPlanner(s).plan(std::nullopt, day("03:30"))), (V{"03:00 catchup"}));
}

// maxMissedRuns 3 < 4 overdue: none starts, too many (overdue 4). Deadline 90m with
// maxMissedRuns 1: counted are 02:00 (exactly 90 minutes old: counted) and 03:00 = 2 > 1: too
// many. maxMissedRuns 4 = 4: not more than the limit, 03:00 runs.
TEST(TickPlanner, CatchupFalseMaxMissedRuns) {
  ScheduleSpec s = every_hour();
  s.catchup = false;
  s.max_missed_runs = 3;
  const TickPlan three = TickPlanner(s).plan(std::nullopt, day("03:30"));
  EXPECT_TRUE(three.runs.empty());
  EXPECT_EQ(three.missed, MissedTicks::kTooMany);
  EXPECT_EQ(three.overdue, 4);
  EXPECT_EQ(three.missed_tick, day("03:00"));
  s.max_missed_runs = 1;
  s.starting_deadline = minutes(90);
  const TickPlan deadline = TickPlanner(s).plan(std::nullopt, day("03:30"));
  EXPECT_EQ(deadline.missed, MissedTicks::kTooMany);
  EXPECT_EQ(deadline.overdue, 2);
  s.max_missed_runs = 4;
  s.starting_deadline.reset();
  EXPECT_EQ(runs_of(TickPlanner(s).plan(std::nullopt, day("03:30"))), (V{"03:00 catchup"}));
}

// interval: tick t is due when [t, t+1h) has ended. At 02:30: 00:00 (due 01:00) and 01:00
// (due 02:00) are overdue; 02:00 is due at 03:00, not yet: the last tick looked at is 01:00
// and the next due instant 03:00. At 03:00 from there: 02:00, due now, "schedule".
TEST(TickPlanner, IntervalSemanticsDueAtTheNextFiring) {
  ScheduleSpec s = every_hour();
  s.semantics = ScheduleSemantics::kInterval;
  const TickPlanner planner(s);
  const TickPlan plan = planner.plan(std::nullopt, day("02:30"));
  EXPECT_EQ(runs_of(plan), (V{"00:00 catchup", "01:00 catchup"}));
  EXPECT_EQ(plan.last_tick, day("01:00"));
  EXPECT_EQ(planner.next_due(plan.last_tick), day("03:00"));
  EXPECT_EQ(runs_of(planner.plan(day("01:00"), day("03:00"))), (V{"02:00 schedule"}));
}

// end 02:00 is inclusive: at 05:00 the ticks are 00, 01, 02 and nothing is due after 02:00.
// Backfill walks the cron beyond the end: the tick after 02:00 is 03:00.
TEST(TickPlanner, EndIsInclusiveAndLast) {
  ScheduleSpec s = every_hour();
  s.end = day("02:00");
  const TickPlanner planner(s);
  EXPECT_EQ(runs_of(planner.plan(std::nullopt, day("05:00"))),
            (V{"00:00 catchup", "01:00 catchup", "02:00 catchup"}));
  EXPECT_FALSE(planner.next_due(day("02:00")).has_value());
  EXPECT_EQ(planner.next_tick_after(day("02:00")), day("03:00"));
}

// A limit of 2 at 03:30 (ticks 00..03 overdue): 00:00 and 01:00, and more to come; from
// 01:00, 02:00 and 03:00 and nothing more (the last two of the four); from 03:00, nothing.
// Sliced or not, the same four runs in the same order (issue 22: a server's catch-up in slices).
TEST(TickPlanner, ALimitSlicesTheCatchUp) {
  const TickPlanner planner(every_hour());
  const TickPlan first = planner.plan(std::nullopt, day("03:30"), std::nullopt, 2);
  EXPECT_EQ(runs_of(first), (V{"00:00 catchup", "01:00 catchup"}));
  EXPECT_TRUE(first.more);
  EXPECT_EQ(first.last_tick, day("01:00"));
  const TickPlan second = planner.plan(first.last_tick, day("03:30"), std::nullopt, 2);
  EXPECT_EQ(runs_of(second), (V{"02:00 catchup", "03:00 catchup"}));
  EXPECT_FALSE(second.more) << "no tick is left due, although the limit was reached";
  EXPECT_EQ(second.last_tick, day("03:00"));
  EXPECT_TRUE(planner.plan(second.last_tick, day("03:30"), std::nullopt, 2).runs.empty());
}

// catchup false, a minutely schedule starting in the year 1 and looked at on 2026-01-01 at
// 03:30:30 for the first time: over a billion ticks are overdue. The most recent is 03:30
// (due 30 s ago, overdue); counting stops at maxMissedRuns + 1 = 101 > 100: none starts. With
// maxMissedRuns 1,000,000 (the most a file may say), 1,000,001 are counted, still too many;
// with a deadline of 5 minutes, 03:26..03:30 (5 ticks, 03:25:30 is not a tick and 03:25 is 5 m
// 30 s old) are counted: 5 <= 100, 03:30 runs. Before, the planner walked every tick since
// the year 1 (minutes of work in one event of a server's loop).
TEST(TickPlanner, CatchupFalseCountsNoFurtherThanMaxMissedRuns) {
  ScheduleSpec s;
  s.cron = "* * * * *";
  s.start = kEarliestTime + days(1);  // 0001-01-02
  s.catchup = false;
  const Time now = day("03:30") + seconds(30);
  const TickPlan plan = TickPlanner(s).plan(std::nullopt, now);
  EXPECT_TRUE(plan.runs.empty());
  EXPECT_EQ(plan.missed, MissedTicks::kTooMany);
  EXPECT_EQ(plan.overdue, 101);
  EXPECT_EQ(plan.missed_tick, day("03:30"));
  EXPECT_EQ(plan.last_tick, day("03:30"));
  s.max_missed_runs = 1'000'000;
  EXPECT_EQ(TickPlanner(s).plan(std::nullopt, now).overdue, 1'000'001);
  s.max_missed_runs = 100;
  s.starting_deadline = minutes(5);
  const TickPlan recent = TickPlanner(s).plan(std::nullopt, now);
  EXPECT_EQ(recent.overdue, 5);
  EXPECT_EQ(runs_of(recent), (V{"03:30 catchup"}));
}

}  // namespace
}  // namespace gantry::runner_test
