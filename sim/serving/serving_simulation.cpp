#include "sim/serving/serving_simulation.hpp"

#include <algorithm>

#include "sim/serving/first_fit_host.hpp"
#include "sim/serving/service_run.hpp"

namespace gantry {

RandomStream service_stream(const RandomStreams& streams, const ServiceSpec& service) {
  return streams.stream("service/" + service.name);
}

std::vector<ServiceReport> simulate_services(
    const std::vector<ServiceSpec>& services,
    const std::vector<std::shared_ptr<const std::vector<TraceRequest>>>& traces,
    const ServingRunOptions& options) {
  FirstFitHost host(options.gpus_per_node);
  const RandomStreams streams(options.seed);
  std::vector<std::unique_ptr<ServiceRun>> runs;
  for (size_t i = 0; i < services.size(); ++i) {
    runs.push_back(std::make_unique<ServiceRun>(
        services[i], options.start, service_stream(streams, services[i]), host,
        i < traces.size() ? traces[i] : nullptr, ServiceRun::Options{options.report_interval}));
  }
  const Time end = options.start + options.horizon;
  for (;;) {
    Time next = Time::from_micros(INT64_MAX);
    for (const auto& run : runs) next = std::min(next, run->next_wakeup());
    if (next > end) break;
    for (const auto& run : runs)
      if (run->next_wakeup() == next) run->wake(next);
  }
  std::vector<ServiceReport> reports;
  for (const auto& run : runs) {
    run->finish(end);
    reports.push_back(run->report());
  }
  return reports;
}

}  // namespace gantry
