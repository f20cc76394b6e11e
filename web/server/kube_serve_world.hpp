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
//   spec.workload.services            LiveServing's services (live_services())

#include "adapters/kube/world/kube_world.hpp"
#include "sim/scenario_spec.hpp"
#include "workflow/runner/run.hpp"

namespace gantry::kube {
class KubeClient;
}

namespace gantry::web {

// The logs of the pods of attempt `id` (label gantry.dev/attempt-id) in namespace `ns`, each
// line prefixed "[pod-name] "; when the API server cannot be asked, or refuses, or no pod is
// left, a sentence saying so (never an exception). Blocking; any thread.
std::string read_pod_logs(kube::KubeClient& client, const std::string& ns, AttemptId id);

// Sets options.model, .scheduler.policy, .scheduler.restart_delay and .scheduler.throughput
// (a process-wide model: nothing to free).
void apply_scenario(const ScenarioSpec& scenario, kube::KubeWorldOptions& options);

// The services as the live world runs them. Scaling back up from zero needs to see requests
// while no pod serves them: an activator's series, which only a shared endpoint
// (--serving-metrics, kubelet-sim's) reports. Without one (`activator` false), a KPA with
// minReplicas 0 would stay at zero once there; it is kept at one replica instead, and a note
// in `notes` says so for the server's first line.
std::vector<ServiceSpec> live_services(const std::vector<ServiceSpec>& services, bool activator,
                                       std::vector<std::string>& notes);

}  // namespace gantry::web
