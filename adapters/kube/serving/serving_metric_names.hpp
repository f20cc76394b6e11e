#pragma once
// The Prometheus metrics a serving pod exposes for Gantry's autoscalers, and how Gantry reads
// them (adapters/kube/serving/README.md lists them with their upstream counterparts).
//
// The autoscalers read time averages (ServingMetrics); a gauge sampled every few seconds only
// approximates one, so each metric Gantry reads is a counter of a time integral, whose increase
// between two scrapes divided by the time between them is the exact average over that interval:
//
//   gantry_serving_requests_total                    counter  requests that arrived at the pod
//                                                              (rate: kArrivals; Knative's
//                                                              revision_request_count)
//   gantry_serving_request_concurrency_seconds_total counter  ∫ requests in the pod (queued or
//                                                              running) dt (rate: kConcurrency,
//                                                              what Knative's queue-proxy reports
//                                                              as average concurrency)
//   gantry_serving_gpu_busy_seconds_total            counter  ∫ [a request runs] dt (rate:
//                                                              kGpuBusy, DCGM_FI_DEV_GPU_UTIL/100)
//   gantry_serving_batch_slots_busy_seconds_total    counter  ∫ running / max batch dt (rate:
//                                                              kSlotsBusy; vLLM's
//                                                              num_requests_running / max_num_seqs)
// and, for people rather than autoscalers, two gauges of the instant (vLLM's names without the
// prefix):
//   gantry_serving_requests_running                  gauge    requests in a batch slot now
//   gantry_serving_requests_waiting                  gauge    requests queued in the pod now
// Labels: a pod's own endpoint needs none. An endpoint serving several pods (kubelet-sim's)
// labels each series with namespace, service, predictor and pod; kubelet-sim's activator (the
// requests held while a predictor has no ready pod) is the series with pod="activator".

#include <map>
#include <string>
#include <string_view>

#include "adapters/kube/serving/prometheus_text.hpp"
#include "engine/policy/serving/serving_metrics.hpp"

namespace gantry::kube {

inline constexpr std::string_view kRequestsTotalMetric = "gantry_serving_requests_total";
inline constexpr std::string_view kConcurrencySecondsMetric =
    "gantry_serving_request_concurrency_seconds_total";
inline constexpr std::string_view kGpuBusySecondsMetric = "gantry_serving_gpu_busy_seconds_total";
inline constexpr std::string_view kSlotsBusySecondsMetric =
    "gantry_serving_batch_slots_busy_seconds_total";
inline constexpr std::string_view kRequestsRunningMetric = "gantry_serving_requests_running";
inline constexpr std::string_view kRequestsWaitingMetric = "gantry_serving_requests_waiting";
inline constexpr std::string_view kActivatorPod = "activator";

// One pod's counters at a scrape.
struct PodCounters {
  double requests = 0;             // gantry_serving_requests_total
  double concurrency_seconds = 0;  // gantry_serving_request_concurrency_seconds_total
  double gpu_busy_seconds = 0;     // gantry_serving_gpu_busy_seconds_total
  double slots_busy_seconds = 0;   // gantry_serving_batch_slots_busy_seconds_total
  // The counter behind a metric.
  double of(ServingMetric m) const;
};

// The counters of every pod in `e` whose samples match `match` (each label there equal), keyed
// by the `pod` label ("" when a sample has none: a pod's own endpoint). Several samples of one
// counter and pod (other labels) are summed; NaN samples are skipped.
std::map<std::string, PodCounters> serving_counters(
    const PromExposition& e, const std::map<std::string, std::string>& match);

}  // namespace gantry::kube
