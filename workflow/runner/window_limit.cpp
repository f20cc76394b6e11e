#include "workflow/runner/window_limit.hpp"

#include <algorithm>

#include "engine/core/errors.hpp"
#include "workflow/cron/cron.hpp"

namespace gantry {

namespace {

size_t count(const ScheduleSpec& s, Time from, Time to, size_t limit) {
  if (to < from) return 0;
  const CronSchedule schedule(s.cron, s.timezone);
  return schedule.ticks(from, to, limit + 1).size();
}

}  // namespace

size_t replay_ticks(const PipelineSpec& p, Time from, Time until, size_t limit) {
  if (!p.schedule) return 0;
  const ScheduleSpec& s = *p.schedule;
  const Time last = s.end ? std::min(*s.end, until) : until;
  if (s.catchup) return count(s, s.start, last, limit);
  return std::min(limit + 1, count(s, std::max(s.start, from), last, limit) + 1);
}

size_t catch_up_ticks(const PipelineSpec& p, std::optional<Time> last_tick, Time now,
                      size_t limit) {
  if (!p.schedule || !p.schedule->catchup) return 0;
  const ScheduleSpec& s = *p.schedule;
  const Time first = last_tick ? *last_tick + microseconds(1) : s.start;
  return count(s, std::max(first, s.start), s.end ? std::min(*s.end, now) : now, limit);
}

size_t backfill_ticks(const PipelineSpec& p, Time from, Time to, size_t limit) {
  if (!p.schedule) return 0;
  return count(*p.schedule, from, to, limit);
}

void check_window(const std::vector<PipelineSpec>& pipelines, Time from, Time to, bool backfill,
                  const std::string& only, const std::string& flag, size_t limit) {
  size_t total = 0;
  for (const PipelineSpec& p : pipelines) {
    if (!only.empty() && p.name != only) continue;
    const size_t left = limit - total;
    const size_t n = backfill ? backfill_ticks(p, from, to, left) : replay_ticks(p, from, to, left);
    total += n;
    if (total <= limit) continue;
    throw GantryError(flag + ": the window " + format_rfc3339(from) + " .. " + format_rfc3339(to) +
                      " would create more than " + std::to_string(limit) + " runs (pipeline '" +
                      p.name + "', cron '" + p.schedule->cron + "', counting from " +
                      format_rfc3339(backfill || !p.schedule->catchup ? from : p.schedule->start) +
                      "); at most " + std::to_string(limit) +
                      " runs are replayed at once: shorten the window, split it, or raise the "
                      "limit with --max-runs if you mean it");
  }
}

}  // namespace gantry
