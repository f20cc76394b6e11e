#include "engine/metrics/time_weighted.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

TEST(TimeWeighted, AverageByHand) {
  // 0 GPUs until t0, 8 for one hour, 16 for half an hour, 4 for the last half hour.
  TimeWeighted gpus;
  gpus.set(kT0, 8);
  gpus.set(kT0 + minutes(60), 16);
  gpus.set(kT0 + minutes(90), 4);
  // Over [t0, t0+2h): 8*3600 + 16*1800 + 4*1800 = 28800 + 28800 + 7200 = 64800 GPU-s.
  EXPECT_DOUBLE_EQ(gpus.integral(kT0, kT0 + hours(2)), 64'800.0);
  EXPECT_DOUBLE_EQ(gpus.average(kT0, kT0 + hours(2)), 9.0);  // 64800 / 7200
  // A window starting before the first change counts the initial 0:
  // [t0-1h, t0+1h): 0*3600 + 8*3600 = 28800 over 7200 s -> 4.
  EXPECT_DOUBLE_EQ(gpus.average(kT0 - hours(1), kT0 + hours(1)), 4.0);
  // A window inside one segment is that segment's value.
  EXPECT_DOUBLE_EQ(gpus.average(kT0 + minutes(65), kT0 + minutes(70)), 16.0);
  // A window that straddles a change mid-way: [t0+45m, t0+75m) = 8*900 + 16*900 -> 12.
  EXPECT_DOUBLE_EQ(gpus.average(kT0 + minutes(45), kT0 + minutes(75)), 12.0);
}

TEST(TimeWeighted, ValueHoldsFromItsChangeUntilTheNext) {
  TimeWeighted q(2.0);
  q.set(kT0, 5);
  q.set(kT0 + seconds(10), 1);
  EXPECT_DOUBLE_EQ(q.value_at(kT0 - microseconds(1)), 2.0);
  EXPECT_DOUBLE_EQ(q.value_at(kT0), 5.0);
  EXPECT_DOUBLE_EQ(q.value_at(kT0 + seconds(10) - microseconds(1)), 5.0);
  EXPECT_DOUBLE_EQ(q.value_at(kT0 + seconds(10)), 1.0);
  EXPECT_DOUBLE_EQ(q.current(), 1.0);
  // After the last change the last value holds forever.
  EXPECT_DOUBLE_EQ(q.integral(kT0 + seconds(10), kT0 + seconds(30)), 20.0);
}

TEST(TimeWeighted, SameInstantReplaces) {
  TimeWeighted s;
  s.set(kT0, 100);  // lasts no time at all
  s.set(kT0, 3);
  EXPECT_EQ(s.changes(), 1u);
  EXPECT_DOUBLE_EQ(s.integral(kT0, kT0 + seconds(2)), 6.0);
  // ... but the overall max still saw it; a window max only sees what lasted.
  EXPECT_DOUBLE_EQ(s.max(), 100.0);
  EXPECT_DOUBLE_EQ(s.max(kT0, kT0 + seconds(2)), 3.0);
}

TEST(TimeWeighted, MaxOverAWindow) {
  TimeWeighted s;
  s.set(kT0, 4);
  s.set(kT0 + seconds(10), 9);
  s.set(kT0 + seconds(20), 2);
  EXPECT_DOUBLE_EQ(s.max(), 9.0);
  EXPECT_DOUBLE_EQ(s.max(kT0, kT0 + seconds(10)), 4.0);  // 9 starts at the window's end
  EXPECT_DOUBLE_EQ(s.max(kT0 + seconds(5), kT0 + seconds(11)), 9.0);
  EXPECT_DOUBLE_EQ(s.max(kT0 + seconds(25), kT0 + seconds(25)), 2.0);
  EXPECT_DOUBLE_EQ(s.max(kT0 - seconds(5), kT0), 0.0);
}

TEST(TimeWeighted, EmptyWindowAndNoChanges) {
  TimeWeighted s(7);
  EXPECT_DOUBLE_EQ(s.integral(kT0, kT0), 0.0);
  EXPECT_DOUBLE_EQ(s.average(kT0, kT0), 7.0);
  EXPECT_DOUBLE_EQ(s.average(kT0, kT0 + seconds(3)), 7.0);
  EXPECT_DOUBLE_EQ(s.integral(kT0, kT0 + seconds(3)), 21.0);
  EXPECT_DOUBLE_EQ(s.max(), 7.0);
}

TEST(TimeWeighted, SubSecondSegments) {
  TimeWeighted s;
  s.set(kT0, 1);
  s.set(kT0 + milliseconds(250), 3);
  // 1*0.25 + 3*0.75 = 2.5 value-seconds over one second.
  EXPECT_DOUBLE_EQ(s.integral(kT0, kT0 + seconds(1)), 2.5);
  EXPECT_DOUBLE_EQ(s.average(kT0, kT0 + seconds(1)), 2.5);
}

}  // namespace
}  // namespace gantry
