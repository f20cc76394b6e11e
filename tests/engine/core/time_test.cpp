#include "engine/core/time.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

TEST(Time, UnitHelpersAreMicroseconds) {
  EXPECT_EQ(seconds(90).micros(), 90'000'000);
  EXPECT_EQ(hours(2).micros(), 7'200'000'000);
  EXPECT_EQ((minutes(1) + milliseconds(500)).micros(), 60'500'000);
  EXPECT_EQ(Duration::from_seconds(0.0000015).micros(), 2);  // rounds to nearest
}

TEST(Time, FormatsRfc3339InUtc) {
  Time t;
  ASSERT_TRUE(parse_rfc3339("2026-01-01T00:00:00Z", t));
  EXPECT_EQ(t.micros(), 1'767'225'600'000'000);  // date -u -d 2026-01-01 +%s = 1767225600
  EXPECT_EQ(format_rfc3339(t), "2026-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(t + milliseconds(250)), "2026-01-01T00:00:00.25Z");
  EXPECT_EQ(format_rfc3339(t + microseconds(1)), "2026-01-01T00:00:00.000001Z");
  EXPECT_EQ(format_rfc3339(t + milliseconds(100) + hours(13)), "2026-01-01T13:00:00.1Z");
}

TEST(Time, ParsesOffsetsAndFractions) {
  Time a, b;
  ASSERT_TRUE(parse_rfc3339("2026-03-08T02:30:00+02:00", a));
  ASSERT_TRUE(parse_rfc3339("2026-03-08T00:30:00.000001Z", b));
  EXPECT_EQ((b - a).micros(), 1);
}

TEST(Time, RejectsMalformed) {
  Time t = Time::from_micros(7);
  for (const char* bad : {"", "2026-01-01", "2026-01-01 00:00:00Z", "2026-13-01T00:00:00Z",
                          "2026-01-01T00:00:00Zjunk", "yesterday"}) {
    EXPECT_FALSE(parse_rfc3339(bad, t)) << bad;
  }
  EXPECT_EQ(t.micros(), 7);
}

TEST(Time, FormatsDurationsForPeople) {
  EXPECT_EQ(format_duration(microseconds(950)), "950us");
  EXPECT_EQ(format_duration(milliseconds(12) + microseconds(500)), "12.5ms");
  EXPECT_EQ(format_duration(seconds(245)), "4m05s");
  EXPECT_EQ(format_duration(hours(2) + minutes(3)), "2h03m");
  EXPECT_EQ(format_duration(days(3) + hours(4)), "3d04h");
}

// Issue 8: the smallest int64 recursed forever (-INT64_MIN overflows back to itself).
TEST(Time, FormatsEveryDurationWithoutRecursing) {
  EXPECT_EQ(format_duration(Duration::min()), "-106751991d04h");
  EXPECT_EQ(format_duration(Duration::max()), "106751991d04h");  // 9,223,372,036,854 s
  EXPECT_EQ(format_duration(seconds(-90)), "-1m30s");
  EXPECT_EQ(format_duration(microseconds(-1)), "-1us");
}

// Issue 8: date::format printed years after 32767 as negative numbers.
TEST(Time, FormatsInstantsOutsideFourDigitYears) {
  EXPECT_EQ(format_rfc3339(kLatestTime), "9999-12-31T23:59:59.999999Z");
  EXPECT_EQ(format_rfc3339(kEarliestTime), "0001-01-01T00:00:00Z");
  // The ends of int64: 9,223,372,036,854 s = 106,751,991 days + 14,454 s after the epoch; the
  // dates were counted year by year with the Gregorian leap rule (a loop independent of the
  // era formula in time.cpp), INT64_MIN likewise backwards (astronomical years: 0 exists).
  EXPECT_EQ(format_rfc3339(Time::max()), "+294247-01-10T04:00:54.775807Z");
  EXPECT_EQ(format_rfc3339(Time::from_micros(INT64_MIN)), "-290308-12-21T19:59:05.224192Z");
  EXPECT_EQ(format_rfc3339(Time::from_micros(-1)), "1969-12-31T23:59:59.999999Z");
}

TEST(Time, CheckedAndSaturatingArithmetic) {
  EXPECT_EQ(checked_add(Time::max(), microseconds(1)), std::nullopt);
  EXPECT_EQ(checked_add(Time::epoch(), seconds(1)), Time::from_micros(1'000'000));
  EXPECT_EQ(checked_mul(milliseconds(150), 100'000'000'000'000), std::nullopt);  // 1.5e19 us
  EXPECT_EQ(checked_mul(seconds(2), 3), seconds(6));
  EXPECT_EQ(checked_add(Duration::max(), microseconds(1)), std::nullopt);
  EXPECT_EQ(checked_sub(Time::from_micros(INT64_MIN), Time::from_micros(1)), std::nullopt);
  EXPECT_EQ(saturating_add(Time::max(), seconds(1)), Time::max());
  EXPECT_EQ(saturating_add(Duration::min(), seconds(-1)), Duration::min());
  EXPECT_EQ(saturating_mul(seconds(-1), INT64_MAX), Duration::min());
  EXPECT_EQ(saturating_mul(seconds(1), INT64_MAX), Duration::max());
}

// Issue 8: "+99:00" was accepted; every field is range-checked and the error says which.
TEST(Time, RejectsFieldsOutOfRangeAndSaysWhich) {
  EXPECT_EQ(read_rfc3339("2026-01-01T00:00:00+99:00").error(),
            "offset +99:00 is out of range: hours 00-23, minutes 00-59");
  EXPECT_EQ(read_rfc3339("2026-02-29T00:00:00Z").error(),
            "day 29 is out of range: 2026-02 has 28 days");
  EXPECT_EQ(read_rfc3339("2026-01-01T24:00:00Z").error(),
            "time of day out of range: hours 00-23, minutes and seconds 00-59");
  EXPECT_EQ(read_rfc3339("tomorrow").error(), kRfc3339Malformed);
  EXPECT_EQ(read_rfc3339("2026-01-01T00:00:00.0000001Z").error(),
            "finer than a microsecond (Gantry's time resolution)");
  EXPECT_EQ(read_rfc3339("2028-02-29T00:00:00-23:59").value(),
            read_rfc3339("2028-02-29T23:59:00Z").value());
  EXPECT_EQ(read_rfc3339("9999-12-31T23:59:59.999999Z").value(), kLatestTime);
  EXPECT_FALSE(read_rfc3339("9999-12-31T23:59:59-01:00").is_ok());  // past kLatestTime
}

}  // namespace
}  // namespace gantry
