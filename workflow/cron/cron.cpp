#include "workflow/cron/cron.hpp"

#include <date/date.h>

#include <algorithm>
#include <utility>

#include "engine/core/floor_div.hpp"

namespace gantry {

namespace {

constexpr int64_t kMicros = 1'000'000;
constexpr int64_t kDay = 86'400;
// 400 Gregorian years are 146,097 days, a whole number of weeks: the calendar repeats, so a
// window this long (plus slack for the zone offset) holds a match if any exists.
constexpr int64_t kHorizon = (146'097 + 2) * kDay;

int64_t civil_seconds(int y, unsigned m, unsigned d) {
  return date::sys_days(date::year(y) / date::month(m) / date::day(d)).time_since_epoch().count() *
         kDay;
}
const int64_t kFirstSupported = civil_seconds(1, 1, 2);
const int64_t kLastSupported = civil_seconds(9999, 12, 30);

CronSyntaxError zone_error(std::string message) {
  return CronSyntaxError{"timezone", 0, std::move(message)};
}

CronExpression parse_or_throw(std::string_view text) {
  CronSyntaxError error;
  std::optional<CronExpression> e = CronExpression::parse(text, error);
  if (!e) throw CronError(std::string(text), std::move(error));
  return std::move(*e);
}

TimeZone locate_or_throw(std::string_view expression, std::string_view name) {
  Result<TimeZone> tz = TimeZone::locate(name);
  if (!tz) throw CronError(std::string(expression), zone_error(tz.error()));
  return std::move(tz).value();
}

std::string compose(const std::string& expression, const CronSyntaxError& e) {
  if (e.column == 0) return e.field + ": " + e.message;
  return e.describe(expression);
}

}  // namespace

CronError::CronError(std::string expression, CronSyntaxError error)
    : GantryError(compose(expression, error)),
      expression_(std::move(expression)),
      error_(std::move(error)) {}

InputError CronError::to_input_error(SourceLocation where, std::string path) const {
  if (where.column > 0 && error_.column > 0) where.column += error_.column - 1;
  return InputError(std::move(where), std::move(path), what());
}

CronSchedule::CronSchedule(std::string_view expression, std::string_view time_zone)
    : expression_(parse_or_throw(expression)), zone_(locate_or_throw(expression, time_zone)) {}

CronSchedule::CronSchedule(CronExpression expression, TimeZone zone)
    : expression_(std::move(expression)), zone_(std::move(zone)) {}

std::optional<int64_t> CronSchedule::first_at_or_after(int64_t s) const {
  if (s > kLastSupported) return std::nullopt;
  s = std::max(s, kFirstSupported);
  const int64_t horizon = std::min(s + kHorizon, kLastSupported);
  std::optional<int64_t> found =
      expression_.fixed_time() ? fixed_at_or_after(s, horizon) : wildcard_at_or_after(s, horizon);
  if (found && *found > kLastSupported) return std::nullopt;
  return found;
}

// Rule 2: walk the zone's segments of constant offset; inside one, local time is UTC plus a
// constant, so the calendar search can run on the wall clock directly.
std::optional<int64_t> CronSchedule::wildcard_at_or_after(int64_t s, int64_t horizon) const {
  while (s <= horizon) {
    const TimeZone::Segment seg = zone_.segment_at(s);
    const int64_t last_instant = std::min(seg.end - 1, horizon);
    const std::optional<int64_t> minute = expression_.next_local_minute(
        ceil_div(s + seg.offset, 60), floor_div(last_instant + seg.offset, 60));
    if (minute) return *minute * 60 - seg.offset;
    s = seg.end;
  }
  return std::nullopt;
}

// Rule 1: each matching local time maps to one instant (unique, first of two, or the end of
// the gap). That map never decreases as local time grows, so the first local match whose
// instant is >= s is the answer; the search starts at the local time s shows, except: if s lies
// in the second pass of a fall-back overlap, at the end of the overlap (earlier local times in
// it already fired at their first occurrence, before s); if s is the very instant a gap ends,
// at the start of the gap (its times fire at s).
std::optional<int64_t> CronSchedule::fixed_at_or_after(int64_t s, int64_t horizon) const {
  const TimeZone::Segment seg = zone_.segment_at(s);
  int64_t local = s + seg.offset;
  if (seg.begin > TimeZone::kMinSeconds && s - seg.begin < kDay + kDay) {
    const TimeZone::Segment before = zone_.segment_at(seg.begin - 1);
    if (before.offset > seg.offset) {
      local = std::max(local, seg.begin + before.offset);  // skip the overlap's second pass
    } else if (s == seg.begin) {
      local = seg.begin + before.offset;  // gap times fire at seg.begin, which is s itself
    }
  }
  const int64_t last_minute = floor_div(horizon + seg.offset, 60);
  for (;;) {
    const std::optional<int64_t> minute =
        expression_.next_local_minute(ceil_div(local, 60), last_minute);
    if (!minute) return std::nullopt;
    const TimeZone::Local at = zone_.resolve(*minute * 60);
    if (at.first >= s) return at.first;
    local = *minute * 60 + 60;  // only reached in odd zones (a segment shorter than its overlap)
  }
}

std::optional<Time> CronSchedule::next_after(Time t) const {
  const std::optional<int64_t> s = first_at_or_after(floor_div(t.micros(), kMicros) + 1);
  if (!s) return std::nullopt;
  return Time::from_micros(*s * kMicros);
}

std::optional<Time> CronSchedule::previous_at_or_before(Time t) const {
  // Firing instants are whole seconds, so "<= t" is "<= last" for the whole second `last`.
  const int64_t last = std::min(floor_div(t.micros(), kMicros), kLastSupported);
  if (last < kFirstSupported) return std::nullopt;
  // One search over the whole horizon settles "none at all" (e.g. `0 0 30 2 *`) at once.
  const std::optional<int64_t> any = first_at_or_after(std::max(last - kHorizon, kFirstSupported));
  if (!any || *any > last) return std::nullopt;
  // Find a second `lo` with a firing in (lo, last], widening the window by doubling...
  int64_t width = 60;
  int64_t lo = 0;
  std::optional<int64_t> hit;
  for (;;) {
    lo = std::max(last - width, kFirstSupported - 1);
    hit = first_at_or_after(lo + 1);
    if (hit && *hit <= last) break;
    if (lo < kFirstSupported || width > kHorizon) return std::nullopt;
    width *= 2;
  }
  // ...then narrow it: keep a firing in (lo, last] and none in (hi, last].
  lo = *hit - 1;
  int64_t hi = last;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    const std::optional<int64_t> h = first_at_or_after(mid + 1);
    if (h && *h <= last) {
      lo = *h - 1;
      hit = h;
    } else {
      hi = mid;
    }
  }
  return Time::from_micros(*hit * kMicros);
}

std::vector<Time> CronSchedule::ticks(Time from, Time to, size_t limit) const {
  std::vector<Time> out;
  if (to < from) return out;
  std::optional<int64_t> s = first_at_or_after(ceil_div(from.micros(), kMicros));
  const int64_t last = floor_div(to.micros(), kMicros);
  while (s && *s <= last && out.size() < limit) {
    out.push_back(Time::from_micros(*s * kMicros));
    s = first_at_or_after(*s + 1);
  }
  return out;
}

}  // namespace gantry
