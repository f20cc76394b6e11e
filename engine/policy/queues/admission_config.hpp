#pragma once
// Multi-tenant admission, as a scenario (spec.policy.admission) or the server's configuration
// describes it: queues with nominal quotas, cohorts that lend unused quota, preemption policies,
// fair sharing and waitForPodsReady. Plain data; sim/admission_loader fills it, the Scheduler
// (engine/policy/queues/README.md) enforces it. Field names and defaults follow Kueue's
// ClusterQueue and Configuration APIs (kueue.x-k8s.io/v1beta1), where the default is stated.
//
// Resources of a quota, by canonical name, and their units:
//   "gpu"          milli-GPUs of any model (a share pod counts by its share)
//   "gpu/<model>"  milli-GPUs of one model, as the cluster's catalog names it (Kueue's flavors)
//   "cpu"          milli-CPUs
//   "memory"       bytes
// A resource a queue's quota does not name is not limited by that queue (not even counted);
// a queue with per-model GPU quota can use only the models it names.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/time.hpp"

namespace gantry {

// Kueue's PreemptionPolicy: which admitted workloads a pending one may evict.
enum class PreemptionPolicy : uint8_t {
  kNever,
  kLowerPriority,              // strictly lower priority
  kLowerOrNewerEqualPriority,  // lower, or equal priority and submitted later
  kAny,                        // any priority (reclaimWithinCohort only)
};
const char* to_string(PreemptionPolicy p);

// Kueue's queueingStrategy.
enum class QueueingStrategy : uint8_t {
  kBestEffortFifo,  // a head that does not fit lets later workloads of its queue try (default)
  kStrictFifo,      // the head blocks its queue
};

// Amounts by canonical resource name (see above).
using QuotaAmounts = std::map<std::string, int64_t>;

struct QueueSpec {
  std::string name;
  std::string cohort;      // empty: the queue lends and borrows with no one
  QuotaAmounts nominal;    // Kueue's nominalQuota
  QuotaAmounts borrowing;  // borrowingLimit per resource; absent: unlimited within the cohort
  QuotaAmounts lending;    // lendingLimit per resource; absent: all unused quota may be lent
  QueueingStrategy queueing = QueueingStrategy::kBestEffortFifo;
  PreemptionPolicy within_queue = PreemptionPolicy::kNever;  // withinClusterQueue
  PreemptionPolicy reclaim_within_cohort =
      PreemptionPolicy::kNever;  // kNever, kLowerPriority, kAny
  // borrowWithinCohort: while borrowing, a workload may preempt lower-priority workloads of
  // borrowing queues whose priority is at most max_priority_threshold (any when absent).
  bool borrow_within_cohort = false;  // policy LowerPriority (true) or Never (false, default)
  std::optional<int> max_priority_threshold;
  double fair_weight = 1;  // fairSharing.weight; 0: borrows only what no one else wants
};

enum class FairSharingStrategy : uint8_t {
  kLessThanOrEqualToFinalShare,  // preemptor's share with the workload ≤ target's share without
                                 // the victim
  kLessThanInitialShare,         // preemptor's share with the workload < target's share now
};
const char* to_string(FairSharingStrategy s);

struct FairSharingConfig {
  bool enabled = false;
  std::vector<FairSharingStrategy> strategies{FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                              FairSharingStrategy::kLessThanInitialShare};
};

// Kueue's admissionFairSharing: queues are ordered by their usage, decayed with a half-life.
struct AdmissionFairSharingConfig {
  Duration usage_half_life = hours(168);  // Kueue's usageHalfLifeTime has no default; a week
};

// Kueue's waitForPodsReady. A workload whose pods do not all run within `timeout` of its
// admission is evicted (PodsReadyTimeout) and requeued after backoff_base · 2^(n−1), capped at
// backoff_max, where n counts its requeues so far including this one (the first waits
// backoff_base). Requeues are counted; once a workload has been requeued backoff_limit times,
// its next timeout deactivates it (state inactive) instead: backoff_limit 3 means the 4th
// timeout deactivates. Kueue's defaults: timeout 5 min, base 60 s, max 3600 s, no limit.
struct WaitForPodsReadyConfig {
  Duration timeout = minutes(5);
  Duration backoff_base = seconds(60);
  Duration backoff_max = seconds(3600);
  std::optional<int> backoff_limit;  // absent: requeued for ever
};

struct AdmissionConfig {
  std::vector<QueueSpec> queues;  // none: admission is off (every job goes straight to placement)
  FairSharingConfig fair_sharing;
  std::optional<AdmissionFairSharingConfig> admission_fair_sharing;
  std::optional<WaitForPodsReadyConfig> wait_for_pods_ready;

  bool enabled() const { return !queues.empty(); }
};

// Canonical names of the resources above.
inline constexpr const char* kQuotaGpu = "gpu";
inline constexpr const char* kQuotaCpu = "cpu";
inline constexpr const char* kQuotaMemory = "memory";
inline std::string quota_gpu_model(const std::string& model) { return "gpu/" + model; }

}  // namespace gantry
