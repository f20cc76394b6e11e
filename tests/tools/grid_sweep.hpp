#pragma once
// The sweep of the distributed-sweep tests (sweep-worker, --on kubernetes): 2 placements × 2
// rack sizes of the quickstart, 3 seeds: 12 runs, 4 shards of 3 runs (split_runs).

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/tools/cli_harness.hpp"

namespace gantry::testing {

inline const char* kGridSweep = R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: grid}
spec:
  base: quickstart.yaml
  seeds: 3
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread]}
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [6, 8]}
  metrics: [wait.p95, jct.mean, gpu.allocated, jobs.finished]
)";

// Writes the quickstart and kGridSweep into `dir`; returns the sweep file's path.
inline std::string write_grid_sweep(const std::filesystem::path& dir) {
  std::ofstream(dir / "quickstart.yaml")
      << slurp(std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  std::ofstream(dir / "sweep.yaml") << kGridSweep;
  return (dir / "sweep.yaml").string();
}

}  // namespace gantry::testing
