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

TickPlan TickPlanner::plan(std::optional<Time> last_tick, Time now,
                           std::optional<Time> on_time) const {
  const auto due_now = [&](Time due) { return due == now || (on_time && due == *on_time); };
  TickPlan out;
  out.last_tick = last_tick;
  std::optional<Time> latest;  // catchup false: the most recent due tick
  Time latest_due;
  for (std::optional<Time> t = first_after(last_tick); t && (!spec_.end || *t <= *spec_.end);
       t = cron_.next_after(*t)) {
    const Time due = due_of(*t);
    if (due > now) break;
    out.last_tick = *t;
    if (spec_.catchup) {
      out.runs.push_back({*t, due_now(due) ? RunTrigger::kSchedule : RunTrigger::kCatchup});
      continue;
    }
    latest = *t;
    latest_due = due;
    if (!due_now(due) && (!spec_.starting_deadline || now - due <= *spec_.starting_deadline))
      ++out.overdue;
  }
  if (!latest) return out;
  if (due_now(latest_due)) {
    out.runs.push_back({*latest, RunTrigger::kSchedule});
  } else if (out.overdue > spec_.max_missed_runs || out.overdue == 0) {
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
