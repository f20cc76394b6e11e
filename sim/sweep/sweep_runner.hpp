#pragma once
// Runs a sweep's (point, seed) runs on several threads (engine/core/parallel_runs.hpp), each
// the plain `run_simulation` of its point's scenario with seed base + seed_index, and hands each
// finished run to the caller on the calling thread (to store it as it comes: a killed sweep
// keeps what finished). Results do not depend on the number of threads: each run is
// deterministic from its scenario and seed and shares nothing with the others.

#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "sim/scenario_spec.hpp"
#include "sim/sweep/sweep_run.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace gantry {

struct SweepRunOptions {
  unsigned threads = 1;
  // (point, seed_index) pairs already done (a resumed sweep's): not run again.
  std::set<std::pair<size_t, int>> done;
  // Each finished run, on the calling thread, in the order they finish.
  std::function<void(const SweepRunResult&)> finished;
  // Runs finished so far (this call's) out of the runs this call makes; on the calling thread.
  std::function<void(size_t finished, size_t total)> progress;
};

// Runs every run of `sweep` not in options.done; `variants` are build_sweep_variants()'s. A
// run that throws stops the sweep as parallel_runs does (runs already handed over stay handed
// over), and its exception is thrown.
void run_sweep(const SweepSpec& sweep, const std::vector<ScenarioSpec>& variants,
               const SweepRunOptions& options);

// The results of one run: what run_sweep computes for (point, seed_index).
SweepRunResult run_sweep_point(const SweepSpec& sweep, const ScenarioSpec& variant, size_t point,
                               int seed_index);

}  // namespace gantry
