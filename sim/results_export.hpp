#pragma once
// Writes a finished simulation run to its results database (schema: sim/results_writer.hpp):
// scenario metadata, one row per job, the GPU time series, every event and the summary.
// Byte-identical for identical runs.

#include <string>

#include "sim/scenario_spec.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"

namespace gantry {

// Replaces any file at `path`. Throws StoreError if the database cannot be written.
void write_results_database(const std::string& path, const ScenarioSpec& scenario,
                            const SimulationRun& run, const RunSummary& summary);

// "r1-n000:0-7,r1-n001:0-3": the job's nodes in first-use order, each with its GPU indices
// as ranges; pods without GPUs add their node with no GPU list ("r1-n002").
std::string describe_placement(const Topology& topology, const std::vector<PodPlacement>& pods);

}  // namespace gantry
