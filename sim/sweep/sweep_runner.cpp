#include "sim/sweep/sweep_runner.hpp"

#include <deque>
#include <mutex>

#include "engine/core/parallel_runs.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "sim/sweep/sweep_metrics.hpp"

namespace gantry {

SweepRunResult run_sweep_point(const SweepSpec& sweep, const ScenarioSpec& variant, size_t point,
                               int seed_index) {
  ScenarioSpec scenario = variant;
  scenario.seed = variant.seed + static_cast<uint64_t>(seed_index);
  const SimulationRun run = run_simulation(scenario);
  return SweepRunResult{.point = point,
                        .seed_index = seed_index,
                        .seed = scenario.seed,
                        .fingerprint = trajectory_fingerprint(run.log),
                        .metrics = measure_run(run, sweep.metrics)};
}

void run_sweep(const SweepSpec& sweep, const std::vector<ScenarioSpec>& variants,
               const SweepRunOptions& options) {
  std::vector<std::pair<size_t, int>> todo;
  for (size_t p = 0; p < sweep.points.size(); ++p)
    for (int s = 0; s < sweep.seeds; ++s)
      if (!options.done.contains({p, s})) todo.emplace_back(p, s);
  // Finished runs wait here until the calling thread takes them (it alone touches the
  // caller's state, the database above all).
  std::mutex mutex;
  std::deque<SweepRunResult> ready;
  const auto hand_over = [&] {
    std::deque<SweepRunResult> taken;
    {
      const std::lock_guard lock(mutex);
      taken.swap(ready);
    }
    for (const SweepRunResult& r : taken)
      if (options.finished) options.finished(r);
  };
  try {
    run_in_order(
        todo.size(), options.threads,
        [&](size_t i, std::stop_token) {
          const auto [point, seed_index] = todo[i];
          SweepRunResult result = run_sweep_point(sweep, variants[point], point, seed_index);
          const std::lock_guard lock(mutex);
          ready.push_back(std::move(result));
        },
        [&](size_t finished) {
          hand_over();
          if (options.progress) options.progress(finished, todo.size());
        });
  } catch (...) {
    hand_over();  // what finished before the failure is kept
    throw;
  }
  hand_over();
}

}  // namespace gantry
