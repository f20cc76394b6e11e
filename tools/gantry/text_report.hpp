#pragma once
// The human-readable report of `gantry simulate`: what ran, how the jobs fared, how busy the
// GPUs were, and with admission on, how each queue fared.

#include <string>
#include <vector>

#include "sim/cost_summary.hpp"
#include "sim/queue_summary.hpp"
#include "sim/reliability_summary.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/serving/service_report.hpp"
#include "sim/summary.hpp"

namespace gantry::cli {

// With admission on (scenario.policy.admission has queues), the jobs table gains an inactive
// column and a Queues section lists `queues` (summarize_queues()); without, neither shows.
// With `reliability` (a run with failures or drains), a Reliability section shows it; with
// `cost` (a run with node pools), a Node pools section; with `services` (non-empty), a Services
// section (serving_report.hpp).
std::string text_report(const ScenarioSpec& scenario, const RunSummary& summary,
                        const std::vector<QueueSummary>& queues, const std::string& results_path,
                        const ReliabilitySummary* reliability = nullptr,
                        const CostSummary* cost = nullptr,
                        const std::vector<ServiceReport>* services = nullptr);

}  // namespace gantry::cli
