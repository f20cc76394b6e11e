#pragma once
// Reading a Scenario's `spec.policy.admission` block (queues, quotas, preemption, fair sharing,
// waitForPodsReady) into an AdmissionConfig (engine/policy/queues/admission_config.hpp, whose
// header defines the units and the canonical resource names). Names and defaults follow
// Kueue's ClusterQueue and Configuration APIs; where Kueue spells a key differently, its
// spelling is accepted too (noted below).
//
//   admission:
//     queues:                                  # required, a non-empty list; names unique
//     - name: team-a
//       cohort: research                       # queues of one cohort lend each other quota
//       quota: {gpu: 64, cpu: "512", memory: 4Ti}   # required, at least one resource
//       borrowingLimit: {gpu: 16}              # absent: unlimited within the cohort
//       lendingLimit: {gpu: 8}                 # absent: all unused quota may be lent
//       queueing: BestEffortFIFO               # or StrictFIFO
//       preemption:
//         withinQueue: Never                   # | LowerPriority | LowerOrNewerEqualPriority
//         reclaimWithinCohort: Never           # | LowerPriority | Any
//         borrowWithinCohort: {policy: Never}  # | LowerPriority, with maxPriorityThreshold
//       fairSharing: {weight: 1}               # a number >= 0
//     fairSharing: {enabled: false, preemptionStrategies: [LessThanOrEqualToFinalShare, ...]}
//     admissionFairSharing: {usageHalfLife: 24h}
//     waitForPodsReady: {timeout: 5m, backoffBase: 60s, backoffMax: 1h, backoffLimit: 3}
//
// A quota, borrowingLimit or lendingLimit is a map of amounts, none negative:
//   gpu             a number of GPUs of any model, decimals allowed ("0.5" = 500 milli-GPUs);
//                   or a map GPU model -> number, one "gpu/<model>" entry each, the model a name
//                   of the cluster's GPU catalog (any case; stored as the catalog spells it).
//                   `nvidia.com/gpu` (Kueue's resource name) is the same key; not both.
//   cpu             a Kubernetes CPU quantity: 512, "512", "500m" (milli-CPUs)
//   memory          bytes: "4Ti", "64Gi"
// A limit names only resources of its queue's quota, so a queue gives GPUs either per model or
// as one total, never both. Kueue's rules: a limit needs a cohort (borrowingLimit: nothing to
// borrow from; lendingLimit: no one to lend to), a lendingLimit is at most the nominal quota,
// maxPriorityThreshold only with borrowWithinCohort policy LowerPriority, and that policy only
// with a reclaimWithinCohort other than Never.
//
// Kueue's spellings also accepted: fairSharing.enable (= enabled), admissionFairSharing.
// usageHalfLifeTime (= usageHalfLife), waitForPodsReady.enable (false: the block is off). A
// key given in both spellings must have one value.
//
// Errors are recorded in `errors` and reading goes on, as in the other Scenario readers; a
// check across fields (a limit against its quota) is skipped when a value it needs could not be
// read, so one mistake is reported once. Model names are checked against the catalog only when
// the cluster was read without errors (ctx.topology_ok); otherwise they are kept as written.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "engine/policy/queues/admission_config.hpp"

namespace gantry {

// Typo guards. Far above real installations (tens to hundreds of ClusterQueues; the largest
// clusters have some 10^5 GPUs), and low enough that any sum of quotas over every queue of a
// scenario stays inside int64: 1000 × 4Pi < 2^63.
inline constexpr int64_t kMaxQueues = 1000;
inline constexpr int64_t kMaxQuotaGpuMilli = 1'000'000'000;      // a million GPUs
inline constexpr int64_t kMaxQuotaCpuMilli = 1'000'000'000'000;  // a billion CPUs
inline constexpr int64_t kMaxQuotaMemory = 4ll << 50;            // 4 PiB
inline constexpr double kMaxFairWeight = 10'000;

struct AdmissionContext {
  const Topology& topology;  // its GPU catalog names the models of per-model quotas
  bool topology_ok = true;   // false: the cluster had errors; model names are not checked
  // What the message about an unknown model suggests (a scenario can declare more models).
  std::string_view unknown_model_hint = "add others under spec.cluster.gpuTypes";
};

// The queues a scenario declares, for the check of every job's `queue` (sim/workload_loader.hpp).
struct DeclaredQueues {
  // False when the list cannot be trusted (admission.queues missing or unreadable, a queue whose
  // name had an error): jobs' queues are then not checked, rather than blamed for it.
  bool known = true;
  std::vector<std::string> names;  // in file order; empty: admission declares no queues
};

// Reads `node` (spec.policy.admission). Fills `declared` with the queue names it read.
AdmissionConfig read_admission(const ConfigNode& node, const AdmissionContext& ctx,
                               ConfigErrors& errors, DeclaredQueues& declared);

}  // namespace gantry
