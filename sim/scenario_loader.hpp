#pragma once
// Loading `kind: Scenario` files into a ScenarioSpec (sim/scenario_spec.hpp).
//
// The format, field by field, with every default and the source of each default, is in
// docs at the top of scenario_loader.cpp and in tests/data/scenarios/full.yaml. In short:
//
//   apiVersion: gantry.dev/v1
//   kind: Scenario
//   metadata: {name: quickstart}
//   spec:
//     seed: 42              # default 1
//     start: 2026-01-01T00:00:00Z
//     horizon: 7d           # absent: run until every job has finished
//     cluster: {gpuTypes, fabric, intraNodeLatency, storage, nodeClasses, racks}
//     workload: {jobs, generators}
//     policy: {queue, queueing, placement}
//     sim: {podStartup}
//
// Errors: every problem, syntactic or semantic (unknown GPU type, gpus not a multiple of
// gpusPerPod, duplicate job names...), throws gantry::InputError naming file:line:column, the
// field path and what was expected. A file that cannot be read throws gantry::FileError.
// Nothing else escapes: the fuzz target tests/fuzz/scenario_fuzz.cpp holds the loader to that.

#include <string>

#include "engine/config/reader.hpp"
#include "engine/cluster/topology.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

// Reads and loads the file at `path`; ScenarioSpec::file is `path`.
ScenarioSpec load_scenario_file(const std::string& path);

// Loads a scenario from `text`; `file_name` is used in messages and as ScenarioSpec::file.
ScenarioSpec load_scenario_text(const std::string& text, const std::string& file_name);

// Reads a `cluster:` block (the same shape a future `kind: Cluster` file's spec will have).
// Node names are "<rack>-n000", "<rack>-n001", ...
Topology read_cluster(const ConfigNode& cluster);

}  // namespace gantry
