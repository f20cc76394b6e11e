#include "engine/policy/scheduler.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <queue>
#include <stdexcept>

namespace gantry {

namespace {

std::unique_ptr<PlacementPlugin> make_or_throw(const std::string& name) {
  auto plugin = make_placement_plugin(name);
  if (plugin) return plugin;
  std::string known;
  for (const auto& n : placement_plugin_names()) {
    if (!known.empty()) known += ", ";
    known += n;
  }
  throw std::invalid_argument("unknown placement plugin '" + name + "'; known plugins: " + known);
}

// The catalog's ids of the model names it knows, ascending, without repeats; unknown names are
// left out (such a job never fits on those).
std::vector<GpuTypeId> known_gpu_types(const GpuCatalog& catalog,
                                       const std::vector<std::string>& names) {
  std::vector<GpuTypeId> types;
  for (const std::string& name : names)
    if (const GpuTypeId t = catalog.find(name); t >= 0) types.push_back(t);
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  return types;
}

}  // namespace

Scheduler::Scheduler(SchedulerConfig config)
    : config_(std::move(config)), plugin_(make_or_throw(config_.placement)), queue_(config_.order) {
  plugin_->configure(config_);
  if (config_.admission.enabled())
    admission_ = std::make_unique<AdmissionQueues>(config_.admission, Time());
}

void Scheduler::set_target_workload(std::span<const WeightedPodClass> workload) {
  plugin_->set_target_workload(workload);
}

Status Scheduler::submit(JobId id, const JobSpec& spec, Time now) {
  if (admission_ && admission_->book.find_queue(spec.queue) < 0)
    return Status::error("workload " + std::to_string(id) + " names admission queue '" +
                         spec.queue + "', which is not configured");
  Result<Workload*> added = workloads_.add(id, spec, now);
  if (!added) return Status::error(added.error());
  if (admission_) added.value()->queue = admission_->book.find_queue(spec.queue);
  enqueue(*added.value());
  return Status::ok();
}

void Scheduler::enqueue(Workload& w) {
  if (admission_) {
    admission_enqueue(w);
    return;
  }
  queued_[w.id] = queue_.push(w.id, *w.spec);
  if (group_state_.size() < queue_.groups().size()) group_state_.resize(queue_.groups().size());
  if (shape_failed_cycle_.size() < queue_.full_shape_count())
    shape_failed_cycle_.resize(queue_.full_shape_count(), 0);
}

void Scheduler::release_all(Cluster& cluster, Workload& w, Time now) {
  if (admission_) admission_release(w, now);
  // Every pod of a placed gang holds an allocation; a live world may already have lost some
  // (a node gone), so a missing one is not an error here.
  for (size_t pos = 0; pos < w.pods.size(); ++pos)
    (void)cluster.release(AllocationOwner{w.id, w.pod_id(pos)});
  index_synced_ = false;  // the next placement re-reads these nodes from the change log
  w.pods.clear();
  w.pod_ids.clear();
  w.resize_to_pods = -1;
  w.resize_removed.clear();
  w.pending_resize.reset();
}

namespace {

// The workers of an elastic role: pods after the fixed roles' ones.
int32_t fixed_pods(const JobSpec& spec) {
  return static_cast<int32_t>(spec.total_pods() - spec.roles.back().replicas);
}

}  // namespace

Result<Workload*> Scheduler::resizable(JobId id) {
  Workload* w = workloads_.find(id);
  const std::string name = "workload " + std::to_string(id);
  if (w == nullptr) return Status::error("no " + name);
  if (w->state != WorkloadState::kRunning)
    return Status::error(name + " is " + to_string(w->state) +
                         "; only a running workload can be resized");
  const JobSpec& spec = *w->spec;
  if (spec.roles.empty() || spec.roles.back().kind != RoleKind::kWorker)
    return Status::error(name + " has no trailing Worker role to resize");
  return w;
}

Status Scheduler::check_worker_count(const Workload& w, int replicas) const {
  const ElasticSpec& e = w.spec->elastic;
  const std::string name = "workload " + std::to_string(w.id);
  if (e.enabled()) {
    if (replicas < e.min_replicas)
      return Status::error(name + ": " + std::to_string(replicas) +
                           " Worker(s) is below its minReplicas " + std::to_string(e.min_replicas));
    if (replicas > e.max_replicas)
      return Status::error(name + ": " + std::to_string(replicas) +
                           " Worker(s) is above its maxReplicas " + std::to_string(e.max_replicas));
  } else if (replicas < 1) {
    return Status::error("replicas must be at least 1, got " + std::to_string(replicas));
  }
  return Status::ok();
}

Result<std::optional<ResizeAction>> Scheduler::resize(Cluster& cluster, JobId id, int replicas,
                                                      Time now, std::string reason) {
  // Resizes are not recorded in the history: the workload stays running.
  Result<Workload*> found = resizable(id);
  if (!found) return Status::error(found.error());
  Workload& w = *found.value();
  if (Status s = check_worker_count(w, replicas); !s) return s;
  if (w.resize_to_pods >= 0) {
    w.pending_resize = Workload::PendingResize{replicas, {}, std::move(reason)};
    return std::optional<ResizeAction>{};
  }
  const int32_t fixed = fixed_pods(*w.spec);
  const int current = static_cast<int>(w.pods.size()) - fixed;
  if (replicas == current) return std::optional<ResizeAction>{};
  std::vector<int32_t> remove;
  // A scale-in removes the highest worker indices.
  if (replicas < current) {
    std::vector<int32_t> ids;
    for (size_t pos = static_cast<size_t>(fixed); pos < w.pods.size(); ++pos)
      ids.push_back(w.pod_id(pos));
    std::sort(ids.begin(), ids.end());
    remove.assign(ids.end() - (current - replicas), ids.end());
  }
  return change_workers(cluster, w, std::move(remove), std::max(0, replicas - current),
                        replicas - current, std::move(reason), now);
}

Result<std::optional<ResizeAction>> Scheduler::scale_in(Cluster& cluster, JobId id,
                                                        std::span<const int> workers, Time now,
                                                        std::string reason) {
  Result<Workload*> found = resizable(id);
  if (!found) return Status::error(found.error());
  Workload& w = *found.value();
  const int32_t fixed = fixed_pods(*w.spec);
  const int current = static_cast<int>(w.pods.size()) - fixed;
  if (Status s = check_worker_count(w, current - static_cast<int>(workers.size())); !s) return s;
  if (w.resize_to_pods >= 0) {
    w.pending_resize = Workload::PendingResize{current - static_cast<int>(workers.size()),
                                               {workers.begin(), workers.end()},
                                               std::move(reason)};
    return std::optional<ResizeAction>{};
  }
  Result<std::vector<int32_t>> ids = worker_pod_ids(w, workers);
  if (!ids) return Status::error(ids.error());
  if (ids.value().empty()) return std::optional<ResizeAction>{};
  return change_workers(cluster, w, std::move(ids.value()), 0, -static_cast<int>(workers.size()),
                        std::move(reason), now);
}

Result<std::optional<ResizeAction>> Scheduler::replace(Cluster& cluster, JobId id,
                                                       std::span<const int> workers, Time now,
                                                       std::string reason) {
  Result<Workload*> found = resizable(id);
  if (!found) return Status::error(found.error());
  Workload& w = *found.value();
  if (w.resize_to_pods >= 0)
    return Status::error("a resize of workload " + std::to_string(id) + " is in flight");
  Result<std::vector<int32_t>> ids = worker_pod_ids(w, workers);
  if (!ids) return Status::error(ids.error());
  if (ids.value().empty()) return std::optional<ResizeAction>{};
  const int32_t fixed = fixed_pods(*w.spec);
  const int current = static_cast<int>(w.pods.size()) - fixed;
  const int kept = current - static_cast<int>(workers.size());
  const int floor = w.spec->elastic.enabled() ? w.spec->elastic.min_replicas : 1;
  // As many replacements as fit, but enough to stay at the floor.
  for (int add = static_cast<int>(workers.size()); add >= std::max(0, floor - kept); --add) {
    Result<std::optional<ResizeAction>> r = change_workers(
        cluster, w, ids.value(), add, add - static_cast<int>(workers.size()), reason, now);
    if (r) return r;
  }
  return Status::error("workload " + std::to_string(id) + ": " + std::to_string(kept) +
                       " Worker(s) left and no room for the " +
                       std::to_string(std::max(0, floor - kept)) + " more it needs (minimum " +
                       std::to_string(floor) + ")");
}

Result<std::vector<int32_t>> Scheduler::worker_pod_ids(const Workload& w,
                                                       std::span<const int> workers) const {
  const int32_t fixed = fixed_pods(*w.spec);
  std::vector<int32_t> ids;
  for (const int worker : workers) {
    const int32_t id = fixed + worker;
    bool found = worker >= 0 && std::find(ids.begin(), ids.end(), id) == ids.end();
    if (found) {
      found = false;
      for (size_t pos = static_cast<size_t>(fixed); pos < w.pods.size() && !found; ++pos)
        found = w.pod_id(pos) == id;
    }
    if (!found)
      return Status::error("workload " + std::to_string(w.id) + " has no running Worker " +
                           std::to_string(worker) + " (or it is named twice)");
    ids.push_back(id);
  }
  return ids;
}

Result<std::optional<ResizeAction>> Scheduler::change_workers(Cluster& cluster, Workload& w,
                                                              std::vector<int32_t> remove, int add,
                                                              int delta, std::string reason,
                                                              Time now) {
  const JobSpec& spec = *w.spec;
  const RoleSpec& role = spec.roles.back();
  const int32_t fixed = fixed_pods(spec);
  const int current = static_cast<int>(w.pods.size()) - fixed;
  ResizeAction action;
  action.job = w.id;
  action.replicas = current + delta;
  action.removed = remove;
  action.first_added = w.next_pod_id;
  action.reason = std::move(reason);
  if (add > 0) {
    // The new pods use the GPU type of the running ones (add_existing() pins it); a job with no
    // GPU pod yet may use any type it allows. Pods about to leave do not count as neighbours.
    const GpuCatalog& catalog = cluster.topology().gpus;
    std::vector<GpuTypeId> types = known_gpu_types(catalog, spec.allowed_gpu_models());
    if (spec.allowed_gpu_models().empty())
      for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(catalog.size()); ++t) types.push_back(t);
    std::vector<PodPlacement> staying;
    for (size_t pos = 0; pos < w.pods.size(); ++pos)
      if (std::find(remove.begin(), remove.end(), w.pod_id(pos)) == remove.end())
        staying.push_back(w.pods[pos]);
    const std::vector<Resources> pods(static_cast<size_t>(add), role.per_replica);
    const GangRequest request{pods, w.next_pod_id, &spec.node_selector, &spec.tolerations, staying};
    begin_cycle(cluster);
    index_.sync(cluster);
    index_synced_ = true;
    BindAction placed;
    const bool ok = place_gang(cluster, w.id, request, std::move(types), placed);
    end_cycle(cluster);
    if (!ok)
      return Status::error("workload " + std::to_string(w.id) + ": " + std::to_string(add) +
                           " more " + to_string(role.kind) + " pods do not fit now");
    action.added = std::move(placed.pods);
    action.requests = std::move(placed.requests);
    if (w.pod_ids.empty())
      for (size_t pos = 0; pos < w.pods.size(); ++pos)
        w.pod_ids.push_back(static_cast<int32_t>(pos));
    for (int i = 0; i < add; ++i) w.pod_ids.push_back(w.next_pod_id + i);
    w.pods.insert(w.pods.end(), action.added.begin(), action.added.end());
    w.next_pod_id += add;
    if (admission_) {
      while (w.requests.size() < w.pods.size()) w.requests.push_back(role.per_replica);
      admission_reaccount(cluster, w, now);
    }
  }
  w.resize_to_pods = static_cast<int32_t>(w.pods.size() - remove.size());
  w.resize_removed = std::move(remove);
  w.resize_added_from = action.first_added;
  return std::optional<ResizeAction>{std::move(action)};
}

void Scheduler::end_resize(Cluster& cluster, Workload& w, bool done, Time now) {
  // Removed pods leave either way; a failed scale-out's added pods leave too.
  std::vector<int32_t> leaving = std::move(w.resize_removed);
  if (!done)
    for (size_t pos = 0; pos < w.pods.size(); ++pos)
      if (w.pod_id(pos) >= w.resize_added_from) leaving.push_back(w.pod_id(pos));
  if (!leaving.empty() && w.pod_ids.empty())
    for (size_t pos = 0; pos < w.pods.size(); ++pos) w.pod_ids.push_back(static_cast<int32_t>(pos));
  size_t out = 0;
  for (size_t pos = 0; pos < w.pods.size(); ++pos) {
    const int32_t id = w.pod_id(pos);
    if (std::find(leaving.begin(), leaving.end(), id) != leaving.end()) {
      (void)cluster.release(AllocationOwner{w.id, id});
      index_synced_ = false;  // as in release_all()
      continue;
    }
    w.pods[out] = w.pods[pos];
    w.pod_ids[out] = id;
    ++out;
  }
  w.pods.resize(out);
  if (!w.pod_ids.empty()) w.pod_ids.resize(out);
  if (admission_ && w.requests.size() > w.pods.size()) {
    // Positions past the fixed roles all hold Worker requests: drop from the end.
    w.requests.resize(std::max(w.pods.size(), static_cast<size_t>(w.spec->total_pods())));
  }
  w.resize_to_pods = -1;
  if (admission_) admission_reaccount(cluster, w, now);
  // An elasticity policy may wait for these GPUs (a head to admit, a goodput receiver).
  if (config_.elasticity.enabled() && waker_ != nullptr) waker_->wake_at(now);
  // A request that waited for this one.
  if (!w.pending_resize) return;
  Workload::PendingResize next = std::move(*w.pending_resize);
  w.pending_resize.reset();
  Result<std::optional<ResizeAction>> r =
      next.workers.empty() ? resize(cluster, w.id, next.replicas, now, std::move(next.reason))
                           : scale_in(cluster, w.id, next.workers, now, std::move(next.reason));
  if (r && r.value()) {
    resizes_.push_back(std::move(*r.value()));
    if (waker_ != nullptr) waker_->wake_at(now);
  }
}

void Scheduler::forget(Cluster& cluster, Workload& w, Time now, std::string reason) {
  release_all(cluster, w, now);
  if (admission_) victim_gone(w, now);
  (void)workloads_.move(w, WorkloadState::kPending, now);
  w.last_reason = std::move(reason);
  ++w.bind_failures;
  // bind_backoff · 2^(failures − 1), capped; computed by doubling so it cannot overflow.
  Duration wait = config_.bind_backoff;
  for (int i = 1; i < w.bind_failures && wait < config_.bind_backoff_max; ++i) wait = wait + wait;
  if (wait > config_.bind_backoff_max) wait = config_.bind_backoff_max;
  hold_until(w, now + wait);
}

void Scheduler::hold_until(Workload& w, Time at) {
  w.retry_at = at;
  backoff_.emplace(w.retry_at, w.id);
  if (waker_ != nullptr) waker_->wake_at(w.retry_at);
}

Result<std::optional<EvictAction>> Scheduler::withdraw(JobId id, Time now) {
  Workload* w = workloads_.find(id);
  if (w == nullptr) return Status::error("no workload " + std::to_string(id));
  if (is_terminal(w->state))
    return Status::error("workload " + std::to_string(id) + " already ended (" +
                         to_string(w->state) + ")");
  if (w->state == WorkloadState::kPending) {
    if (admission_ &&
        admission_->queues[static_cast<size_t>(w->queue)].pending.count(w->queue_key) > 0) {
      release_reservation(*w, now);  // a preemptor's victims go on leaving
      admission_dequeue(*w);
    } else if (const auto q = queued_.find(id); q != queued_.end()) {
      queue_.erase(q->second.group, q->second.job);
      queued_.erase(q);
    } else {
      backoff_.erase({w->retry_at, id});
    }
    (void)workloads_.move(*w, WorkloadState::kWithdrawn, now);
    return std::optional<EvictAction>{};
  }
  w->withdraw_requested = true;
  return std::optional<EvictAction>{EvictAction{id, "withdrawn"}};
}

Status Scheduler::observe(Cluster& cluster, const Observation& o) {
  using K = Observation::Kind;
  switch (o.kind) {
    case K::kNodeAdded:
    case K::kNodeRemoved:
      // The world changed the cluster itself (it knows the node's class); nothing else to do:
      // caches notice the node count and versions.
      return Status::ok();
    case K::kNodeCordoned:
    case K::kNodeUncordoned:
    case K::kNodeFailed:
    case K::kNodeRecovered:
      if (o.node < 0 || o.node >= cluster.node_count())
        return Status::error("no node " + std::to_string(o.node));
      if (o.kind == K::kNodeCordoned || o.kind == K::kNodeUncordoned)
        cluster.set_cordoned(o.node, o.kind == K::kNodeCordoned);
      else
        cluster.set_ready(o.node, o.kind == K::kNodeRecovered);
      return Status::ok();
    case K::kSpotNotice:
    case K::kMetric:
      return Status::ok();  // for the elasticity and serving policies to come
    default:
      return observe_workload(cluster, o);
  }
}

Status Scheduler::observe_workload(Cluster& cluster, const Observation& o) {
  using K = Observation::Kind;
  using S = WorkloadState;
  Workload* w = workloads_.find(o.job);
  if (w == nullptr)
    return Status::error(std::string(to_string(o.kind)) + ": no workload " + std::to_string(o.job));
  const auto refuse = [&] {
    return Status::error(std::string(to_string(o.kind)) + " for workload " + std::to_string(o.job) +
                         " in state " + to_string(w->state));
  };
  switch (o.kind) {
    case K::kBound:
      if (w->state != S::kAssumed) return refuse();
      w->bind_failures = 0;
      return workloads_.move(*w, S::kBound, o.at);
    case K::kBindFailed:
      if (w->state != S::kAssumed && w->state != S::kBound) return refuse();
      forget(cluster, *w, o.at, o.reason.empty() ? "bind failed" : o.reason);
      return Status::ok();
    case K::kRunning: {
      if (w->state != S::kBound) return refuse();
      if (admission_) admission_->ready_deadlines.erase({w->ready_deadline, w->id});
      const Status moved = workloads_.move(*w, S::kRunning, o.at);
      // Only running jobs are resized: one that starts to run is the policies' to act on now,
      // not at whatever event next causes a cycle.
      if (w->spec->elastic.enabled()) wake_for_elasticity(o.at);
      return moved;
    }
    case K::kFinished:
    case K::kFailed: {
      const S to = o.kind == K::kFinished ? S::kFinished : S::kFailed;
      if (!transition_allowed(w->state, to)) return refuse();
      release_all(cluster, *w, o.at);
      w->last_reason = o.reason;
      wake_for_elasticity(o.at);  // its GPUs are idle: a running job may grow into them
      return workloads_.move(*w, to, o.at);
    }
    case K::kEvicted: {
      if (!is_placed(w->state)) return refuse();
      release_all(cluster, *w, o.at);
      w->last_reason = o.reason;
      wake_for_elasticity(o.at);  // its GPUs are idle
      ++w->evictions;
      (void)workloads_.move(*w, S::kEvicted, o.at);
      if (w->withdraw_requested) {
        if (admission_) admission_evicted(*w, o.at, o.at);  // a victim's preemptor stops waiting
        return workloads_.move(*w, S::kWithdrawn, o.at);
      }
      if (admission_) {
        admission_evicted(*w, o.at, o.deadline);
        return Status::ok();
      }
      (void)workloads_.move(*w, S::kPending, o.at);
      if (o.deadline > o.at) {
        hold_until(*w, o.deadline);
      } else {
        enqueue(*w);
      }
      return Status::ok();
    }
    case K::kResized:
    case K::kResizeFailed:
      if (w->state != S::kRunning || w->resize_to_pods < 0) return refuse();
      end_resize(cluster, *w, o.kind == K::kResized, o.at);
      return Status::ok();
    case K::kDeleted: {
      Result<std::optional<EvictAction>> r = withdraw(o.job, o.at);
      return r ? Status::ok() : Status::error(r.error());
    }
    case K::kPodRunning:
    case K::kPodSucceeded:
    case K::kPodFailed:
    case K::kSubmitted:
      return Status::ok();  // per-pod progress; the workload-level observation moves it
    default:
      return refuse();
  }
}

void Scheduler::wake_for_elasticity(Time at) {
  if (config_.elasticity.enabled() && waker_ != nullptr) waker_->wake_at(at);
}

void Scheduler::note_cluster(const Cluster& cluster) {
  const size_t types = cluster.topology().gpus.size();
  if (last_cluster_ != &cluster || last_histograms_.size() != types) {
    last_cluster_ = &cluster;
    last_histograms_.assign(types, {});
    type_version_.resize(std::max(type_version_.size(), types), 0);
    for (auto& v : type_version_) ++v;
    ++any_version_;
    for (size_t t = 0; t < types; ++t)
      last_histograms_[t] = cluster.free_gpu_histogram(static_cast<GpuTypeId>(t));
    return;
  }
  bool changed = false;
  for (size_t t = 0; t < types; ++t) {
    const auto& now = cluster.free_gpu_histogram(static_cast<GpuTypeId>(t));
    if (now == last_histograms_[t]) continue;
    ++type_version_[t];
    changed = true;
    last_histograms_[t] = now;
  }
  if (changed) ++any_version_;
}

bool Scheduler::gpus_could_fit(const Cluster& cluster, uint32_t g) {
  const GpuShape& shape = queue_.groups()[g].shape;
  GroupState& st = group_state_[g];
  if (st.resolved_for != cluster.instance_id()) {
    st.resolved_for = cluster.instance_id();
    st.any = shape.gpu_models.empty();
    st.types = known_gpu_types(cluster.topology().gpus, shape.gpu_models);
    st.dead = false;
  }
  fitting_types_.clear();
  if (shape.total_gpus == 0 && shape.share_pods == 0) return true;
  if (!st.any && st.types.empty()) return false;  // no model the job allows is known here
  const uint64_t version =
      st.types.size() == 1 ? type_version_[static_cast<size_t>(st.types[0])] : any_version_;
  if (st.dead && st.dead_version == version) return false;

  // Whole GPUs only: shares fit in partly used GPUs the histogram does not see, so a shape's
  // share pods are left to placement (and never make the shape "dead").
  const auto fits_type = [&](GpuTypeId t) {
    if (cluster.total_gpus(t) == 0) return false;
    if (cluster.free_gpus(t) < shape.total_gpus) return false;
    const auto& histogram = cluster.free_gpu_histogram(t);
    for (const auto& [gpus, pods] : shape.counts)
      if (!histogram_holds(histogram, gpus, pods)) return false;
    return true;
  };
  if (!st.any) {
    for (GpuTypeId t : st.types)
      if (fits_type(t)) fitting_types_.push_back(t);
  } else {
    for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(cluster.topology().gpus.size()); ++t)
      if (fits_type(t)) fitting_types_.push_back(t);
  }
  if (!fitting_types_.empty()) return true;
  // Capacity only shrinks until the next cycle starts, so this verdict holds until the
  // histogram differs from the one seen at the end of this cycle (note_cluster()).
  st.dead = true;
  st.dead_version = version;
  return false;
}

bool Scheduler::place(Cluster& cluster, const QueuedJob& job, std::vector<GpuTypeId> types,
                      BindAction& out) {
  const FullShape& shape = queue_.full_shape(job.full_shape);
  const GangRequest gang{shape.pods, 0, &shape.node_selector, &shape.tolerations, {}};
  return place_gang(cluster, job.id, gang, std::move(types), out);
}

bool Scheduler::place_gang(Cluster& cluster, JobId id, const GangRequest& request,
                           std::vector<GpuTypeId> types, BindAction& out) {
  gang_.begin(cluster, {request.pods.begin(), request.pods.end()}, std::move(types));
  gang_.set_constraints(request.node_selector, request.tolerations);
  gang_.set_domain(request.rack, request.node);
  for (const PodPlacement& p : request.existing) gang_.add_existing(cluster, p.node, p.gpu_mask);
  const auto owner = [&](int pod) { return AllocationOwner{id, request.first_pod + pod}; };
  while (!gang_.complete()) {
    const Resources& pod = gang_.pod(gang_.current());
    const PlacementContext ctx{cluster, index_, gang_, pod};
    const std::optional<NodeId> node = plugin_->select(ctx);
    if (!node) {
      // Never leave a partial gang: give back what the earlier pods took.
      for (auto i = gang_.placed().rbegin(); i != gang_.placed().rend(); ++i) {
        const PodPlacement& p = gang_.placements()[static_cast<size_t>(*i)];
        [[maybe_unused]] const Status released = cluster.release(owner(*i));
        assert(released && "the gang's own allocation is gone");
        index_.note(cluster, p.node);
      }
      return false;
    }
    const uint64_t mask = plugin_->pick_gpus(ctx, *node);
    assert(std::popcount(mask) == (pod.shares_gpu() ? 1 : pod.gpus) &&
           "a plugin picked the wrong number of GPUs");
    assert((pod.shares_gpu() || (cluster.free_gpu_mask(*node) & mask) == mask) &&
           "a plugin picked a busy GPU");
    assert((!pod.shares_gpu() ||
            cluster.gpu_free_milli(*node, std::countr_zero(mask)) >= pod.gpu_milli) &&
           "a plugin picked a GPU without room for the share");
    // The plugin filtered the node, so the model takes the pod; anything else is a plugin bug.
    [[maybe_unused]] const Status taken =
        cluster.allocate(*node, pod, mask, owner(gang_.current()));
    assert(taken && "a plugin chose a node the pod does not fit on");
    index_.note(cluster, *node);
    gang_.add(cluster, *node, mask);
  }
  out.job = id;
  out.pods = gang_.placements();
  out.requests.assign(request.pods.begin(), request.pods.end());
  return true;
}

void Scheduler::begin_cycle(const Cluster& cluster) {
  ++cycle_;
  note_cluster(cluster);
  index_synced_ = false;
}

void Scheduler::end_cycle(const Cluster& cluster) {
  // Remember the histograms this cycle leaves behind, so the next cycle can tell whether
  // anything was released in between. No version bump: what this cycle allocated only made
  // the "cannot fit" verdicts more true.
  for (size_t t = 0; t < last_histograms_.size(); ++t)
    last_histograms_[t] = cluster.free_gpu_histogram(static_cast<GpuTypeId>(t));
}

bool Scheduler::try_job(Cluster& cluster, const QueuedJob& job, BindAction& out) {
  if (!index_synced_) {
    index_.sync(cluster);
    index_synced_ = true;
  }
  if (place(cluster, job, fitting_types_, out)) return true;
  shape_failed_cycle_[job.full_shape] = cycle_;
  return false;
}

std::vector<BindAction> Scheduler::run_cycle(Cluster& cluster, Time now) {
  // Backoffs that have ended rejoin the queue (in queue order, like any pending workload).
  while (!backoff_.empty() && backoff_.begin()->first <= now) {
    Workload* w = workloads_.find(backoff_.begin()->second);
    backoff_.erase(backoff_.begin());
    enqueue(*w);
  }
  if (admission_) {
    std::vector<BindAction> admitted = run_admission_cycle(cluster, now);
    // Elasticity policies act on what the cycle left (off by default: nothing happens).
    if (config_.elasticity.enabled()) run_elasticity(cluster, now);
    return admitted;
  }
  begin_cycle(cluster);
  std::vector<BindAction> placed;
  const bool strict = config_.queueing == Queueing::kStrictFifo;

  // Merge the groups in queue order with a heap of their heads; each entry carries the job it
  // stands for, so a group can resume after a job that stayed in the queue.
  struct Head {
    QueueKey key;
    uint32_t group;
    std::set<QueuedJob>::iterator job;
    bool operator>(const Head& o) const { return key > o.key; }
  };
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  auto& groups = queue_.groups();
  for (uint32_t g = 0; g < groups.size(); ++g)
    if (!groups[g].jobs.empty())
      heads.push(Head{groups[g].jobs.begin()->key, g, groups[g].jobs.begin()});

  while (!heads.empty()) {
    const Head head = heads.top();
    heads.pop();
    const uint32_t g = head.group;
    auto& jobs = groups[g].jobs;
    if (!gpus_could_fit(cluster, g)) {
      if (strict) break;
      continue;  // the whole group is out for this cycle
    }
    auto it = head.job;
    if (shape_failed_cycle_[it->full_shape] == cycle_) {
      // Skip to this group's next job whose full shape has not failed yet; it may come after
      // other groups' heads, so it goes back into the heap rather than being tried now.
      while (it != jobs.end() && shape_failed_cycle_[it->full_shape] == cycle_) ++it;
      if (it != jobs.end()) heads.push(Head{it->key, g, it});
      continue;
    }
    BindAction action;
    if (try_job(cluster, *it, action)) {
      Workload& w = *workloads_.find(it->id);
      w.pods = action.pods;
      w.next_pod_id = static_cast<int32_t>(w.pods.size());
      (void)workloads_.move(w, WorkloadState::kAssumed, now);
      queued_.erase(it->id);
      placed.push_back(std::move(action));
      it = queue_.erase(g, it);
    } else {
      if (strict) break;
      ++it;
    }
    if (it != jobs.end()) heads.push(Head{it->key, g, it});
  }
  end_cycle(cluster);
  // Elasticity policies act on what the cycle left (off by default: nothing happens).
  if (config_.elasticity.enabled()) run_elasticity(cluster, now);
  return placed;
}

std::optional<BindAction> Scheduler::place_now(Cluster& cluster, JobId id, const JobSpec& spec) {
  const JobQueue::Handle h = queue_.push(id, spec);
  if (group_state_.size() < queue_.groups().size()) group_state_.resize(queue_.groups().size());
  if (shape_failed_cycle_.size() < queue_.full_shape_count())
    shape_failed_cycle_.resize(queue_.full_shape_count(), 0);
  begin_cycle(cluster);
  std::optional<BindAction> result;
  // A shape that failed earlier in a cycle is not retried in that cycle; every place_now() is
  // its own cycle, so that never applies here.
  if (gpus_could_fit(cluster, h.group)) {
    BindAction action;
    if (try_job(cluster, *h.job, action)) result = std::move(action);
  }
  queue_.erase(h.group, h.job);
  end_cycle(cluster);
  return result;
}

}  // namespace gantry
