#include "sim/simulation.hpp"

#include "engine/core/event_loop.hpp"
#include "engine/core/random.hpp"
#include "engine/policy/scheduler.hpp"
#include "sim/training_world.hpp"
#include "sim/workload_generator.hpp"

namespace gantry {

SimulationRun run_simulation(const ScenarioSpec& scenario, const ProgressFn& progress,
                             std::ostream* actions) {
  SimulationRun run;
  run.start = scenario.start;
  run.cluster = std::make_unique<Cluster>(scenario.topology);
  run.jobs = build_workload(scenario.workload, scenario.start, RandomStreams(scenario.seed));

  Scheduler scheduler(scenario.policy);
  const auto loop = EventLoop::virtual_time(scenario.start);
  TrainingWorld world(*loop, *run.cluster, scheduler, scenario.sim, run.jobs);
  std::optional<ActionLog> action_log;
  if (actions != nullptr) {
    action_log.emplace(*actions, *run.cluster);
    world.set_action_log(&*action_log);
  }

  if (progress) {
    // Report about 200 times per run: often enough for a smooth bar, rare enough to be free.
    const size_t every = std::max<size_t>(1, run.jobs.size() / 200);
    const std::optional<Time> horizon =
        scenario.horizon ? std::optional<Time>(scenario.start + *scenario.horizon) : std::nullopt;
    world.on_progress([&, every, horizon](size_t done, size_t total) {
      if (done % every != 0 && done != total) return;
      if (horizon) {
        progress(static_cast<double>((loop->now() - scenario.start).micros()) /
                 static_cast<double>((*horizon - scenario.start).micros()));
      } else {
        progress(static_cast<double>(done) / static_cast<double>(total));
      }
    });
  }

  world.start();
  if (scenario.horizon) {
    loop->run_until(scenario.start + *scenario.horizon);
  } else {
    loop->run();
  }
  if (progress) progress(1.0);

  run.end = loop->now();
  run.events_dispatched = loop->dispatched();
  run.queued_at_end = scheduler.queued();
  run.log = world.take_log();
  return run;
}

}  // namespace gantry
