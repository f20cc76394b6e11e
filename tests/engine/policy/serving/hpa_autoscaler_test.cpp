// Kubernetes HPA (engine/policy/serving/hpa_autoscaler.hpp): each rule on numbers worked by hand.
// Unless a test says otherwise: GPU utilisation, target 60 %, min 1, max 40, and metrics scripted
// for the 15 s sync window. kGpuBusy is the sum over ready replicas of their busy fraction, so
// utilisation per ready pod = 100 · busy / ready.

#include "engine/policy/serving/hpa_autoscaler.hpp"

#include <gtest/gtest.h>

#include "tests/engine/policy/serving/fake_metrics.hpp"

namespace gantry {
namespace hpa_autoscaler_test {

using testing::FakeMetrics;

const Time kT0 = Time::epoch() + hours(1);
const Duration kSync = seconds(15);

AutoscalerSpec hpa_spec() {
  AutoscalerSpec s;
  s.kind = AutoscalerKind::kHpa;
  s.min_replicas = 1;
  s.max_replicas = 40;
  s.hpa_metric = HpaMetric::kGpu;
  s.target_utilization = 60;
  return s;
}

FakeMetrics gpu_busy(double busy) {
  FakeMetrics m;
  m.set(ServingMetric::kGpuBusy, kSync, busy);
  return m;
}

ReplicaCounts steady(int n) { return ReplicaCounts{n, n, 0}; }

TEST(Hpa, TicksEverySyncPeriod) { EXPECT_EQ(HpaAutoscaler(hpa_spec()).tick(), seconds(15)); }

TEST(Hpa, WithinToleranceKeepsCurrent) {
  // 10 ready, busy 6.54 → 65.4 % per pod; 65.4 / 60 = 1.09, |1.09 − 1| = 0.09 <= 0.1 → 10.
  HpaAutoscaler hpa(hpa_spec());
  EXPECT_EQ(hpa.decide(kT0, steady(10), gpu_busy(6.54)), 10);
}

TEST(Hpa, JustOutsideToleranceScalesUp) {
  // busy 6.66 → 66.6 %; 66.6 / 60 = 1.11 > 1.1 → ceil(1.11 · 10) = ceil(11.1) = 12, under the
  // scale-up limit max(10 + 4, 2 · 10) = 20.
  HpaAutoscaler hpa(hpa_spec());
  EXPECT_EQ(hpa.decide(kT0, steady(10), gpu_busy(6.66)), 12);
}

TEST(Hpa, ToleranceOnTheScaleDownSide) {
  // The calculator's proposal alone (the stabilisation would hold a scale-down at 10).
  HpaAutoscaler hpa(hpa_spec());
  // 54.6 % → ratio 0.91, within 0.1 → 10.
  EXPECT_EQ(hpa.proposal(kT0, steady(10), gpu_busy(5.46)), 10);
  // 53.4 % → ratio 0.89, outside → ceil(0.89 · 10) = 9.
  EXPECT_EQ(hpa.proposal(kT0, steady(10), gpu_busy(5.34)), 9);
}

TEST(Hpa, RatioOfExactlyOnePointOneIsWithinTolerance) {
  // Pinned (serving_math.hpp): 66 % / 60 % = 1.1 exactly, |1.1 − 1| <= 0.1 → 10, although in
  // float64 66.0 / 60.0 − 1 is 0.10000000000000009.
  HpaAutoscaler hpa(hpa_spec());
  EXPECT_EQ(hpa.proposal(kT0, steady(10), gpu_busy(6.6)), 10);
}

TEST(Hpa, DesiredIsCeilOfRatioTimesReady) {
  // 5 ready at 72 %: 72 / 60 · 5 = 6 exactly → 6 (not 7 from 6.000000000000001).
  HpaAutoscaler hpa(hpa_spec());
  EXPECT_EQ(hpa.decide(kT0, steady(5), gpu_busy(3.6)), 6);
}

TEST(Hpa, ScaleUpLimitOneToFive) {
  // QPS target 10 per pod; 1 ready pod sees 100 qps → ratio 10 → ceil(10 · 1) = 10, limited to
  // max(1 + 4, 2 · 1) = 5.
  AutoscalerSpec s = hpa_spec();
  s.hpa_metric = HpaMetric::kQps;
  s.target_qps = 10;
  HpaAutoscaler hpa(s);
  FakeMetrics m;
  m.set(ServingMetric::kArrivals, kSync, 100);
  EXPECT_EQ(hpa.decide(kT0, steady(1), m), 5);
  // 14 s later (within the 15 s period) the 4 added pods count: periodStart = 5 − 4 = 1, limit
  // max(1 + 4, 2) = 5 → stays 5 although 100 / 5 = 20 qps per pod asks for 10.
  EXPECT_EQ(hpa.decide(kT0 + seconds(14), steady(5), m), 5);
  // At exactly 15 s the first decision is outside (now − 15 s, now]: periodStart 5, limit
  // max(9, 10) = 10; 100 qps / 5 pods = 20 → ratio 2 → ceil(2 · 5) = 10.
  EXPECT_EQ(hpa.decide(kT0 + seconds(15), steady(5), m), 10);
}

TEST(Hpa, ScaleUpLimitTenToTwenty) {
  // 10 pods at 500 qps, target 10 → 50 per pod → ratio 5 → 50, limited to max(14, 20) = 20.
  AutoscalerSpec s = hpa_spec();
  s.hpa_metric = HpaMetric::kQps;
  s.target_qps = 10;
  HpaAutoscaler hpa(s);
  FakeMetrics m;
  m.set(ServingMetric::kArrivals, kSync, 500);
  EXPECT_EQ(hpa.decide(kT0, steady(10), m), 20);
  // Next sync: 500 / 20 = 25 per pod → ratio 2.5 → 50, limit max(24, 40) = 40, max 40 → 40.
  EXPECT_EQ(hpa.decide(kT0 + kSync, steady(20), m), 40);
}

TEST(Hpa, ScaleUpStopsAtMax) {
  // As above with max 16: min(50, 20, 16) = 16.
  AutoscalerSpec s = hpa_spec();
  s.hpa_metric = HpaMetric::kQps;
  s.target_qps = 10;
  s.max_replicas = 16;
  HpaAutoscaler hpa(s);
  FakeMetrics m;
  m.set(ServingMetric::kArrivals, kSync, 500);
  EXPECT_EQ(hpa.decide(kT0, steady(10), m), 16);
}

TEST(Hpa, ScaleDownFollowsTheHighestRecommendationOfTheLast300s) {
  // The world carries each answer out at once (desired = ready = the last answer).
  //   t = 0        busy 6.0 on 10 → 60 % → ratio 1 → 10 (the first call also records 10)
  //   t = 15..285  busy 3.0 → 30 % → ratio .5 → proposal 5, held at min(10, 10 in window) = 10
  //   t = 150      busy 4.8 → 48 % → ratio .8 → proposal 8 (also held at 10)
  //   t = 300      window (0, 300]: the 10s at t = 0 are out, highest is 8 → 8
  //   t = 315..435 on 8 pods busy 3.0 → 37.5 % → ratio .625 → ceil(.625 · 8) = 5; the 8 of
  //                t = 150 is still in the window → 8
  //   t = 450      window (150, 450]: 8 is out → 5
  HpaAutoscaler hpa(hpa_spec());
  int current = 10;
  for (int t = 0; t <= 450; t += 15) {
    const double busy = t == 0 ? 6.0 : t == 150 ? 4.8 : 3.0;
    const int expected = t < 300 ? 10 : t < 450 ? 8 : 5;
    current = hpa.decide(kT0 + seconds(t), steady(current), gpu_busy(busy));
    EXPECT_EQ(current, expected) << "t = " << t << " s";
  }
}

TEST(Hpa, StartingPodsCountAsZeroOnScaleUp) {
  HpaAutoscaler hpa(hpa_spec());
  // 3 ready + 1 starting, current 4, busy 2.52 → 84 % per ready pod → ratio 1.4 (a scale-up).
  // With the starting pod at 0: 252 / 4 / 60 = 1.05, within 0.1 → keep 4. (Counting ready pods
  // only would ask ceil(1.4 · 3) = ceil(4.2) = 5.)
  EXPECT_EQ(hpa.decide(kT0, ReplicaCounts{4, 3, 1}, gpu_busy(2.52)), 4);
  // 2 ready + 2 starting at 90 %: ratio 1.5, rebalanced 180 / 4 / 60 = 0.75 < 1, the direction
  // flips → keep 4. (Ready pods only: ceil(1.5 · 2) = 3.)
  EXPECT_EQ(hpa.proposal(kT0, ReplicaCounts{4, 2, 2}, gpu_busy(1.8)), 4);
  // 2 ready + 1 starting at 100 %: ratio 5/3, rebalanced 200 / 3 / 60 = 1.11 > 1.1 → ceil(200 /
  // 60) = ceil(3.33) = 4.
  EXPECT_EQ(hpa.proposal(kT0, ReplicaCounts{3, 2, 1}, gpu_busy(2.0)), 4);
}

TEST(Hpa, StartingPodsAreIgnoredOnScaleDown) {
  // 4 ready + 2 starting, current 6, busy 1.2 → 30 % → ratio 0.5 → ceil(0.5 · 4) = 2. (Counting
  // the starting pods at the target would give (120 + 2 · 60) / 6 / 60 = 0.67 → 4.)
  HpaAutoscaler hpa(hpa_spec());
  EXPECT_EQ(hpa.proposal(kT0, ReplicaCounts{6, 4, 2}, gpu_busy(1.2)), 2);
}

TEST(Hpa, NoReadyPodKeepsCurrent) {
  HpaAutoscaler hpa(hpa_spec());
  EXPECT_EQ(hpa.decide(kT0, ReplicaCounts{3, 0, 3}, gpu_busy(0)), 3);
}

TEST(Hpa, CpuReadsBatchSlotsAndQpsReadsArrivals) {
  // cpu: kSlotsBusy 3.6 on 4 ready → 90 % → ratio 1.5 → ceil(1.5 · 4) = 6 (limit 8). The GPU
  // busy of 2.4 (60 %, no change) must not be what it reads.
  AutoscalerSpec s = hpa_spec();
  s.hpa_metric = HpaMetric::kCpu;
  HpaAutoscaler cpu(s);
  FakeMetrics m;
  m.set(ServingMetric::kSlotsBusy, kSync, 3.6);
  m.set(ServingMetric::kGpuBusy, kSync, 2.4);
  EXPECT_EQ(cpu.decide(kT0, steady(4), m), 6);
  // qps: 100 qps over 2 ready, target 20 → 50 per pod → ratio 2.5 → ceil(2.5 · 2) = 5 (limit 6).
  s.hpa_metric = HpaMetric::kQps;
  s.target_qps = 20;
  HpaAutoscaler qps(s);
  FakeMetrics q;
  q.set(ServingMetric::kArrivals, kSync, 100);
  q.set(ServingMetric::kGpuBusy, kSync, 1.2);
  EXPECT_EQ(qps.decide(kT0, steady(2), q), 5);
}

TEST(Hpa, ZeroReplicasGoToMinAtCreation) {
  // Before the first decision the Deployment has 0 replicas: min 2 → 2 (KServe creates it at
  // minReplicas); with min 0 it stays 0 (upstream's disabled HPA). No metric is read either way.
  AutoscalerSpec s = hpa_spec();
  s.min_replicas = 2;
  FakeMetrics m;
  EXPECT_EQ(HpaAutoscaler(s).decide(kT0, ReplicaCounts{0, 0, 0}, m), 2);
  s.min_replicas = 0;
  EXPECT_EQ(HpaAutoscaler(s).decide(kT0, ReplicaCounts{0, 0, 0}, m), 0);
  EXPECT_EQ(m.queries(), 0);
}

TEST(Hpa, CurrentOutsideMinMaxIsBroughtInsideWithoutMetrics) {
  AutoscalerSpec s = hpa_spec();
  s.min_replicas = 3;
  s.max_replicas = 8;
  FakeMetrics m;
  EXPECT_EQ(HpaAutoscaler(s).decide(kT0, steady(12), m), 8);
  EXPECT_EQ(HpaAutoscaler(s).decide(kT0, steady(1), m), 3);
  EXPECT_EQ(m.queries(), 0);
}

TEST(Hpa, ScaleDownStopsAtMin) {
  // min 3; 10 pods idle: proposal 0. After the window (the first call's 10 and the t = 0
  // proposal of 10 out of (0, 300]) the highest proposal is 0 → limited to min 3.
  AutoscalerSpec s = hpa_spec();
  s.min_replicas = 3;
  HpaAutoscaler hpa(s);
  EXPECT_EQ(hpa.decide(kT0, steady(10), gpu_busy(6.0)), 10);  // 60 %: no change
  EXPECT_EQ(hpa.decide(kT0 + seconds(150), steady(10), gpu_busy(0)), 10);
  EXPECT_EQ(hpa.decide(kT0 + seconds(300), steady(10), gpu_busy(0)), 3);
}

}  // namespace hpa_autoscaler_test
}  // namespace gantry
