#pragma once
// The files `gantry simulate` runs: a Scenario (sim/scenario_loader.hpp) or an Experiment
// (sim/experiment_loader.hpp), told apart by their `kind`. One parse, one collection of errors:
// a wrong kind is "kind: unknown value 'Pipeline'; expected one of: Scenario, Experiment".
//
// Throws InputErrors (every problem, file:line:col each), or FileError for a file that cannot
// be read.

#include <string>
#include <variant>

#include "sim/cluster_loader.hpp"
#include "sim/experiment_spec.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

using SimulationFile = std::variant<ScenarioSpec, ExperimentSpec>;

SimulationFile load_simulation_file(const std::string& path, const TraceLoaders& traces);

SimulationFile load_simulation_text(const std::string& text, const std::string& file_name,
                                    const TraceLoaders& traces);

}  // namespace gantry
