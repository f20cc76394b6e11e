#pragma once
// Services simulated on their own, on a FirstFitHost (nodes as needed): the driver for spec
// tuning (`gantry tune`), the serving benchmark and tests. Services inside a scenario with a
// cluster run through the scenario's event loop instead (sim/simulation.cpp).

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "sim/serving/request_source.hpp"
#include "sim/serving/service_report.hpp"

namespace gantry {

struct ServingRunOptions {
  Time start;
  Duration horizon = seconds(86'400);
  uint64_t seed = 1;
  Duration report_interval = minutes(5);
  int gpus_per_node = 8;
};

// `traces[i]`: the rows of services[i]'s trace load (nullptr for other loads). Reports in the
// services' order. Deterministic: the same inputs and seed give the same reports.
std::vector<ServiceReport> simulate_services(
    const std::vector<ServiceSpec>& services,
    const std::vector<std::shared_ptr<const std::vector<TraceRequest>>>& traces,
    const ServingRunOptions& options);

// The random stream of a service: named after it, so adding a service changes no other's draws.
RandomStream service_stream(const RandomStreams& streams, const ServiceSpec& service);

}  // namespace gantry
