// LiveScheduler (live_scheduler.hpp): construction, the informers' events, gangs submitted,
// refused and forgotten. Its other parts: live_scheduler_binding.cpp (cycles and binds),
// live_scheduler_placed.cpp (placed workloads and drains), live_scheduler_evictions.cpp,
// live_scheduler_resize.cpp.

#include "adapters/kube/world/live_scheduler.hpp"

#include <algorithm>

#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/world/live_pod_facts.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

// A pod of the training operator's Worker role (or of no role: a Worker).
bool is_worker(const KubePod& p) {
  const auto it = p.labels.find(std::string(kReplicaTypeLabel));
  if (it == p.labels.end()) return true;
  std::string t = it->second;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  return t == "worker";
}

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

}  // namespace gantry::kube
