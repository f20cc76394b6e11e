#include "adapters/kube/serving/serving_metric_names.hpp"

#include <cmath>

namespace gantry::kube {

double PodCounters::of(ServingMetric m) const {
  switch (m) {
    case ServingMetric::kConcurrency:
      return concurrency_seconds;
    case ServingMetric::kGpuBusy:
      return gpu_busy_seconds;
    case ServingMetric::kSlotsBusy:
      return slots_busy_seconds;
    case ServingMetric::kArrivals:
      return requests;
  }
  return 0;
}

std::map<std::string, PodCounters> serving_counters(
    const PromExposition& e, const std::map<std::string, std::string>& match) {
  std::map<std::string, PodCounters> out;
  for (const PromSample& s : e.samples) {
    double PodCounters::*field = nullptr;
    if (s.name == kRequestsTotalMetric)
      field = &PodCounters::requests;
    else if (s.name == kConcurrencySecondsMetric)
      field = &PodCounters::concurrency_seconds;
    else if (s.name == kGpuBusySecondsMetric)
      field = &PodCounters::gpu_busy_seconds;
    else if (s.name == kSlotsBusySecondsMetric)
      field = &PodCounters::slots_busy_seconds;
    else
      continue;
    if (std::isnan(s.value)) continue;
    bool matches = true;
    for (const auto& [k, v] : match) matches = matches && s.label(k) == v;
    if (!matches) continue;
    out[s.label("pod")].*field += s.value;
  }
  return out;
}

}  // namespace gantry::kube
