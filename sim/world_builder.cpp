#include "sim/world_builder.hpp"

#include "engine/core/random.hpp"
#include "sim/step_time_throughput.hpp"
#include "sim/workload_generator.hpp"

namespace gantry {

std::unique_ptr<SimulatedWorld> build_world(const ScenarioSpec& scenario, EventLoop& loop) {
  auto w = std::make_unique<SimulatedWorld>();
  w->cluster = std::make_unique<Cluster>(scenario.topology);
  w->jobs = build_workload(scenario.workload, scenario.start, RandomStreams(scenario.seed));
  w->scheduler = std::make_unique<Scheduler>(scenario.policy);
  // The goodput elasticity policy asks the step-time model how fast a job would go at a size.
  static const StepTimeThroughput step_time_throughput;
  if (scenario.policy.elasticity.has(ElasticPolicy::kGoodput))
    w->scheduler->set_throughput_model(&step_time_throughput);
  w->world =
      std::make_unique<TrainingWorld>(loop, *w->cluster, *w->scheduler, scenario.sim, w->jobs);
  if (!scenario.injected_faults.empty()) w->world->schedule_faults(scenario.injected_faults);
  if (!scenario.autoscaling.pools.empty())
    w->pools =
        std::make_unique<NodePoolDriver>(loop, *w->world, scenario.autoscaling, scenario.seed);
  if (!scenario.failures.empty())
    w->world->schedule_faults(std::make_unique<FaultTimeline>(scenario.failures, scenario.topology,
                                                              scenario.start, scenario.seed));
  return w;
}

ScenarioSpec starting_at(ScenarioSpec scenario, Time start) {
  const Duration shift = start - scenario.start;
  for (JobSpec& job : scenario.workload.jobs) job.submit += shift;
  scenario.start = start;
  return scenario;
}

}  // namespace gantry
