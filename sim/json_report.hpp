#pragma once
// The machine-readable report of `gantry simulate --format json`. Its shape is stable and
// documented in sim/README.md ("JSON report").

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/cost_summary.hpp"
#include "sim/queue_summary.hpp"
#include "sim/reliability_summary.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/serving/service_report.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_log.hpp"
#include "sim/summary.hpp"

namespace gantry {

// The report. With admission on (scenario.policy.admission has queues) it also has
// "jobs"."inactive_at_end" and a "queues" array, one object per row of `queues`
// (summarize_queues()); without, neither key is there, so the shape is the one consumers
// knew before admission existed.
// With `reliability` it also has "reliability": {"fault_events", "job_kills", "evictions",
// "gpu_hours": {"allocated", "useful", "lost"}, "goodput", "restarts_per_job", "max_restarts",
// "by_size": [{"min_gpus", "max_gpus" (null: no bound), "jobs", "running_hours", "failures",
// "mtbf_hours" (null without failures)}]}. With `cost` it has "cost": {"total", "spot",
// "on_demand", "per_finished_job", "per_useful_gpu_hour", "spot_per_useful_gpu_hour",
// "on_demand_per_useful_gpu_hour", "pools": [{"name", "capacity" ("spot" | "on-demand"),
// "price_per_hour", "nodes_added", "nodes_removed", "peak_nodes", "reclaims", "node_hours",
// "cost"}]}. With `services` (non-empty) it has "services" (sim/serving/service_json.hpp).
nlohmann::ordered_json json_report(const ScenarioSpec& scenario, const RunSummary& summary,
                                   const std::vector<QueueSummary>& queues,
                                   const std::string& results_path,
                                   const ReliabilitySummary* reliability = nullptr,
                                   const CostSummary* cost = nullptr,
                                   const std::vector<ServiceReport>* services = nullptr);

// What `gantry simulate` reports beside the summary, decided from the run: reliability figures
// when anything could fail or be drained (failure processes, injected faults, faults or
// interrupted jobs in the log), cost when the run had node pools.
struct RunFigures {
  std::optional<ReliabilitySummary> reliability;
  std::optional<CostSummary> cost;
};
RunFigures run_figures(const ScenarioSpec& scenario, const SimulationRun& run);

// The whole `--format json` document of a run (json_report with its figures and services).
nlohmann::ordered_json run_json_report(const ScenarioSpec& scenario, const SimulationRun& run,
                                       const RunSummary& summary,
                                       const std::vector<QueueSummary>& queues,
                                       const std::string& results_path);

// Every job of the log, in JobId order (`--jobs`):
//   {"name", "queue", "priority", "submit", "admitted", "start", "end", "state", "replicas",
//    "evictions": [{"at", "reason", "by"}]}
// Instants are RFC 3339 UTC, null when the job never got there; start is when every pod ran,
// end when it finished. queue is null without admission; by is the preemptor's name, null
// when no job caused the eviction. Every JobLog must have its spec.
nlohmann::ordered_json json_jobs(const SimulationLog& log);

}  // namespace gantry
