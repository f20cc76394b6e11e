#include "engine/metrics/log_histogram.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

TEST(LogHistogram, SmallValuesAreExact) {
  LogHistogram h;
  for (int v = 1; v <= 100; ++v) h.add(v);
  // Nearest rank: p50 of 1..100 is the 50th smallest, p99 the 99th, p100 the largest.
  EXPECT_EQ(h.percentile(50), 50);
  EXPECT_EQ(h.percentile(99), 99);
  EXPECT_EQ(h.percentile(100), 100);
  EXPECT_EQ(h.percentile(0), 1);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.count_at_most(10), 10u);
}

TEST(LogHistogram, BucketsAreAtMostOneSixtyFourthWide) {
  // 128..255 in buckets of 2; 2^20.. in buckets of 2^14 (2^20 / 64).
  EXPECT_EQ(LogHistogram::index_of(128), 128);
  EXPECT_EQ(LogHistogram::index_of(129), 128);
  EXPECT_EQ(LogHistogram::index_of(130), 129);
  EXPECT_EQ(LogHistogram::lower_bound(128), 128);
  EXPECT_EQ(LogHistogram::upper_bound(128), 129);
  const int i = LogHistogram::index_of(1 << 20);
  EXPECT_EQ(LogHistogram::lower_bound(i), 1 << 20);
  EXPECT_EQ(LogHistogram::upper_bound(i) - LogHistogram::lower_bound(i) + 1, 1 << 14);
  for (int j = 128; j + 1 < LogHistogram::kBuckets; ++j) {
    ASSERT_EQ(LogHistogram::upper_bound(j) + 1, LogHistogram::lower_bound(j + 1)) << j;
    ASSERT_EQ(LogHistogram::index_of(LogHistogram::lower_bound(j)), j);
    ASSERT_EQ(LogHistogram::index_of(LogHistogram::upper_bound(j)), j);
  }
}

TEST(LogHistogram, LargeValuesWithinBucketPrecision) {
  LogHistogram h;
  // 2 s and 1.5 s in microseconds: p50 of {1.5 s ×50, 2 s ×50} is 1.5 s's bucket midpoint.
  h.add(1'500'000, 50);
  h.add(2'000'000, 50);
  const int64_t p50 = h.percentile(50);
  const int64_t p99 = h.percentile(99);
  EXPECT_NEAR(static_cast<double>(p50), 1.5e6, 1.5e6 / 128);
  EXPECT_NEAR(static_cast<double>(p99), 2.0e6, 2.0e6 / 128);
  LogHistogram other;
  other.add(10'000'000, 100);
  h.merge(other);
  EXPECT_EQ(h.count(), 200u);
  EXPECT_NEAR(static_cast<double>(h.percentile(75)), 1e7, 1e7 / 128);
  h.clear();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(50), 0);
}

}  // namespace
}  // namespace gantry
