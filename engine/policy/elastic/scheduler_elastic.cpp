// The Scheduler's elasticity policies: scale-out-idle, shrink-to-admit and goodput
// (scheduler.hpp, "Elasticity policies"; the pure rules are in elastic_rules.hpp).

#include <algorithm>
#include <cassert>
#include <set>

#include "engine/policy/scheduler.hpp"

namespace gantry {

namespace {

constexpr const char* kReasonScaleOutIdle = "ScaleOutIdle";
constexpr const char* kReasonShrinkToAdmit = "ShrinkToAdmit";
constexpr const char* kReasonGoodput = "Goodput";

int32_t fixed_pod_count(const JobSpec& spec) {
  return static_cast<int32_t>(spec.total_pods() - spec.roles.back().replicas);
}

int worker_count(const Workload& w) {
  return static_cast<int>(w.pods.size()) - fixed_pod_count(*w.spec);
}

// The GPU models a gang may use: the catalog's ids of the names it allows, or every model.
std::vector<GpuTypeId> allowed_types(const Cluster& cluster, const JobSpec& spec) {
  const GpuCatalog& catalog = cluster.topology().gpus;
  std::vector<GpuTypeId> types;
  const std::vector<std::string> names = spec.allowed_gpu_models();
  for (const std::string& name : names)
    if (const GpuTypeId t = catalog.find(name); t >= 0) types.push_back(t);
  if (names.empty())
    for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(catalog.size()); ++t) types.push_back(t);
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  return types;
}

// The GPU model a placed workload runs on, -1 if none of its pods holds a GPU.
GpuTypeId type_of(const Cluster& cluster, const Workload& w) {
  GpuTypeId type = -1;
  for (const PodPlacement& p : w.pods)
    if (p.gpu_mask != 0) type = cluster.gpu_type_of(p.node);
  return type;
}

}  // namespace

std::vector<ElasticJob> Scheduler::elastic_jobs() const {
  std::vector<ElasticJob> jobs;
  for (const JobId id : workloads_.running_elastic()) {
    const Workload& w = *workloads_.find(id);
    const JobSpec& spec = *w.spec;
    if (spec.roles.empty() || spec.roles.back().kind != RoleKind::kWorker ||
        w.resize_to_pods >= 0 || w.pending_resize || w.evicting || w.withdraw_requested)
      continue;
    ElasticJob j;
    j.id = w.id;
    j.priority = spec.priority;
    j.started = w.history.back().at;  // resizes are not recorded: this is its last start
    j.workers = worker_count(w);
    j.spec = spec.elastic;
    j.gpus_per_worker = static_cast<double>(spec.roles.back().per_replica.gpu_milli_total()) / 1000;
    jobs.push_back(j);
  }
  return jobs;  // by id: a fixed order to start from
}

void Scheduler::run_elasticity(Cluster& cluster, Time now) {
  for (const ElasticPolicy policy : config_.elasticity.policies) {
    switch (policy) {
      case ElasticPolicy::kNone:
        break;
      case ElasticPolicy::kShrinkToAdmit: {
        // With admission, try_admit() shrinks for each head it turns away (make_room()).
        if (admission_ || queue_.size() == 0) break;
        const QueuedJob* head = nullptr;
        for (const auto& group : queue_.groups())
          if (!group.jobs.empty() && (head == nullptr || group.jobs.begin()->key < head->key))
            head = &*group.jobs.begin();
        begin_cycle(cluster);
        index_.sync(cluster);
        index_synced_ = true;
        (void)shrink_to_admit(cluster, *workloads_.find(head->id), now);
        end_cycle(cluster);
        break;
      }
      case ElasticPolicy::kScaleOutIdle:
        if (nothing_pending()) scale_out_idle(cluster, now);
        break;
      case ElasticPolicy::kGoodput:
        goodput(cluster, now);
        break;
    }
  }
}

bool Scheduler::make_room(Cluster& cluster, Workload& w, Time now) {
  if (config_.elasticity.has(ElasticPolicy::kShrinkToAdmit) && shrink_to_admit(cluster, w, now))
    return true;
  return try_preemption(cluster, w, now);
}

bool Scheduler::growth_within_nominal(const Cluster& cluster, const Workload& w,
                                      int workers) const {
  if (!admission_) return true;
  const std::vector<Resources> added(static_cast<size_t>(workers),
                                     w.spec->roles.back().per_replica);
  return admission_->book.within_nominal(w.queue,
                                         quota_usage(cluster, w, added, type_of(cluster, w)));
}

void Scheduler::scale_out_idle(Cluster& cluster, Time now) {
  std::vector<ElasticJob> jobs = elastic_jobs();
  sort_for_growth(jobs);
  for (const ElasticJob& j : jobs) {
    Workload& w = *workloads_.find(j.id);
    const int step = step_of(j.spec);
    const int64_t free_milli = cluster.free_gpu_milli();
    for (int k = grow_steps(j.spec, j.workers); k >= 1; --k) {
      // Cheap bounds first: the GPUs and the quota the new Workers need.
      if (j.gpus_per_worker * k * step * 1000 > static_cast<double>(free_milli)) continue;
      if (!growth_within_nominal(cluster, w, k * step)) continue;
      Result<std::optional<ResizeAction>> r =
          resize(cluster, j.id, j.workers + k * step, now, kReasonScaleOutIdle);
      if (r && r.value()) {
        resizes_.push_back(std::move(*r.value()));
        break;
      }
    }
  }
}

void Scheduler::set_trial_cut(Cluster& cluster, TrialCut& t, int cut) {
  Workload& w = *t.w;
  const size_t n = w.pods.size();
  const Resources& worker = w.spec->roles.back().per_replica;
  // Positions ascend with pod ids, so the highest Workers are the last positions.
  for (size_t pos = n - static_cast<size_t>(t.cut); pos < n - static_cast<size_t>(cut); ++pos) {
    const PodPlacement& p = w.pods[pos];
    [[maybe_unused]] const Status s =
        cluster.allocate(p.node, worker, p.gpu_mask, AllocationOwner{w.id, w.pod_id(pos)});
    assert(s && "a trial scale-in could not be put back");
    index_.note(cluster, p.node);
  }
  for (size_t pos = n - static_cast<size_t>(cut); pos < n - static_cast<size_t>(t.cut); ++pos) {
    (void)cluster.release(AllocationOwner{w.id, w.pod_id(pos)});
    index_.note(cluster, w.pods[pos].node);
  }
  t.cut = cut;
  if (admission_ && admission_->queues[static_cast<size_t>(w.queue)].admitted.count(w.id) > 0) {
    // Quota as admission_reaccount() counts it: the requests of the pods that stay.
    std::vector<Resources> staying(
        w.requests.begin(),
        w.requests.begin() + static_cast<std::ptrdiff_t>(std::min(w.requests.size(), n - cut)));
    admission_->book.remove(w.queue, t.usage);
    t.usage = quota_usage(cluster, w, staying, type_of(cluster, w));
    admission_->book.add(w.queue, t.usage);
  }
}

bool Scheduler::head_fits(Cluster& cluster, Workload& head) {
  const JobSpec& spec = *head.spec;
  BindAction scratch;
  bool placed = false;
  if (admission_) {
    bool any_quota = false;
    const std::vector<GpuTypeId> types = quota_types(cluster, head, head.requests, any_quota);
    if (!any_quota) return false;
    // The free-GPU counters rule most trials out without a placement (gpu_fit.hpp).
    if (!gang_could_fit(cluster, head.requests, types)) return false;
    placed = place_constrained(cluster, head.id, spec, head.requests, types, scratch);
  } else {
    // As run_cycle() places it: the whole gang, no topology constraint.
    const std::vector<Resources> pods = spec.pod_requests();
    std::vector<GpuTypeId> types = allowed_types(cluster, spec);
    if (!gang_could_fit(cluster, pods, types)) return false;
    const GangRequest request{pods, 0, &spec.node_selector, &spec.tolerations, {}};
    placed = place_gang(cluster, head.id, request, std::move(types), scratch);
  }
  if (!placed) return false;
  for (size_t pod = 0; pod < scratch.pods.size(); ++pod) {
    (void)cluster.release(AllocationOwner{head.id, static_cast<int32_t>(pod)});
    index_.note(cluster, scratch.pods[pod].node);
  }
  return true;
}

bool Scheduler::shrink_to_admit(Cluster& cluster, Workload& head, Time now) {
  // Shrinks for a head stay "in flight" until the world reports them done.
  for (auto it = elastic_.shrinking.begin(); it != elastic_.shrinking.end();) {
    const Workload* v = workloads_.find(it->first);
    if (v == nullptr || v->state != WorkloadState::kRunning || v->resize_to_pods < 0)
      it = elastic_.shrinking.erase(it);
    else
      ++it;
  }
  for (const auto& [victim, for_head] : elastic_.shrinking)
    if (for_head == head.id) return true;

  // Candidates: (1) borrowers of the head's cohort, (2) its own queue's jobs (every job without
  // admission) of no higher priority.
  std::vector<ElasticJob> borrowers, others;
  for (const ElasticJob& j : elastic_jobs()) {
    const Workload& w = *workloads_.find(j.id);
    if (j.id == head.id || shrink_steps(j.spec, j.workers) < 1) continue;
    if (admission_) {
      const QuotaBook& book = admission_->book;
      if (w.queue != head.queue && book.cohort_of(w.queue) == book.cohort_of(head.queue) &&
          book.borrowing(w.queue)) {
        borrowers.push_back(j);
        continue;
      }
      if (w.queue != head.queue) continue;
    }
    if (j.priority <= head.spec->priority) others.push_back(j);
  }
  sort_for_shrink(borrowers);
  sort_for_shrink(others);
  const size_t borrower_count = borrowers.size();
  borrowers.insert(borrowers.end(), others.begin(), others.end());
  const std::vector<ElasticJob>& order = borrowers;
  if (order.empty()) return false;

  std::vector<TrialCut> cuts;
  bool fits = false;
  for (size_t i = 0; i < order.size() && !fits; ++i) {
    Workload& w = *workloads_.find(order[i].id);
    TrialCut t{&w, 0, w.usage};
    const int step = step_of(order[i].spec);
    for (int k = 1; k <= shrink_steps(order[i].spec, order[i].workers); ++k) {
      // A borrower gives back only what it borrows.
      if (i < borrower_count && !admission_->book.borrowing(w.queue)) break;
      set_trial_cut(cluster, t, k * step);
      if (head_fits(cluster, head)) {
        fits = true;
        break;
      }
    }
    if (t.cut > 0) cuts.push_back(std::move(t));
  }
  if (fits) {
    // A minimal set: put earlier candidates back whole when the head still fits without them.
    for (size_t i = cuts.size() - 1; i-- > 0;) {
      const int was = cuts[i].cut;
      set_trial_cut(cluster, cuts[i], 0);
      if (!head_fits(cluster, head)) set_trial_cut(cluster, cuts[i], was);
    }
  }
  std::vector<std::pair<JobId, int>> shrinks;
  for (auto it = cuts.rbegin(); it != cuts.rend(); ++it) {
    if (fits && it->cut > 0) shrinks.emplace_back(it->w->id, worker_count(*it->w) - it->cut);
    set_trial_cut(cluster, *it, 0);
  }
  if (!fits) return false;
  std::reverse(shrinks.begin(), shrinks.end());  // candidate order
  for (const auto& [id, replicas] : shrinks) {
    Result<std::optional<ResizeAction>> r =
        resize(cluster, id, replicas, now, kReasonShrinkToAdmit);
    assert(r && r.value() && "a candidate's scale-in was refused");
    if (!r || !r.value()) continue;
    resizes_.push_back(std::move(*r.value()));
    elastic_.shrinking[id] = head.id;
  }
  return true;
}

void Scheduler::goodput(Cluster& cluster, Time now) {
  // Receivers whose donor's scale-in is done grow now (if their Workers still fit).
  for (auto it = elastic_.grants.begin(); it != elastic_.grants.end();) {
    const Workload* d = workloads_.find(it->donor);
    if (d != nullptr && d->state == WorkloadState::kRunning && d->resize_to_pods >= 0) {
      ++it;
      continue;
    }
    const Workload* r = workloads_.find(it->receiver);
    if (r != nullptr && r->state == WorkloadState::kRunning && r->resize_to_pods < 0 &&
        !r->pending_resize && growth_within_nominal(cluster, *r, it->replicas - worker_count(*r))) {
      Result<std::optional<ResizeAction>> grown =
          resize(cluster, it->receiver, it->replicas, now, kReasonGoodput);
      if (grown && grown.value()) resizes_.push_back(std::move(*grown.value()));
    }
    it = elastic_.grants.erase(it);
  }
  if (throughput_ == nullptr) return;
  const ElasticityConfig& config = config_.elasticity;
  if (!elastic_.started) {
    elastic_.started = true;
    elastic_.next_eval = saturating_add(now, config.interval);
  }
  std::vector<ElasticJob> jobs = elastic_jobs();
  const auto ask_wake = [&] {
    if (waker_ != nullptr && !jobs.empty() && elastic_.wake_asked != elastic_.next_eval) {
      elastic_.wake_asked = elastic_.next_eval;
      waker_->wake_at(elastic_.next_eval);
    }
  };
  if (now < elastic_.next_eval || !nothing_pending() || !elastic_.grants.empty()) {
    ask_wake();
    return;
  }
  elastic_.next_eval = saturating_add(now, config.interval);
  ask_wake();

  std::vector<GoodputJob> g;
  for (const ElasticJob& j : jobs) {
    const JobSpec& spec = *workloads_.find(j.id)->spec;
    const int step = step_of(j.spec);
    const int m = std::max(1, j.spec.min_replicas);
    GoodputJob gj;
    gj.job = j;
    gj.t_min = throughput_->steps_per_second(cluster, spec, m);
    gj.t_now = throughput_->steps_per_second(cluster, spec, j.workers);
    if (grow_steps(j.spec, j.workers) >= 1)
      gj.t_up = throughput_->steps_per_second(cluster, spec, j.workers + step);
    if (shrink_steps(j.spec, j.workers) >= 1)
      gj.t_down = throughput_->steps_per_second(cluster, spec, j.workers - step);
    g.push_back(gj);
  }
  const std::vector<size_t> receivers = receiver_order(g);
  const std::vector<size_t> donors = donor_order(g);
  std::vector<bool> used(g.size(), false);
  for (const size_t ri : receivers) {
    if (used[ri]) continue;
    const GoodputJob& r = g[ri];
    Workload& rw = *workloads_.find(r.job.id);
    const int r_step = step_of(r.job.spec);
    if (!growth_within_nominal(cluster, rw, r_step)) continue;
    // Idle GPUs first: no donor loses anything.
    if (goodput_net_gain(r, nullptr, config.interval) > config.min_gain_gpu_seconds) {
      Result<std::optional<ResizeAction>> grown =
          resize(cluster, r.job.id, r.job.workers + r_step, now, kReasonGoodput);
      if (grown && grown.value()) {
        resizes_.push_back(std::move(*grown.value()));
        used[ri] = true;
        continue;
      }
    }
    for (const size_t di : donors) {
      if (di == ri || used[di]) continue;
      const GoodputJob& d = g[di];
      if (goodput_net_gain(r, &d, config.interval) <= config.min_gain_gpu_seconds) continue;
      // Would the receiver's new Workers be placed once the donor's step has left?
      Workload& dw = *workloads_.find(d.job.id);
      TrialCut cut{&dw, 0, dw.usage};
      index_.sync(cluster);
      set_trial_cut(cluster, cut, step_of(d.job.spec));
      const std::vector<Resources> pods(static_cast<size_t>(r_step),
                                        rw.spec->roles.back().per_replica);
      const GangRequest request{pods, rw.next_pod_id, &rw.spec->node_selector,
                                &rw.spec->tolerations, rw.pods};
      BindAction trial;
      const bool placed =
          place_gang(cluster, rw.id, request, allowed_types(cluster, *rw.spec), trial);
      if (placed)
        for (size_t pod = 0; pod < trial.pods.size(); ++pod) {
          (void)cluster.release(AllocationOwner{rw.id, rw.next_pod_id + static_cast<int32_t>(pod)});
          index_.note(cluster, trial.pods[pod].node);
        }
      set_trial_cut(cluster, cut, 0);
      if (!placed) continue;
      Result<std::optional<ResizeAction>> shrunk =
          resize(cluster, d.job.id, d.job.workers - step_of(d.job.spec), now, kReasonGoodput);
      if (!shrunk || !shrunk.value()) continue;
      resizes_.push_back(std::move(*shrunk.value()));
      elastic_.grants.push_back(Grant{r.job.id, d.job.id, r.job.workers + r_step});
      used[ri] = used[di] = true;
      break;
    }
  }
}

}  // namespace gantry
