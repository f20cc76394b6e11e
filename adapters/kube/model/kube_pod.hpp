#pragma once
// What Gantry reads from a Kubernetes Pod object (core/v1): who schedules it, what it asks
// for, which gang it belongs to, where it runs and how it ended.
//
// Requests are the pod's effective request, as kube-scheduler computes it: per resource the
// larger of the sum over containers and the largest init container, plus spec.overhead. A
// resource with a limit and no request requests its limit (the API server's defaulting, done
// here too for objects that did not pass through it).
//
// Gantry's annotations and labels (adapters/kube/README.md):
//   label      gantry.dev/gang            the gang: pods with the same value (in one namespace)
//                                         are bound all together or not at all
//   annotation gantry.dev/gang-size       how many pods the gang has (it waits for all)
//   label      gantry.dev/queue           the admission queue the gang waits in (`gantry serve
//                                         --admission`); every pod of a gang names the same
//   annotation gantry.dev/gpu-milli       a share of one GPU, 1..1000 (instead of nvidia.com/gpu)
//   annotation gantry.dev/gpu-mem         GPU memory of the share, a quantity ("10Gi")
//   annotation gantry.dev/gpu-index       the GPUs chosen, "0,1" (written before binding)
//   annotation gantry.dev/simulate-duration  how long kubelet-sim runs the pod ("20m")
//   annotation gantry.dev/elastic-min, gantry.dev/elastic-max   the gang's Worker role may be
//                                         resized within min..max replicas (JobSpec::elastic;
//                                         both or neither, 1 <= min <= max)
//   annotation gantry.dev/elastic-step    policies resize by multiples of it (default 1)
//   annotation gantry.dev/resize-cost     a resize's checkpoint and restart ("30s", at most 1d)
//   annotation gantry.dev/restart-policy  Never | OnFailure | ExitCode (JobSpec::restart_policy;
//                                         default OnFailure, the simulator's)
// The elastic annotations need elastic-min and elastic-max; the other two alone are an error
// (a typo'd key would otherwise leave a job silently rigid).
// Without the gang label, a pod with a controller owner reference is in the gang of that
// owner (its uid), size unknown (0); a pod with neither is a gang of one. So is a replica of an
// inference service (label gantry.dev/service, adapters/kube/serving): its ReplicaSet is its
// controller, but replicas are independent — one placed must not wait for the others.
//
// Errors: parse_pod() throws InputError naming "Pod <namespace>/<name>" and the field.
//
// Thread-safety: pure functions.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/node_labels.hpp"
#include "engine/cluster/resources.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

inline constexpr std::string_view kGangLabel = "gantry.dev/gang";
// The inference service a serving pod is a replica of (adapters/kube/serving/serving_objects.hpp).
inline constexpr std::string_view kServiceLabel = "gantry.dev/service";
inline constexpr std::string_view kGangSizeAnnotation = "gantry.dev/gang-size";
// The admission queue (JobSpec::queue) of the pod's gang: a label, so it can be selected on.
inline constexpr std::string_view kQueueLabel = "gantry.dev/queue";
inline constexpr std::string_view kGpuMilliAnnotation = "gantry.dev/gpu-milli";
inline constexpr std::string_view kGpuMemAnnotation = "gantry.dev/gpu-mem";
inline constexpr std::string_view kGpuIndexAnnotation = "gantry.dev/gpu-index";
inline constexpr std::string_view kSimulateDurationAnnotation = "gantry.dev/simulate-duration";
// The pod's place in its gang (the simulator's pod order: role by role, replica by replica).
inline constexpr std::string_view kGangIndexAnnotation = "gantry.dev/gang-index";
// The training operators' role label (Kubeflow's), read for the role of a gang's pod.
inline constexpr std::string_view kReplicaTypeLabel = "training.kubeflow.org/replica-type";
// How kubelet-sim ends the pod: succeeded | failed | error (the task's simulate outcomes);
// failed is exit code 1, error a pod Failed with status.reason Evicted.
inline constexpr std::string_view kSimulateOutcomeAnnotation = "gantry.dev/simulate-outcome";
inline constexpr std::string_view kDefaultScheduler = "default-scheduler";
// Elasticity of the pod's gang (JobSpec::elastic, restart_policy); see above.
inline constexpr std::string_view kElasticMinAnnotation = "gantry.dev/elastic-min";
inline constexpr std::string_view kElasticMaxAnnotation = "gantry.dev/elastic-max";
inline constexpr std::string_view kElasticStepAnnotation = "gantry.dev/elastic-step";
inline constexpr std::string_view kResizeCostAnnotation = "gantry.dev/resize-cost";
inline constexpr std::string_view kRestartPolicyAnnotation = "gantry.dev/restart-policy";

struct OwnerReference {
  std::string kind;
  std::string name;
  std::string uid;
};

struct KubePod {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  Labels labels;
  Labels annotations;
  std::string scheduler_name;  // spec.schedulerName, "default-scheduler" when absent
  std::string node_name;       // spec.nodeName: bound when non-empty
  std::string phase;           // status.phase: Pending, Running, Succeeded, Failed, Unknown
  int32_t priority = 0;        // spec.priority
  Resources request;           // effective request; gpu_milli from gantry.dev/gpu-milli
  int64_t gpu_memory_bytes = 0;
  Labels node_selector;
  std::vector<Toleration> tolerations;
  std::optional<OwnerReference> controller;  // the owner reference with controller: true
  std::string gang;                          // "" for a gang of one
  int32_t gang_size = 1;                     // 0: unknown (an owner's gang)
  std::string queue;                         // gantry.dev/queue; "" when absent
  std::vector<int> gpu_index;                // gantry.dev/gpu-index
  std::optional<Duration> simulate_duration;
  ElasticSpec elastic;                          // not enabled() without the annotations
  std::optional<RestartPolicy> restart_policy;  // gantry.dev/restart-policy, when present
  bool deleting = false;                        // metadata.deletionTimestamp is set
  // metadata.deletionGracePeriodSeconds (set with deletionTimestamp: how long the server gives
  // the kubelet) and spec.terminationGracePeriodSeconds, when present.
  std::optional<int64_t> deletion_grace_seconds;
  std::optional<int64_t> termination_grace_seconds;
  // How it ended, for a finished pod: the first terminated container's exit code and reason,
  // and status.reason ("Evicted", "NodeLost", ...).
  std::optional<int32_t> exit_code;
  std::string termination_reason;
  std::string status_reason;

  // "namespace/name": the key informers and the scheduler use.
  std::string key() const { return namespace_name + "/" + name; }
};

KubePod parse_pod(const nlohmann::json& pod);

}  // namespace gantry::kube
