#pragma once
// `gantry simulate` on an Experiment file (kind: Experiment): runs it (sim/experiment_runner.hpp)
// on --parallel threads (default: all cores) with one progress bar counting its runs, prints the
// tables or the JSON, and writes curves.csv, unallocated.svg and results.db in the output
// directory.

#include "sim/experiment_spec.hpp"
#include "tools/gantry/simulate_options.hpp"

namespace gantry::cli {

void run_experiment_file(const ExperimentSpec& experiment, const SimulateOptions& options);

}  // namespace gantry::cli
