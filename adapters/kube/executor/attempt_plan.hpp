#pragma once
// What one pipeline attempt becomes in a Kubernetes cluster: the names, labels, annotations
// and bodies of its objects, worked out before anything is sent (issue #11, "Pipelines in the
// cluster"). KubeTaskExecutor creates them; the executor's README (adapters/kube/executor/
// README.md) is the user-facing description.
//
// Objects of an attempt, all in one namespace and all named from the attempt's base name
// (attempt_base_name(): deterministic in pipeline, task, logical time and attempt id):
//   - a ConfigMap <base>, the attempt's owner: created first; every other object carries an
//     ownerReference to it, so deleting it garbage-collects the attempt. Its data lists the
//     pods in gang order ("pods") and, for an mpijob, holds the MPI hostfile ("hostfile").
//   - a headless Service <base> (distributed templates only): clusterIP None, selecting the
//     gang, publishing not-ready addresses, so each pod is reachable as
//     <pod>.<base>.<namespace>.svc as soon as it has an IP.
//   - the pods: one for a `container` task (named <base>); for a distributed task one per
//     replica, named <base>-<role>-<index>, in the simulator's start order (roles of start
//     stage 0 — ps, chief, master/head/driver, launcher — before the others, each group in
//     role-name order; engine/cluster/job.hpp start_stage, as ClusterTaskExecutor orders them).
//
// Every pod: spec.schedulerName (options), restartPolicy Never, the gang label and
// annotations (gantry.dev/gang = <base>, gang-size, gang-index in pod order), the Kubeflow
// replica-type/replica-index labels, requests for cpu/memory and nvidia.com/gpu (requests
// and limits; a share of one GPU is the gantry.dev/gpu-milli annotation instead), a
// nodeSelector nvidia.com/gpu.product when the task names a GPU type, the task's simulate
// block as annotations (for kubelet-sim), and the framework's environment:
//   tfjob        TF_CONFIG {"cluster":{role:[host:port...]...},"task":{"type","index"},
//                "environment":"cloud"}; evaluators are not in the cluster spec (as Kubeflow's
//                training operator does)
//   pytorchjob   MASTER_ADDR (pod 0's DNS name), MASTER_PORT, WORLD_SIZE (pods), RANK (pod order)
//   xgboostjob   the same as pytorchjob
//   mpijob       OMPI_MCA_orte_default_hostfile=<dir>/hostfile, the ConfigMap's hostfile mounted
//                at <dir> (every pod; lines "<pod dns> slots=<gpus or 1>" for each worker)
// plus GANTRY_PIPELINE, GANTRY_TASK, GANTRY_LOGICAL_TIME, GANTRY_ATTEMPT, GANTRY_ATTEMPT_ID and
// the pipeline's `env` (names the framework sets win).
//
// rayjob and sparkjob are refused (AttemptPlan::refused): their operators are not modelled.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/time.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry::kube {

// Labels on every object of an attempt.
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kManagedByGantry = "gantry";
inline constexpr std::string_view kPipelineLabel = "gantry.dev/pipeline";
inline constexpr std::string_view kRunLabel = "gantry.dev/run";  // logical time, 20260101T000000Z
inline constexpr std::string_view kTaskLabel = "gantry.dev/task";
inline constexpr std::string_view kAttemptIdLabel = "gantry.dev/attempt-id";  // AttemptId
inline constexpr std::string_view kAttemptLabel = "gantry.dev/attempt";       // attempt index
// Labels of pods.
inline constexpr std::string_view kReplicaIndexLabel = "training.kubeflow.org/replica-index";
// Annotations: the names as written (labels hold sanitised copies) and the pod's place.
inline constexpr std::string_view kPipelineNameAnnotation = "gantry.dev/pipeline-name";
inline constexpr std::string_view kTaskNameAnnotation = "gantry.dev/task-name";
inline constexpr std::string_view kLogicalTimeAnnotation = "gantry.dev/logical-time";  // RFC 3339
// kGangIndexAnnotation, kReplicaTypeLabel, kSimulateOutcomeAnnotation: model/kube_pod.hpp.

// The longest base name: pod names (<base>-<role ≤ 12>-<index>) stay DNS labels (≤ 63), as a
// pod's hostname must be one.
inline constexpr size_t kMaxBaseName = 40;

struct AttemptPlanOptions {
  // Namespace of the attempt's objects; empty: the pipeline's (PipelineSpec::namespace_name).
  std::string namespace_name;
  std::string scheduler_name = "gantry";
  // For tasks without an image (pipelines written for the simulator): kubelet-sim plays the
  // pod whatever its image; a real kubelet runs this one.
  std::string default_image = "registry.k8s.io/pause:3.9";
  int tf_port = 2222;        // Kubeflow's defaults
  int pytorch_port = 23456;  // MASTER_PORT of pytorchjob
  int xgboost_port = 9999;   // MASTER_PORT of xgboostjob
  std::string mpi_hostfile_dir = "/etc/mpi";
  // The admission queue of every attempt's pods (label gantry.dev/queue, for a scheduler with
  // admission queues: `gantry serve --admission`); empty: no label.
  std::string queue;
};

struct PlannedPod {
  std::string name;
  std::string role;  // the replica name as written ("master"); "" for a container task
  int replica_index = 0;
  int gang_index = 0;
  nlohmann::json body;  // without ownerReferences (set_owner())
};

struct AttemptPlan {
  AttemptId id = 0;
  std::string namespace_name;
  std::string base;  // the owner ConfigMap's, the Service's and the gang's name
  // Non-empty: the attempt cannot run here, and why (the objects below are empty).
  std::string refused;
  nlohmann::json owner;    // the ConfigMap
  nlohmann::json service;  // null for a container task
  std::vector<PlannedPod> pods;
};

// Every object of the attempt. `request.pipeline` and `request.task` are read, not kept.
AttemptPlan plan_attempt(const AttemptRequest& request, const AttemptPlanOptions& options);

// Sets `body`'s metadata.ownerReferences to the attempt's owner ConfigMap.
void set_owner(nlohmann::json& body, const std::string& owner_name, const std::string& owner_uid);

// <pipeline>-<task>-<YYYYMMDDhhmmss>-a<id>, made a DNS-1035 label (lower case, [a-z0-9-],
// starting with a letter); longer than kMaxBaseName: its first 31 characters, '-' and 8 hex
// digits of a hash of all four inputs.
std::string attempt_base_name(std::string_view pipeline, std::string_view task, Time logical_time,
                              AttemptId id);

// `text` as a DNS label of at most `max` (>= 10) characters: lower case, runs of other
// characters turned into one '-', no '-' at either end ("x" when nothing is left); cut with a
// hash when longer.
std::string dns_label(std::string_view text, size_t max);
// `text` as a label value (≤ 63 of [A-Za-z0-9._-], alphanumeric at both ends), cut with a hash
// when longer.
std::string label_value(std::string_view text);
// Kubernetes quantities: 2000 → "2", 500 → "500m"; bytes in Gi/Mi/Ki when exact, else plain.
std::string cpu_quantity(int64_t milli);
std::string memory_quantity(int64_t bytes);

}  // namespace gantry::kube
