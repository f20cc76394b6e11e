// LiveScheduler (live_scheduler.hpp): its cycles, and the binds they start; the note on a gang left
// unplaced.

#include <fmt/format.h>

#include <algorithm>

#include "adapters/kube/world/live_pod_facts.hpp"
#include "adapters/kube/world/live_scheduler.hpp"
#include "adapters/kube/world/unplaced_reason.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

void LiveScheduler::set_active(bool active) {
  active_ = active;
  if (active_) request_cycle();
}

void LiveScheduler::cycle() {
  cycle_requested_ = false;
  if (!active_) return;
  live_.refresh_gpu_holds();
  for (const BindAction& a : scheduler_.run_cycle(live_.cluster(), loop_.now())) start_bind(a);
  const std::vector<EvictAction> evictions = scheduler_.take_evictions();
  if (!evictions.empty()) start_evictions(evictions);
  for (const ResizeAction& a : scheduler_.take_resizes()) start_resize(a);
  report_unplaced();
}

void LiveScheduler::start_bind(const BindAction& action) {
  Submitted& s = submitted_.at(action.job);
  // Every pod must still be waiting as the incarnation the workload names: a gang that lost a
  // pod is not bound (its other pods would wait on a node for a pod that never comes).
  const Gang* g = gangs_.find(s.gang);
  bool whole = g != nullptr;
  for (size_t i = 0; whole && i < s.pods.size(); ++i) {
    const auto p = g->pods.find(s.pods[i].name);
    whole = p != g->pods.end() && p->second.uid == s.pods[i].uid;
  }
  if (!whole) {
    observe(Observation::Kind::kBindFailed, s.job, -1, "a pod of the gang is gone");
    withdraw_waiting(s.job);
    return;
  }
  if (log_ != nullptr) log_->bind(loop_.now(), action);
  s.phase = Phase::kBinding;
  // A fresh placement: pod i has id i (Workload::pod_ids).
  s.ids.resize(s.pods.size());
  for (size_t i = 0; i < s.ids.size(); ++i) s.ids[i] = static_cast<int32_t>(i);
  s.bound.assign(s.pods.size(), false);
  s.bind_error.clear();
  s.binds_outstanding = static_cast<int>(s.pods.size());
  for (size_t i = 0; i < s.pods.size(); ++i)
    placed_pod_[s.pods[i].key()] = {s.job, static_cast<int32_t>(i)};
  for (size_t i = 0; i < s.pods.size(); ++i) {
    PodBinding b;
    b.pod = s.pods[i];
    b.node = live_.cluster().node_info(action.pods[i].node).name;
    b.gpu_index = gpus_of(action.pods[i].gpu_mask);
    // Recorded as decided, in the order the cycle decided (binds complete in any order).
    decisions_.push_back(PlacementDecision{loop_.now(), b.pod.key(), b.node, b.gpu_index});
    const JobId job = s.job;
    const auto index = static_cast<int32_t>(i);
    binder_.bind(b,
                 [this, job, index](Status result) { bind_done(job, index, std::move(result)); });
  }
}

void LiveScheduler::bind_done(JobId job, int32_t index, Status result) {
  const auto it = submitted_.find(job);
  if (it == submitted_.end() || it->second.phase != Phase::kBinding) return;
  Submitted& s = it->second;
  s.bound[static_cast<size_t>(index)] = result.is_ok();
  if (!result && s.bind_error.empty())
    s.bind_error =
        "binding pod " + s.pods[static_cast<size_t>(index)].key() + ": " + result.message();
  if (--s.binds_outstanding == 0) finish_bind(s);
}

void LiveScheduler::finish_bind(Submitted& s) {
  const bool all =
      s.bind_error.empty() && std::all_of(s.bound.begin(), s.bound.end(), [](bool b) { return b; });
  if (!all && s.evict) {
    // A victim whose binds did not all succeed: what was bound is evicted, the rest never ran
    // (and waits again). No kBindFailed: the scheduler waits for this workload's kEvicted.
    for (size_t i = 0; i < s.pods.size(); ++i) {
      if (s.bound[i]) {
        (void)gangs_.remove(s.pods[i].namespace_name, s.pods[i].name);
      } else {
        placed_pod_.erase(s.pods[i].key());
      }
    }
    begin_eviction(s, *s.evict);
    return;
  }
  if (!all) {
    // Undo: a gang is bound whole or not at all. The pods bound already are deleted (their
    // controller makes new ones, which the gang takes as the same members).
    for (size_t i = 0; i < s.pods.size(); ++i) {
      placed_pod_.erase(s.pods[i].key());
      if (s.bound[i]) {
        binder_.evict(s.pods[i], "gang " + s.gang + " could not be bound whole: " + s.bind_error);
        (void)gangs_.remove(s.pods[i].namespace_name, s.pods[i].name);
      }
    }
    s.phase = Phase::kWaiting;
    s.failure_reported = false;
    s.unplaced = false;  // its reason is the bind's now (Workload::last_reason)
    observe(Observation::Kind::kBindFailed, s.job, -1, s.bind_error);
    for (const PodRef& p : s.pods)
      binder_.record(PodEvent{p, true, "FailedScheduling", "Binding", s.bind_error});
    s.failure_reported = true;
    return;
  }
  s.phase = Phase::kPlaced;
  gangs_.erase(s.gang);
  job_of_gang_.erase(s.gang);
  observe(Observation::Kind::kBound, s.job);
  const Workload* w = scheduler_.workloads().find(s.job);
  for (size_t i = 0; i < s.pods.size(); ++i) {
    const PodPlacement& at = w->pods[i];
    std::string gpus;
    for (int g : gpus_of(at.gpu_mask)) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
    binder_.record(PodEvent{s.pods[i], false, "Scheduled", "Binding",
                            "Successfully assigned " + s.pods[i].key() + " to " +
                                live_.cluster().node_info(at.node).name +
                                (gpus.empty() ? "" : " (GPUs " + gpus + ")")});
  }
  if (s.evict) {
    begin_eviction(s, *s.evict);  // a victim already: its pods go as soon as they are bound
    return;
  }
  advance(s);
}

std::string LiveScheduler::unplaced_note(const Submitted& s) const {
  const Resources need = s.spec->total_request();
  return fmt::format("gang {} of {} pods ({} GPUs, {} GPU milli shared, {} cores) does not fit: {}",
                     s.gang, s.pods.size(), need.gpus, need.gpu_milli, need.cpu_milli / 1000.0,
                     unplaced_reason(live_, *s.spec));
}

void LiveScheduler::report_unplaced() {
  for (auto& [job, s] : submitted_) {
    if (s.phase != Phase::kWaiting || s.failure_reported) continue;
    const Workload* w = scheduler_.workloads().find(job);
    if (w == nullptr || w->state != WorkloadState::kPending) continue;
    if (w->victims_pending > 0) continue;  // preempting: its "Preempting" Event says so
    const std::string note = unplaced_note(s);
    for (const PodRef& p : s.pods)
      binder_.record(PodEvent{p, true, "FailedScheduling", "Scheduling", note});
    s.failure_reported = true;
    s.unplaced = true;
  }
}

std::string LiveScheduler::pending_reason(JobId job) const {
  const auto it = submitted_.find(job);
  if (it == submitted_.end() || it->second.phase != Phase::kWaiting) return {};
  return scheduler_.pending_reason(live_.cluster(), job, LiveNodeBars(live_));
}

}  // namespace gantry::kube
