#pragma once
// What policies ask a world to do, and what a world reports back (DESIGN.md rule 3). The same
// types travel between the scheduler and the simulated world and, through the live adapter,
// a Kubernetes cluster; the action log (action_log.hpp) writes both directions.
//
// Binding is assume → confirm | forget, as in kube-scheduler's assume cache with a permit step
// for gangs: a cycle allocates the whole gang in the model and hands the world a BindAction; the
// world binds every pod and reports Observation::kBound, or reports kBindFailed for the gang if
// any pod's bind fails (after undoing the pods it had bound), and the scheduler forgets the
// whole gang and requeues it with backoff. No partial gang is ever left allocated.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/resources.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// Bind every pod of a gang where `pods` says. Pods are in the job's pod order: role by role,
// replica by replica; requests[i] is pod i's request. The resources are already allocated in
// the cluster model (assumed), owned by (job, pod index).
struct BindAction {
  JobId job = 0;
  std::vector<PodPlacement> pods;
  std::vector<Resources> requests;
};

// Stop every pod of a placed workload and give its resources back (preemption, a drain, a
// withdrawal). The world reports Observation::kEvicted when done.
struct EvictAction {
  JobId job = 0;
  std::string reason{};
  JobId by = -1;  // a preemption's preemptor, or -1
};

// Change the set of pods of a running workload's elastic role: its last role, which must be a
// Worker role (the elastic role of et-operator's TrainingJob and of PyTorch elastic jobs).
// Pods keep their ids (AllocationOwner::pod; Workload::pod_ids): the fixed roles' pods are
// 0..F-1 and Worker i is pod F + i, so Worker i's pod is named <job>-worker-<i>. `removed`
// names the pods that leave (a scale-in: the highest indices unless a request named others;
// a replacement: the failed ones). `added` and `requests` hold the new pods, which the scheduler
// has already placed and allocated in the model (assumed, all of them or none, like a gang),
// with consecutive ids from `first_added`: after the highest id the workload ever used, never
// reusing one. A replacement removes and adds at once. The world checkpoints the job (no
// progress is lost), restarts it at the new size and reports Observation::kResized; the
// allocations of removed pods are released then. A live world that cannot get every added pod
// running in time reports kResizeFailed instead: the added pods are given back, the removed ones
// stay removed.
struct ResizeAction {
  JobId job = 0;
  int replicas = 0;  // of the elastic role, after the resize
  std::vector<int32_t> removed;
  int32_t first_added = 0;
  std::vector<PodPlacement> added;
  std::vector<Resources> requests;
  std::string reason{};  // why: the policy or the operator's rule that asked for it
};

// What a world tells the policies. Fields that do not apply to a kind are left at their
// defaults.
struct Observation {
  enum class Kind : uint8_t {
    kSubmitted,     // a workload arrived (job; spec lives with the world)
    kDeleted,       // its owner removed it (job)
    kBound,         // every pod of an assumed gang is bound (job)
    kBindFailed,    // a pod's bind failed; the world undid the others (job, pod, reason)
    kPodRunning,    // one pod runs (job, pod)
    kRunning,       // every pod of the workload runs (job)
    kPodSucceeded,  // one pod ended well (job, pod)
    kFinished,      // the workload is done (job)
    kPodFailed,     // one pod failed (job, pod, exit_code, reason)
    kFailed,        // the workload failed for good (job, reason)
    kEvicted,       // the world stopped every pod of the workload (job, reason; deadline: when
                    // it may be placed again, e.g. after a failure's restart delay, if later)
    kResized,       // the world carried out a ResizeAction (job)
    kResizeFailed,  // a scale-out's pods did not all run in time; the world deleted them (job)
    kNodeAdded,     // (node)
    kNodeRemoved,   // (node)
    kNodeCordoned,  // (node)
    kNodeUncordoned,
    kNodeFailed,     // (node, reason): not ready
    kNodeRecovered,  // (node)
    kSpotNotice,     // the provider will reclaim a node (node, deadline)
    kMetric,         // a sample for autoscalers (job, name, value)
  };
  Kind kind = Kind::kSubmitted;
  Time at;
  JobId job = -1;
  int32_t pod = -1;
  NodeId node = -1;
  int exit_code = 0;
  Time deadline{};
  std::string reason{};
  std::string name{};
  double value = 0;
};
const char* to_string(Observation::Kind kind);

}  // namespace gantry
