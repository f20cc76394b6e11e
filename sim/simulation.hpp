#pragma once
// Runs a Scenario in virtual time: builds the cluster and the workload, wires the event loop,
// the scheduler and the training world together, runs to the horizon (or until every job has
// finished: with failures or node pools, the run ends at the last job's end, not at the last
// repair or scale-down) and returns the log and the workload it refers to.
//
// Deterministic: the same ScenarioSpec (seed included) gives an identical SimulationRun.

#include <deque>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/serving/service_report.hpp"
#include "sim/simulation_log.hpp"

namespace gantry {

struct SimulationRun {
  std::vector<JobSpec> jobs;         // the workload, sorted by submit; JobId = index
  SimulationLog log;                 // its JobLog::spec pointers point into `jobs`
  std::unique_ptr<Cluster> cluster;  // the cluster as left at the end
  Time start;
  Time end;  // the horizon, or the last event's time
  uint64_t events_dispatched = 0;
  size_t queued_at_end = 0;             // jobs still waiting for placement
  std::vector<ServiceReport> services;  // spec.workload.services, in order
  // Jobs submitted during the run (services' replicas), after `jobs` in JobId order; the log's
  // JobLog::spec pointers of those jobs point here.
  std::deque<JobSpec> submitted;
};

// Called now and then with the fraction done in [0, 1]: finished jobs over all jobs, or the
// share of the horizon elapsed when the scenario has one.
using ProgressFn = std::function<void(double)>;

// Throws std::invalid_argument if the scenario names an unknown placement plugin. With
// `actions`, every action and observation between the scheduler and the world is written there
// (engine/policy/action_log.hpp), one JSON line each.
// With `sink`, the events and the series go there as they happen (LogSink) and the returned
// log has none; what the sink throws leaves the run.
SimulationRun run_simulation(const ScenarioSpec& scenario, const ProgressFn& progress = {},
                             std::ostream* actions = nullptr, LogSink* sink = nullptr);

}  // namespace gantry
