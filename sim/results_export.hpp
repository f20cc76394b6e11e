#pragma once
// Writes a finished simulation run to its results database (schema: sim/results_writer.hpp):
// scenario metadata, one row per job, every eviction, one row per admission queue, the GPU
// time series, every event and the summary. Byte-identical for identical runs.

#include <string>

#include "sim/queue_summary.hpp"
#include "sim/results_writer.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"

namespace gantry {

// Replaces any file at `path`. `queues` are summarize_queues() of the run (empty when admission
// is off; the summary's jobs_inactive_at_end is written only when it is on). Throws StoreError
// if the database cannot be written.
void write_results_database(const std::string& path, const ScenarioSpec& scenario,
                            const SimulationRun& run, const RunSummary& summary,
                            const std::vector<QueueSummary>& queues);

// The same into `writer` (which may hold streamed events and series already: ResultsStream),
// then finishes it.
void write_results_database(ResultsWriter& writer, const ScenarioSpec& scenario,
                            const SimulationRun& run, const RunSummary& summary,
                            const std::vector<QueueSummary>& queues);

// The names of the topology's GPU types, by GpuTypeId (the series rows' gpu_type).
std::vector<std::string> gpu_type_names(const Topology& topology);

// "r1-n000:0-7,r1-n001:0-3": the job's nodes in first-use order, each with its GPU indices
// as ranges; pods without GPUs add their node with no GPU list ("r1-n002").
std::string describe_placement(const Topology& topology, const std::vector<PodPlacement>& pods);

}  // namespace gantry
