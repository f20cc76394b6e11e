#pragma once
// The "services" section of the JSON report (`gantry simulate --format json`, `gantry tune`):
//   [{"name", "requests", "p50_s", "p99_s", "slo_attainment", "gpu_hours", "cold_starts",
//     "max_replicas", "slo_p99_s" (null: no SLO), "unserved", "cold_start_p50_s" (null: none),
//     "replicas_lost" (placed replicas evicted by a failure, drain or preemption),
//     "failed" (requests in flight on a lost replica; not in "requests", misses of the SLO),
//     "predictors": [{"name", "traffic_percent", "requests", "p99_s", "cold_starts",
//                     "max_replicas"}]}]
// and, per service, its report intervals (for plots and the results database):
//   [{"start", "qps", "p50_s", "p99_s", "slo_attainment", "ready_replicas",
//     "starting_replicas", "gpu_hours", "cold_starts", "arrivals", "served", "failed"}]

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/serving/service_report.hpp"

namespace gantry {

nlohmann::ordered_json services_json(const std::vector<ServiceReport>& services);
nlohmann::ordered_json service_intervals_json(const ServiceReport& service);

}  // namespace gantry
