#pragma once
// The Services section of `gantry simulate`'s text report and the two plots written per service
// beside the results database: latency over the day (p50 and p99 per report interval, with the
// SLO) and replicas over the day (ready and starting).

#include <string>
#include <vector>

#include "sim/serving/service_report.hpp"

namespace gantry::cli {

// One row per service, then one indented row per predictor when there are several.
std::string services_table(const std::vector<ServiceReport>& services);

// Writes <dir>/<service>-latency.svg and <dir>/<service>-replicas.svg for every service;
// returns the paths written.
std::vector<std::string> write_service_plots(const std::string& dir,
                                             const std::vector<ServiceReport>& services);

}  // namespace gantry::cli
