#pragma once
// `gantry simulate` on a scenario with a fragmentation experiment: loads the traces, runs every
// (policy, seed) on all cores, prints the tables or the JSON, and writes curves.csv,
// unallocated.svg and results.db in the output directory.

#include "sim/scenario_spec.hpp"
#include "tools/gantry/simulate_options.hpp"

namespace gantry::cli {

void run_fragmentation_scenario(const ScenarioSpec& scenario, const SimulateOptions& options);

}  // namespace gantry::cli
