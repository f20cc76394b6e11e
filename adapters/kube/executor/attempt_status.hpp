#pragma once
// What an attempt's pods say about the attempt: read from Pod objects as the informer delivers
// them, and judged all together (KubeTaskExecutor applies the verdict).
//
// A pod's end:
//   - Succeeded                                              → succeeded
//   - Failed with no status.reason (a container exited non-zero; OOMKilled included: the work
//     used more than it asked for)                           → failed, exit code in the reason
//   - Failed with a status.reason (Evicted, Shutdown, NodeAffinity, UnexpectedAdmissionError,
//     OutOfcpu, ...: the kubelet ended it, not the work), status.reason NodeLost in any phase,
//     or deleted before it finished                         → error (retry.policy OnError)
// The attempt: error if any pod ended so, else failed if any pod failed, else succeeded once
// every pod succeeded (the first pod in gang order names the reason). It runs once every pod
// has started (Running, or ended after its containers started): since the latest start.
//
// Thread-safety: pure functions.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/time.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry::kube {

enum class PodPhase {
  kAbsent,     // not seen yet
  kUnknown,    // status.phase Unknown or missing on a pod seen: no news
  kPending,    // waiting for a node, pulling, starting
  kRunning,    // its containers run
  kSucceeded,  // all containers exited 0
  kFailed,     // ended otherwise (see infrastructure)
  kGone,       // deleted before it finished
};

struct PodProgress {
  PodPhase phase = PodPhase::kAbsent;
  std::string uid;
  // When its containers started (the latest container's running/terminated startedAt, else
  // status.startTime); unset until known.
  std::optional<Time> started;
  // kFailed: ended by the kubelet or the node (evicted, node lost), not by the work.
  bool infrastructure = false;
  std::string reason;  // for people: "exit code 3 (Error)", "Evicted: The node was low on ..."
};

// A Pod object as the API server has it. Never throws: fields of the wrong type read as absent.
PodProgress read_pod(const nlohmann::json& pod);

// `known` updated with a later reading. A reading that goes backwards (Running → Pending, or
// anything after the end) is ignored: after an adopt, events posted before it may arrive with
// states older than the cache's. kUnknown keeps the phase (NodeLost still counts).
void advance(PodProgress& known, const PodProgress& seen);

// The pod was deleted: an unfinished pod is kGone.
void mark_deleted(PodProgress& known);

struct NamedPod {
  std::string name;
  PodProgress progress;
};

struct AttemptVerdict {
  std::optional<Time> running_since;  // every pod started: the latest start, at most `now`
  std::optional<AttemptResult> end;   // `used` is left empty: the caller fills it
};

// The attempt's state from its pods, in gang order (see above).
AttemptVerdict judge(const std::vector<NamedPod>& pods, Time now);

}  // namespace gantry::kube
