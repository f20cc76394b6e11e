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

}  // namespace
}  // namespace gantry
