// LiveScheduler (live_scheduler.hpp): admission's evictions, each victim's pods deleted gracefully
// and the gang requeued.

#include <algorithm>

#include "adapters/kube/world/live_pod_facts.hpp"
#include "adapters/kube/world/live_scheduler.hpp"
#include "engine/core/errors.hpp"
#include "engine/policy/queues/preemption.hpp"

namespace gantry::kube {

namespace {

// What a victim's pods are told.
std::string victim_note(const EvictAction& a, const std::string& gang, const std::string& by) {
  if (a.reason == kReasonPreempted)
    return "gang " + gang + " is evicted: preempted by gang " + by + " of the same queue";
  if (a.reason == kReasonReclamation)
    return "gang " + gang + " is evicted: preempted by gang " + by +
           ", whose queue reclaims the quota its own lent";
  if (a.reason == kReasonFairSharing)
    return "gang " + gang + " is evicted: preempted by gang " + by +
           " for fair sharing in their cohort";
  if (a.reason == kReasonPodsReadyTimeout)
    return "gang " + gang +
           " is evicted: its pods were not all running within waitForPodsReady's "
           "timeout";
  return "gang " + gang + " is evicted (" + a.reason + ")" + (by.empty() ? "" : " for gang " + by);
}

}  // namespace

void LiveScheduler::start_evictions(const std::vector<EvictAction>& actions) {
  std::map<JobId, std::vector<std::string>> victims_of;  // by preemptor
  for (const EvictAction& a : actions) {
    const auto it = submitted_.find(a.job);
    // The scheduler evicts only placed workloads, which this front always knows.
    if (it == submitted_.end()) continue;
    Submitted& s = it->second;
    if (log_ != nullptr) log_->evict(loop_.now(), a);
    const std::string note = victim_note(a, s.gang, a.by >= 0 ? gang_name(a.by) : "");
    const char* action = a.by >= 0 ? "Preempting" : "Evicting";
    // A preemption is routine (kube-scheduler's Preempted is Normal); a timeout is a warning.
    for (const PodRef& p : s.pods) binder_.record(PodEvent{p, a.by < 0, a.reason, action, note});
    if (a.by >= 0) victims_of[a.by].push_back(s.gang);
    s.evict = a;
    if (s.phase == Phase::kPlaced) begin_eviction(s, a);
    // kBinding: carried out once the binds settle (finish_bind).
  }
  for (const auto& [by, victims] : victims_of) {
    const auto it = submitted_.find(by);
    if (it == submitted_.end()) continue;
    std::string names;
    for (const std::string& v : victims) names += (names.empty() ? "" : ", ") + v;
    const std::string note = "gang " + it->second.gang + " is preempting gang" +
                             (victims.size() == 1 ? " " : "s ") + names;
    for (const PodRef& p : it->second.pods)
      binder_.record(PodEvent{p, false, "Preempting", "Preempting", note});
  }
}

void LiveScheduler::begin_eviction(Submitted& s, const EvictAction& action) {
  abandon_resize(s);
  s.phase = Phase::kEvicting;
  s.evict = action;
  // Pods recreated under the gang's names while it goes wait for this workload.
  job_of_gang_[s.gang] = s.job;
  s.gone.assign(s.pods.size(), false);
  for (size_t i = 0; i < s.pods.size(); ++i) {
    // A pod that never bound, or already ended, holds nothing.
    s.gone[i] = (!s.bound.empty() && !s.bound[i]) || s.succeeded[i] || terminal(s.last[i]);
    if (s.gone[i]) continue;
    const JobId job = s.job;
    const auto index = static_cast<int32_t>(i);
    evictor_.evict(s.pods[i], [this, job, index](Status result) {
      eviction_done(job, index, std::move(result));
    });
  }
  settle_eviction(s);
}

void LiveScheduler::eviction_done(JobId job, int32_t index, Status result) {
  if (result) return;  // accepted (or gone already): the informer shows the pod go
  const auto it = submitted_.find(job);
  if (it == submitted_.end() || it->second.phase != Phase::kEvicting) return;
  Submitted& s = it->second;
  const auto i = static_cast<size_t>(index);
  if (s.gone[i]) return;
  ++failed_evictions_;
  // Not a disruption budget (those are waited out): the Eviction API itself fails. The pod is
  // deleted instead, or the preemptor would wait for ever.
  binder_.record(PodEvent{s.pods[i], true, "FailedEviction", "Evicting",
                          result.message() + "; deleting the pod instead"});
  binder_.evict(s.pods[i], result.message());
}

void LiveScheduler::settle_eviction(Submitted& s) {
  if (!std::all_of(s.gone.begin(), s.gone.end(), [](bool g) { return g; })) return;
  const EvictAction action = *s.evict;
  s.evict.reset();
  s.gone.clear();
  for (const PodRef& p : s.pods) {
    const auto placed = placed_pod_.find(p.key());
    if (placed != placed_pod_.end() && placed->second.first == s.job) placed_pod_.erase(placed);
  }
  const JobId job = s.job;
  observe(Observation::Kind::kEvicted, job, -1, action.reason);
  request_cycle();  // its resources are free for the preemptor (or anyone)
  const Workload* w = scheduler_.workloads().find(job);
  if (w == nullptr || w->state == WorkloadState::kWithdrawn) {
    forget(job);
    return;
  }
  if (w->state == WorkloadState::kInactive) {
    s.phase = Phase::kInactive;
    for (const PodRef& p : s.pods)
      binder_.record(PodEvent{p, true, "Deactivated", "Evicting",
                              "gang " + s.gang +
                                  " is deactivated: its pods missed waitForPodsReady's timeout "
                                  "too often; delete its pods to submit it again"});
    return;
  }
  // Pending again: its pods, once recreated under the same names, are this workload's.
  s.phase = Phase::kWaiting;
  s.failure_reported = true;  // nothing to tell pods that are gone; reset when they are back
  s.running.assign(s.pods.size(), false);
  s.succeeded.assign(s.pods.size(), false);
  s.bound.clear();
  if (Gang* g = gangs_.find(s.gang)) gang_changed(*g);
}

}  // namespace gantry::kube
