#include "engine/metrics/distribution.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace gantry {
namespace {

Distribution of(std::initializer_list<double> samples) {
  Distribution d;
  for (double s : samples) d.add(s);
  return d;
}

TEST(Distribution, PercentilesOfOneToFourByHand) {
  // h = 3p/100. p50: h = 1.5 -> 2 + 0.5 = 2.5. p95: h = 2.85 -> 3 + 0.85 = 3.85.
  // p99: h = 2.97 -> 3.97. p25: h = 0.75 -> 1.75.
  const Distribution d = of({4, 1, 3, 2});  // out of order on purpose
  EXPECT_DOUBLE_EQ(d.percentile(50), 2.5);
  EXPECT_DOUBLE_EQ(d.percentile(95), 3.85);
  EXPECT_DOUBLE_EQ(d.percentile(99), 3.97);
  EXPECT_DOUBLE_EQ(d.percentile(25), 1.75);
  EXPECT_DOUBLE_EQ(d.percentile(0), 1.0);
  EXPECT_DOUBLE_EQ(d.percentile(100), 4.0);
}

TEST(Distribution, PercentilesMatchNumpyOnUnevenGaps) {
  // numpy.percentile([10, 20, 40, 80, 160], [10, 50, 90]) = [14, 40, 128]:
  // p10: h = 0.4 -> 10 + 0.4*10 = 14; p90: h = 3.6 -> 80 + 0.6*80 = 128.
  const Distribution d = of({160, 10, 80, 20, 40});
  EXPECT_DOUBLE_EQ(d.percentile(10), 14.0);
  EXPECT_DOUBLE_EQ(d.percentile(50), 40.0);
  EXPECT_DOUBLE_EQ(d.percentile(90), 128.0);
}

TEST(Distribution, CountMeanMinMax) {
  const Distribution d = of({3, -1, 10, 4});
  EXPECT_EQ(d.count(), 4u);
  EXPECT_DOUBLE_EQ(d.sum(), 16.0);
  EXPECT_DOUBLE_EQ(d.mean(), 4.0);
  EXPECT_DOUBLE_EQ(d.min(), -1.0);
  EXPECT_DOUBLE_EQ(d.max(), 10.0);
}

TEST(Distribution, EmptyGivesNaNAndZeroCount) {
  const Distribution d;
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.count(), 0u);
  EXPECT_DOUBLE_EQ(d.sum(), 0.0);
  EXPECT_TRUE(std::isnan(d.mean()));
  EXPECT_TRUE(std::isnan(d.min()));
  EXPECT_TRUE(std::isnan(d.max()));
  EXPECT_TRUE(std::isnan(d.percentile(50)));
}

TEST(Distribution, SingleSampleIsEveryPercentile) {
  const Distribution d = of({7.5});
  for (double p : {0.0, 1.0, 50.0, 99.0, 100.0}) EXPECT_DOUBLE_EQ(d.percentile(p), 7.5) << p;
  EXPECT_DOUBLE_EQ(d.mean(), 7.5);
  EXPECT_DOUBLE_EQ(d.min(), 7.5);
  EXPECT_DOUBLE_EQ(d.max(), 7.5);
}

TEST(Distribution, AddingAfterAPercentileResorts) {
  Distribution d = of({1, 2, 3});
  EXPECT_DOUBLE_EQ(d.percentile(50), 2.0);
  d.add(0);  // below everything: the sorted cache must be invalidated
  d.add(100);
  // {0, 1, 2, 3, 100}: p50 = 2, p75: h = 3 -> 3, p100 = 100.
  EXPECT_DOUBLE_EQ(d.percentile(50), 2.0);
  EXPECT_DOUBLE_EQ(d.percentile(25), 1.0);
  EXPECT_DOUBLE_EQ(d.percentile(100), 100.0);
  EXPECT_DOUBLE_EQ(d.min(), 0.0);
}

TEST(Distribution, ClearForgetsEverything) {
  Distribution d = of({5, 6});
  d.clear();
  EXPECT_TRUE(d.empty());
  EXPECT_TRUE(std::isnan(d.max()));
  d.add(-3);
  EXPECT_DOUBLE_EQ(d.min(), -3.0);
  EXPECT_DOUBLE_EQ(d.max(), -3.0);
  EXPECT_DOUBLE_EQ(d.percentile(50), -3.0);
}

TEST(Distribution, ManySamplesInReverseOrder) {
  // 0..199999 added backwards: p = k/1999.99 lands exactly on sample k. Exercises the sort
  // at the size the simulator produces (no timing assertion).
  Distribution d;
  constexpr int64_t kN = 200'000;
  for (int64_t i = kN - 1; i >= 0; --i) d.add(static_cast<double>(i));
  EXPECT_EQ(d.count(), static_cast<std::size_t>(kN));
  EXPECT_DOUBLE_EQ(d.percentile(50), 99'999.5);    // h = 199999 * 0.5
  EXPECT_DOUBLE_EQ(d.percentile(99), 197'999.01);  // h = 199999 * 0.99
  EXPECT_DOUBLE_EQ(d.percentile(100), 199'999.0);
  EXPECT_DOUBLE_EQ(d.mean(), 99'999.5);
}

}  // namespace
}  // namespace gantry
