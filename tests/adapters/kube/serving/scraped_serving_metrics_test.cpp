// ScrapedServingMetrics (adapters/kube/serving/scraped_serving_metrics.hpp): counters of
// successive scrape rounds turned into one-second buckets, each average worked by hand below.

#include "adapters/kube/serving/scraped_serving_metrics.hpp"

#include <gtest/gtest.h>

namespace gantry::kube {
namespace scraped_serving_metrics_test {

const Time kT = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

PodCounters conc(double concurrency_seconds, double requests = 0) {
  PodCounters c;
  c.concurrency_seconds = concurrency_seconds;
  c.requests = requests;
  return c;
}

TEST(ScrapedServingMetrics, SpreadsEachPodsIncreaseOverItsInterval) {
  ScrapedServingMetrics m(seconds(60));
  // Round at T: a's counters are only remembered (nothing before them).
  EXPECT_TRUE(m.add_scrape(kT, {{"a", conc(100, 50)}}));
  EXPECT_EQ(m.average(ServingMetric::kConcurrency, kT, seconds(6)), 0);
  // Round at T+2: a grew by 4 concurrency-seconds and 10 requests over [T, T+2): 2 and 5/s.
  // b is new: from 0 at T, 2 and 4 over 2 s: 1 and 2/s. Covered: 2 s.
  EXPECT_TRUE(m.add_scrape(kT + seconds(2), {{"a", conc(104, 60)}, {"b", conc(2, 4)}}));
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(2), seconds(6)), 3.0);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kArrivals, kT + seconds(2), seconds(6)), 7.0);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kGpuBusy, kT + seconds(2), seconds(6)), 0.0);
  // Round at T+4: a no change, b's scrape failed (it keeps its sighting at T+2).
  EXPECT_TRUE(m.add_scrape(kT + seconds(4), {{"a", conc(104, 60)}}, {"b"}));
  // [T+2, T+4): 0. [T, T+4): 6 / 4 s = 1.5.
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(4), seconds(2)), 0.0);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(4), seconds(6)), 1.5);
  // Round at T+6: b is back, +4 over [T+2, T+6): 1 per second in buckets 2..5; a +6 over
  // [T+4, T+6): 3 per second in buckets 4 and 5.
  EXPECT_TRUE(m.add_scrape(kT + seconds(6), {{"a", conc(110, 60)}, {"b", conc(6, 4)}}));
  //   over 2 s: buckets 4, 5 = (1 + 3) · 2 = 8 → 4
  //   over 4 s: buckets 2..5 = 1 + 1 + 4 + 4 = 10 → 2.5
  //   over 60 s (the history is 6 s): 6 + 10 = 16 → 16 / 6
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(6), seconds(2)), 4.0);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(6), seconds(4)), 2.5);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(6), seconds(60)),
                   16.0 / 6.0);
  // Round at T+8 without b (not failed: gone). At T+10 a pod named b again is a new one: from
  // 0 at T+8, 1 over 2 s = 0.5; a unchanged.
  EXPECT_TRUE(m.add_scrape(kT + seconds(8), {{"a", conc(110, 60)}}));
  EXPECT_EQ(m.pods(), 1u);
  EXPECT_TRUE(m.add_scrape(kT + seconds(10), {{"a", conc(110, 60)}, {"b", conc(1, 1)}}));
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(10), seconds(2)), 0.5);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kArrivals, kT + seconds(10), seconds(2)), 0.5);
  // A round at or before the last is ignored.
  EXPECT_FALSE(m.add_scrape(kT + seconds(10), {{"a", conc(999)}}));
  EXPECT_FALSE(m.add_scrape(kT + seconds(9), {{"a", conc(999)}}));
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(10), seconds(2)), 0.5);
}

TEST(ScrapedServingMetrics, ReadsEveryMetricFromItsCounter) {
  ScrapedServingMetrics m(seconds(60));
  PodCounters c0;
  PodCounters c1;
  c1.requests = 30;              // 30 over 3 s: 10 per second
  c1.concurrency_seconds = 6;    // 2
  c1.gpu_busy_seconds = 1.5;     // 0.5
  c1.slots_busy_seconds = 0.75;  // 0.25
  m.add_scrape(kT, {{"p", c0}});
  m.add_scrape(kT + seconds(3), {{"p", c1}});
  const Time now = kT + seconds(3);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kArrivals, now, seconds(60)), 10.0);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, now, seconds(60)), 2.0);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kGpuBusy, now, seconds(60)), 0.5);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kSlotsBusy, now, seconds(60)), 0.25);
}

TEST(ScrapedServingMetrics, TakesACounterThatWentDownForAReset) {
  ScrapedServingMetrics m(seconds(60));
  m.add_scrape(kT, {{"p", conc(50)}});
  // 3 < 50: the server restarted, its increase is 3 (as Prometheus' rate() reads it) → 1.5.
  m.add_scrape(kT + seconds(2), {{"p", conc(3)}});
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(2), seconds(60)), 1.5);
}

TEST(ScrapedServingMetrics, CountsAPartlyCoveredBucketForThePartCovered) {
  ScrapedServingMetrics m(seconds(60));
  m.add_scrape(kT, {{"p", conc(0)}});
  // +3 over [T, T+1.5 s): 2 per second; bucket 0 holds 2 over 1 s, bucket 1 holds 1 over 0.5 s.
  m.add_scrape(kT + Duration(1'500'000), {{"p", conc(3)}});
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + Duration(1'500'000), seconds(6)),
                   2.0);
  // Over the last second only bucket 1 starts inside [T + 0.5 s, T + 1.5 s): 1 / 0.5 s.
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + Duration(1'500'000), seconds(1)),
                   2.0);
}

TEST(ScrapedServingMetrics, ForgetsBucketsOlderThanItKeeps) {
  ScrapedServingMetrics m(seconds(6));
  // Rate 1 for 10 s, then 5 for 10 s.
  m.add_scrape(kT, {{"p", conc(0)}});
  m.add_scrape(kT + seconds(10), {{"p", conc(10)}});
  m.add_scrape(kT + seconds(20), {{"p", conc(60)}});
  // Kept: the buckets ending after T + 20 − 6 − 1 = T + 13, i.e. from [T+13, T+14): all rate 5.
  // A window of 60 s averages over those 7 s only: 5 (had the first 10 s stayed, 3).
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, kT + seconds(20), seconds(60)), 5.0);
}

}  // namespace scraped_serving_metrics_test
}  // namespace gantry::kube
