#include "adapters/kube/world/live_scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/core/errors.hpp"
#include "engine/policy/queues/preemption.hpp"

namespace gantry::kube {

namespace {

std::vector<int> gpus_of(uint64_t mask) {
  std::vector<int> out;
  for (int g = 0; g < 64; ++g)
    if ((mask >> g) & 1) out.push_back(g);
  return out;
}

bool terminal(const KubePod& p) { return p.phase == "Succeeded" || p.phase == "Failed"; }

PodRef ref_of(const KubePod& p) { return PodRef{p.namespace_name, p.name, p.uid}; }

}  // namespace

std::string failure_eviction_reason(const KubePod& pod) {
  if (pod.phase != "Failed") return {};
  // The simulator's reasons (sim/training_world.hpp: kReasonNodeFailure, ...).
  if (pod.status_reason == "NodeLost") return "NodeFailure";
  if (pod.status_reason == "RackLost") return "RackFailure";
  if (pod.status_reason == "GPUFailure") return "GPUFailure";
  return {};
}

LiveScheduler::LiveScheduler(EventLoop& loop, LiveCluster& cluster, PodBinder& binder,
                             PodEvictor& evictor, LiveSchedulerConfig config)
    : loop_(loop),
      live_(cluster),
      binder_(binder),
      evictor_(evictor),
      config_(std::move(config)),
      scheduler_(config_.policy) {
  scheduler_.set_waker(this);
}

const std::string& LiveScheduler::gang_name(JobId job) const {
  static const std::string kNone;
  return job >= 0 && static_cast<size_t>(job) < gang_names_.size()
             ? gang_names_[static_cast<size_t>(job)]
             : kNone;
}

void LiveScheduler::wake_at(Time t) {
  loop_.schedule_at(std::max(t, loop_.now()), [this] { cycle(); });
}

void LiveScheduler::request_cycle() {
  if (cycle_requested_) return;
  cycle_requested_ = true;
  loop_.schedule_at(loop_.now(), [this] {
    if (cycle_requested_) cycle();
  });
}

void LiveScheduler::observe(Observation::Kind kind, JobId job, int32_t pod, std::string reason) {
  Observation o;
  o.kind = kind;
  o.at = loop_.now();
  o.job = job;
  o.pod = pod;
  o.reason = std::move(reason);
  if (log_ != nullptr) log_->observation(o);
  // A refusal means this front and the scheduler disagree about a workload: a bug, asserted
  // in tests through the workloads' states; in a live cluster it must not stop scheduling.
  (void)scheduler_.observe(live_.cluster(), o);
}

// ---------------------------------------------------------------------------------------------
// Informer events

void LiveScheduler::observe_node(Observation::Kind kind, NodeId node, std::string reason) {
  Observation o;
  o.kind = kind;
  o.at = loop_.now();
  o.node = node;
  o.reason = std::move(reason);
  if (log_ != nullptr) log_->observation(o);
  (void)scheduler_.observe(live_.cluster(), o);
}

namespace {

// A node's readiness and cordon as the model holds them, to report their changes.
struct NodeLook {
  bool known = false;
  bool ready = false;
  bool cordoned = false;
};

NodeLook look(const LiveCluster& live, const std::string& name) {
  const auto n = live.node_id(name);
  if (!n || !live.present(*n)) return {};  // a node not registered yet is no news
  return {true, live.cluster().ready(*n), live.cluster().cordoned(*n)};
}

}  // namespace

void LiveScheduler::node_changed(const nlohmann::json& node) {
  try {
    const KubeNode parsed = parse_node(node);
    const NodeLook before = look(live_, parsed.name);
    const Result<NodeId> n = live_.upsert_node(parsed);
    if (!n) {
      ++skipped_;
    } else {
      const NodeLook after = look(live_, parsed.name);
      // A node seen for the first time that is not ready is no news.
      if (before.known && before.ready && !after.ready)
        observe_node(Observation::Kind::kNodeFailed, n.value(), "NotReady");
      if (before.known && !before.ready && after.ready)
        observe_node(Observation::Kind::kNodeRecovered, n.value());
      if (before.cordoned != after.cordoned)
        observe_node(
            after.cordoned ? Observation::Kind::kNodeCordoned : Observation::Kind::kNodeUncordoned,
            n.value());
    }
  } catch (const InputError&) {
    ++skipped_;
  }
  request_cycle();
}

void LiveScheduler::node_deleted(const nlohmann::json& node) {
  try {
    const std::string name = parse_node(node).name;
    const NodeLook before = look(live_, name);
    live_.delete_node(name);
    if (before.ready) observe_node(Observation::Kind::kNodeFailed, *live_.node_id(name), "Deleted");
  } catch (const InputError&) {
    ++skipped_;
  }
  request_cycle();
}

void LiveScheduler::pod_changed(const nlohmann::json& pod) {
  try {
    handle_pod(parse_pod(pod), false);
  } catch (const InputError&) {
    ++skipped_;
  }
}

void LiveScheduler::pod_deleted(const nlohmann::json& pod) {
  try {
    handle_pod(parse_pod(pod), true);
  } catch (const InputError&) {
    ++skipped_;
  }
}

void LiveScheduler::handle_pod(const KubePod& pod, bool deleted) {
  if (const auto it = placed_pod_.find(pod.key()); it != placed_pod_.end()) {
    const auto [job, index] = it->second;
    Submitted& s = submitted_.at(job);
    const bool same = pod.uid.empty() || s.pods[static_cast<size_t>(index)].uid == pod.uid;
    handle_placed_pod(s, index, pod, deleted || !same);
    if (same) return;
  }
  const bool waiting = pod.scheduler_name == config_.scheduler_name && pod.node_name.empty() &&
                       !deleted && !pod.deleting && !terminal(pod);
  if (!waiting) {
    if (const auto gang = gangs_.remove(pod.namespace_name, pod.name)) {
      if (Gang* g = gangs_.find(*gang)) {
        gang_changed(*g);
      } else {
        gang_gone(*gang);
      }
    }
    if (!deleted && !terminal(pod) && !pod.node_name.empty()) {
      (void)live_.occupy(pod);  // a model that disagrees with the cluster only undercounts
    } else {
      live_.vacate(pod.key());
    }
    request_cycle();
    return;
  }
  Gang& g = gangs_.add(pod);
  gang_changed(g);
  if (g.complete() && job_of_gang_.count(g.key) == 0) submit(g);
  request_cycle();
}

void LiveScheduler::gang_changed(const Gang& gang) {
  const auto it = job_of_gang_.find(gang.key);
  if (it == job_of_gang_.end()) return;
  Submitted& s = submitted_.at(it->second);
  if (s.phase != Phase::kWaiting) return;  // a binding gang is settled by its binds
  const std::vector<const KubePod*> pods = gang.ordered();
  bool same_members = pods.size() == s.pods.size();
  for (size_t i = 0; same_members && i < pods.size(); ++i)
    same_members = pods[i]->name == s.pods[i].name;
  if (same_members) {
    // A pod relabelled into another queue: the workload no longer describes the gang.
    if (gang_refusal(gang, config_.policy.admission) ||
        gang_job_spec(gang, s.spec->submit).queue != s.spec->queue) {
      withdraw_waiting(s.job);
      return;
    }
    // The same pods, maybe new incarnations (an evicted pod recreated by its controller).
    for (size_t i = 0; i < pods.size(); ++i) {
      if (s.pods[i].uid != pods[i]->uid) s.failure_reported = false;  // not told yet
      s.pods[i].uid = pods[i]->uid;
      s.last[i] = *pods[i];
    }
    return;
  }
  // A member came or went before the gang was placed: the workload no longer describes it.
  if (!gang.pods.empty() && s.pods.size() > gang.pods.size()) return;  // wait for the rest
  withdraw_waiting(s.job);
}

void LiveScheduler::withdraw_waiting(JobId job) {
  (void)scheduler_.withdraw(job, loop_.now());  // pending: withdrawn at once
  forget(job);
}

void LiveScheduler::submit(const Gang& gang) {
  if (const std::optional<std::string> why = gang_refusal(gang, config_.policy.admission)) {
    refuse(gang, *why);
    return;
  }
  refused_.erase(gang.key);
  Submitted s;
  s.job = next_job_++;
  gang_names_.push_back(gang.key);
  s.gang = gang.key;
  s.spec = std::make_unique<JobSpec>(gang_job_spec(gang, loop_.now()));
  for (const KubePod* p : gang.ordered()) {
    s.pods.push_back(ref_of(*p));
    s.last.push_back(*p);
  }
  s.running.assign(s.pods.size(), false);
  s.succeeded.assign(s.pods.size(), false);
  if (!scheduler_.submit(s.job, *s.spec, loop_.now())) return;
  job_of_gang_[gang.key] = s.job;
  submitted_.emplace(s.job, std::move(s));
}

void LiveScheduler::refuse(const Gang& gang, const std::string& why) {
  Refusal& r = refused_[gang.key];
  if (r.why != why) {
    r = Refusal{why, {}};
    ++refused_count_;
  }
  for (const KubePod* p : gang.ordered()) {
    if (!r.told.insert(p->uid).second) continue;
    binder_.record(PodEvent{ref_of(*p), true, "FailedScheduling", "Scheduling", why});
  }
}

void LiveScheduler::gang_gone(const std::string& key) {
  refused_.erase(key);
  const auto it = job_of_gang_.find(key);
  if (it == job_of_gang_.end()) return;
  const auto s = submitted_.find(it->second);
  if (s != submitted_.end() && s->second.phase == Phase::kInactive) forget(it->second);
}

void LiveScheduler::forget(JobId job) {
  const auto it = submitted_.find(job);
  if (it == submitted_.end()) return;
  for (const PodRef& p : it->second.pods) {
    const auto placed = placed_pod_.find(p.key());
    if (placed != placed_pod_.end() && placed->second.first == job) placed_pod_.erase(placed);
  }
  const auto gang = job_of_gang_.find(it->second.gang);
  if (gang != job_of_gang_.end() && gang->second == job) job_of_gang_.erase(gang);
  submitted_.erase(it);
}

// ---------------------------------------------------------------------------------------------
// Cycles and binds

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

void LiveScheduler::report_unplaced() {
  for (auto& [job, s] : submitted_) {
    if (s.phase != Phase::kWaiting || s.failure_reported) continue;
    const Workload* w = scheduler_.workloads().find(job);
    if (w == nullptr || w->state != WorkloadState::kPending) continue;
    if (w->victims_pending > 0) continue;  // preempting: its "Preempting" Event says so
    const Cluster& c = live_.cluster();
    const Resources need = s.spec->total_request();
    int schedulable = 0;
    for (NodeId n = 0; n < c.node_count(); ++n) schedulable += c.schedulable(n) ? 1 : 0;
    const std::string note = fmt::format(
        "gang {} of {} pods ({} GPUs, {} GPU milli shared, {} cores) does not fit: {} GPUs "
        "free on {} schedulable nodes",
        s.gang, s.pods.size(), need.gpus, need.gpu_milli, need.cpu_milli / 1000.0, c.free_gpus(),
        schedulable);
    for (const PodRef& p : s.pods)
      binder_.record(PodEvent{p, true, "FailedScheduling", "Scheduling", note});
    s.failure_reported = true;
  }
}

// ---------------------------------------------------------------------------------------------
// Placed workloads

void LiveScheduler::handle_placed_pod(Submitted& s, int32_t index, const KubePod& pod,
                                      bool deleted) {
  const auto i = static_cast<size_t>(index);
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
    fail_over(s, why);
    return;
  }
  if (pod.phase == "Failed") {
    observe(Observation::Kind::kPodFailed, s.job, index, pod.termination_reason);
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
    observe(Observation::Kind::kPodRunning, s.job, index);
  }
  if (pod.phase == "Succeeded" && !s.succeeded[i]) {
    s.succeeded[i] = true;
    observe(Observation::Kind::kPodSucceeded, s.job, index);
  }
  advance(s);
}

void LiveScheduler::fail_over(Submitted& s, const std::string& reason) {
  const Workload* w = scheduler_.workloads().find(s.job);
  if (w == nullptr || !is_placed(w->state)) return;
  // As the simulator kills a job on a failed part: evicted now, placed again no sooner than the
  // restart delay.
  Observation o;
  o.kind = Observation::Kind::kEvicted;
  o.at = loop_.now();
  o.job = s.job;
  o.reason = reason;
  o.deadline = loop_.now() + config_.restart_delay;
  if (log_ != nullptr) log_->observation(o);
  (void)scheduler_.observe(live_.cluster(), o);
  for (size_t i = 0; i < s.pods.size(); ++i) {
    const auto placed = placed_pod_.find(s.pods[i].key());
    if (placed != placed_pod_.end() && placed->second.first == s.job) placed_pod_.erase(placed);
    // Every pod goes, the failed ones too: the controller recreates them under their names.
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
  if (w->state == WorkloadState::kRunning && all(s.succeeded)) {
    observe(Observation::Kind::kFinished, s.job);
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

// ---------------------------------------------------------------------------------------------
// Admission's evictions

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
