#pragma once
// What a serving autoscaler reads: per-revision metrics as time averages over a window, the same
// numbers in both worlds. The simulator keeps them in one-second buckets
// (sim/serving/metric_buckets.hpp); the live adapter fills them from the serving pods' Prometheus
// endpoints or kubelet-sim's simulated load (adapters/kube).

#include "engine/core/time.hpp"

namespace gantry {

enum class ServingMetric {
  // Requests in the system (queued at a replica or in the activator, or running), summed over
  // the predictor's replicas: Knative's "concurrency" as the queue-proxies report it.
  kConcurrency,
  // Replicas' GPU busy time: the sum over ready replicas of the fraction of the time at least
  // one request runs on it (DCGM_FI_DEV_GPU_UTIL's definition: "fraction of time one or more
  // kernels was executing"). Divided by ready replicas it is the HPA's gpu utilisation.
  kGpuBusy,
  // Batch slots in use: the sum over ready replicas of (running requests / max batch). Divided
  // by ready replicas it is the HPA's cpu utilisation (a serving process's CPU follows its
  // batch; a modelling choice, stated in sim/serving/README.md).
  kSlotsBusy,
  // Requests arriving per second, for the predictor as a whole.
  kArrivals,
};

// Time averages of one predictor's metrics.
class ServingMetrics {
 public:
  virtual ~ServingMetrics() = default;
  // The time average of `metric` over [now - window, now), the predictor's total. Over a window
  // reaching back before the first sample, the average is over the part that has samples (as
  // Knative averages over the buckets it has); 0 when there is none.
  virtual double average(ServingMetric metric, Time now, Duration window) const = 0;
};

}  // namespace gantry
