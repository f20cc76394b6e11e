// gantry-serving-rate [HOURS] [QPS] [KPA|HPA]: the request-level serving figure of issue #14.
// One service (Poisson arrivals at QPS, 512 prompt + 128 output tokens, an A10 replica of 2,400
// tokens/s with 16 batch slots, the given autoscaler, 1..60 replicas) simulated for HOURS on
// its own (FirstFitHost), timed by the wall clock. Prints requests, seconds, requests per second
// and the peak resident set. bench/serving_day.sh runs it beside the ns-3 peer.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/serving/serving_simulation.hpp"

int main(int argc, char** argv) {
  using namespace gantry;
  const double hours_run = argc > 1 ? std::atof(argv[1]) : 24;
  const double qps = argc > 2 ? std::atof(argv[2]) : 300;
  const std::string kind = argc > 3 ? argv[3] : "KPA";
  if (hours_run <= 0 || qps <= 0 || (kind != "KPA" && kind != "HPA")) {
    std::fprintf(stderr, "usage: gantry-serving-rate [HOURS] [QPS] [KPA|HPA]\n");
    return 2;
  }
  ServiceSpec s;
  s.name = "bench";
  PredictorSpec p;
  p.name = "v1";
  p.model = "llama-13b";
  p.traffic = 100;
  p.gpu_type = "A10";
  p.resources.gpus = 1;
  s.predictors = {p};
  s.capacity = {ReplicaCapacity{"A10", 2400, 16, 0}};
  s.cold_start.image_pull = seconds(40);
  s.cold_start.model_download = {26'000'000'000, true, 1e9};
  s.cold_start.load = seconds(25);
  s.autoscaler.kind = kind == "KPA" ? AutoscalerKind::kKpa : AutoscalerKind::kHpa;
  s.autoscaler.min_replicas = 1;
  s.autoscaler.max_replicas = 60;
  s.autoscaler.target_concurrency = 10;
  s.slo.p99_latency = seconds(2);
  s.load.kind = LoadKind::kPoisson;
  s.load.qps = qps;

  ServingRunOptions options;
  options.horizon = Duration::from_seconds(hours_run * 3600);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<ServiceReport> reports = simulate_services({s}, {nullptr}, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const ServiceReport& r = reports.front();
  std::printf(
      "gantry serving %s %.0f h at %.0f qps: %lld requests in %.3f s: %.2f M requests/s, "
      "p99 %.3f s, max %d replicas, peak RSS %.1f MiB\n",
      kind.c_str(), hours_run, qps, static_cast<long long>(r.requests), wall,
      static_cast<double>(r.requests) / wall / 1e6, r.p99_s, r.max_replicas,
      static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
