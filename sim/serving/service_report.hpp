#pragma once
// What a service's run reports: totals (the JSON report's "services" entries) and one row per
// report interval (the latency and replica plots).

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/time.hpp"
#include "engine/metrics/distribution.hpp"

namespace gantry {

struct ServiceInterval {
  Time start;
  int64_t arrivals = 0;  // requests that arrived in the interval
  int64_t served = 0;    // requests dispatched to a replica in the interval (latency known)
  double qps = 0;        // arrivals per second
  double p50_s = 0;      // latency of the requests served in the interval; 0 when none
  double p99_s = 0;
  double slo_attainment = 1;     // share of them within the SLO (1 when none or no SLO)
  double ready_replicas = 0;     // time averages over the interval
  double starting_replicas = 0;  // placing or in cold start
  double gpu_hours = 0;          // allocated (whole GPUs and shares), placement to release
  int cold_starts = 0;           // replicas placed in the interval
  int64_t failed = 0;            // requests in flight on a replica lost in the interval
};

struct PredictorReport {
  std::string name;
  int traffic_percent = 0;
  int64_t requests = 0;
  double p99_s = 0;
  int cold_starts = 0;
  int max_replicas = 0;
};

struct ServiceReport {
  std::string name;
  int64_t requests = 0;  // served (dispatched); requests still held at the end are not counted
  int64_t failed = 0;    // in flight (queued or running) on a replica when it was lost
  int64_t unserved = 0;  // held by the activator at the end (no replica ever became ready)
  double p50_s = 0;
  double p99_s = 0;
  double slo_attainment = 1;
  double slo_p99_s = 0;  // the SLO (0: none)
  double gpu_hours = 0;
  int cold_starts = 0;
  int replicas_lost = 0;      // placed replicas evicted (a failure, a drain, a preemption)
  int max_replicas = 0;       // ready + starting, the most at once
  Distribution cold_start_s;  // placement to ready, every cold start
  std::vector<PredictorReport> predictors;
  std::vector<ServiceInterval> intervals;
};

}  // namespace gantry
