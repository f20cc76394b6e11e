#pragma once
// Which admitted workloads a pending one evicts to start: Kueue's preemption, classical and
// fair-sharing, for one flat level of cohorts. Pure: it sees the quota book and asks a
// PreemptionSimulation to take candidates out of (and put them back into) the scheduler's
// model and whether the preemptor fits then — in quota *and* on real nodes, so a victim
// whose eviction frees nothing the preemptor can use is never chosen.
//
// Candidates: admitted workloads of the preemptor's cohort that are not being evicted already.
//   - of its own queue, by withinQueue: LowerPriority (strictly lower priority),
//     LowerOrNewerEqualPriority (or equal priority and submitted after the preemptor), Never;
//   - of another queue of the cohort that borrows a resource the preemptor asks for, by
//     reclaimWithinCohort (Any, LowerPriority, Never). If the preemptor would borrow itself,
//     borrowWithinCohort lets it take a strictly lower priority, at most maxPriorityThreshold,
//     while borrowing; any other such candidate only helps if the preemptor ends up within its
//     nominal quota (Kueue's preemption variants). Under fair sharing the shares decide instead
//     (Kueue ignores borrowWithinCohort there).
// Order (Kueue's CandidatesOrdering): other queues' workloads first, then lower priority, then
// the most recently admitted, then the higher id.
//
// Classical: take candidates greedily in that order — skipping one of another queue that no
// longer borrows — until the preemptor fits; then, from the second-to-last taken back to the
// first, put each back and keep it running if the preemptor still fits (a minimal set). None
// if it never fits. Reasons: "Preempted" (own queue), "InCohortReclamation" (another queue).
// Two modes, as Kueue tries them: with borrowing allowed (the candidates only usable if the
// preemptor ends up within its nominal quota are left out), or without (every candidate, and
// the preemptor must end within nominal). Only the first with candidates of its own queue
// only, or when borrowWithinCohort is off and its queue already uses all its nominal quota of
// a resource it asks for; without then with when borrowWithinCohort is off and the preemptor
// would borrow; else with, then without.
//
// Fair sharing (AdmissionConfig::fair_sharing.enabled): the preemptor's usage is counted in
// while choosing. Repeatedly pick the candidate queue with the highest dominant share (ties:
// lower queue index); the preemptor's own queue yields its next candidate ("Preempted");
// another queue yields its first candidate that passes the first strategy, with S = the
// preemptor's share with the workload, T0 = the target's share now and T1 = the target's
// share without the candidate: LessThanOrEqualToFinalShare: S ≤ T1; LessThanInitialShare:
// S < T0 ("InCohortFairSharing"). A queue none of whose candidates passes is dropped. If the
// preemptor would stay within its nominal quota, candidates of borrowing queues are taken
// without the strategy ("InCohortReclamation"). A second strategy (when configured) then gets
// one candidate per remaining queue, highest share first. Then the same minimal-set pass.
//
// Complexity: O(c log c) to order c candidates plus one fits() per candidate tried and per
// candidate of the minimal-set pass. First, one fits() with every eligible candidate removed:
// if the preemptor does not fit even then, the search ends there (the common case in a
// saturated cluster).

#include <span>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/queues/admission_config.hpp"
#include "engine/policy/queues/quota_book.hpp"

namespace gantry {

struct PreemptionCandidate {
  JobId id = -1;
  int queue = 0;
  int priority = 0;
  Time submit;                            // queue-order timestamp
  Time admitted;                          // last admission
  const ResourceVector* usage = nullptr;  // as its queue counts it; outlives the search
  const void* owner = nullptr;            // the caller's own record of it, for its lookups
};

struct Preemptor {
  JobId id = -1;
  int queue = 0;
  int priority = 0;
  Time submit;
  ResourceVector usage;  // the request as its queue counts it
};

// Kueue's preemption reasons, as eviction reasons.
inline constexpr const char* kReasonPreempted = "Preempted";
inline constexpr const char* kReasonReclamation = "InCohortReclamation";
inline constexpr const char* kReasonFairSharing = "InCohortFairSharing";
inline constexpr const char* kReasonPodsReadyTimeout = "PodsReadyTimeout";

struct PreemptionTarget {
  JobId id = -1;
  const char* reason = kReasonPreempted;
};

// The scheduler's model, as the search changes it. remove() takes a candidate's usage out of the
// quota book and its pods out of the cluster; restore() undoes it; fits() says whether the
// preemptor's whole gang fits now, in quota and on nodes (leaving the model as it was).
class PreemptionSimulation {
 public:
  virtual ~PreemptionSimulation() = default;
  virtual void remove(const PreemptionCandidate& c) = 0;
  virtual void restore(const PreemptionCandidate& c) = 0;
  // allow_borrowing false: the preemptor must also stay within its queue's nominal quota.
  virtual bool fits(bool allow_borrowing) = 0;
  // Could the preemptor fit at all with all of `gone` removed? A necessary condition, checked
  // before a search (false ends it). The default removes them, asks fits() and restores them;
  // a model may answer from counters instead, without touching its state.
  virtual bool could_fit_without(std::span<const PreemptionCandidate* const> gone,
                                 bool allow_borrowing);
};

// Does the queue's configuration allow any preemption at all? (A cheap test before collecting
// candidates.)
bool may_preempt(const QueueSpec& queue);

// What the policies let the preemptor do with a candidate, before any search (Kueue's
// preemption variants).
enum class CandidateClass : uint8_t {
  kNever,
  kOwnQueue,                 // withinQueue allows it ("Preempted")
  kReclaim,                  // the preemptor stays within nominal, or fair sharing decides
  kReclaimWhileBorrowing,    // borrowWithinCohort allows it while the preemptor borrows
  kReclaimWithoutBorrowing,  // only if the preemptor ends up within its nominal quota
};
CandidateClass classify_candidate(const QuotaBook& book, const QueueSpec& own, const Preemptor& p,
                                  const PreemptionCandidate& c, bool within_nominal,
                                  bool fair_sharing);

// The workloads to evict so that `preemptor` fits, or none. `book` is the book `sim` changes;
// `queues[q]` is queue q's configuration. Leaves the model as it found it.
std::vector<PreemptionTarget> find_preemption_targets(const QuotaBook& book,
                                                      const std::vector<QueueSpec>& queues,
                                                      const FairSharingConfig& fair_sharing,
                                                      const Preemptor& preemptor,
                                                      std::vector<PreemptionCandidate> candidates,
                                                      PreemptionSimulation& sim);

}  // namespace gantry
