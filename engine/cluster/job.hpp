#pragma once
// Training jobs as both worlds see them: roles with replicas, a start order among roles, and
// the work to do. A job is a gang: all of its pods are placed together or not at all, and it
// makes progress only while every pod runs.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/node_labels.hpp"
#include "engine/cluster/resources.hpp"
#include "engine/core/time.hpp"

namespace gantry {

enum class Framework { kTensorFlow, kPyTorch, kMPI };
const char* to_string(Framework f);

// Role names follow the operators: TFJob (PS, Chief, Worker, Evaluator), PyTorchJob (Master,
// Worker), MPIJob (Launcher, Worker).
enum class RoleKind { kPS, kChief, kWorker, kEvaluator, kMaster, kLauncher };
const char* to_string(RoleKind r);

// Start stage of a role, KubeDL's rule: workers start only once the master/chief/PS/launcher
// pods are running. Stage 0 starts first.
int start_stage(RoleKind r);

struct RoleSpec {
  RoleKind kind = RoleKind::kWorker;
  int replicas = 1;
  Resources per_replica;
};

struct TrainingWork {
  int64_t steps = 0;
  Duration step_compute_ref;         // compute time of one step on the reference GPU (A100 = 1.0)
  int64_t gradient_bytes = 0;        // all-reduced per step
  int64_t input_bytes_per_step = 0;  // read from the remote store per step, whole job
  // Progress is saved every checkpoint_every of running time (0: never), so an eviction loses
  // only the steps since the last checkpoint (all of them without checkpoints). Writing one
  // checkpoint stops progress for checkpoint_cost (the Young/Daly model's C).
  Duration checkpoint_every;
  Duration checkpoint_cost;
};

// Kueue's topology-aware scheduling, per job: every pod of the gang inside one domain of
// `level` (required), or there if possible and anywhere otherwise (preferred). An island is an
// NVLink/NVSwitch island of one node: the whole gang on one node, its GPUs inside one island.
struct TopologyConstraint {
  enum class Level : uint8_t { kNone, kIsland, kNode, kRack };
  Level level = Level::kNone;
  bool required = false;
};
const char* to_string(TopologyConstraint::Level l);

// Elastic training, et-operator's TrainingJob: the job's last role (a Worker role) may run with
// min..max replicas and be resized while it runs. A resize checkpoints the job and restarts it
// at the new size, making no progress for resize_cost (0: the pods' start stages instead).
// Policies resize by multiples of scale_step.
struct ElasticSpec {
  int min_replicas = 0;  // 0 with max_replicas 0: not elastic
  int max_replicas = 0;
  int scale_step = 1;
  Duration resize_cost;
  bool enabled() const { return max_replicas > 0; }
};

// What happens to a failed worker (et-operator's and Kubeflow's restartPolicy): kNever leaves it
// failed (an elastic job continues on fewer workers, a rigid one fails over to a restart from
// its checkpoint); kOnFailure recreates it under a new index; kExitCode recreates it only for
// a retryable exit code, 128 < code < 255 (killed by a signal: a lost node, a SIGKILL), and
// treats any other code like kNever.
enum class RestartPolicy : uint8_t { kNever, kOnFailure, kExitCode };
const char* to_string(RestartPolicy p);
// kExitCode's rule: is a worker that exited with `code` recreated?
inline bool retryable_exit_code(int code) { return code > 128 && code < 255; }

struct JobSpec {
  std::string name;
  std::string tenant = "default";
  int priority = 0;  // higher runs first under the priority queue order
  Framework framework = Framework::kPyTorch;
  std::string gpu_type;  // empty: any GPU type (unless gpu_types says otherwise)
  std::vector<RoleSpec> roles;
  TrainingWork work;
  Time submit;
  // GPU models the job's GPU pods may use, any of them (the openb trace's gpu_spec
  // "V100M16|V100M32"; parse_gpu_models() splits it). When non-empty it replaces gpu_type; when
  // empty, gpu_type alone decides. See allowed_gpu_models().
  std::vector<std::string> gpu_types;
  // Kubernetes placement constraints (node_labels.hpp): every pod of the job goes only to nodes
  // whose labels match node_selector and whose NoSchedule/NoExecute taints it tolerates.
  Labels node_selector;
  std::vector<Toleration> tolerations;
  // The admission queue the job waits in (engine/policy/queues/admission_config.hpp); empty when
  // admission is off.
  std::string queue;
  // Partial admission: the job may start with fewer replicas of its last role (a Worker role),
  // as many as fit but at least this many. 0: all replicas or nothing.
  int min_replicas = 0;
  TopologyConstraint topology;
  ElasticSpec elastic;
  RestartPolicy restart_policy = RestartPolicy::kOnFailure;
  // A replica of an inference service (sim/serving/cluster_host.hpp): one pod that runs until
  // the service removes it. Training reports leave such jobs out.
  bool serving_replica = false;

  // The allowed GPU model names: gpu_types if non-empty, else {gpu_type} if that is non-empty,
  // else empty (= any model). Names are as written; the scheduler looks them up in the
  // cluster's catalog (case-insensitively) and ignores names the catalog does not know.
  std::vector<std::string> allowed_gpu_models() const;

  int total_pods() const;
  // Every pod's request in pod order (role by role, replica by replica): the one place roles
  // are expanded into pods; the scheduler's queue keeps it per job shape (job_queue.hpp).
  std::vector<Resources> pod_requests() const;
  Resources total_request() const;
  int total_gpus() const { return total_request().gpus; }
};

// Splits a `|`-separated list of GPU model names ("V100M16|V100M32") into names, dropping
// surrounding blanks and empty items; "" gives an empty list (any model).
std::vector<std::string> parse_gpu_models(std::string_view spec);

using JobId = int32_t;

enum class JobState {
  kPending,    // submitted, waiting in the queue
  kStarting,   // bound; pods are starting in stage order
  kRunning,    // every pod runs: the job makes progress
  kFinished,   // all steps done; resources released
  kWithdrawn,  // removed by its owner (a pipeline's kill) before it finished
  kInactive,   // deactivated by admission: its pods never got ready, requeued too often
};
const char* to_string(JobState s);

// Where one pod of a job landed. Pods are numbered role by role, replica by replica.
struct PodPlacement {
  int32_t node = -1;
  uint64_t gpu_mask = 0;  // bit i = GPU i of the node
};

}  // namespace gantry
