// Knative KPA (engine/policy/serving/kpa_autoscaler.hpp): each rule on numbers worked by hand.
// Unless a test says otherwise: target concurrency 10 at 100 % (target 10 per pod), min 0,
// max 40, Knative's windows (stable 60 s, panic 6 s), panic threshold 2, max scale-down rate 2,
// max scale-up rate 1000, tick 2 s, grace 30 s.

#include "engine/policy/serving/kpa_autoscaler.hpp"

#include <gtest/gtest.h>

#include "tests/engine/policy/serving/fake_metrics.hpp"

namespace gantry {
namespace kpa_autoscaler_test {

using testing::FakeMetrics;

const Time kT0 = Time::epoch() + hours(1);
const Duration kStable = seconds(60);
const Duration kPanic = seconds(6);

AutoscalerSpec kpa_spec() {
  AutoscalerSpec s;
  s.kind = AutoscalerKind::kKpa;
  s.min_replicas = 0;
  s.max_replicas = 40;
  s.target_concurrency = 10;
  s.target_utilization_percent = 100;
  return s;
}

FakeMetrics concurrency(double stable, double panic) {
  FakeMetrics m;
  m.set(ServingMetric::kConcurrency, kStable, stable);
  m.set(ServingMetric::kConcurrency, kPanic, panic);
  return m;
}

ReplicaCounts steady(int n) { return ReplicaCounts{n, n, 0}; }

TEST(Kpa, TicksEveryTwoSecondsAndScalesFromZero) {
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.tick(), seconds(2));
  EXPECT_TRUE(kpa.scales_from_zero());
}

TEST(Kpa, StableDesireIsCeilOfStableConcurrencyOverTarget) {
  // 3 ready, stable 45 → ceil(45 / 10) = 5; maxScaleDown floor(3 / 2) = 1, maxScaleUp 3000 → 5.
  // Panic window 45 → dppc 5, 5 / 3 = 1.67 < 2: no panic.
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, steady(3), concurrency(45, 45)), 5);
  EXPECT_FALSE(kpa.panicking());
}

TEST(Kpa, TargetUtilisationScalesTheTarget) {
  // Knative's defaults: target 100 at 70 % → 70 per pod; stable 140 → ceil(140 / 70) = 2.
  AutoscalerSpec s = kpa_spec();
  s.target_concurrency = 100;
  s.target_utilization_percent = 70;
  KpaAutoscaler kpa(s);
  EXPECT_EQ(kpa.decide(kT0, steady(2), concurrency(140, 140)), 2);
  // 141 → ceil(2.01) = 3.
  EXPECT_EQ(kpa.decide(kT0 + seconds(2), steady(2), concurrency(141, 141)), 3);
}

TEST(Kpa, PanicStartsAtExactlyTwiceTheReadyPods) {
  // 5 ready, panic window 100 → dppc 10, 10 / 5 = 2 >= 2 → panic; stable 20 → dspc 2, raised to
  // maxScaleDown floor(5 / 2) = 2; desire max(2, 10) = 10.
  KpaAutoscaler at(kpa_spec());
  EXPECT_EQ(at.decide(kT0, steady(5), concurrency(20, 100)), 10);
  EXPECT_TRUE(at.panicking());
  // Panic window 90 → dppc 9, 9 / 5 = 1.8 < 2 → stable mode: 2.
  KpaAutoscaler below(kpa_spec());
  EXPECT_EQ(below.decide(kT0, steady(5), concurrency(20, 90)), 2);
  EXPECT_FALSE(below.panicking());
}

TEST(Kpa, PanicThresholdComparesTheRoundedPanicDesire) {
  // Upstream compares dppc (rounded up), not panic / target: 2 ready, panic 30.0001 → dppc =
  // ceil(3.00001) = 4, 4 / 2 = 2 → panic (30.0001 / 10 / 2 = 1.5 would not); desire 4.
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, steady(2), concurrency(10, 30.0001)), 4);
  EXPECT_TRUE(kpa.panicking());
}

TEST(Kpa, NoScaleDownInPanicUntilSixtySecondsAfterTheLastOverThresholdTick) {
  // t = 0   5 ready, panic 100 → dppc 10 >= 2 · 5: panic, desire 10 (maxPanicPods 10)
  // t = 2..18  10 ready, stable 30, panic 40 → dppc 4, 4 / 10 < 2; still panicking (0 + 60 is
  //         not before t): desiredStable = max(3, floor(10 / 2) = 5) = 5 but held at 10
  // t = 20  10 ready, panic 200 → dppc 20 >= 2 · 10: over again, panicTime = 20, desire 20
  // t = 22..80  20 ready, stable 30, panic 40 → dppc 4 < 40: held at 20; at t = 80, 20 + 60 = 80
  //         is not before 80 → still panicking
  // t = 82  20 + 60 < 82 → stable mode: desiredStable = max(3, floor(20 / 2) = 10) = 10
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, steady(5), concurrency(20, 100)), 10);
  for (int t = 2; t <= 18; t += 2) {
    EXPECT_EQ(kpa.decide(kT0 + seconds(t), steady(10), concurrency(30, 40)), 10) << t;
  }
  EXPECT_EQ(kpa.decide(kT0 + seconds(20), steady(10), concurrency(30, 200)), 20);
  for (int t = 22; t <= 80; t += 2) {
    EXPECT_EQ(kpa.decide(kT0 + seconds(t), steady(20), concurrency(30, 40)), 20) << t;
    EXPECT_TRUE(kpa.panicking()) << t;
  }
  EXPECT_EQ(kpa.decide(kT0 + seconds(82), steady(20), concurrency(30, 40)), 10);
  EXPECT_FALSE(kpa.panicking());
  EXPECT_EQ(kpa.max_panic_pods(), 0);
}

TEST(Kpa, ScaleDownPerTickIsAtMostByTheMaxScaleDownRate) {
  // No load: dspc 0, raised to maxScaleDown = floor(ready / 2): 10 → 5 → 2 → 1 (floor(2 / 2)).
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, steady(10), concurrency(0, 0)), 5);
  EXPECT_EQ(kpa.decide(kT0 + seconds(2), steady(5), concurrency(0, 0)), 2);
  EXPECT_EQ(kpa.decide(kT0 + seconds(4), steady(2), concurrency(0, 0)), 1);
}

TEST(Kpa, ScaleDownRateZeroMeansNoLimit) {
  // max_scale_down_rate 0: maxScaleDown 0; 10 ready, stable 5 → ceil(0.5) = 1.
  AutoscalerSpec s = kpa_spec();
  s.max_scale_down_rate = 0;
  KpaAutoscaler kpa(s);
  EXPECT_EQ(kpa.decide(kT0, steady(10), concurrency(5, 5)), 1);
}

TEST(Kpa, ScaleUpPerTickIsAtMostByTheMaxScaleUpRate) {
  // max_scale_up_rate 2: 3 ready → maxScaleUp ceil(2 · 3) = 6; stable 100 → dspc 10 → 6.
  AutoscalerSpec s = kpa_spec();
  s.max_scale_up_rate = 2;
  KpaAutoscaler kpa(s);
  EXPECT_EQ(kpa.decide(kT0, steady(3), concurrency(100, 50)), 6);
}

TEST(Kpa, ScaleToZeroAfterTheStableWindowWithNoTrafficPlusGrace) {
  // Concurrency 5 until t = 100 s, then 0; one replica. The fake averages the timeline exactly.
  //   t = 158  stable average over [98, 158) = 5 · 2 / 60 = 0.17 → dspc 1 → 1
  //   t = 160  average over [100, 160) = 0 → desire 0: the grace starts (zeroSince = 160) and
  //            the Deployment stays at 1
  //   t = 188  28 s < 30 s → 1;   t = 190  30 s → 0
  //   t = 192  already at 0 → 0
  KpaAutoscaler kpa(kpa_spec());
  FakeMetrics m;
  m.step(ServingMetric::kConcurrency, kT0, 5);
  m.step(ServingMetric::kConcurrency, kT0 + seconds(100), 0);
  int current = 1;
  for (int t = 100; t <= 190; t += 2) {
    const int expected = t < 190 ? 1 : 0;
    current = kpa.decide(kT0 + seconds(t), steady(current), m);
    EXPECT_EQ(current, expected) << "t = " << t << " s";
  }
  EXPECT_EQ(kpa.decide(kT0 + seconds(192), ReplicaCounts{0, 0, 0}, m), 0);
}

TEST(Kpa, TrafficDuringTheGraceCancelsScaleToZero) {
  // Desire 0 from t = 0 (grace starts), a request at t = 20 (stable 0.1 → 1) forgets it; idle
  // again from t = 22: the grace restarts there, so t = 50 still holds 1 and t = 52 gives 0.
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, steady(1), concurrency(0, 0)), 1);
  EXPECT_EQ(kpa.decide(kT0 + seconds(20), steady(1), concurrency(0.1, 0.1)), 1);
  EXPECT_EQ(kpa.decide(kT0 + seconds(22), steady(1), concurrency(0, 0)), 1);
  EXPECT_EQ(kpa.decide(kT0 + seconds(50), steady(1), concurrency(0, 0)), 1);
  EXPECT_EQ(kpa.decide(kT0 + seconds(52), steady(1), concurrency(0, 0)), 0);
}

TEST(Kpa, ScaleFromZero) {
  // No replica, the activator holds one request: stable and panic 0.2 → readyPods max(1, 0) = 1,
  // dspc ceil(0.02) = 1; dppc 1, 1 / 1 < 2 → 1.
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, ReplicaCounts{0, 0, 0}, concurrency(0.2, 0.2)), 1);
  EXPECT_FALSE(kpa.panicking());
  // However small: 1e-9 (one request for 60 µs in the 60 s window) → ceil(1e-10) = 1.
  KpaAutoscaler tiny(kpa_spec());
  EXPECT_EQ(tiny.decide(kT0, ReplicaCounts{0, 0, 0}, concurrency(1e-9, 1e-9)), 1);
  // A burst from zero: panic 50 → dppc 5, 5 / 1 >= 2 → panic, desire 5.
  KpaAutoscaler burst(kpa_spec());
  EXPECT_EQ(burst.decide(kT0, ReplicaCounts{0, 0, 0}, concurrency(2, 50)), 5);
  EXPECT_TRUE(burst.panicking());
}

TEST(Kpa, PanicHoldsTheCountWhileReplicasStart) {
  // 0 ready, 5 starting after a burst: readyPods 1, panic 50 → dppc 5 ≥ 2 → panic, 5. Two
  // seconds later the burst is over (panic 10 → dppc 1, not over) but the panic holds 5.
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, ReplicaCounts{0, 0, 0}, concurrency(2, 50)), 5);
  EXPECT_EQ(kpa.decide(kT0 + seconds(2), ReplicaCounts{5, 0, 5}, concurrency(3, 10)), 5);
}

TEST(Kpa, StartingPodsAreNotCountedOutsidePanic) {
  // 0 ready, 5 starting: readyPods 1, maxScaleDown floor(1 / 2) = 0; stable and panic 8 → dspc
  // = dppc = 1, 1 / 1 < 2 (no panic) → 1: Knative scales down to what the stable window asks
  // although the replicas are not ready yet.
  KpaAutoscaler kpa(kpa_spec());
  EXPECT_EQ(kpa.decide(kT0, ReplicaCounts{5, 0, 5}, concurrency(8, 8)), 1);
  EXPECT_FALSE(kpa.panicking());
}

TEST(Kpa, DesireIsClampedToMinAndMax) {
  AutoscalerSpec s = kpa_spec();
  s.min_replicas = 2;
  s.max_replicas = 6;
  // 3 ready, stable 100 → dspc 10 (dppc 5 / 3 < 2) → max 6.
  EXPECT_EQ(KpaAutoscaler(s).decide(kT0, steady(3), concurrency(100, 50)), 6);
  // 3 ready, no load → maxScaleDown floor(1.5) = 1 → min 2 (and never the scale-to-zero path).
  EXPECT_EQ(KpaAutoscaler(s).decide(kT0, steady(3), concurrency(0, 0)), 2);
  // With min 1 the last replica stays: 1 ready, no load → 0 → clamped to 1 at once.
  s.min_replicas = 1;
  EXPECT_EQ(KpaAutoscaler(s).decide(kT0, steady(1), concurrency(0, 0)), 1);
}

TEST(Kpa, ScaleDownDelayHoldsTheHighestDesireOfTheDelay) {
  // scale-down-delay 10 s. At 0 s stable 50 → 5; from 2 s on stable 20 → 2 (no panic: 20 / 10
  // over 5 ready is 0.4). Without the delay the tick at 2 s would scale to 2 (maxScaleDown is
  // floor(5 / 2) = 2); with it the desire stays 5 while the 5 of 0 s is within the last 10 s,
  // i.e. through the tick at 8 s, and drops at 10 s (0 s is no longer inside (0, 10]).
  AutoscalerSpec spec = kpa_spec();
  spec.scale_down_delay = seconds(10);
  KpaAutoscaler kpa(spec);
  EXPECT_EQ(kpa.decide(kT0, steady(5), concurrency(50, 50)), 5);
  for (int t = 2; t <= 8; t += 2)
    EXPECT_EQ(kpa.decide(kT0 + seconds(t), steady(5), concurrency(20, 20)), 5) << t << " s";
  EXPECT_EQ(kpa.decide(kT0 + seconds(10), steady(5), concurrency(20, 20)), 2);
  // A rise is followed at once: 80 → 8.
  EXPECT_EQ(kpa.decide(kT0 + seconds(12), steady(2), concurrency(80, 80)), 8);
  KpaAutoscaler plain(kpa_spec());
  EXPECT_EQ(plain.decide(kT0, steady(5), concurrency(50, 50)), 5);
  EXPECT_EQ(plain.decide(kT0 + seconds(2), steady(5), concurrency(20, 20)), 2);
}

}  // namespace kpa_autoscaler_test
}  // namespace gantry
