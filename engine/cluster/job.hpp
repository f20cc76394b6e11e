#pragma once
// Training jobs as both worlds see them: roles with replicas, a start order among roles, and
// the work to do. A job is a gang: all of its pods are placed together or not at all, and it
// makes progress only while every pod runs.

#include <cstdint>
#include <string>
#include <vector>

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
  Duration step_compute_ref;        // compute time of one step on the reference GPU (A100 = 1.0)
  int64_t gradient_bytes = 0;       // all-reduced per step
  int64_t input_bytes_per_step = 0; // read from the remote store per step, whole job
};

struct JobSpec {
  std::string name;
  std::string tenant = "default";
  int priority = 0;                  // higher runs first under the priority queue order
  Framework framework = Framework::kPyTorch;
  std::string gpu_type;              // empty: any GPU type
  std::vector<RoleSpec> roles;
  TrainingWork work;
  Time submit;

  int total_pods() const;
  Resources total_request() const;
  int total_gpus() const { return total_request().gpus; }
};

using JobId = int32_t;

enum class JobState {
  kPending,   // submitted, waiting in the queue
  kStarting,  // bound; pods are starting in stage order
  kRunning,   // every pod runs: the job makes progress
  kFinished,  // all steps done; resources released
};
const char* to_string(JobState s);

// Where one pod of a job landed. Pods are numbered role by role, replica by replica.
struct PodPlacement {
  int32_t node = -1;
  uint64_t gpu_mask = 0;  // bit i = GPU i of the node
};

}  // namespace gantry
