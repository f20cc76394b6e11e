#pragma once
// `gantry tune SERVICE.yaml --slo p99=2s`: the cheapest (GPU model, GPU share, max batch,
// replicas) that holds the SLO at the service's peak load (sim/serving/spec_tuner.hpp), with the
// search's cost (grid points simulated, of how many) and, unless --no-exhaustive, the answer of
// simulating every point next to it. SERVICE.yaml is a kind: InferenceService file, or a
// Scenario with services (--service NAME picks one when it has several).

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_tune_command(CLI::App& app);

}  // namespace gantry::cli
