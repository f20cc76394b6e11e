#pragma once
// The world `gantry serve` runs its tasks in (--world), behind one seam (DESIGN.md rule 3):
//   sim   the simulated cluster of a Scenario (--cluster), beside that scenario's own jobs
//         and services (sim/serving/serving_driver.hpp): sim/world_builder.hpp, tasks through
//         ClusterTaskExecutor;
//   kube  a live Kubernetes cluster (--kubeconfig): the live world of adapters/kube (informers,
//         the shared Scheduler placing pods of --scheduler-name, KubePodBinder), tasks as pods
//         through KubeTaskExecutor. --cluster, when given, is the model of the cluster
//         (adapters/kube/world/live_cluster.hpp), its policy, restart delay and maintenance
//         schedule the scheduler's (kube_serve_world.hpp); --admission,
//         a kind: Admission file (sim/admission_file.hpp), gives the scheduler admission queues
//         (replacing any the scenario's policy has), and --queue names the one the pipelines'
//         pods wait in (one of its queues). The scenario's inference services
//         (spec.workload.services) become a Deployment and a Service per predictor, scaled by
//         the simulator's autoscalers (adapters/kube/serving/live_serving.hpp) from metrics
//         scraped off the pods or off --serving-metrics; with leader election, only the leader
//         writes replica counts.
// The server reads the cluster and the scheduler's queue from it for /cluster, /cluster/queue
// and /metrics, and hands its run scheduler the world's TaskExecutor.
//
// Threads: the event loop's, like the rest of ServeEngine.

#include <memory>
#include <string>

#include "engine/cluster/cluster.hpp"
#include "engine/core/event_loop.hpp"
#include "engine/policy/action_log.hpp"
#include "engine/policy/scheduler.hpp"
#include "engine/policy/unplaced_reason.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry::web {

struct KubeServeOptions {
  std::string kubeconfig;  // path; empty: $KUBECONFIG, else ~/.kube/config
  std::string context;
  std::string namespace_name;  // of the pipelines' pods; empty: the kubeconfig's
  std::string scheduler_name = "gantry";
  bool leader_elect = false;
  std::string identity;        // this replica; empty: host name and process id
  std::string admission_file;  // kind: Admission; empty: the scenario's admission, if any
  std::string queue;           // admission queue of the pipelines' pods (label); empty: none
  // Where the scenario's inference services' metrics are scraped: one Prometheus endpoint for
  // every serving pod (kubelet-sim's --metrics-listen); empty: each ready pod's own
  // http://<pod IP>:9090/metrics.
  std::string serving_metrics;
};

class ServeWorld {
 public:
  virtual ~ServeWorld() = default;
  virtual const Cluster& cluster() const = 0;
  virtual const Scheduler& scheduler() const = 0;
  virtual TaskExecutor& executor() = 0;
  // Before the run scheduler's recover(): a live world starts its informers and waits for
  // their first lists, so that adopt() finds the pods of a previous life.
  virtual void prepare() {}
  // After the run scheduler switched on.
  virtual void start() = 0;
  // Stops threads (informers, API workers); on the loop thread or after it stopped.
  virtual void stop() {}
  // Every bind and observation of the world, one JSON line each (action_log.hpp).
  virtual void set_action_log(ActionLog* log) = 0;
  // "sim: scenarios/quickstart.yaml" or "kube: https://10.0.0.1:6443 (context prod)".
  virtual std::string describe() const = 0;
  // Why pending workload `job` waits, worked out from the scheduler's last cycles and the
  // cluster as it is now (Scheduler::pending_reason(); a live world gives its node bars, and
  // its FailedScheduling Events say the same), or "" when it is not waiting. Loop thread.
  virtual std::string pending_reason(JobId job) const {
    return scheduler().pending_reason(cluster(), job, ClusterBars(cluster()));
  }
  // The workload of the cluster an attempt became (a distributed task's gang in the
  // simulated world), or -1. Loop thread.
  virtual JobId job_of(AttemptId /*id*/) const { return -1; }
  // Whether attempts run as pods of a live cluster, whose logs pod_logs() reads.
  virtual bool live() const { return false; }
  // The logs of the attempt's pods, every line prefixed "[pod-name] ", or a sentence saying
  // why they cannot be read (the API server's error, no pods left). Any thread (blocking
  // requests to the API server; never on the loop thread).
  virtual std::string pod_logs(AttemptId /*id*/) { return {}; }
};

// The simulated world of `scenario_file` from the loop's now; throws InputError for a bad file.
std::unique_ptr<ServeWorld> make_sim_world(EventLoop& loop, const std::string& scenario_file,
                                           uint64_t seed);
// The live world; throws InputError(s) for a bad admission file, kubeconfig or scenario,
// GantryError when the API server cannot be reached for the first lists.
std::unique_ptr<ServeWorld> make_kube_world(EventLoop& loop, const KubeServeOptions& options,
                                            const std::string& scenario_file);

}  // namespace gantry::web
