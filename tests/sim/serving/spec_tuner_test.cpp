// gantry tune's search against the exhaustive grid: the same cheapest cost, from under 20 % of
// the points.
#include "sim/serving/spec_tuner.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

// A 13B model on a whole A10 (2,400 tokens/s at batch 16) or half of one (1,100 at batch 8),
// Poisson load of 512 + 128 tokens, up to 40 replicas: 2 entries × (5 + 4 batch sizes) × 40.
ServiceSpec service(double qps) {
  ServiceSpec s;
  s.name = "chat";
  PredictorSpec p;
  p.name = "v1";
  p.model = "llama-13b";
  p.traffic = 100;
  p.gpu_type = "A10";
  p.resources.gpus = 1;
  s.predictors = {p};
  s.capacity = {ReplicaCapacity{"A10", 2400, 16, 0, 0}, ReplicaCapacity{"A10@0.5", 1100, 8, 0, 0}};
  s.autoscaler.max_replicas = 40;
  s.load.kind = LoadKind::kPoisson;
  s.load.qps = qps;
  return s;
}

TEST(SpecTuner, FindsTheExhaustiveCheapestFromAFifthOfTheGrid) {
  for (double qps : {3.0, 30.0, 100.0, 200.0}) {
    SCOPED_TRACE(qps);
    TuneOptions o;
    o.slo_p99 = seconds(2);
    o.measure = minutes(5);
    const TuneResult r = tune_service(service(qps), nullptr, o);
    EXPECT_EQ(r.grid_size, (5 + 4) * 40);
    EXPECT_DOUBLE_EQ(r.peak_qps, qps);
    ASSERT_TRUE(r.best && r.exhaustive_best);
    EXPECT_DOUBLE_EQ(r.best->cost_per_hour, r.exhaustive_best->cost_per_hour);
    EXPECT_TRUE(r.best->meets_slo);
    EXPECT_LT(r.sampled, r.grid_size / 5);
  }
}

TEST(SpecTuner, BatchTradesSpeedForThroughput) {
  // At 3 qps one replica holds the SLO; half an A10 at batch 8 costs half a whole one, and a
  // request there takes 512 / (11,000 / 8) + 128 / (1,100 / 8) = 1.303 s, within 2 s.
  TuneOptions o;
  o.slo_p99 = seconds(2);
  o.measure = minutes(5);
  o.exhaustive = false;
  const TuneResult r = tune_service(service(3), nullptr, o);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->key, "A10@0.5");
  EXPECT_EQ(r.best->replicas, 1);
  EXPECT_DOUBLE_EQ(r.best->cost_per_hour, 0.5);
  EXPECT_FALSE(r.exhaustive_best);
  // An SLO below any request's time on any point: nothing holds it.
  o.slo_p99 = Duration(100'000);
  EXPECT_FALSE(tune_service(service(3), nullptr, o).best);
}

TEST(SpecTuner, PeakOfATraceIsItsBusiestMinute) {
  // 120 requests in the first minute, then one a minute: the busiest 60 s hold 120 → 2 qps,
  // ×3 for a trace replayed three times faster.
  std::vector<TraceRequest> rows;
  for (int i = 0; i < 120; ++i) rows.push_back({i * 500'000, 100, 10});
  for (int i = 2; i < 10; ++i) rows.push_back({i * 60'000'000, 100, 10});
  ServiceSpec s = service(1);
  s.load.kind = LoadKind::kTrace;
  s.load.speedup = 3;
  EXPECT_DOUBLE_EQ(peak_qps(s, &rows), 6.0);
}

}  // namespace
}  // namespace gantry
