// CronSchedule: UTC instants of cron expressions in time zones, daylight saving included
// (workflow/cron/cron.hpp). Every expected instant is derived in the comment next to it.
//
// Transition dates used (rules from the tz database, checked against the calendar by hand):
//   America/New_York 2026: EST (UTC-5) -> EDT (UTC-4) on Sun 2026-03-08 at 02:00 EST = 07:00Z;
//     EDT -> EST on Sun 2026-11-01 at 02:00 EDT = 06:00Z (local 01:00-01:59 happens twice).
//     (2026-03-01 is a Sunday, so the second Sunday is 03-08; 2026-11-01 is a Sunday.)
//   Europe/London 2026: GMT -> BST on the last Sunday of March, 03-29, at 01:00 GMT = 01:00Z;
//     BST -> GMT on the last Sunday of October, 10-25, at 02:00 BST = 01:00Z.
//     (Oct 1 2026 is a Thursday: Sundays 4, 11, 18, 25.)
//   Australia/Lord_Howe 2026 (half-hour shift): +11 -> +10:30 on the first Sunday of April,
//     04-05, at 02:00 +11 = 2026-04-04T15:00Z (local 01:30-01:59 twice); +10:30 -> +11 on the
//     first Sunday of October, 10-04, at 02:00 +10:30 = 2026-10-03T15:30Z (02:00-02:29 skipped).
//     (Apr 1 2026 is a Wednesday, so Sunday is 04-05; Oct 1 is a Thursday, Sunday 10-04.)

#include <date/tz.h>
#include <gtest/gtest.h>

#include <set>

#include "workflow/cron/cron.hpp"

namespace gantry {
namespace {

Time utc(const std::string& text) {
  Time t;
  EXPECT_TRUE(parse_rfc3339(text, t)) << text;
  return t;
}

std::vector<std::string> format(const std::vector<Time>& ts) {
  std::vector<std::string> out;
  for (Time t : ts) out.push_back(format_rfc3339(t));
  return out;
}

std::string next(const CronSchedule& s, const std::string& after) {
  std::optional<Time> t = s.next_after(utc(after));
  return t ? format_rfc3339(*t) : "none";
}

std::string previous(const CronSchedule& s, const std::string& at) {
  std::optional<Time> t = s.previous_at_or_before(utc(at));
  return t ? format_rfc3339(*t) : "none";
}

TEST(CronSchedule, UtcByDefaultAndStrictlyAfter) {
  const CronSchedule s("*/15 * * * *");
  EXPECT_TRUE(s.zone().is_utc());
  EXPECT_EQ(next(s, "2026-01-01T00:00:00Z"), "2026-01-01T00:15:00Z");
  EXPECT_EQ(next(s, "2026-01-01T00:14:59.999999Z"), "2026-01-01T00:15:00Z");
  EXPECT_EQ(next(s, "2026-01-01T00:15:00.000001Z"), "2026-01-01T00:30:00Z");
  // ticks() is inclusive at both ends: 00:00, 00:15, 00:30.
  EXPECT_EQ(format(s.ticks(utc("2026-01-01T00:00:00Z"), utc("2026-01-01T00:30:00Z"))),
            (std::vector<std::string>{"2026-01-01T00:00:00Z", "2026-01-01T00:15:00Z",
                                      "2026-01-01T00:30:00Z"}));
  EXPECT_EQ(s.ticks(utc("2026-01-01T00:00:00Z"), utc("2026-01-01T01:00:00Z"), 2).size(), 2u);
}

TEST(CronSchedule, StepOfSevenMinutesRestartsAtTheHour) {
  const CronSchedule s("*/7 * * * *", "America/New_York");
  // 10:56Z is 05:56 EST; the next match is 06:00 EST = 11:00Z, four minutes later.
  EXPECT_EQ(next(s, "2026-01-05T10:56:00Z"), "2026-01-05T11:00:00Z");
  EXPECT_EQ(next(s, "2026-01-05T10:49:00Z"), "2026-01-05T10:56:00Z");
}

TEST(CronSchedule, FixedTimeInSpringForwardGapRunsAtTheEndOfTheGap) {
  const CronSchedule s("0 2 * * *", "America/New_York");
  // 03-07 02:00 EST = 07:00Z. 03-08 02:00 does not exist: it runs at the jump, 03:00 EDT =
  // 07:00Z. 03-09 02:00 EDT = 06:00Z.
  EXPECT_EQ(format(s.ticks(utc("2026-03-07T00:00:00Z"), utc("2026-03-10T00:00:00Z"))),
            (std::vector<std::string>{"2026-03-07T07:00:00Z", "2026-03-08T07:00:00Z",
                                      "2026-03-09T06:00:00Z"}));
  // Found from just before the jump too (a fuzzer-found regression: the search used to start
  // at the post-jump wall clock, 03:00, and missed the gap time).
  EXPECT_EQ(next(s, "2026-03-08T06:59:59.999999Z"), "2026-03-08T07:00:00Z");
  EXPECT_EQ(next(s, "2026-03-08T06:59:59Z"), "2026-03-08T07:00:00Z");
  // Two gap times of one job give one run: 02:00 and 02:30 both -> 07:00Z; then 03-09 02:00
  // EDT = 06:00Z.
  const CronSchedule two("0,30 2 * * *", "America/New_York");
  EXPECT_EQ(next(two, "2026-03-08T06:59:00Z"), "2026-03-08T07:00:00Z");
  EXPECT_EQ(next(two, "2026-03-08T07:00:00Z"), "2026-03-09T06:00:00Z");
}

TEST(CronSchedule, FixedTimeInFallBackOverlapRunsOnceAtTheFirstOccurrence) {
  const CronSchedule s("30 1 * * *", "America/New_York");
  // 10-31 01:30 EDT = 05:30Z; 11-01 01:30 EDT = 05:30Z (first), not 01:30 EST = 06:30Z;
  // 11-02 01:30 EST = 06:30Z.
  EXPECT_EQ(format(s.ticks(utc("2026-10-31T00:00:00Z"), utc("2026-11-03T00:00:00Z"))),
            (std::vector<std::string>{"2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z",
                                      "2026-11-02T06:30:00Z"}));
  EXPECT_EQ(next(s, "2026-11-01T05:30:00Z"), "2026-11-02T06:30:00Z");
  // From inside the second pass (06:10Z = 01:10 EST) the 01:30 of that day has already run.
  EXPECT_EQ(next(s, "2026-11-01T06:10:00Z"), "2026-11-02T06:30:00Z");
}

TEST(CronSchedule, EveryThirtyMinutesKeepsRealSpacingThroughBothTransitions) {
  const CronSchedule s("*/30 * * * *", "America/New_York");
  // Spring: 06:00Z = 01:00 EST, 06:30Z = 01:30 EST, 07:00Z = 03:00 EDT, 07:30Z, 08:00Z.
  EXPECT_EQ(format(s.ticks(utc("2026-03-08T06:00:00Z"), utc("2026-03-08T08:00:00Z"))),
            (std::vector<std::string>{"2026-03-08T06:00:00Z", "2026-03-08T06:30:00Z",
                                      "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z",
                                      "2026-03-08T08:00:00Z"}));
  // Autumn: 04:30Z = 00:30 EDT, 05:00Z = 01:00 EDT, 05:30Z = 01:30 EDT, 06:00Z = 01:00 EST,
  // 06:30Z = 01:30 EST, 07:00Z = 02:00 EST: the repeated hour runs again, 30 min apart.
  EXPECT_EQ(format(s.ticks(utc("2026-11-01T04:30:00Z"), utc("2026-11-01T07:00:00Z"))),
            (std::vector<std::string>{"2026-11-01T04:30:00Z", "2026-11-01T05:00:00Z",
                                      "2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z",
                                      "2026-11-01T06:30:00Z", "2026-11-01T07:00:00Z"}));
}

TEST(CronSchedule, WildcardJobsFollowTheWallClockInsideTransitionHours) {
  // `*/5 2 * * *` on 2026-03-08: 02:00-02:59 never shows, so nothing from 00:00 EST (05:00Z)
  // to 00:00 EDT on 03-09 (04:00Z).
  const CronSchedule gap("*/5 2 * * *", "America/New_York");
  EXPECT_TRUE(gap.ticks(utc("2026-03-08T05:00:00Z"), utc("2026-03-09T04:00:00Z")).empty());
  // `*/5 1 * * *` on 2026-11-01: 12 runs in 01:00-01:55 EDT (05:00Z-05:55Z) and 12 in EST
  // (06:00Z-06:55Z).
  const CronSchedule twice("*/5 1 * * *", "America/New_York");
  const std::vector<Time> t = twice.ticks(utc("2026-11-01T04:00:00Z"), utc("2026-11-02T04:00:00Z"));
  ASSERT_EQ(t.size(), 24u);
  EXPECT_EQ(format_rfc3339(t.front()), "2026-11-01T05:00:00Z");
  EXPECT_EQ(format_rfc3339(t[11]), "2026-11-01T05:55:00Z");
  EXPECT_EQ(format_rfc3339(t[12]), "2026-11-01T06:00:00Z");
  EXPECT_EQ(format_rfc3339(t.back()), "2026-11-01T06:55:00Z");
  // `0 */2 * * *`: 00:00 EST = 05:00Z, then 02:00 is skipped, 04:00 EDT = 08:00Z (3 h).
  const CronSchedule two_hourly("0 */2 * * *", "America/New_York");
  EXPECT_EQ(next(two_hourly, "2026-03-08T05:00:00Z"), "2026-03-08T08:00:00Z");
}

TEST(CronSchedule, EuropeLondon) {
  const CronSchedule s("30 1 * * *", "Europe/London");
  // 03-28 01:30 GMT = 01:30Z; 03-29 01:30 is in the gap 01:00-02:00 -> the jump, 01:00Z;
  // 03-30 01:30 BST = 00:30Z.
  EXPECT_EQ(format(s.ticks(utc("2026-03-28T00:00:00Z"), utc("2026-03-31T00:00:00Z"))),
            (std::vector<std::string>{"2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z",
                                      "2026-03-30T00:30:00Z"}));
  // 10-25 01:30 happens at 00:30Z (BST) and 01:30Z (GMT): only the first; 10-26 01:30 GMT.
  EXPECT_EQ(format(s.ticks(utc("2026-10-25T00:00:00Z"), utc("2026-10-27T00:00:00Z"))),
            (std::vector<std::string>{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}));
}

TEST(CronSchedule, LordHoweHalfHourShift) {
  // October gap 02:00-02:29 (+10:30 -> +11 at 15:30Z). `0 2` and `15 2` are in the gap: they
  // run at 15:30Z; `45 2` is 02:45 +11 = 15:45Z.
  EXPECT_EQ(next(CronSchedule("0 2 * * *", "Australia/Lord_Howe"), "2026-10-03T12:00:00Z"),
            "2026-10-03T15:30:00Z");
  EXPECT_EQ(next(CronSchedule("15 2 * * *", "Australia/Lord_Howe"), "2026-10-03T12:00:00Z"),
            "2026-10-03T15:30:00Z");
  EXPECT_EQ(next(CronSchedule("45 2 * * *", "Australia/Lord_Howe"), "2026-10-03T12:00:00Z"),
            "2026-10-03T15:45:00Z");
  // `*/30`: 14:30Z = 01:00 +10:30, 15:00Z = 01:30, 15:30Z = 02:30 +11, 16:00Z = 03:00 +11.
  const CronSchedule half("*/30 * * * *", "Australia/Lord_Howe");
  EXPECT_EQ(format(half.ticks(utc("2026-10-03T14:30:00Z"), utc("2026-10-03T16:00:00Z"))),
            (std::vector<std::string>{"2026-10-03T14:30:00Z", "2026-10-03T15:00:00Z",
                                      "2026-10-03T15:30:00Z", "2026-10-03T16:00:00Z"}));
  // `0 *` waits 90 minutes: 01:00 +10:30 = 14:30Z, then 03:00 +11 = 16:00Z (02:00 skipped).
  const CronSchedule hourly("0 * * * *", "Australia/Lord_Howe");
  EXPECT_EQ(format(hourly.ticks(utc("2026-10-03T14:00:00Z"), utc("2026-10-03T16:30:00Z"))),
            (std::vector<std::string>{"2026-10-03T14:30:00Z", "2026-10-03T16:00:00Z"}));
  // April overlap 01:30-01:59: `45 1` runs at 01:45 +11 = 14:45Z only, not 01:45 +10:30 =
  // 15:15Z; the next day 01:45 +10:30 = 2026-04-05T15:15Z.
  const CronSchedule fixed("45 1 * * *", "Australia/Lord_Howe");
  EXPECT_EQ(format(fixed.ticks(utc("2026-04-04T12:00:00Z"), utc("2026-04-05T16:00:00Z"))),
            (std::vector<std::string>{"2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"}));
}

TEST(CronSchedule, RulesAfter2037ComeFromTheZoneFileFooter) {
  // Debian's zone files list transitions up to 2037; later ones come from the POSIX footer
  // "EST5EDT,M3.2.0,M11.1.0". 2040-03-01 is a Thursday (2040-01-01 is a Sunday: 14 years and
  // 3 leap days after a Thursday; Jan + Feb = 60 days = Sunday + 4), so the second Sunday of
  // March is 03-11: 02:00 is skipped and `0 2` runs at 07:00Z; on 03-12 02:00 EDT = 06:00Z.
  const CronSchedule s("0 2 * * *", "America/New_York");
  EXPECT_EQ(format(s.ticks(utc("2040-03-10T00:00:00Z"), utc("2040-03-13T00:00:00Z"))),
            (std::vector<std::string>{"2040-03-10T07:00:00Z", "2040-03-11T07:00:00Z",
                                      "2040-03-12T06:00:00Z"}));
  // Noon in July 2040 is EDT: 16:00Z.
  EXPECT_EQ(next(CronSchedule("0 12 * * *", "America/New_York"), "2040-07-01T00:00:00Z"),
            "2040-07-01T16:00:00Z");
}

TEST(CronSchedule, LeapDayAndEndOfMonth) {
  const CronSchedule leap("0 0 29 2 *");
  EXPECT_EQ(next(leap, "2026-01-01T00:00:00Z"), "2028-02-29T00:00:00Z");
  EXPECT_EQ(next(leap, "2096-03-01T00:00:00Z"), "2104-02-29T00:00:00Z");  // 2100 not leap
  EXPECT_EQ(previous(leap, "2027-06-01T00:00:00Z"), "2024-02-29T00:00:00Z");
  // The 31st, at noon: Jan, Mar, May, Jul, Aug, Oct, Dec 2026 -> 7 runs.
  const CronSchedule eom("0 12 31 * *");
  const std::vector<Time> t = eom.ticks(utc("2026-01-01T00:00:00Z"), utc("2026-12-31T23:59:59Z"));
  EXPECT_EQ(format(t), (std::vector<std::string>{"2026-01-31T12:00:00Z", "2026-03-31T12:00:00Z",
                                                 "2026-05-31T12:00:00Z", "2026-07-31T12:00:00Z",
                                                 "2026-08-31T12:00:00Z", "2026-10-31T12:00:00Z",
                                                 "2026-12-31T12:00:00Z"}));
}

TEST(CronSchedule, ImpossibleExpressionsNeverFire) {
  const CronSchedule s("0 0 30 2 *", "Europe/London");
  EXPECT_EQ(next(s, "2026-01-01T00:00:00Z"), "none");
  EXPECT_EQ(previous(s, "2026-01-01T00:00:00Z"), "none");
  EXPECT_TRUE(s.ticks(utc("2026-01-01T00:00:00Z"), utc("2030-01-01T00:00:00Z")).empty());
  EXPECT_EQ(next(CronSchedule("* * 31 4 *"), "2026-01-01T00:00:00Z"), "none");
}

TEST(CronSchedule, PreviousAtOrBefore) {
  const CronSchedule s("30 1 * * *", "America/New_York");
  EXPECT_EQ(previous(s, "2026-11-01T07:00:00Z"), "2026-11-01T05:30:00Z");
  EXPECT_EQ(previous(s, "2026-11-01T05:30:00Z"), "2026-11-01T05:30:00Z");  // inclusive
  EXPECT_EQ(previous(s, "2026-11-01T05:29:59.999999Z"), "2026-10-31T05:30:00Z");
  // The gap firing: 03-08 02:00 -> 07:00Z.
  EXPECT_EQ(previous(CronSchedule("0 2 * * *", "America/New_York"), "2026-03-08T12:00:00Z"),
            "2026-03-08T07:00:00Z");
  // Every minute: the minute itself.
  EXPECT_EQ(previous(CronSchedule("* * * * *"), "2026-05-05T10:11:12Z"), "2026-05-05T10:11:00Z");
  // Yearly from mid-year: Jan 1 00:00 EST = 05:00Z.
  EXPECT_EQ(previous(CronSchedule("@yearly", "America/New_York"), "2026-07-01T00:00:00Z"),
            "2026-01-01T05:00:00Z");
}

TEST(CronSchedule, AYearOfFiveMinuteTicks) {
  // The local year 2026 in New York: 365 days * 288 = 105,120 ticks; spring forward removes
  // 12 (02:00-02:55) and fall back adds 12 (01:00-01:55 again), so still 105,120.
  // From 2026-01-01 00:00 EST = 05:00Z to 2026-12-31 23:55 EST = 2027-01-01T04:55Z.
  const CronSchedule s("*/5 * * * *", "America/New_York");
  const std::vector<Time> t = s.ticks(utc("2026-01-01T05:00:00Z"), utc("2027-01-01T04:55:00Z"));
  ASSERT_EQ(t.size(), 105'120u);
  for (size_t i = 1; i < t.size(); ++i) ASSERT_EQ((t[i] - t[i - 1]).micros(), 300'000'000) << i;
}

TEST(CronSchedule, UnknownTimeZoneIsNamed) {
  try {
    CronSchedule s("0 * * * *", "Mars/Olympus");
    FAIL() << "no error";
  } catch (const CronError& e) {
    EXPECT_STREQ(e.what(),
                 "timezone: unknown time zone \"Mars/Olympus\"; expected an IANA name "
                 "such as \"Europe/Paris\"");
    EXPECT_EQ(e.field(), "timezone");
  }
  try {
    CronSchedule s("0 * * * *", "america/new_york");
    FAIL() << "no error";
  } catch (const CronError& e) {
    EXPECT_STREQ(e.what(),
                 "timezone: unknown time zone \"america/new_york\"; did you mean "
                 "\"America/New_York\"?");
  }
}

TEST(CronSchedule, BadExpressionThrowsAndCanBePlacedInAFile) {
  try {
    CronSchedule s("0 24 * * *", "UTC");
    FAIL() << "no error";
  } catch (const CronError& e) {
    EXPECT_STREQ(e.what(), "hour: value 24 out of range 0-23 (at column 3 of \"0 24 * * *\")");
    EXPECT_EQ(e.column(), 3);
    // The expression starts at line 7, column 11 of the file: "24" is at column 11 + 3 - 1.
    const InputError placed = e.to_input_error({"p.yaml", 7, 11}, "spec.schedule.cron");
    EXPECT_STREQ(placed.what(),
                 "p.yaml:7:13: spec.schedule.cron: hour: value 24 out of range 0-23 "
                 "(at column 3 of \"0 24 * * *\")");
  }
}

TEST(CronSchedule, NextAndPreviousAgree) {
  // For assorted schedules, p = previous_at_or_before(x) satisfies next_after(p - 1us) == p and
  // next_after(p) > x; checked at instants around both New York transitions.
  const char* exprs[] = {"*/7 * * * *",   "30 1 * * *",  "0 2 * * *", "0 */2 * * *",
                         "0 0 */2 * FRI", "*/5 1 * * *", "30 2 * * *"};
  for (const char* e : exprs) {
    const CronSchedule s(e, "America/New_York");
    for (Time x = utc("2026-03-08T03:00:00Z"); x < utc("2026-11-01T09:00:00Z");
         x += (x > utc("2026-03-08T09:00:00Z") && x < utc("2026-11-01T03:00:00Z")) ? days(30)
                                                                                   : minutes(13)) {
      const std::optional<Time> p = s.previous_at_or_before(x);
      ASSERT_TRUE(p) << e;
      EXPECT_LE(*p, x);
      EXPECT_EQ(s.next_after(*p - microseconds(1)), p) << e << " " << format_rfc3339(x);
      EXPECT_GT(*s.next_after(*p), x) << e << " " << format_rfc3339(x);
    }
  }
}

// A deliberately naive reference for the two rules in cron.hpp, written against the date
// library's own local_info (not TimeZone::resolve): fixed-time jobs visit every local minute
// and map it (unique -> it, ambiguous -> first, nonexistent -> end of gap); wildcard jobs visit
// every UTC minute and test its wall-clock reading.
std::vector<Time> reference_ticks(const CronExpression& e, const std::string& zone_name, Time from,
                                  Time to) {
  const date::time_zone* zone = date::locate_zone(zone_name);
  auto matches = [&](int64_t local_minute) {
    const date::local_days day{date::days{local_minute >= 0 ? local_minute / 1440 : 0}};
    const date::year_month_day ymd{day};
    const int weekday = static_cast<int>(date::weekday(day).c_encoding());
    const int minute_of_day = static_cast<int>(local_minute % 1440);
    return e.minute(minute_of_day % 60) && e.hour(minute_of_day / 60) &&
           e.month(static_cast<int>(static_cast<unsigned>(ymd.month()))) &&
           e.day(static_cast<int>(static_cast<unsigned>(ymd.day())), weekday);
  };
  std::set<int64_t> out;  // seconds
  const int64_t first = from.micros() / 1'000'000, last = to.micros() / 1'000'000;
  if (e.fixed_time()) {
    for (int64_t l = (first - 86400) / 60; l <= (last + 86400) / 60; ++l) {
      if (!matches(l)) continue;
      const date::local_info i = zone->get_info(date::local_seconds{std::chrono::seconds{l * 60}});
      const int64_t at = i.result == date::local_info::nonexistent
                             ? i.second.begin.time_since_epoch().count()
                             : l * 60 - i.first.offset.count();
      if (at >= first && at <= last) out.insert(at);
    }
  } else {
    for (int64_t u = first; u <= last; u += 60) {
      const date::sys_info i = zone->get_info(date::sys_seconds{std::chrono::seconds{u}});
      if (matches((u + i.offset.count()) / 60)) out.insert(u);
    }
  }
  std::vector<Time> result;
  for (int64_t s : out) result.push_back(Time::from_micros(s * 1'000'000));
  return result;
}

TEST(CronSchedule, MatchesANaiveReferenceAroundTransitions) {
  const char* exprs[] = {"0 2 * * *",   "30 1 * * *",       "0,30 2 * * *",   "15 2,3 * * *",
                         "0 1-3 * * *", "*/30 * * * *",     "*/7 * * * *",    "0 * * * *",
                         "0 */2 * * *", "*/5 1,2 * * *",    "45 1 * * SUN",   "59 23 * * *",
                         "0 0 * * *",   "10-50/20 2 * * *", "0 1-23/2 * * *", "@hourly"};
  struct Window {
    const char* zone;
    const char* from;
    const char* to;
  };
  const Window windows[] = {
      {"America/New_York", "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z"},
      {"America/New_York", "2026-10-31T00:00:00Z", "2026-11-03T00:00:00Z"},
      {"Australia/Lord_Howe", "2026-04-03T00:00:00Z", "2026-04-06T00:00:00Z"},
      {"Australia/Lord_Howe", "2026-10-02T00:00:00Z", "2026-10-05T00:00:00Z"},
      {"Europe/London", "2026-10-24T00:00:00Z", "2026-10-27T00:00:00Z"},
  };
  for (const char* text : exprs) {
    for (const Window& w : windows) {
      const CronSchedule s(text, w.zone);
      EXPECT_EQ(format(s.ticks(utc(w.from), utc(w.to))),
                format(reference_ticks(s.expression(), w.zone, utc(w.from), utc(w.to))))
          << text << " in " << w.zone << " from " << w.from;
    }
  }
}

}  // namespace
}  // namespace gantry
