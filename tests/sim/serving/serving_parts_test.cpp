// The parts the request-level simulator is made of, each against numbers worked by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/serving/metric_buckets.hpp"
#include "sim/serving/node_cache.hpp"
#include "sim/serving/replica_queue.hpp"
#include "sim/serving/request_source.hpp"

namespace gantry {
namespace serving_parts_test {

constexpr int64_t kS = 1'000'000;

TEST(ReplicaQueue, TwoSlotsServeInArrivalOrder) {
  ReplicaQueue q(2);
  // Three requests of 10 s at 0, 1, 2 s: the first two run at once, the third waits for the
  // first slot to free at 10 s and ends at 20 s.
  const auto a = q.admit(0, 10 * kS);
  const auto b = q.admit(1 * kS, 10 * kS);
  const auto c = q.admit(2 * kS, 10 * kS);
  EXPECT_EQ(a.start_us, 0);
  EXPECT_EQ(b.start_us, 1 * kS);
  EXPECT_EQ(c.start_us, 10 * kS);
  EXPECT_EQ(c.finish_us, 20 * kS);
  EXPECT_EQ(q.drained_at(), 20 * kS);
  // Busy periods: [0, 10) opened by a, extended to 11 by b and to 20 by c.
  EXPECT_TRUE(a.new_period);
  EXPECT_TRUE(b.busy_grew && !b.new_period && b.busy_from_us == 10 * kS);
  EXPECT_TRUE(c.busy_grew && !c.new_period && c.busy_from_us == 11 * kS);
  // After an idle gap a new period starts.
  const auto d = q.admit(30 * kS, kS);
  EXPECT_TRUE(d.new_period);
  EXPECT_EQ(d.start_us, 30 * kS);
}

TEST(MetricBuckets, ConcurrencyIsTheTimeAverageOfRequestsInTheSystem) {
  MetricBuckets m(Time::from_micros(0), seconds(60));
  // One request in the system over [0.5 s, 2.5 s), another over [1 s, 4 s): over [0, 4) the
  // integral is 2 + 3 = 5 request-seconds, an average of 1.25.
  m.open(ServingMetric::kConcurrency, kS / 2);
  m.open(ServingMetric::kConcurrency, kS);
  m.close(ServingMetric::kConcurrency, 5 * kS / 2);
  m.close(ServingMetric::kConcurrency, 4 * kS);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, Time::from_micros(4 * kS), seconds(4)),
                   1.25);
  // The last two seconds [2, 4): 0.5 + 2 = 2.5 request-seconds → 1.25 as well; the last one
  // [3, 4): 1.
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, Time::from_micros(4 * kS), seconds(2)),
                   1.25);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, Time::from_micros(4 * kS), seconds(1)),
                   1.0);
  // A 60 s window over 4 s of history averages over the 4 s that exist.
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, Time::from_micros(4 * kS), seconds(60)),
                   1.25);
}

TEST(MetricBuckets, ArrivalsPerSecondAndCancelledCloses) {
  MetricBuckets m(Time::from_micros(10 * kS), seconds(6));
  for (int i = 0; i < 12; ++i) m.count(ServingMetric::kArrivals, 10 * kS + i * kS / 2);  // 2/s
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kArrivals, Time::from_micros(16 * kS), seconds(6)),
                   2.0);
  // A busy period [16, 17) later extended to 18: the first close is cancelled.
  m.open(ServingMetric::kGpuBusy, 16 * kS);
  m.close(ServingMetric::kGpuBusy, 17 * kS);
  m.close(ServingMetric::kGpuBusy, 17 * kS, -1.0);
  m.close(ServingMetric::kGpuBusy, 18 * kS);
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kGpuBusy, Time::from_micros(20 * kS), seconds(4)), 0.5);
  // Old buckets are dropped but the recent window still adds up: 12 s later, no arrivals.
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kArrivals, Time::from_micros(32 * kS), seconds(6)),
                   0.0);
}

TEST(MetricBuckets, TotalsAreTheCountersOfWholeBucketsAndSurviveDroppedOnes) {
  MetricBuckets m(Time::from_micros(0), seconds(2));  // keeps 4 buckets
  // Requests over [0.5, 2.5) and [1, 9): at 4 s the whole buckets [0, 4) hold 2 + 3 = 5
  // request-seconds; three arrivals counted.
  m.count(ServingMetric::kArrivals, kS / 2);
  m.count(ServingMetric::kArrivals, kS);
  m.count(ServingMetric::kArrivals, 7 * kS / 2);
  m.open(ServingMetric::kConcurrency, kS / 2);
  m.open(ServingMetric::kConcurrency, kS);
  m.close(ServingMetric::kConcurrency, 5 * kS / 2);
  m.close(ServingMetric::kConcurrency, 9 * kS);
  EXPECT_DOUBLE_EQ(m.total(ServingMetric::kConcurrency, Time::from_micros(4 * kS)), 5.0);
  EXPECT_DOUBLE_EQ(m.total(ServingMetric::kArrivals, Time::from_micros(4 * kS)), 3.0);
  // At 20 s, buckets [0, 16) are dropped; the total still counts them: 2 + 8 = 10.
  EXPECT_DOUBLE_EQ(m.total(ServingMetric::kConcurrency, Time::from_micros(20 * kS)), 10.0);
  // A bucket boundary not yet reached is not counted: at 20.5 s it is still 10.
  EXPECT_DOUBLE_EQ(m.total(ServingMetric::kConcurrency, Time::from_micros(41 * kS / 2)), 10.0);
}

// Issue 22: a request of 10^7 prompt and 10^7 output tokens finishes weeks after it arrives,
// and a bucket per second up to its finish took 4.9 GB. Here one request is in the system over
// [0.5 s, 1,000,000.5 s) (11.6 days) and another over [1 s, 3 s): the buckets held are the four
// the near one touched (0..3) and the far one, 5 (it was 1,000,001); the figures are the same.
TEST(MetricBuckets, AFinishWeeksAheadHoldsOneBucketNotOneASecond) {
  MetricBuckets m(Time::from_micros(0), seconds(60));  // keeps 62 settled buckets
  m.open(ServingMetric::kConcurrency, kS / 2);
  m.close(ServingMetric::kConcurrency, 1'000'000 * kS + kS / 2);
  m.open(ServingMetric::kConcurrency, kS);
  m.close(ServingMetric::kConcurrency, 3 * kS);
  EXPECT_EQ(m.buckets_held(), 5u);
  // [0, 10 s): 9.5 + 2 = 11.5 request-seconds, 1.15 on average.
  EXPECT_DOUBLE_EQ(m.average(ServingMetric::kConcurrency, Time::from_micros(10 * kS), seconds(10)),
                   1.15);
  // Half-way, only the long one is in the system; what is held stays small: 62 settled
  // buckets and the far one.
  EXPECT_DOUBLE_EQ(
      m.average(ServingMetric::kConcurrency, Time::from_micros(500'000 * kS), seconds(60)), 1.0);
  EXPECT_EQ(m.buckets_held(), 63u);
  // Past its finish: 1,000,000 + 2 request-seconds in all; nothing is open any more.
  EXPECT_DOUBLE_EQ(m.total(ServingMetric::kConcurrency, Time::from_micros(1'000'001 * kS)),
                   1'000'002.0);
  EXPECT_DOUBLE_EQ(
      m.average(ServingMetric::kConcurrency, Time::from_micros(1'000'100 * kS), seconds(60)), 0.0);
  EXPECT_EQ(m.buckets_held(), 62u);
}

TEST(NodeCache, KeepsTheEarliestAvailability) {
  NodeCache c;
  EXPECT_EQ(c.available_at(3, "llama"), -1);
  c.put(3, "llama", 50);
  c.put(3, "llama", 80);
  EXPECT_EQ(c.available_at(3, "llama"), 50);
  EXPECT_EQ(c.available_at(4, "llama"), -1);
  EXPECT_EQ(c.available_at(3, "other"), -1);
}

TEST(RequestSource, PoissonRateAndDeterminism) {
  LoadSpec load;
  load.kind = LoadKind::kPoisson;
  load.qps = 50;
  auto a = make_request_source(load, 0, RandomStream(7));
  auto b = make_request_source(load, 0, RandomStream(7));
  ServingRequest r{};
  ServingRequest s{};
  int64_t n = 0;
  for (; n < 200'000; ++n) {
    a->next(r);
    b->next(s);
    ASSERT_EQ(r.arrival_us, s.arrival_us);
  }
  // 200,000 arrivals at 50/s take 4,000 s; the standard deviation of the sum of n exponential
  // gaps is sqrt(n)/λ = 8.9 s, so 4 σ is 36 s.
  EXPECT_NEAR(static_cast<double>(r.arrival_us) / kS, 4000.0, 36.0);
  EXPECT_EQ(r.prefill_tokens, 512);
  EXPECT_EQ(r.decode_tokens, 128);
}

TEST(RequestSource, DiurnalCurvePeaksWhereTold) {
  LoadSpec load;
  load.kind = LoadKind::kCurve;
  load.peak_qps = 300;
  load.trough_qps = 20;
  // Peak at 14:00, trough twelve hours away, the mean (P + T) / 2 six hours from either.
  EXPECT_DOUBLE_EQ(diurnal_rate(load, hours(14)), 300.0);
  EXPECT_NEAR(diurnal_rate(load, hours(2)), 20.0, 1e-9);
  EXPECT_NEAR(diurnal_rate(load, hours(8)), 160.0, 1e-9);
  // A day of the curve carries (300 + 20) / 2 × 86,400 = 13.824 M requests (± 4 σ = 14,900).
  auto src = make_request_source(load, 0, RandomStream(3));
  ServingRequest r{};
  int64_t n = 0;
  while (src->next(r) && r.arrival_us < 86'400 * kS) ++n;
  EXPECT_NEAR(static_cast<double>(n), 13.824e6, 14'900.0);
}

TEST(RequestSource, TraceLoopsAndSpeedsUp) {
  auto rows = std::make_shared<std::vector<TraceRequest>>(
      std::vector<TraceRequest>{{0, 100, 10}, {2 * kS, 200, 20}, {4 * kS, 300, 30}});
  LoadSpec load;
  load.kind = LoadKind::kTrace;
  load.speedup = 2;
  auto src = make_request_source(load, 100 * kS, RandomStream(1), rows);
  ServingRequest r{};
  std::vector<int64_t> at;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(src->next(r));
    at.push_back(r.arrival_us);
  }
  // One pass lasts 4 s + the mean gap 2 s = 6 s, halved: 0, 1, 2, then 3, 4.
  EXPECT_EQ(at, (std::vector<int64_t>{100 * kS, 101 * kS, 102 * kS, 103 * kS, 104 * kS}));
  EXPECT_EQ(r.prefill_tokens, 200);
  load.loop = false;
  auto once = make_request_source(load, 0, RandomStream(1), rows);
  int n = 0;
  while (once->next(r)) ++n;
  EXPECT_EQ(n, 3);
}

}  // namespace serving_parts_test
}  // namespace gantry
