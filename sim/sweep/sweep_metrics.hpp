#pragma once
// The figures a Sweep or a Plan reports per run, by name:
//
//   wait.mean wait.p50 wait.p95 wait.p99 wait.max   start − submit of started jobs, seconds
//   jct.mean jct.p50 jct.p95 jct.p99 jct.max        end − submit of finished jobs, seconds
//   gpu.allocated gpu.busy                          time-averaged share of the cluster's GPUs
//   goodput                                         useful / allocated GPU hours (failures,
//                                                   restarts and lost work count against it)
//   jobs.finished jobs.unfinished                   jobs; unfinished = queued + running at end
//   cost.total cost.perUsefulGpuHour                node pools' cost (spec.autoscaling)
//   service.NAME.p99 service.NAME.sloAttainment     an inference service of the scenario
//
// Each is the figure `gantry simulate` prints for the same run (sim/summary.hpp,
// sim/reliability_summary.hpp, sim/cost_summary.hpp, sim/serving/service_report.hpp), so a
// sweep point with one seed reports what `gantry simulate` of that variant does. A figure a
// run has no value for (the wait of a run where no job started) is NaN, reported as null.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/simulation.hpp"

namespace gantry {

enum class MetricUnit { kSeconds, kRatio, kCount, kMoney };

struct MetricInfo {
  MetricUnit unit = MetricUnit::kSeconds;
  bool lower_is_better = true;
};

// The metric's kind, or nullopt for a name that is not one above.
std::optional<MetricInfo> metric_info(std::string_view name);

// "wait.mean, wait.p50, ..., service.NAME.sloAttainment": for error messages.
std::string metric_names();

// For a service.NAME.* metric, NAME; empty otherwise.
std::string metric_service(std::string_view name);

// The default metrics of a sweep without `metrics:`.
std::vector<std::string> default_metrics();

// The values of `metrics` for one finished run, in that order.
std::vector<double> measure_run(const SimulationRun& run, const std::vector<std::string>& metrics);

}  // namespace gantry
