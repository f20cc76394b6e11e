#include "workflow/runner/tick_planner.hpp"

namespace gantry {

TickPlanner::TickPlanner(const ScheduleSpec& spec) : spec_(spec), cron_(spec.cron, spec.timezone) {}

Time TickPlanner::due_of(Time tick) const {
  if (spec_.semantics == ScheduleSemantics::kTrigger) return tick;
  // Interval: the interval [tick, next) ends at the next firing, whatever the schedule's end.
  const std::optional<Time> next = cron_.next_after(tick);
  return next ? *next : Time::max();
}

std::optional<Time> TickPlanner::first_after(std::optional<Time> last_tick) const {
  return cron_.next_after(last_tick ? *last_tick : spec_.start - microseconds(1));
}

TickPlan TickPlanner::plan(std::optional<Time> last_tick, Time now, std::optional<Time> on_time,
                           size_t limit) const {
  if (!spec_.catchup) return plan_most_recent(last_tick, now, on_time);
  const auto due_now = [&](Time due) { return due == now || (on_time && due == *on_time); };
  TickPlan out;
  out.last_tick = last_tick;
  for (std::optional<Time> t = first_after(last_tick); t && (!spec_.end || *t <= *spec_.end);
       t = cron_.next_after(*t)) {
    const Time due = due_of(*t);
    if (due > now) break;
    if (out.runs.size() >= limit) {
      out.more = true;
      break;
    }
    out.last_tick = *t;
    out.runs.push_back({*t, due_now(due) ? RunTrigger::kSchedule : RunTrigger::kCatchup});
  }
  return out;
}

std::optional<Time> TickPlanner::latest_due_tick(Time now) const {
  std::optional<Time> bound = now;
  if (spec_.semantics == ScheduleSemantics::kInterval) {
    // The latest firing at or before now opens an interval that has not ended; every firing
    // before it is due (its interval ended at a firing <= now).
    const std::optional<Time> open = cron_.previous_at_or_before(now);
    bound = open ? std::optional<Time>(*open - microseconds(1)) : std::nullopt;
  }
  if (!bound) return std::nullopt;
  if (spec_.end && *spec_.end < *bound) bound = spec_.end;
  const std::optional<Time> t = cron_.previous_at_or_before(*bound);
  if (!t || *t < spec_.start) return std::nullopt;
  return t;
}

TickPlan TickPlanner::plan_most_recent(std::optional<Time> last_tick, Time now,
                                       std::optional<Time> on_time) const {
  const auto due_now = [&](Time due) { return due == now || (on_time && due == *on_time); };
  TickPlan out;
  out.last_tick = last_tick;
  const std::optional<Time> latest = latest_due_tick(now);
  if (!latest || (last_tick && *latest <= *last_tick)) return out;
  out.last_tick = *latest;
  const Time latest_due = due_of(*latest);
  if (due_now(latest_due)) {
    out.runs.push_back({*latest, RunTrigger::kSchedule});
    return out;
  }
  // The overdue ticks, newest first, until one more than maxMissedRuns is found or the rest
  // are older than the deadline (each older tick is due earlier still): the cost follows
  // maxMissedRuns, not the ticks since the last one looked at.
  for (std::optional<Time> t = latest; t && *t >= spec_.start && (!last_tick || *t > *last_tick);
       t = cron_.previous_at_or_before(*t - microseconds(1))) {
    const Time due = due_of(*t);
    if (due_now(due)) continue;
    if (spec_.starting_deadline && now - due > *spec_.starting_deadline) break;
    if (++out.overdue > spec_.max_missed_runs) break;
  }
  if (out.overdue > spec_.max_missed_runs || out.overdue == 0) {
    // overdue == 0 means the most recent tick itself lies beyond the deadline.
    out.missed =
        out.overdue > spec_.max_missed_runs ? MissedTicks::kTooMany : MissedTicks::kPastDeadline;
    out.missed_tick = *latest;
    out.missed_due = latest_due;
  } else {
    out.runs.push_back({*latest, RunTrigger::kCatchup});
  }
  return out;
}

std::optional<Time> TickPlanner::next_due(std::optional<Time> last_tick) const {
  const std::optional<Time> t = first_after(last_tick);
  if (!t || (spec_.end && *t > *spec_.end)) return std::nullopt;
  const Time due = due_of(*t);
  if (due == Time::max()) return std::nullopt;
  return due;
}

}  // namespace gantry
