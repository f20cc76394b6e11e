// Parsing and local-calendar matching of cron expressions (workflow/cron/cron_expression.hpp).
// Calendar facts used below, worked out by hand:
//   2026-01-01 is a Thursday (2025-01-01 was a Wednesday, 2025 has 365 days = 52 weeks + 1).
//   2026-03-01 = Jan 1 + 31 + 28 = 59 days later; 59 = 8*7 + 3, Thursday + 3 = Sunday.
//   So March 2026: Sundays 1, 8, 15, 22, 29; Fridays 6, 13, 20, 27.
//   1st of each month 2026 from Mar 1 (Sun), adding month lengths mod 7: Apr 1 Wed (+31 = +3),
//   May 1 Fri (+30 = +2), Jun 1 Mon, Jul 1 Wed, Aug 1 Sat, Sep 1 Tue, Oct 1 Thu, Nov 1 Sun.

#include "workflow/cron/cron_expression.hpp"

#include <date/date.h>
#include <gtest/gtest.h>

namespace gantry {
namespace {

CronExpression parse(std::string_view text) {
  CronSyntaxError error;
  std::optional<CronExpression> e = CronExpression::parse(text, error);
  EXPECT_TRUE(e.has_value()) << error.describe(text);
  if (!e) std::abort();
  return *e;
}

std::string error_of(std::string_view text) {
  CronSyntaxError error;
  std::optional<CronExpression> e = CronExpression::parse(text, error);
  EXPECT_FALSE(e.has_value()) << text;
  return error.describe(text);
}

// Local minutes since 1970-01-01T00:00.
int64_t lm(int y, unsigned mo, unsigned d, int h = 0, int mi = 0) {
  const int64_t day =
      date::sys_days(date::year(y) / date::month(mo) / date::day(d)).time_since_epoch().count();
  return day * 1440 + h * 60 + mi;
}

// The next match at or after `from`, searching at most 500 years.
int64_t next(const CronExpression& e, int64_t from) {
  std::optional<int64_t> m = e.next_local_minute(from, from + int64_t{1440} * 366 * 500);
  EXPECT_TRUE(m.has_value());
  return m.value_or(-1);
}

TEST(CronExpression, ListsRangesAndSteps) {
  const CronExpression e = parse("1,5 * * * *");
  EXPECT_TRUE(e.minute(1));
  EXPECT_TRUE(e.minute(5));
  EXPECT_FALSE(e.minute(2));
  EXPECT_FALSE(e.minute(0));

  // 10-50/7: 10 + 7k <= 50 for k = 0..5 -> 10, 17, 24, 31, 38, 45 (52 > 50).
  const CronExpression s = parse("10-50/7 * * * *");
  for (int m = 0; m < 60; ++m) {
    const bool expected = m == 10 || m == 17 || m == 24 || m == 31 || m == 38 || m == 45;
    EXPECT_EQ(s.minute(m), expected) << m;
  }

  const CronExpression h = parse("0 9-17 * * *");
  EXPECT_FALSE(h.hour(8));
  EXPECT_TRUE(h.hour(9));
  EXPECT_TRUE(h.hour(17));
  EXPECT_FALSE(h.hour(18));

  // `*,5` is a valid list in Vixie (a `*` element next to others).
  EXPECT_TRUE(parse("*,5 * * * *").minute(33));
  // Tabs and surrounding blanks separate fields too.
  EXPECT_TRUE(parse("  0\t12 * * *  ").hour(12));
}

TEST(CronExpression, StepsRestartEachHour) {
  // */7 in minutes: 0, 7, ..., 56 (8*7 = 56, 63 > 59); after :56 comes :00 of the next hour,
  // not :03 (which 7 minutes of elapsed time would give).
  const CronExpression e = parse("*/7 * * * *");
  EXPECT_EQ(next(e, lm(2026, 3, 2, 12, 50)), lm(2026, 3, 2, 12, 56));
  EXPECT_EQ(next(e, lm(2026, 3, 2, 12, 57)), lm(2026, 3, 2, 13, 0));
  EXPECT_EQ(next(e, lm(2026, 3, 2, 13, 1)), lm(2026, 3, 2, 13, 7));
  // */5 in hours: 0, 5, 10, 15, 20, then 0 of the next day.
  const CronExpression h = parse("0 */5 * * *");
  EXPECT_EQ(next(h, lm(2026, 3, 2, 20, 1)), lm(2026, 3, 3, 0, 0));
}

TEST(CronExpression, NamesAnyCase) {
  const CronExpression e = parse("0 0 * jan-MAR,Dec mon-FRI");
  for (int m = 1; m <= 12; ++m) EXPECT_EQ(e.month(m), m <= 3 || m == 12) << m;
  // Weekdays 1..5 match on any day of the month (day-of-month is `*`, so AND with all days).
  EXPECT_FALSE(e.day(1, 0));
  EXPECT_TRUE(e.day(1, 1));
  EXPECT_TRUE(e.day(1, 5));
  EXPECT_FALSE(e.day(1, 6));
  EXPECT_TRUE(parse("0 0 * * Sun").day(3, 0));
}

TEST(CronExpression, SevenIsSunday) {
  const CronExpression e = parse("0 0 * * 7");
  EXPECT_TRUE(e.day(10, 0));
  EXPECT_FALSE(e.day(10, 6));
  // 5-7 = Friday, Saturday, Sunday.
  const CronExpression r = parse("0 0 * * 5-7");
  EXPECT_TRUE(r.day(10, 5));
  EXPECT_TRUE(r.day(10, 6));
  EXPECT_TRUE(r.day(10, 0));
  EXPECT_FALSE(r.day(10, 1));
  // Next Sunday after Monday 2026-03-02 is 2026-03-08.
  EXPECT_EQ(next(e, lm(2026, 3, 2)), lm(2026, 3, 8));
}

TEST(CronExpression, Macros) {
  // @yearly = 0 0 1 1 *: after 2026-03-01 the next is 2027-01-01 00:00.
  EXPECT_EQ(next(parse("@yearly"), lm(2026, 3, 1)), lm(2027, 1, 1));
  EXPECT_EQ(next(parse("@annually"), lm(2026, 3, 1)), lm(2027, 1, 1));
  // @monthly = 0 0 1 * *.
  EXPECT_EQ(next(parse("@monthly"), lm(2026, 3, 2)), lm(2026, 4, 1));
  // @weekly = 0 0 * * 0: the Sunday after Monday 2026-03-02 is 03-08.
  EXPECT_EQ(next(parse("@weekly"), lm(2026, 3, 2)), lm(2026, 3, 8));
  // @daily = @midnight = 0 0 * * *.
  EXPECT_EQ(next(parse("@daily"), lm(2026, 3, 2, 0, 1)), lm(2026, 3, 3));
  EXPECT_EQ(next(parse("@MIDNIGHT"), lm(2026, 3, 2, 0, 1)), lm(2026, 3, 3));
  // @hourly = 0 * * * *.
  EXPECT_EQ(next(parse("@hourly"), lm(2026, 3, 2, 10, 1)), lm(2026, 3, 2, 11, 0));

  EXPECT_TRUE(parse("@daily").fixed_time());
  EXPECT_FALSE(parse("@hourly").fixed_time());
}

TEST(CronExpression, FixedTimeClassification) {
  EXPECT_TRUE(parse("30 2 * * *").fixed_time());
  EXPECT_TRUE(parse("0 9,17 * * 1-5").fixed_time());
  EXPECT_TRUE(parse("0-5 1-3 * * *").fixed_time());  // lists and ranges are specific values
  EXPECT_FALSE(parse("*/30 * * * *").fixed_time());
  EXPECT_FALSE(parse("0 * * * *").fixed_time());
  EXPECT_FALSE(parse("*/5 9 * * *").fixed_time());
  EXPECT_FALSE(parse("0 1-23/2 * * *").fixed_time());  // a step anywhere
}

TEST(CronExpression, DayOfMonthOrDayOfWeekWhenBothRestricted) {
  // Both restricted: the 10th OR any Friday. From Sunday 03-01: Fri 03-06, then Tue 03-10
  // (the 10th), then Fri 03-13.
  const CronExpression e = parse("0 0 10 * FRI");
  EXPECT_FALSE(e.day_of_month_star());
  EXPECT_FALSE(e.day_of_week_star());
  EXPECT_EQ(next(e, lm(2026, 3, 1)), lm(2026, 3, 6));
  EXPECT_EQ(next(e, lm(2026, 3, 6, 0, 1)), lm(2026, 3, 10));
  EXPECT_EQ(next(e, lm(2026, 3, 10, 0, 1)), lm(2026, 3, 13));
}

TEST(CronExpression, OnlyTheRestrictedDayFieldAppliesWhenTheOtherIsStar) {
  // Fridays only: from Sunday 03-01 the next is 03-06, then 03-13 (the 10th does not count).
  EXPECT_EQ(next(parse("0 0 * * FRI"), lm(2026, 3, 6, 0, 1)), lm(2026, 3, 13));
  // The 10th only: from 03-01 it is 03-10, not Friday 03-06.
  EXPECT_EQ(next(parse("0 0 10 * *"), lm(2026, 3, 1)), lm(2026, 3, 10));
}

TEST(CronExpression, AFieldStartingWithStarCountsAsStarForTheDayRule) {
  // Vixie's DOM_STAR: `*/2` (days 1, 3, ..., 31) is flagged star, so the rule is AND: odd days
  // that are Fridays. March 2026 Fridays 6, 13, 20, 27 -> odd ones 13 and 27.
  const CronExpression star = parse("0 0 */2 * FRI");
  EXPECT_TRUE(star.day_of_month_star());
  EXPECT_EQ(next(star, lm(2026, 3, 4, 0, 1)), lm(2026, 3, 13));
  EXPECT_EQ(next(star, lm(2026, 3, 13, 0, 1)), lm(2026, 3, 27));
  // The same days written 1-31/2 are not flagged: OR. From Wed 03-04 00:01: Thu 03-05 (odd).
  const CronExpression range = parse("0 0 1-31/2 * FRI");
  EXPECT_FALSE(range.day_of_month_star());
  EXPECT_EQ(next(range, lm(2026, 3, 4, 0, 1)), lm(2026, 3, 5));
  // Day-of-week `*/7` = 0 and 7 = Sunday, flagged: the 1st AND a Sunday. After 2026-03-01 the
  // next 1st that is a Sunday is 2026-11-01 (see the table at the top).
  EXPECT_EQ(next(parse("0 0 1 * */7"), lm(2026, 3, 2)), lm(2026, 11, 1));
}

TEST(CronExpression, EndOfMonthAndLeapDay) {
  // The 31st: April has 30 days, so from 04-01 the next is 05-31.
  EXPECT_EQ(next(parse("0 0 31 * *"), lm(2026, 4, 1)), lm(2026, 5, 31));
  // Feb 29: 2028 is the next leap year after 2026.
  EXPECT_EQ(next(parse("0 0 29 2 *"), lm(2026, 1, 1)), lm(2028, 2, 29));
  // 2100 is not a leap year (divisible by 100, not by 400): after 2096 the next is 2104.
  EXPECT_EQ(next(parse("0 0 29 2 *"), lm(2096, 3, 1)), lm(2104, 2, 29));
}

TEST(CronExpression, NeverFiringExpressionsGiveNothing) {
  const CronExpression e = parse("0 0 30 2 *");
  EXPECT_FALSE(e.next_local_minute(lm(2026, 1, 1), lm(2426, 1, 1)).has_value());
  EXPECT_FALSE(parse("0 0 31 4,6,9,11 *").next_local_minute(lm(2026, 1, 1), lm(2426, 1, 1)));
  // A bound is honoured: 2028-02-29 lies after 2027-12-31.
  EXPECT_FALSE(parse("0 0 29 2 *").next_local_minute(lm(2026, 1, 1), lm(2027, 12, 31)));
}

TEST(CronExpression, ErrorsNameFieldValueAndColumn) {
  EXPECT_EQ(error_of("0 24 * * *"),
            "hour: value 24 out of range 0-23 (at column 3 of \"0 24 * * *\")");
  EXPECT_EQ(error_of("60 * * * *"),
            "minute: value 60 out of range 0-59 (at column 1 of \"60 * * * *\")");
  EXPECT_EQ(error_of("* * 0 * *"),
            "day-of-month: value 0 out of range 1-31 (at column 5 of \"* * 0 * *\")");
  EXPECT_EQ(error_of("* * * 13 *"),
            "month: value 13 out of range 1-12 (at column 7 of \"* * * 13 *\")");
  EXPECT_EQ(error_of("* * * * 8"),
            "day-of-week: value 8 out of range 0-7 (at column 9 of \"* * * * 8\")");
  EXPECT_EQ(error_of("0 0 1 JAM *"),
            "month: unknown name \"JAM\"; expected 1-12 or JAN-DEC "
            "(at column 7 of \"0 0 1 JAM *\")");
  EXPECT_EQ(error_of("0 0 * * MONDAY"),
            "day-of-week: unknown name \"MONDAY\"; expected 0-7 or SUN-SAT "
            "(at column 9 of \"0 0 * * MONDAY\")");
  EXPECT_EQ(error_of("abc * * * *"),
            "minute: invalid value \"abc\"; expected a number 0-59 "
            "(at column 1 of \"abc * * * *\")");
  EXPECT_EQ(error_of("0 0 L * *"),
            "day-of-month: invalid value \"L\"; expected a number 1-31 "
            "(at column 5 of \"0 0 L * *\")");
  EXPECT_EQ(error_of("0 0 * * 1#2"),
            "day-of-week: invalid value \"1#2\"; expected 0-7 or SUN-SAT "
            "(at column 9 of \"0 0 * * 1#2\")");
  EXPECT_EQ(error_of("0 99999999999 * * *"),
            "hour: value 99999999999 out of range 0-23 (at column 3 of \"0 99999999999 * * *\")");
}

TEST(CronExpression, ErrorsInRangesStepsAndLists) {
  EXPECT_EQ(error_of("5-1 * * * *"),
            "minute: range 5-1 goes backwards (cron ranges do not wrap) "
            "(at column 1 of \"5-1 * * * *\")");
  EXPECT_EQ(error_of("*/0 * * * *"),
            "minute: step 0 must be at least 1 (at column 3 of \"*/0 * * * *\")");
  EXPECT_EQ(error_of("*/90 * * * *"),
            "minute: step 90 larger than 59 (steps restart every hour) "
            "(at column 3 of \"*/90 * * * *\")");
  EXPECT_EQ(error_of("0 0 */x * *"),
            "day-of-month: invalid step \"x\"; expected a number after \"/\" "
            "(at column 7 of \"0 0 */x * *\")");
  EXPECT_EQ(error_of("5/10 * * * *"),
            "minute: a step needs a range or \"*\" before it: write 5-59/10 "
            "(at column 1 of \"5/10 * * * *\")");
  EXPECT_EQ(error_of("1,,2 * * * *"),
            "minute: empty list element (at column 3 of \"1,,2 * * * *\")");
  EXPECT_EQ(error_of("0 0 * * MON-"),
            "day-of-week: missing value; expected 0-7 or SUN-SAT (at column 13 of "
            "\"0 0 * * MON-\")");
  EXPECT_EQ(error_of("*-5 * * * *"),
            "minute: unexpected \"-\" after \"*\"; expected \",\" or \"/step\" "
            "(at column 2 of \"*-5 * * * *\")");
}

TEST(CronExpression, ErrorsInTheWholeExpression) {
  EXPECT_EQ(error_of(""),
            "expression: empty expression; expected 5 fields (minute hour day-of-month month "
            "day-of-week) or a macro such as @daily (at column 1 of \"\")");
  EXPECT_EQ(error_of("0 0 * *"),
            "expression: expected 5 fields (minute hour day-of-month month day-of-week), "
            "found 4 (at column 8 of \"0 0 * *\")");
  EXPECT_EQ(error_of("0 0 * * * *"),
            "expression: expected 5 fields (minute hour day-of-month month day-of-week), "
            "found 6; there is no seconds or command field (at column 11 of \"0 0 * * * *\")");
  EXPECT_EQ(error_of("@reboot"),
            "expression: @reboot is not supported: a pipeline schedule needs points in time and "
            "Gantry has no boot event; trigger the pipeline manually instead "
            "(at column 1 of \"@reboot\")");
  EXPECT_EQ(error_of("@every 5m"),
            "expression: unknown macro \"@every\"; expected @yearly, @annually, @monthly, "
            "@weekly, @daily, @midnight or @hourly (at column 1 of \"@every 5m\")");
  EXPECT_EQ(error_of("@daily x"),
            "expression: unexpected \"x\" after @daily (at column 8 of \"@daily x\")");
}

}  // namespace
}  // namespace gantry
