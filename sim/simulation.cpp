#include "sim/simulation.hpp"

#include "engine/core/event_loop.hpp"
#include "sim/serving/serving_driver.hpp"
#include "sim/world_builder.hpp"

namespace gantry {

namespace {

// The rows of each service's trace, as the scenario's loader read them. A trace load without
// them is a scenario built past the loader: a programming error, not the user's.
std::vector<RequestTrace> service_traces_of(const ScenarioSpec& scenario) {
  const std::vector<ServiceSpec>& services = scenario.workload.services;
  std::vector<RequestTrace> traces = scenario.service_traces;
  traces.resize(services.size());
  for (size_t i = 0; i < services.size(); ++i)
    if (services[i].load.kind == LoadKind::kTrace && !traces[i])
      throw std::invalid_argument("service " + services[i].name +
                                  ": its request trace was not read with the scenario "
                                  "(sim/trace_loaders.hpp)");
  return traces;
}

}  // namespace

SimulationRun run_simulation(const ScenarioSpec& scenario, const ProgressFn& progress,
                             std::ostream* actions, LogSink* sink) {
  SimulationRun run;
  run.start = scenario.start;
  const auto loop = EventLoop::virtual_time(scenario.start);
  const std::unique_ptr<SimulatedWorld> built = build_world(scenario, *loop);
  TrainingWorld& world = *built->world;
  world.set_log_sink(sink);
  std::optional<ActionLog> action_log;
  if (actions != nullptr) {
    action_log.emplace(*actions, *built->cluster);
    world.set_action_log(&*action_log);
  }

  if (progress) {
    // Report about 200 times per run: often enough for a smooth bar, rare enough to be free.
    const size_t every = std::max<size_t>(1, built->jobs.size() / 200);
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

  // Without a horizon the run ends with its last job: failure processes and node pools would
  // otherwise keep it going (drawn faults, repairs, idle nodes waiting to be scaled down).
  if (!scenario.horizon && (!scenario.failures.empty() || built->pools)) {
    world.on_finish([&world, &loop](JobId) {
      if (!world.busy() && world.pending_jobs().empty()) loop->stop();
    });
  }
  // Services (spec.workload.services): their replicas are jobs of this world; the loader
  // requires a horizon with them (a service's load has no end).
  std::optional<ServingDriver> serving;
  if (!scenario.workload.services.empty()) {
    serving.emplace(*loop, world, scenario.workload.services, service_traces_of(scenario),
                    scenario.seed, scenario.start,
                    ServiceRun::Options{scenario.sim.service_report_interval,
                                        action_log ? &*action_log : nullptr});
  }
  // Services alone finish no jobs: their wake-ups move the bar (every 0.5 % of the horizon).
  double reported = 0;
  if (progress && serving && scenario.horizon) {
    serving->on_wake([&](Time now) {
      const double f = static_cast<double>((now - scenario.start).micros()) /
                       static_cast<double>(scenario.horizon->micros());
      if (f - reported < 0.005) return;
      reported = f;
      progress(std::min(f, 1.0));
    });
  }
  world.start();
  if (built->pools) built->pools->start();
  if (serving) serving->start();
  if (scenario.horizon) {
    loop->run_until(scenario.start + *scenario.horizon);
  } else {
    loop->run();
  }
  if (progress) progress(1.0);

  run.end = loop->now();
  if (serving) run.services = serving->finish(run.end);
  run.events_dispatched = loop->dispatched();
  run.queued_at_end = built->scheduler->queued();
  run.log = world.take_log();
  run.submitted = world.take_submitted();
  if (built->pools) run.log.pools = built->pools->log(run.end);
  // Moving the vector keeps its elements where they are, so the log's JobLog::spec pointers
  // stay valid in `run`.
  run.jobs = std::move(built->jobs);
  run.cluster = std::move(built->cluster);
  return run;
}

}  // namespace gantry
