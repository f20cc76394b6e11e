#pragma once
// Reading `kind: Sweep` files into a SweepSpec:
//
//   apiVersion: gantry.dev/v1
//   kind: Sweep
//   metadata: {name: placement-vs-fabric}
//   spec:
//     base: ../quickstart.yaml       # a Scenario; relative to this file's folder
//     seeds: 5                       # default 1; seed i of a point is the base's seed + i
//     growth: 1.5                    # default 1; arrivals × 1.5 in every point (as a Plan's
//                                    # forecast step: sim/sweep/load_growth.hpp)
//     axes:                          # the cartesian product of their values ...
//     - {name: placement, path: spec.policy.placement, values: [binpack, spread, topology]}
//     - {name: nodes, path: spec.cluster.racks[*].nodes, values: [6, 8, 10]}
//     points:                        # ... or these combinations instead (axes without values)
//     - {placement: binpack, nodes: 6}
//     metrics: [wait.p95, jct.mean]  # default: wait.p95, jct.mean, gpu.allocated
//
// Limits: 1..1000 seeds, 1..16 axes, at most 100,000 runs (points × seeds). Axis names are
// letters, digits, '_' and '-', start with a letter, are unique, and are neither a metric's
// name nor point, seed, seed_index or fingerprint (the results' columns); a path is one of
// sim/sweep/document_path.hpp's. A product needs every axis to have values; `points` needs
// every point to give a value for every axis and nothing else.
//
// This checks the sweep file only. Whether each path exists in the base and each value makes
// a valid scenario is sim/sweep/sweep_variants.hpp's check, before anything runs.
//
// Errors: every problem collected and thrown as InputErrors ("file:line:col: field: message").

#include <string>

#include "engine/config/reader.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace gantry {

inline constexpr int kMaxSweepSeeds = 1000;
inline constexpr size_t kMaxSweepAxes = 16;
inline constexpr size_t kMaxSweepRuns = 100000;
// spec.growth's bounds: a Plan's forecast steps' (sim/plan/plan_loader.hpp).
inline constexpr double kMinSweepGrowth = 0.01;
inline constexpr double kMaxSweepGrowth = 100;

SweepSpec load_sweep_text(const std::string& text, const std::string& file_name);

// The file a `base:` field names, resolved against the folder of the file it is written in;
// InputError at the field ("no such file: ...") when it is not a regular file. Sweeps and plans.
std::string base_file_path(const ConfigNode& node);
SweepSpec load_sweep_file(const std::string& path);

}  // namespace gantry
