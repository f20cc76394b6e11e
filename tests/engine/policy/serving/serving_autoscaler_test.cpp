// make_serving_autoscaler (engine/policy/serving/serving_autoscaler.hpp): the kind picks the
// autoscaler, its tick and whether it scales from zero; `none` holds min_replicas.

#include "engine/policy/serving/serving_autoscaler.hpp"

#include <gtest/gtest.h>

#include "tests/engine/policy/serving/fake_metrics.hpp"

namespace gantry {
namespace serving_autoscaler_test {

using testing::FakeMetrics;

const Time kT0 = Time::epoch() + hours(1);

TEST(ServingAutoscaler, KindPicksTickAndScaleFromZero) {
  AutoscalerSpec s;
  s.min_replicas = 1;
  s.max_replicas = 10;
  s.kind = AutoscalerKind::kKpa;
  auto kpa = make_serving_autoscaler(s);
  EXPECT_EQ(kpa->tick(), seconds(2));
  EXPECT_TRUE(kpa->scales_from_zero());
  s.kind = AutoscalerKind::kHpa;
  auto hpa = make_serving_autoscaler(s);
  EXPECT_EQ(hpa->tick(), seconds(15));
  EXPECT_FALSE(hpa->scales_from_zero());
}

TEST(ServingAutoscaler, NoneHoldsMinReplicasWhateverTheLoad) {
  // `none` with replicas: 3 (the loader puts it in min_replicas): 3 at creation, 3 under a load
  // that would make a KPA ask for ceil(1000 / 100) = 10, 3 when idle.
  AutoscalerSpec s;
  s.kind = AutoscalerKind::kNone;
  s.min_replicas = 3;
  s.max_replicas = 3;
  auto fixed = make_serving_autoscaler(s);
  EXPECT_FALSE(fixed->scales_from_zero());
  FakeMetrics busy;
  busy.set(ServingMetric::kConcurrency, seconds(60), 1000);
  busy.set(ServingMetric::kConcurrency, seconds(6), 1000);
  FakeMetrics idle;
  EXPECT_EQ(fixed->decide(kT0, ReplicaCounts{0, 0, 0}, idle), 3);
  EXPECT_EQ(fixed->decide(kT0 + seconds(15), ReplicaCounts{3, 3, 0}, busy), 3);
  EXPECT_EQ(fixed->decide(kT0 + seconds(30), ReplicaCounts{3, 3, 0}, idle), 3);
}

TEST(ServingAutoscaler, KindNames) {
  EXPECT_STREQ(to_string(AutoscalerKind::kKpa), "KPA");
  EXPECT_STREQ(to_string(AutoscalerKind::kHpa), "HPA");
  EXPECT_STREQ(to_string(AutoscalerKind::kNone), "none");
  EXPECT_STREQ(to_string(HpaMetric::kGpu), "gpu");
  EXPECT_STREQ(to_string(HpaMetric::kCpu), "cpu");
  EXPECT_STREQ(to_string(HpaMetric::kQps), "qps");
}

}  // namespace serving_autoscaler_test
}  // namespace gantry
