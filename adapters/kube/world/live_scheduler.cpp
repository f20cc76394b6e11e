#include "adapters/kube/world/live_scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/world/live_drainer.hpp"
#include "adapters/kube/world/unplaced_reason.hpp"
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

// A pod of the training operator's Worker role (or of no role: a Worker).
bool is_worker(const KubePod& p) {
  const auto it = p.labels.find(std::string(kReplicaTypeLabel));
  if (it == p.labels.end()) return true;
  std::string t = it->second;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  return t == "worker";
}

// The gang's name without its namespace: the job's name in <job>-worker-<i> and <job>-hosts.
std::string job_name(const std::string& gang) { return gang.substr(gang.find('/') + 1); }

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
  scheduler_.set_throughput_model(config_.throughput);
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
    const KubePod parsed = parse_pod(pod);
    // The latest Worker pod of a gang: the template of its new pods (Resizes).
    if (parsed.scheduler_name == config_.scheduler_name && !parsed.gang.empty() &&
        is_worker(parsed) && !parsed.deleting && !terminal(parsed))
      templates_[gang_key(parsed)] = pod;
    handle_pod(parsed, false);
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
    std::string& known = s.pods[static_cast<size_t>(index)].uid;
    // A resize's new pod may show before its create answered: the informer names its uid.
    if (known.empty() && !deleted) known = pod.uid;
    const bool same = pod.uid.empty() || known == pod.uid;
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
  const auto pods = static_cast<int32_t>(s.pods.size());
  const bool workers = !s.spec->roles.empty() && s.spec->roles.back().kind == RoleKind::kWorker;
  s.fixed = workers ? pods - s.spec->roles.back().replicas : pods;
  for (int32_t i = 0; i < pods; ++i) {
    s.ids.push_back(i);
    const std::optional<int32_t> w =
        i < s.fixed ? std::nullopt : worker_index(s.last[static_cast<size_t>(i)], s.fixed);
    s.worker.push_back(i < s.fixed ? -1 : w.value_or(i - s.fixed));
    s.next_worker = std::max(s.next_worker, s.worker.back() + 1);
  }
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
  abandon_resize(it->second);
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

// ---------------------------------------------------------------------------------------------
// Placed workloads

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

// ---------------------------------------------------------------------------------------------
// Resizes

Status LiveScheduler::resize(JobId job, int replicas, std::string reason) {
  Result<std::optional<ResizeAction>> r =
      scheduler_.resize(live_.cluster(), job, replicas, loop_.now(), std::move(reason));
  if (!r) return Status::error(r.error());
  if (r.value()) start_resize(*r.value());
  return Status::ok();
}

std::optional<JobId> LiveScheduler::workload_of(const std::string& gang) const {
  for (auto it = submitted_.rbegin(); it != submitted_.rend(); ++it)
    if (it->second.gang == gang) return it->first;
  return std::nullopt;
}

LiveScheduler::Submitted* LiveScheduler::resizing(JobId job, uint64_t generation) {
  const auto it = submitted_.find(job);
  if (it == submitted_.end() || !it->second.resize || it->second.resize->generation != generation)
    return nullptr;
  return &it->second;
}

void LiveScheduler::start_resize(const ResizeAction& action) {
  const auto it = submitted_.find(action.job);
  if (it == submitted_.end() || it->second.phase != Phase::kPlaced || it->second.resize) {
    // The scheduler resizes only running workloads, which this front knows as placed.
    Observation o;
    o.kind = Observation::Kind::kResizeFailed;
    o.at = loop_.now();
    o.job = action.job;
    o.reason = "the workload is not running here";
    if (log_ != nullptr) log_->observation(o);
    (void)scheduler_.observe(live_.cluster(), o);
    return;
  }
  Submitted& s = it->second;
  if (log_ != nullptr) log_->resize(loop_.now(), action);
  Resize r;
  r.action = action;
  r.generation = ++resize_generation_;
  r.first_added = s.pods.size();
  for (size_t i = 0; i < s.pods.size(); ++i)
    if (std::count(action.removed.begin(), action.removed.end(), s.ids[i]) != 0)
      r.removed.push_back(i);
  const std::string job = job_name(s.gang);
  const std::string ns = s.pods.front().namespace_name;
  if (s.bound.size() != s.pods.size()) s.bound.assign(s.pods.size(), true);
  for (size_t k = 0; k < action.added.size(); ++k) {
    const int32_t id = action.first_added + static_cast<int32_t>(k);
    // Worker i is pod F + i, unless the gang's names already went past i.
    const int32_t index = std::max(id - s.fixed, s.next_worker);
    s.next_worker = index + 1;
    KubePod pod;
    pod.namespace_name = ns;
    pod.name = job + "-worker-" + std::to_string(index);
    pod.request = action.requests[k];
    s.pods.push_back(ref_of(pod));
    s.last.push_back(pod);
    s.ids.push_back(id);
    s.worker.push_back(index);
    s.running.push_back(false);
    s.succeeded.push_back(false);
    s.bound.push_back(false);
    placed_pod_[s.pods.back().key()] = {s.job, static_cast<int32_t>(s.pods.size() - 1)};
  }
  s.resize = std::move(r);
  Resize& rs = *s.resize;
  if (action.added.empty()) {
    write_hosts(s);
    return;
  }
  const auto tmpl = templates_.find(s.gang);
  if (writer_ == nullptr || tmpl == templates_.end()) {
    fail_resize(s, writer_ == nullptr ? "no pod writer" : "no Worker pod to copy");
    return;
  }
  const JobId id = s.job;
  const uint64_t gen = rs.generation;
  rs.timer = loop_.schedule_after(config_.resize_timeout, [this, id, gen] {
    Submitted* t = resizing(id, gen);
    if (t == nullptr || t->resize->stage != Resize::Stage::kAdding) return;
    t->resize->timer.reset();
    fail_resize(*t, "the new pods did not all run within " +
                        std::to_string(config_.resize_timeout.micros() / 1'000'000) + "s");
  });
  const std::string size = std::to_string(s.fixed + action.replicas);
  for (size_t i = rs.first_added; i < s.pods.size(); ++i) {
    const nlohmann::json body =
        resize_pod_body(tmpl->second, s.pods[i].name,
                        {{std::string(kGangIndexAnnotation), std::to_string(s.fixed + s.worker[i])},
                         {std::string(kGangSizeAnnotation), size}});
    writer_->create_pod(ns, body, [this, id, gen, i](Result<std::string> uid) {
      resize_created(id, gen, i, std::move(uid));
    });
  }
}

void LiveScheduler::resize_created(JobId job, uint64_t generation, size_t i,
                                   Result<std::string> uid) {
  Submitted* s = resizing(job, generation);
  if (s == nullptr) {
    // The resize ended meanwhile (failed, or its gang stopped): the pod is not wanted.
    if (uid) {
      const auto it = submitted_.find(job);
      if (it != submitted_.end() && i < it->second.pods.size())
        binder_.evict(
            PodRef{it->second.pods[i].namespace_name, it->second.pods[i].name, uid.value()},
            "its resize ended");
    }
    return;
  }
  if (!uid) {
    fail_resize(*s, "creating pod " + s->pods[i].key() + ": " + uid.error());
    return;
  }
  s->pods[i].uid = uid.value();
  const PodPlacement& at = s->resize->action.added[i - s->resize->first_added];
  PodBinding b;
  b.pod = s->pods[i];
  b.node = live_.cluster().node_info(at.node).name;
  b.gpu_index = gpus_of(at.gpu_mask);
  binder_.bind(b, [this, job, generation, i](Status result) {
    resize_bound(job, generation, i, std::move(result));
  });
}

void LiveScheduler::resize_bound(JobId job, uint64_t generation, size_t i, Status result) {
  Submitted* s = resizing(job, generation);
  if (s == nullptr) return;  // its deletion was asked for with the resize's end
  if (!result) {
    fail_resize(*s, "binding pod " + s->pods[i].key() + ": " + result.message());
    return;
  }
  s->bound[i] = true;
  resize_progress(*s);
}

void LiveScheduler::resize_pod_changed(Submitted& s, size_t i, const KubePod& pod, bool deleted) {
  Resize& r = *s.resize;
  if (!deleted) s.last[i] = pod;
  if (i < r.first_added) {
    // A pod that leaves: gone once deleted (no longer in placed_pod_) or ended.
    if (deleted) {
      const auto placed = placed_pod_.find(s.pods[i].key());
      if (placed != placed_pod_.end() && placed->second.first == s.job) placed_pod_.erase(placed);
    }
    if (r.stage == Resize::Stage::kRemoving) remove_leaving(s);
    return;
  }
  if (deleted || pod.phase == "Failed" || pod.phase == "Succeeded") {
    fail_resize(s, "new pod " + pod.key() + (deleted ? " was deleted" : " ended"));
    return;
  }
  if (pod.phase == "Running" && !s.running[i]) {
    s.running[i] = true;
    observe(Observation::Kind::kPodRunning, s.job, s.ids[i]);
    resize_progress(s);
  }
}

void LiveScheduler::resize_progress(Submitted& s) {
  Resize& r = *s.resize;
  if (r.stage != Resize::Stage::kAdding) return;
  for (size_t i = r.first_added; i < s.pods.size(); ++i)
    if (!s.bound[i] || !s.running[i]) return;
  if (r.timer) loop_.cancel(*r.timer);
  r.timer.reset();
  write_hosts(s);
}

void LiveScheduler::write_hosts(Submitted& s) {
  Resize& r = *s.resize;
  r.stage = Resize::Stage::kWritingHosts;
  if (writer_ == nullptr) {
    remove_leaving(s);
    return;
  }
  // The Workers after the resize, by Worker index.
  std::vector<std::pair<int32_t, size_t>> workers;
  for (size_t i = 0; i < s.pods.size(); ++i)
    if (s.worker[i] >= 0 && std::count(r.removed.begin(), r.removed.end(), i) == 0)
      workers.emplace_back(s.worker[i], i);
  std::sort(workers.begin(), workers.end());
  std::string hostfile;
  for (const auto& [index, i] : workers)
    hostfile +=
        s.pods[i].name + " slots=" + std::to_string(std::max(1, s.last[i].request.gpus)) + "\n";
  const std::string job = job_name(s.gang);
  const JobId id = s.job;
  const uint64_t gen = r.generation;
  const bool adding = r.first_added < s.pods.size();
  writer_->write_config_map(
      s.pods.front().namespace_name, hosts_config_map_name(job), {{kHostfileKey, hostfile}},
      {{std::string(kGangLabel), job}}, [this, id, gen, adding](Status result) {
        Submitted* t = resizing(id, gen);
        if (t == nullptr) return;
        if (!result && adding) {
          // The job would not know its new Workers: they go again.
          fail_resize(*t, "writing the host list: " + result.message());
          return;
        }
        if (!result)
          for (size_t i = 0; i < t->pods.size(); ++i)
            if (std::count(t->resize->removed.begin(), t->resize->removed.end(), i) == 0)
              binder_.record(PodEvent{t->pods[i], true, "FailedResize", "Resizing",
                                      "writing the host list: " + result.message() +
                                          "; the Workers that leave are deleted anyway"});
        t->resize->stage = Resize::Stage::kRemoving;
        for (const size_t i : t->resize->removed) binder_.evict(t->pods[i], "scaled in");
        remove_leaving(*t);
      });
}

void LiveScheduler::remove_leaving(Submitted& s) {
  Resize& r = *s.resize;
  if (r.stage == Resize::Stage::kWritingHosts) {  // no writer: straight to the deletions
    r.stage = Resize::Stage::kRemoving;
    for (const size_t i : r.removed) binder_.evict(s.pods[i], "scaled in");
  }
  for (const size_t i : r.removed) {
    // Gone: the informer showed it deleted (placed_pod_ then no longer names it) or ended.
    const auto placed = placed_pod_.find(s.pods[i].key());
    const bool present = placed != placed_pod_.end() && placed->second.first == s.job;
    if (present && !terminal(s.last[i])) return;
  }
  finish_resize(s);
}

void LiveScheduler::finish_resize(Submitted& s) {
  const std::vector<size_t> removed = s.resize->removed;
  s.resize.reset();
  drop_positions(s, removed);
  ++resizes_done_;
  observe(Observation::Kind::kResized, s.job);
  request_cycle();  // the GPUs of the pods that left are free
  advance(s);
}

void LiveScheduler::fail_resize(Submitted& s, const std::string& why) {
  Resize& r = *s.resize;
  if (r.timer) loop_.cancel(*r.timer);
  std::vector<size_t> drop = r.removed;
  for (size_t i = r.first_added; i < s.pods.size(); ++i) drop.push_back(i);
  std::sort(drop.begin(), drop.end());
  for (const size_t i : drop) {
    // A pod whose create has not answered is deleted when it does (resize_created).
    if (!s.pods[i].uid.empty()) binder_.evict(s.pods[i], "resize failed: " + why);
  }
  s.resize.reset();
  drop_positions(s, drop);
  // Until their deletions arrive, the pods bound hold their nodes' resources.
  ++resizes_failed_;
  observe(Observation::Kind::kResizeFailed, s.job, -1, why);
  request_cycle();
  advance(s);
}

void LiveScheduler::drop_positions(Submitted& s, const std::vector<size_t>& drop) {
  std::vector<KubePod> leaving;
  for (const size_t i : drop) {
    const auto placed = placed_pod_.find(s.pods[i].key());
    if (placed != placed_pod_.end() && placed->second.first == s.job) placed_pod_.erase(placed);
    if (!terminal(s.last[i]) && !s.last[i].node_name.empty()) leaving.push_back(s.last[i]);
  }
  size_t out = 0;
  for (size_t i = 0; i < s.pods.size(); ++i) {
    if (std::binary_search(drop.begin(), drop.end(), i)) continue;
    s.pods[out] = s.pods[i];
    s.last[out] = s.last[i];
    s.ids[out] = s.ids[i];
    s.worker[out] = s.worker[i];
    s.running[out] = s.running[i];
    s.succeeded[out] = s.succeeded[i];
    if (i < s.bound.size() && out < s.bound.size()) s.bound[out] = s.bound[i];
    ++out;
  }
  for (auto* v : {&s.running, &s.succeeded}) v->resize(out);
  s.pods.resize(out);
  s.last.resize(out);
  s.ids.resize(out);
  s.worker.resize(out);
  if (!s.bound.empty()) s.bound.resize(out);
  for (size_t i = 0; i < s.pods.size(); ++i)
    placed_pod_[s.pods[i].key()] = {s.job, static_cast<int32_t>(i)};
  // The scheduler releases their allocations with the observation that follows; until the
  // informer shows them gone they hold their nodes as pods Gantry does not place.
  for (const KubePod& p : leaving) (void)live_.occupy(p);
}

void LiveScheduler::abandon_resize(Submitted& s) {
  if (!s.resize) return;
  if (s.resize->timer) loop_.cancel(*s.resize->timer);
  s.resize.reset();
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
