// LiveScheduler (live_scheduler.hpp): placed workloads: their pods' changes, a failed pod failing
// its gang over (or an elastic gang surviving it), drains.

#include <algorithm>

#include "adapters/kube/world/live_drainer.hpp"
#include "adapters/kube/world/live_pod_facts.hpp"
#include "adapters/kube/world/live_scheduler.hpp"

namespace gantry::kube {

void LiveScheduler::handle_placed_pod(Submitted& s, int32_t index, const KubePod& pod,
                                      bool deleted) {
  const auto i = static_cast<size_t>(index);
  if (s.resize && s.phase == Phase::kPlaced &&
      (i >= s.resize->first_added ||
       std::count(s.resize->removed.begin(), s.resize->removed.end(), i) != 0)) {
    resize_pod_changed(s, i, pod, deleted);
    return;
  }
  if (s.phase == Phase::kEvicting) {
    if (!deleted) s.last[i] = pod;
    if (deleted || terminal(pod)) {
      s.gone[i] = true;
      settle_eviction(s);
    }
    return;
  }
  if (s.phase == Phase::kBinding) {
    if (deleted && s.bind_error.empty()) s.bind_error = "pod " + pod.key() + " deleted";
    if (!deleted) s.last[i] = pod;
    return;
  }
  if (deleted) {
    stop_pods(s, index, "pod " + pod.key() + " deleted");
    return;
  }
  s.last[i] = pod;
  if (const std::string why = failure_eviction_reason(pod); !why.empty()) {
    if (survive_elastic(s, i, pod, why)) return;
    fail_over(s, why, config_.restart_delay);
    return;
  }
  if (pod.phase == "Failed") {
    if (survive_elastic(s, i, pod, "PodFailure")) return;
    observe(Observation::Kind::kPodFailed, s.job, s.ids[i], pod.termination_reason);
    const std::string reason =
        "pod " + pod.key() + " failed" +
        (pod.exit_code ? " (exit code " + std::to_string(*pod.exit_code) + ")" : "");
    const JobId job = s.job;
    stop_pods(s, index, reason);
    (void)job;
    return;
  }
  if ((pod.phase == "Running" || pod.phase == "Succeeded") && !s.running[i]) {
    s.running[i] = true;
    observe(Observation::Kind::kPodRunning, s.job, s.ids[i]);
  }
  if (pod.phase == "Succeeded" && !s.succeeded[i]) {
    s.succeeded[i] = true;
    observe(Observation::Kind::kPodSucceeded, s.job, s.ids[i]);
  }
  advance(s);
}

void LiveScheduler::fail_over(Submitted& s, const std::string& reason, Duration delay,
                              int32_t except) {
  const Workload* w = scheduler_.workloads().find(s.job);
  if (w == nullptr || !is_placed(w->state)) return;
  abandon_resize(s);
  // As the simulator kills a job on a failed part: evicted now, placed again no sooner than the
  // restart delay.
  Observation o;
  o.kind = Observation::Kind::kEvicted;
  o.at = loop_.now();
  o.job = s.job;
  o.reason = reason;
  o.deadline = loop_.now() + delay;
  if (log_ != nullptr) log_->observation(o);
  (void)scheduler_.observe(live_.cluster(), o);
  for (size_t i = 0; i < s.pods.size(); ++i) {
    const auto placed = placed_pod_.find(s.pods[i].key());
    if (placed != placed_pod_.end() && placed->second.first == s.job) placed_pod_.erase(placed);
    // Every pod goes, the failed ones too: the controller recreates them under their names.
    if (static_cast<int32_t>(i) != except)
      binder_.evict(s.pods[i], "gang " + s.gang + " lost a pod to a failure (" + reason + ")");
    // Until its deletion arrives, a pod still running holds its node's resources.
    if (!terminal(s.last[i]) && !s.last[i].node_name.empty()) (void)live_.occupy(s.last[i]);
  }
  // Pending again: its pods, once recreated under the same names, are this workload's.
  s.phase = Phase::kWaiting;
  s.failure_reported = true;
  s.running.assign(s.pods.size(), false);
  s.succeeded.assign(s.pods.size(), false);
  s.bound.clear();
  job_of_gang_[s.gang] = s.job;
  if (Gang* g = gangs_.find(s.gang)) gang_changed(*g);
  request_cycle();
}

void LiveScheduler::advance(Submitted& s) {
  const Workload* w = scheduler_.workloads().find(s.job);
  if (w == nullptr) return;
  const auto all = [](const std::vector<bool>& v) {
    return std::all_of(v.begin(), v.end(), [](bool b) { return b; });
  };
  if (w->state == WorkloadState::kBound && all(s.running))
    observe(Observation::Kind::kRunning, s.job);
  if (w->state == WorkloadState::kRunning && all(s.succeeded) && !s.resize) {
    observe(Observation::Kind::kFinished, s.job);
    templates_.erase(s.gang);
    forget(s.job);
    request_cycle();  // its resources are free for the gangs waiting
  }
}

void LiveScheduler::stop_pods(Submitted& s, int32_t except, const std::string& reason) {
  const Workload* w = scheduler_.workloads().find(s.job);
  const bool failed = s.last[static_cast<size_t>(except)].phase == "Failed";
  if (w != nullptr && is_placed(w->state)) {
    if (failed && transition_allowed(w->state, WorkloadState::kFailed)) {
      observe(Observation::Kind::kFailed, s.job, -1, reason);
    } else {
      (void)scheduler_.withdraw(s.job, loop_.now());
      observe(Observation::Kind::kEvicted, s.job, -1, reason);
    }
  }
  for (size_t i = 0; i < s.pods.size(); ++i) {
    if (static_cast<int32_t>(i) == except || s.succeeded[i]) continue;
    binder_.evict(s.pods[i], reason);
    // Until its deletion arrives, the pod still holds its node's resources.
    KubePod still = s.last[i];
    if (still.node_name.empty()) continue;
    (void)live_.occupy(still);
  }
  forget(s.job);
  request_cycle();
}

void LiveScheduler::drain_pod(const std::string& pod_key) {
  const auto it = placed_pod_.find(pod_key);
  if (it == placed_pod_.end()) return;
  Submitted& s = submitted_.at(it->second.first);
  const auto i = static_cast<size_t>(it->second.second);
  if (s.phase != Phase::kPlaced) return;
  if (s.resize && (i >= s.resize->first_added ||
                   std::count(s.resize->removed.begin(), s.resize->removed.end(), i) != 0))
    return;  // leaving already, or a resize's new pod (its deletion fails the resize)
  if (survive_elastic(s, i, s.last[i], kDrainReason, true)) return;
  fail_over(s, kDrainReason, Duration(0), static_cast<int32_t>(i));
}

bool LiveScheduler::survive_elastic(Submitted& s, size_t i, const KubePod& pod,
                                    const std::string& reason, bool planned) {
  const JobSpec& spec = *s.spec;
  const Workload* w = scheduler_.workloads().find(s.job);
  if (w == nullptr || w->state != WorkloadState::kRunning || !spec.elastic.enabled() ||
      spec.roles.empty() || spec.roles.back().kind != RoleKind::kWorker || s.resize ||
      s.worker[i] < 0)
    return false;
  const bool recreate = !planned && (spec.restart_policy == RestartPolicy::kOnFailure ||
                                     (spec.restart_policy == RestartPolicy::kExitCode &&
                                      pod.exit_code && retryable_exit_code(*pod.exit_code)));
  // The scheduler's Worker indices are pod ids minus the fixed roles' pods.
  const std::vector<int> workers{s.ids[i] - s.fixed};
  Result<std::optional<ResizeAction>> r =
      recreate
          ? scheduler_.replace(live_.cluster(), s.job, workers, loop_.now(), reason + ": replaced")
          : scheduler_.scale_in(live_.cluster(), s.job, workers, loop_.now(), reason + ": shrunk");
  if (!r || !r.value()) return false;
  if (!planned) observe(Observation::Kind::kPodFailed, s.job, s.ids[i], pod.termination_reason);
  start_resize(*r.value());
  return true;
}

}  // namespace gantry::kube
