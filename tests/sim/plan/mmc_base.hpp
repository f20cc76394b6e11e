#pragma once
// The plan tests' M/M/c queue, a Scenario as text (no dependencies: the CLI's end-to-end tests
// use it too, with fewer jobs).

#include <string>

namespace gantry::testing {

// M/M/c: Poisson arrivals every 10 min on average (λ = 6/h), exponential service of mean 1 h
// (3,600 steps of 1 s, steps: {mean: 3600}; μ = 1/h), one 1-GPU node per server, no start-up
// time: offered load a = λ/μ = 6 Erlangs. Erlang C, C(c, a) = [a^c/c! · c/(c−a)] /
// [Σ_{k<c} a^k/k! + a^c/c! · c/(c−a)], mean wait W_q = C(c, a) / (cμ − λ):
//   a = 6: c = 8 -> 642.6 s, c = 9 -> 235.2 s
//   a = 9 (growth 1.5): c = 11 -> 774.8 s, c = 12 -> 319.2 s
// With the SLO mean wait <= 6 min (360 s) the answers are 9 and 12 nodes.
inline const char* kMmcBase = R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: mmc}
spec:
  seed: 1
  start: 2026-01-01T00:00:00Z
  cluster:
    fabric: {kind: InfiniBand}
    storage: {bandwidth: 100GB/s}
    nodeClasses:
    - {name: box, cpu: "64", memory: 512Gi, gpu: {type: A100-80G, count: 1}, nic: 200Gbps}
    racks:
    - {name: r1, class: box, nodes: 8}
  workload:
    generators:
    - kind: Poisson
      name: m
      count: 20000
      meanInterarrival: 10m
      mix:
      - {weight: 1, gpus: 1, gpusPerPod: 1, steps: {mean: 3600}, stepCompute: 1s, gradientSize: 0}
  sim: {podStartup: 0s}
)";

// kMmcBase with `count` jobs instead of 20,000: the same queue, a shorter run.
inline std::string mmc_base(int count) {
  std::string base = kMmcBase;
  base.replace(base.find("count: 20000"), 12, "count: " + std::to_string(count));
  return base;
}

// A Plan's spec after its `base:` line, for mmc_base(200): 1.5 times the arrivals, on 1 to 16
// nodes. The answer is 13 nodes, at 4 seeds (an interval straddles the limit at 2).
constexpr const char* kGrownMmcPlan = R"(  forecast: {growth: [1.5]}
  pools:
  - {class: box, min: 1, max: 16, pricePerNodeHour: 3}
  slo: {wait.p95: 30m}
  seeds: 2
  maxSeeds: 4
)";

}  // namespace gantry::testing
