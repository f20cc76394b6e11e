#pragma once
// A parsed Vixie cron expression: five fields matched against a local (wall-clock) date and
// time. Time zones and daylight saving are not this class's business; see cron.hpp for how a
// CronSchedule turns local matches into UTC instants.
//
// Syntax (Vixie cron 4.1, crontab(5)), fields separated by spaces or tabs:
//
//   minute 0-59 · hour 0-23 · day-of-month 1-31 · month 1-12 or JAN-DEC · day-of-week 0-7 or
//   SUN-SAT (0 and 7 are both Sunday)
//
// Each field is a comma-separated list of elements; an element is
//   `*`        every value of the field
//   `a`        one value (names only in month and day-of-week, 3 letters, any case)
//   `a-b`      a range, a <= b (ranges do not wrap: write `FRI-SAT,SUN` not `FRI-SUN`)
//   `*/n`      every n-th value from the field's first: `*/7` minutes = 0,7,...,56; steps
//              restart every hour (minutes), day (hours), month (days), year (months)
//   `a-b/n`    every n-th value from a to b
// Macros: @yearly = @annually = `0 0 1 1 *`, @monthly = `0 0 1 * *`, @weekly = `0 0 * * 0`,
// @daily = @midnight = `0 0 * * *`, @hourly = `0 * * * *` (macros and names are matched
// case-insensitively). @reboot is rejected: a pipeline schedule needs instants in time.
//
// Day-of-month and day-of-week, exactly as Vixie cron's DOM_STAR/DOW_STAR flags: a field whose
// text *starts with* `*` (so `*`, `*/2`, `*,5`) is flagged "star". If either field is flagged,
// a day must match both (which, when the flagged field is a plain `*`, means just the other);
// if neither is flagged, a day matching either one fires. So `0 0 1,15 * MON` fires on the 1st,
// the 15th and every Monday, while `0 0 */2 * MON` fires on Mondays that are odd days of the
// month (Vixie's well-known quirk, kept for compatibility).
//
// Deliberate differences from Vixie cron, all stricter: a step larger than the field's largest
// value (`*/90` in minutes) is an error rather than silently meaning "only the first value";
// a single value with a step (`5/10`) is an error, as in Vixie (cronie reads it as `5-59/10`);
// there is no sixth (seconds or command) field.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gantry {

enum class CronField : uint8_t { kMinute, kHour, kDayOfMonth, kMonth, kDayOfWeek };

// "minute", "hour", "day-of-month", "month", "day-of-week".
std::string_view cron_field_name(CronField field);

// Why an expression did not parse, without any file position: the caller (the YAML loader)
// knows where the expression sits in its file and adds `column - 1` to the scalar's column.
struct CronSyntaxError {
  std::string field;    // one of cron_field_name(), or "expression" for the whole text
  int column = 0;       // 1-based character position of the offending text in the expression
  std::string message;  // e.g. "value 24 out of range 0-23"

  // "hour: value 24 out of range 0-23 (at column 3 of \"0 24 * * *\")".
  std::string describe(std::string_view expression) const;
};

class CronExpression {
 public:
  // Parses `text`. On failure returns nullopt and fills `error`. Never throws.
  static std::optional<CronExpression> parse(std::string_view text, CronSyntaxError& error);

  // The text as given (macros not expanded).
  const std::string& text() const { return text_; }

  bool minute(int m) const { return (minutes_ >> m) & 1; }
  bool hour(int h) const { return (hours_ >> h) & 1; }
  bool month(int m) const { return (months_ >> m) & 1; }
  // The day rule above; `weekday` 0 = Sunday. `day` must exist in that month.
  bool day(int day_of_month, int weekday) const;
  bool day_of_month_star() const { return dom_star_; }
  bool day_of_week_star() const { return dow_star_; }

  // True when neither the minute nor the hour field contains `*` or a step `/`: the job runs
  // at specific wall-clock times, which decides its daylight-saving rule (cron.hpp).
  bool fixed_time() const { return fixed_time_; }

  // Local minutes are minutes since 1970-01-01T00:00 on the wall clock (no zone). Returns the
  // first matching local minute in [from, last], or nullopt. Skips whole months, days and
  // hours that cannot match, so the cost is O(months + days visited), not O(minutes).
  std::optional<int64_t> next_local_minute(int64_t from, int64_t last) const;

 private:
  CronExpression() = default;

  std::string text_;
  uint64_t minutes_ = 0;  // bit m for minute m
  uint32_t hours_ = 0;    // bit h
  uint32_t days_ = 0;     // bit d, 1..31
  uint16_t months_ = 0;   // bit m, 1..12
  uint8_t weekdays_ = 0;  // bit d, 0..6 (7 folded into 0)
  bool dom_star_ = false;
  bool dow_star_ = false;
  bool fixed_time_ = false;
};

}  // namespace gantry
