#pragma once
// Which ticks of a pipeline's schedule want a run, and when to look next (issue #4, the
// SCHEDULE rules of run_scheduler.hpp). Pure: no event loop, no store, no runs; the scheduler
// core asks it each time it looks at a schedule and creates the runs it names.
//
// RULES
//   Ticks are the CronSchedule firings in the schedule's zone within [start, end]. A tick t is
//   due at t (semantics trigger) or at the next firing after t (interval: [t, next) has
//   ended; a tick with no next firing is never due); the run's logical time is t either way.
//   plan(last, now) handles the ticks due in (last, now] (all ticks from start when `last` is
//   empty) at once, oldest first:
//   - catchup true: each gets a run, trigger "schedule" if due exactly now, "catchup" if
//     overdue.
//   "Due now" also holds for a tick due at `on_time`, the instant the scheduler's tick timer
//   was armed for: on a wall clock the timer fires a little after that instant (at --speed 600
//   a millisecond late is 0.6 s of simulated time), and the tick it was armed for is on time,
//   not missed. Ticks due after `on_time` and by `now` (the loop fell behind by a whole cron
//   period) are overdue as before.
//   - catchup false: only the most recent. Due now: it runs ("schedule"), older ones are
//     dropped silently. Overdue: let n = the overdue ticks, counting only those due within
//     startingDeadline of now when a deadline is set (a tick due exactly `deadline` ago
//     counts), and no further than maxMissedRuns + 1. n > maxMissedRuns: none starts
//     (kTooManyMissed); the most recent is older than the deadline (so n = 0): none starts
//     (kPastDeadline); otherwise it runs ("catchup").
//   The plan's last_tick is the greatest tick handled (started or not), to pass to the next
//   plan(); a tick not yet due is never handled.
//   `limit` (catchup true): at most that many ticks are handled; when more are due the plan
//   says so (`more`) and the next plan() from its last_tick goes on where it stopped. A server
//   catches up a long outage in slices this way, so that its event loop is never held for long
//   (SchedulerCore::set_catch_up_slice()).
//
// Cost: plan() O(ticks handled) cron steps for catchup true (at most `limit`) plus the size of
// the result; for catchup false O(min(maxMissedRuns, ticks due)) calls of
// CronSchedule::previous_at_or_before(), whatever the time since the last tick looked at (a
// schedule starting in the year 1 costs no more). next_due() O(1) cron steps.
// CronSchedule::next_after() is O(1) for usual expressions (cron.hpp).
//
// Thread safety: immutable after construction; safe to share.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "engine/core/time.hpp"
#include "workflow/cron/cron.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/run.hpp"

namespace gantry {

struct PlannedTick {
  Time tick;                                   // the run's logical time
  RunTrigger trigger = RunTrigger::kSchedule;  // kSchedule (due now) or kCatchup (overdue)
};

// catchup false: why the most recent overdue tick got no run.
enum class MissedTicks {
  kNone,          // it runs, or nothing was overdue
  kTooMany,       // more overdue ticks than maxMissedRuns
  kPastDeadline,  // the most recent was due longer than startingDeadline ago
};

struct TickPlan {
  std::vector<PlannedTick> runs;  // oldest first
  std::optional<Time> last_tick;  // pass to the next plan(); unchanged when nothing was due
  MissedTicks missed = MissedTicks::kNone;
  Time missed_tick;     // kTooMany / kPastDeadline: the most recent overdue tick
  Time missed_due;      // ... and when it was due
  int64_t overdue = 0;  // the overdue ticks counted against maxMissedRuns (at most it + 1)
  bool more = false;    // catchup true: `limit` ticks handled and more are due
};

class TickPlanner {
 public:
  // Throws CronError on a bad expression or zone.
  explicit TickPlanner(const ScheduleSpec& spec);

  // See RULES.
  TickPlan plan(std::optional<Time> last_tick, Time now, std::optional<Time> on_time = std::nullopt,
                size_t limit = std::numeric_limits<size_t>::max()) const;
  // When the first tick after `last_tick` (from start when empty) is due, or nullopt when no
  // tick is left within [start, end] or it is never due.
  std::optional<Time> next_due(std::optional<Time> last_tick) const;
  // The cron's first firing after `t`, ignoring start and end (backfill walks its window with
  // it).
  std::optional<Time> next_tick_after(Time t) const { return cron_.next_after(t); }

  const ScheduleSpec& spec() const { return spec_; }

 private:
  Time due_of(Time tick) const;
  std::optional<Time> first_after(std::optional<Time> last_tick) const;
  // catchup false.
  TickPlan plan_most_recent(std::optional<Time> last_tick, Time now,
                            std::optional<Time> on_time) const;
  // The greatest tick within [start, end] that is due by `now`; nullopt if none.
  std::optional<Time> latest_due_tick(Time now) const;

  ScheduleSpec spec_;
  CronSchedule cron_;
};

}  // namespace gantry
