#pragma once
// Cron schedules with time zones: the UTC instants at which a cron expression fires when its
// fields are read on the wall clock of an IANA time zone. Used by pipeline schedules (issue #4:
// `spec.schedule.cron` and `spec.schedule.timezone`), in virtual and in wall time alike, since
// both count time as UTC microseconds (gantry::Time).
//
// Syntax and the day-of-month / day-of-week rule: see cron_expression.hpp.
//
// WHICH INSTANTS FIRE
// A job fires at second 0 of each matching local minute. Where the zone's offset never changes
// that is all; daylight-saving transitions follow Vixie cron's rule, made exact here. A job is
// *fixed-time* when neither its minute nor its hour field contains `*` or a step `/`
// (`30 2 * * *`, `0 9,17 * * 1-5`, @daily, @weekly, @monthly, @yearly); otherwise it is a
// *wildcard* job (`*/30 * * * *`, `0 * * * *`, `15 */2 * * *`, `*/5 9 * * *`, @hourly).
//
//  1. Fixed-time jobs fire once per matching local date and time:
//     - a time that exists once fires then;
//     - a time in a fall-back overlap (it exists twice) fires at its first occurrence only;
//     - a time in a spring-forward gap (it never shows on the clock) fires at the first instant
//       after the gap, i.e. at the transition: `0 2 * * *` in America/New_York on 2026-03-08
//       (02:00 EST -> 03:00 EDT) fires at 03:00 EDT = 07:00Z. Several gap times of one job
//       (`0,30 2 * * *`) give one firing; a gap time that lands on another matching time of
//       the same job (02:00 and 03:00 in `0 2,3 * * *`) also gives one.
//  2. Wildcard jobs fire at every instant whose wall-clock reading matches. Gap times never
//     show, so they do not fire; times in a fall-back overlap show twice, at two distinct
//     instants, so they fire twice. For jobs that fire at least hourly with a period that
//     divides the shift (`*/30` or `0 *` across a one-hour shift, `*/30` across Lord Howe's
//     half-hour shift) this keeps the real spacing through both transitions: no gap, no
//     burst. For other wildcard jobs the spacing across a transition is the wall clock's:
//     `0 */2 * * *` in New York waits 3 real hours across both (00:00 -> 04:00 EDT in spring;
//     00:00 EDT -> 02:00 EST in autumn), `0 * * * *` in Australia/Lord_Howe waits 90 minutes,
//     `*/5 2 * * *` skips the spring-forward day and fires 24 times on the fall-back day.
//     That is what Vixie cron does (it runs wildcard jobs by the current wall-clock minute).
//
//  Differences from Vixie cron: Vixie classifies a job as wildcard only when the minute or hour
//  field *starts* with `*`, so `0 1-23/2 * * *` is fixed-time there and wildcard here (a step
//  means "every n", which rule 2 serves); Vixie runs `0,30 2 * * *` twice after a gap and only
//  handles clock jumps of up to 3 (backwards) or 5 (forwards) hours, where this class applies
//  the rule to every transition in the database.
//
// SEARCH LIMITS
// The Gregorian calendar (weekdays included) repeats every 400 years, so a search that finds
// nothing in 400 years plus two days proves the expression never fires (`0 0 30 2 *`,
// `0 0 31 4,6,9,11 *`) and gives nullopt; `0 0 29 2 *` (up to 8 years apart) is found. Only
// instants from 0001-01-02 to 9999-12-30 UTC are considered. Searches skip whole months, days
// and hours that cannot match: next_after() costs O(1) for usual expressions and at most a few
// hundred thousand cheap steps for one that never fires.
//
// Thread safety: all member functions are const and safe to call concurrently.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/core/time.hpp"
#include "workflow/cron/cron_expression.hpp"
#include "workflow/cron/time_zone.hpp"

namespace gantry {

// A bad expression or time zone, for callers that throw (CronSchedule's constructor).
// what() is CronSyntaxError::describe(), e.g.
//   hour: value 24 out of range 0-23 (at column 3 of "0 24 * * *")
//   timezone: unknown time zone "Mars/Olympus"; expected an IANA name such as "Europe/Paris"
class CronError : public GantryError {
 public:
  CronError(std::string expression, CronSyntaxError error);

  const std::string& expression() const { return expression_; }
  // "minute", "hour", "day-of-month", "month", "day-of-week", "expression" or "timezone".
  const std::string& field() const { return error_.field; }
  // 1-based column in the expression; 0 for time-zone errors.
  int column() const { return error_.column; }
  const std::string& detail() const { return error_.message; }

  // The boundary exception for an expression found in a file. `where` is the position of the
  // expression's first character (for a quoted YAML scalar, one past the quote); the column
  // is moved to the offending character. `path` is the dotted field, "spec.schedule.cron".
  InputError to_input_error(SourceLocation where, std::string path) const;

 private:
  std::string expression_;
  CronSyntaxError error_;
};

class CronSchedule {
 public:
  // Parses `expression` and looks up `time_zone` ("UTC" or "" for UTC). Throws CronError.
  explicit CronSchedule(std::string_view expression, std::string_view time_zone = "UTC");
  CronSchedule(CronExpression expression, TimeZone zone);

  const CronExpression& expression() const { return expression_; }
  const TimeZone& zone() const { return zone_; }

  // The first firing instant strictly after `t`, or nullopt (never fires; see SEARCH LIMITS).
  std::optional<Time> next_after(Time t) const;

  // The last firing instant at or before `t` ("the most recent missed tick"), or nullopt when
  // none exists in the 400 years before `t`. Consistent with next_after(): if it returns p,
  // next_after(p - 1us) == p and next_after(p) > t. Costs O(log(t - p)) calls of next_after.
  std::optional<Time> previous_at_or_before(Time t) const;

  // Every firing instant in [from, to], both ends inclusive, oldest first; at most `limit`.
  std::vector<Time> ticks(Time from, Time to,
                          size_t limit = std::numeric_limits<size_t>::max()) const;

 private:
  // The first firing instant (sys seconds) at or after second `s`.
  std::optional<int64_t> first_at_or_after(int64_t s) const;
  std::optional<int64_t> fixed_at_or_after(int64_t s, int64_t horizon) const;
  std::optional<int64_t> wildcard_at_or_after(int64_t s, int64_t horizon) const;

  CronExpression expression_;
  TimeZone zone_;
};

}  // namespace gantry
