// The request-level serving simulator on cases worked by hand: queueing in batch slots, the
// activator holding requests through a cold start, scale to zero and back with and without the
// model cache, prefetching, traffic split, and determinism.
#include <gtest/gtest.h>

#include "sim/serving/service_json.hpp"
#include "sim/serving/serving_simulation.hpp"

namespace gantry {
namespace service_run_test {

constexpr int64_t kS = 1'000'000;

// One predictor on a whole A10 whose requests of 1,000 prompt + 100 output tokens take exactly
// 0.2 s: with 2 batch slots, 2,000 tokens/s at full batch is 1 ms per output token per slot and
// 20,000 prompt tokens/s is 0.1 ms per prompt token (0.1 s + 0.1 s).
ServiceSpec two_slot_service() {
  ServiceSpec s;
  s.name = "chat";
  PredictorSpec p;
  p.name = "v1";
  p.model = "llama";
  p.traffic = 100;
  p.gpu_type = "A10";
  p.resources.gpus = 1;
  s.predictors = {p};
  s.capacity = {ReplicaCapacity{"A10", 2000, 2, 20000}};
  s.cold_start.image_pull = seconds(10);
  s.autoscaler.kind = AutoscalerKind::kNone;
  s.autoscaler.min_replicas = 1;
  s.autoscaler.max_replicas = 1;
  s.slo.p99_latency = seconds(1);
  s.load.kind = LoadKind::kTrace;
  s.load.loop = false;
  return s;
}

std::shared_ptr<const std::vector<TraceRequest>> rows(std::vector<int64_t> at_us) {
  auto out = std::make_shared<std::vector<TraceRequest>>();
  for (int64_t t : at_us) out->push_back({t, 1000, 100});
  return out;
}

ServiceReport run_one(const ServiceSpec& s, std::shared_ptr<const std::vector<TraceRequest>> trace,
                      Duration horizon, Duration interval = seconds(30), uint64_t seed = 1) {
  ServingRunOptions o;
  o.horizon = horizon;
  o.report_interval = interval;
  o.seed = seed;
  return simulate_services({s}, {std::move(trace)}, o).front();
}

TEST(ServiceRun, BatchSlotsQueueAndTheActivatorHoldsThroughTheColdStart) {
  // Arrivals at 0 s (held until the replica is ready at 10 s), then 20.00, 20.05, 20.10 and
  // 20.15 s. Finishes: 10.2; 20.20 and 20.25 (both slots); 20.40 and 20.45 (each waits for a
  // slot). Latencies 10.2, 0.2, 0.2, 0.3, 0.3 s.
  const ServiceReport r = run_one(
      two_slot_service(), rows({0, 20 * kS, 20'050'000, 20'100'000, 20'150'000}), seconds(60));
  EXPECT_EQ(r.requests, 5);
  // Nearest rank: p50 is the 3rd smallest (0.3 s), p99 the 5th (10.2 s), each the midpoint of
  // its histogram bucket (at most 1/64 wide).
  EXPECT_NEAR(r.p50_s, 0.3, 0.3 / 64);
  EXPECT_NEAR(r.p99_s, 10.2, 10.2 / 64);
  EXPECT_DOUBLE_EQ(r.slo_attainment, 0.8);  // 4 of 5 within 1 s
  EXPECT_EQ(r.cold_starts, 1);
  EXPECT_DOUBLE_EQ(r.cold_start_s.percentile(50), 10.0);
  EXPECT_EQ(r.max_replicas, 1);
  EXPECT_NEAR(r.gpu_hours, 60.0 / 3600, 1e-12);  // one GPU from placement at 0 s to the end
  ASSERT_EQ(r.intervals.size(), 2u);
  // [0, 30): starting for 10 s, ready for 20 s; all five requests.
  EXPECT_EQ(r.intervals[0].arrivals, 5);
  EXPECT_EQ(r.intervals[0].served, 5);
  EXPECT_NEAR(r.intervals[0].starting_replicas, 10.0 / 30, 1e-12);
  EXPECT_NEAR(r.intervals[0].ready_replicas, 20.0 / 30, 1e-12);
  EXPECT_NEAR(r.intervals[0].qps, 5.0 / 30, 1e-12);
  EXPECT_EQ(r.intervals[1].arrivals, 0);
  EXPECT_DOUBLE_EQ(r.intervals[1].ready_replicas, 1.0);
  EXPECT_NEAR(r.intervals[1].gpu_hours, 30.0 / 3600, 1e-12);
}

ServiceSpec scale_to_zero_service(bool cache) {
  ServiceSpec s = two_slot_service();
  s.autoscaler.kind = AutoscalerKind::kKpa;
  s.autoscaler.min_replicas = 0;
  s.autoscaler.max_replicas = 1;
  s.autoscaler.target_concurrency = 1;
  // Cold start: image 10 s + model 2 GB at 1 GB/s + load 3 s = 15 s on a fresh node.
  s.cold_start.model_download = {2'000'000'000, cache, 1e9};
  s.cold_start.load = seconds(3);
  return s;
}

TEST(ServiceRun, ScaleToZeroAndBackWithTheModelCache) {
  // Knative starts the revision with one replica: ready at 15 s; the request of 5 s is held
  // and leaves at 15.2 s. Its concurrency leaves the 60 s stable window at 76 s (the bucket
  // [15, 16) holds its last 0.2 s), so the KPA desires 0 from the tick at 76 s and, after the
  // 30 s grace, removes the replica at 106 s. The request at 300 s finds no replica: the
  // activator pokes, a replica lands on the same node (first fit), which has the image and
  // the model: only the 3 s load. Latency 3.2 s.
  const ServiceReport r =
      run_one(scale_to_zero_service(true), rows({5 * kS, 300 * kS}), seconds(400));
  EXPECT_EQ(r.requests, 2);
  EXPECT_EQ(r.cold_starts, 2);
  EXPECT_DOUBLE_EQ(r.cold_start_s.min(), 3.0);
  EXPECT_DOUBLE_EQ(r.cold_start_s.max(), 15.0);
  EXPECT_NEAR(r.p99_s, 10.2, 10.2 / 64);
  EXPECT_NEAR(r.p50_s, 3.2, 3.2 / 64);
  // The second request leaves at 303.2 s, so the same rule removes the replica at
  // 364 + 30 = 394 s. GPU held over [0, 106) and [300, 394): 200 s.
  EXPECT_NEAR(r.gpu_hours, 200.0 / 3600, 1e-12);
  ASSERT_EQ(r.intervals.size(), 14u);  // 30 s intervals over 400 s, the last one cut at 400
  EXPECT_NEAR(r.intervals[3].ready_replicas, 16.0 / 30, 1e-12);  // [90, 120): ready to 106
  EXPECT_NEAR(r.intervals[12].ready_replicas, 1.0, 1e-12);       // [360, 390): all of it
  EXPECT_NEAR(r.intervals[13].ready_replicas, 4.0 / 10, 1e-12);  // [390, 400): gone at 394
}

TEST(ServiceRun, ScaleFromZeroWithoutTheCacheDownloadsAgain) {
  // As above, but the model is not kept: 2 s of download again (the kubelet still has the
  // image), so the second cold start is 5 s and the request waits 5.2 s.
  const ServiceReport r =
      run_one(scale_to_zero_service(false), rows({5 * kS, 300 * kS}), seconds(400));
  EXPECT_DOUBLE_EQ(r.cold_start_s.min(), 5.0);
  EXPECT_NEAR(r.p50_s, 5.2, 5.2 / 64);
}

TEST(ServiceRun, PrefetchWarmsTheNodeTheFirstReplicaLandsOn) {
  // The download starts at 0 s on node 0 alongside the image pull: ready at max(10, 2) + 3.
  ServiceSpec s = scale_to_zero_service(true);
  s.cold_start.prefetch_nodes = 1;
  const ServiceReport r = run_one(s, rows({5 * kS}), seconds(60));
  EXPECT_DOUBLE_EQ(r.cold_start_s.max(), 13.0);
}

TEST(ServiceRun, TrafficSplitRoutesByWeight) {
  ServiceSpec s = two_slot_service();
  PredictorSpec v2 = s.predictors[0];
  v2.name = "v2";
  s.predictors[0].traffic = 9;  // 9:1 is 90/10
  v2.traffic = 1;
  s.predictors.push_back(v2);
  s.autoscaler.min_replicas = s.autoscaler.max_replicas = 40;
  s.load.kind = LoadKind::kPoisson;
  s.load.qps = 100;
  const ServiceReport r = run_one(s, nullptr, seconds(1000));
  ASSERT_EQ(r.predictors.size(), 2u);
  EXPECT_EQ(r.predictors[0].traffic_percent, 90);
  EXPECT_EQ(r.predictors[1].traffic_percent, 10);
  // About 100,000 requests; v2's share is binomial: σ = sqrt(n · 0.1 · 0.9) ≈ 95, 4 σ = 380.
  const double n = static_cast<double>(r.requests);
  EXPECT_NEAR(static_cast<double>(r.predictors[1].requests), 0.1 * n, 380.0);
  // A canary of 10 % over three predictors: the first gets nothing.
  s.predictors.push_back(v2);
  s.predictors[2].name = "v3";
  s.canary_percent = 10;
  const ServiceReport c = run_one(s, nullptr, seconds(100));
  EXPECT_EQ(c.predictors[0].requests, 0);
  EXPECT_EQ(c.predictors[1].traffic_percent, 90);
  EXPECT_EQ(c.predictors[2].traffic_percent, 10);
}

TEST(ServiceRun, SameSeedSameReportOtherSeedOtherReport) {
  ServiceSpec s = scale_to_zero_service(true);
  s.autoscaler.max_replicas = 10;
  s.load.kind = LoadKind::kCurve;
  s.load.peak_qps = 40;
  s.load.trough_qps = 0;
  s.load.period = hours(1);
  const auto a = run_one(s, nullptr, hours(2), minutes(5), 7);
  const auto b = run_one(s, nullptr, hours(2), minutes(5), 7);
  const auto c = run_one(s, nullptr, hours(2), minutes(5), 8);
  EXPECT_EQ(services_json({a}).dump(), services_json({b}).dump());
  EXPECT_EQ(service_intervals_json(a).dump(), service_intervals_json(b).dump());
  EXPECT_NE(services_json({a}).dump(), services_json({c}).dump());
  EXPECT_GT(a.max_replicas, 1);  // the curve made it scale
}

}  // namespace service_run_test
}  // namespace gantry
