#pragma once
// What a Scenario (`gantry serve --world kube --cluster SCENARIO`) gives the live world
// (serve_world.hpp), kept apart from make_kube_world so that a test can check it without an
// API server:
//   spec.cluster                      the model of the cluster (live_cluster.hpp)
//   spec.policy                       the scheduler's policy
//   spec.sim.restartDelay             LiveSchedulerConfig::restart_delay: from a failure that
//                                     kills a gang to when it may be placed again
//   spec.policy.elasticity: goodput   the simulator's step-time throughput model
//                                     (sim/step_time_throughput.hpp), as sim/world_builder does
//   spec.failures.maintenance         drains at their instants (live_maintenance.hpp), started
//                                     by make_kube_world's world; failure processes are not
//                                     played (real hardware fails by itself)

#include "adapters/kube/world/kube_world.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry::web {

// Sets options.model, .scheduler.policy, .scheduler.restart_delay and .scheduler.throughput
// (a process-wide model: nothing to free).
void apply_scenario(const ScenarioSpec& scenario, kube::KubeWorldOptions& options);

}  // namespace gantry::web
