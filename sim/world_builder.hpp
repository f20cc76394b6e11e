#pragma once
// The simulated world of a Scenario, built in one place for `gantry simulate`
// (sim/simulation.hpp) and `gantry pipeline run --cluster` (where pipeline tasks join the
// scenario's workload): the Cluster of its topology, its workload expanded into jobs (the
// generators drawn from the scenario's seed), its Scheduler, and the TrainingWorld that ties
// them to an event loop.
//
// Ownership: a SimulatedWorld owns all four; the TrainingWorld refers to the other three, so
// build_world() hands it out on the heap, where it stays put. The event loop must outlive it.

#include <memory>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/cluster/job.hpp"
#include "engine/core/event_loop.hpp"
#include "engine/policy/scheduler.hpp"
#include "sim/node_pools.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/training_world.hpp"

namespace gantry {

struct SimulatedWorld {
  std::vector<JobSpec> jobs;  // the workload sorted by submit time; JobId = index
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<TrainingWorld> world;   // refers to jobs, *cluster and *scheduler
  std::unique_ptr<NodePoolDriver> pools;  // with spec.autoscaling pools; refers to *world
};

// Builds the world of `scenario` on `loop`, whose clock should read scenario.start. Does not
// start it: call world->start() (and pools->start(), if any) once before running the loop. Throws
// std::invalid_argument for a placement plugin no one registered (Scheduler's constructor).
std::unique_ptr<SimulatedWorld> build_world(const ScenarioSpec& scenario, EventLoop& loop);

// `scenario` moved in time to begin at `start`: the explicit jobs' submit times move with it
// (generated arrivals count from spec.start already). For a cluster switched on mid-replay.
ScenarioSpec starting_at(ScenarioSpec scenario, Time start);

}  // namespace gantry
