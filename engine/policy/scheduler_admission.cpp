// The Scheduler's admission cycle: queues, quotas, preemption, waitForPodsReady
// (scheduler.hpp, "Admission"; engine/policy/queues/README.md).

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <map>
#include <queue>

#include "engine/policy/queues/preemption.hpp"
#include "engine/policy/scheduler.hpp"

namespace gantry {

namespace {

const std::string kNoModel;

bool needs_gpus(std::span<const Resources> pods) {
  return std::any_of(pods.begin(), pods.end(), [](const Resources& r) { return r.needs_gpu(); });
}

// The pods of a job with `replicas` replicas of its last role (partial admission keeps the
// first ones: pods are numbered role by role), from the workload's requests in pod order.
std::vector<Resources> pods_with(const JobSpec& spec, const std::vector<Resources>& requests,
                                 int replicas) {
  std::vector<Resources> pods = requests;
  if (!spec.roles.empty()) {
    const int cut = spec.roles.back().replicas - replicas;
    if (cut > 0) pods.resize(pods.size() - static_cast<size_t>(cut));
  }
  return pods;
}

// The workload's quota usage while placed on `pods` (the requests of its placed pods).
std::span<const Resources> placed_requests(const Workload& w) {
  return std::span<const Resources>(w.requests).first(std::min(w.requests.size(), w.pods.size()));
}

}  // namespace

bool Scheduler::HeadKey::operator>(const HeadKey& o) const {
  if (borrows != o.borrows) return borrows;  // within nominal quota first
  if (share != o.share) return share > o.share;
  if (decayed != o.decayed) return decayed > o.decayed;
  if (key != o.key) return key > o.key;
  return queue > o.queue;
}

std::vector<QueueUsageMeter::Totals> Scheduler::queue_usage(Time now) {
  std::vector<QueueUsageMeter::Totals> out;
  if (!admission_) return out;
  admission_->meter.touch_all(now);
  for (int q = 0; q < static_cast<int>(admission_->book.queue_count()); ++q)
    out.push_back(admission_->meter.totals(q));
  return out;
}

void Scheduler::admission_enqueue(Workload& w) {
  AdmissionQueues& a = *admission_;
  // Kueue's order: priority, then the workload's creation (its submission, kept across
  // evictions), then arrival in the queue.
  w.queue_key =
      QueueKey{-static_cast<int64_t>(w.spec->priority), w.spec->submit.micros(), a.next_seq++};
  AdmissionQueues::Queue& q = a.queues[static_cast<size_t>(w.queue)];
  if (w.requests.empty()) {
    w.requests = w.spec->pod_requests();
    const WalkMemo::Totals t = WalkMemo::totals_of(w.requests);
    w.requested_gpu_milli = t.gpu_milli;
    w.requested_cpu_milli = t.cpu_milli;
    w.requested_memory = t.memory;
  }
  q.pending.emplace(w.queue_key, &w);
  q.parked = false;
  ++a.pending;
}

void Scheduler::admission_dequeue(Workload& w) {
  AdmissionQueues& a = *admission_;
  auto& pending = a.queues[static_cast<size_t>(w.queue)].pending;
  if (const auto it = pending.find(w.queue_key); it != pending.end() && it->second == &w) {
    pending.erase(it);
    --a.pending;
  }
}

void Scheduler::admission_release(Workload& w, Time now) {
  AdmissionQueues& a = *admission_;
  AdmissionQueues::Queue& q = a.queues[static_cast<size_t>(w.queue)];
  if (q.admitted.erase(w.id) == 0) return;  // held no quota
  const int cohort = a.book.cohort_of(w.queue);
  a.meter.touch(cohort, now);
  a.book.remove(w.queue, w.usage);
  ++a.cohort_version[static_cast<size_t>(cohort)];
  w.usage.clear();
  a.ready_deadlines.erase({w.ready_deadline, w.id});
}

void Scheduler::release_reservation(Workload& w, Time now) {
  if (w.reserved.empty()) return;
  AdmissionQueues& a = *admission_;
  const int cohort = a.book.cohort_of(w.queue);
  a.meter.touch(cohort, now);
  a.book.remove(w.queue, w.reserved);
  ++a.cohort_version[static_cast<size_t>(cohort)];
  w.reserved.clear();
}

void Scheduler::admission_reaccount(const Cluster& cluster, Workload& w, Time now) {
  AdmissionQueues& a = *admission_;
  if (a.queues[static_cast<size_t>(w.queue)].admitted.count(w.id) == 0) return;
  const int cohort = a.book.cohort_of(w.queue);
  a.meter.touch(cohort, now);
  a.book.remove(w.queue, w.usage);
  GpuTypeId type = -1;
  for (const PodPlacement& p : w.pods)
    if (p.gpu_mask != 0) type = cluster.gpu_type_of(p.node);
  w.usage = quota_usage(cluster, w, placed_requests(w), type);
  a.book.add(w.queue, w.usage);
  ++a.cohort_version[static_cast<size_t>(cohort)];
}

ResourceVector Scheduler::quota_usage(const Cluster& cluster, const Workload& w,
                                      std::span<const Resources> pods, GpuTypeId type) const {
  const WalkMemo::Totals t = WalkMemo::totals_of(pods);
  const std::string& model = type >= 0 ? cluster.topology().gpus.at(type).name : kNoModel;
  return admission_->book.usage(w.queue, t.gpu_milli, model, t.cpu_milli, t.memory);
}

std::vector<GpuTypeId> Scheduler::quota_types(const Cluster& cluster, const Workload& w,
                                              std::span<const Resources> pods,
                                              bool& any_quota) const {
  const QuotaBook& book = admission_->book;
  std::vector<GpuTypeId> types;
  if (!needs_gpus(pods)) {
    any_quota = book.fits(w.queue, quota_usage(cluster, w, pods, -1)).fits;
    return types;
  }
  const GpuCatalog& catalog = cluster.topology().gpus;
  const std::vector<std::string> allowed = w.spec->allowed_gpu_models();
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(catalog.size()); ++t) {
    if (!allowed.empty() &&
        std::none_of(allowed.begin(), allowed.end(),
                     [&](const std::string& name) { return catalog.find(name) == t; }))
      continue;
    if (cluster.total_gpus(t) == 0) continue;
    // A queue with quota per GPU model may use only the models it names (Kueue's flavors).
    if (book.per_model_gpus(w.queue) &&
        !book.limits(w.queue, book.gpu_model_resource(catalog.at(t).name)))
      continue;
    if (book.fits(w.queue, quota_usage(cluster, w, pods, t)).fits) types.push_back(t);
  }
  any_quota = !types.empty();
  return types;
}

bool Scheduler::place_constrained(Cluster& cluster, JobId id, const JobSpec& spec,
                                  std::span<const Resources> pods,
                                  const std::vector<GpuTypeId>& types, BindAction& out) {
  if (!gang_could_fit(cluster, pods, types)) return false;
  if (!index_synced_) {
    index_.sync(cluster);
    index_synced_ = true;
  }
  GangRequest request{pods, 0, &spec.node_selector, &spec.tolerations, {}};
  using Level = TopologyConstraint::Level;
  const Level level = spec.topology.level;
  if (level == Level::kNone) return place_gang(cluster, id, request, types, out);

  // Domains that could hold the gang's whole GPUs, fullest first (best fit keeps large domains
  // whole for large gangs), then by id.
  int64_t gang_gpus = 0;
  for (const Resources& r : pods) gang_gpus += r.gpus;
  const bool by_rack = level == Level::kRack;
  const size_t domains =
      by_rack ? cluster.topology().racks.size() : static_cast<size_t>(cluster.node_count());
  std::vector<int64_t> free(domains, 0);
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    if (!cluster.schedulable(n)) continue;
    const GpuTypeId t = cluster.gpu_type_of(n);
    if (!types.empty() && std::find(types.begin(), types.end(), t) == types.end()) continue;
    free[static_cast<size_t>(by_rack ? cluster.rack_of(n) : n)] +=
        std::popcount(cluster.free_gpu_mask(n));
  }
  std::vector<int32_t> order;
  for (size_t d = 0; d < domains; ++d)
    if (free[d] >= gang_gpus &&
        (gang_gpus > 0 || by_rack || cluster.schedulable(static_cast<NodeId>(d))))
      order.push_back(static_cast<int32_t>(d));
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return free[static_cast<size_t>(a)] != free[static_cast<size_t>(b)]
               ? free[static_cast<size_t>(a)] < free[static_cast<size_t>(b)]
               : a < b;
  });
  for (const int32_t d : order) {
    request.rack = by_rack ? d : -1;
    request.node = by_rack ? -1 : d;
    if (!place_gang(cluster, id, request, types, out)) continue;
    if (level == Level::kIsland) {
      // Every GPU of the gang inside one NVLink island of the node.
      uint64_t mask = 0;
      for (const PodPlacement& p : out.pods) mask |= p.gpu_mask;
      const int island = cluster.node_class(d).island_size;
      const bool one =
          island <= 0 || mask == 0 ||
          (std::countr_zero(mask) / island) == ((63 - std::countl_zero(mask)) / island);
      if (!one) {
        for (size_t pod = 0; pod < out.pods.size(); ++pod)
          (void)cluster.release(AllocationOwner{id, static_cast<int32_t>(pod)});
        index_.note(cluster, d);
        continue;
      }
    }
    return true;
  }
  if (spec.topology.required) return false;
  request.rack = -1;
  request.node = -1;
  return place_gang(cluster, id, request, types, out);
}

void Scheduler::admit(Cluster& cluster, Workload& w, const BindAction& action, Time now) {
  AdmissionQueues& a = *admission_;
  admission_dequeue(w);
  w.pods = action.pods;
  w.next_pod_id = static_cast<int32_t>(w.pods.size());
  (void)workloads_.move(w, WorkloadState::kAssumed, now);
  w.admitted_at = now;
  w.admitted_cycle = cycle_;
  const RoleSpec* last = w.spec->roles.empty() ? nullptr : &w.spec->roles.back();
  w.replicas = last == nullptr
                   ? 0
                   : last->replicas - (w.spec->total_pods() - static_cast<int>(action.pods.size()));
  GpuTypeId type = -1;
  for (const PodPlacement& p : action.pods)
    if (p.gpu_mask != 0) type = cluster.gpu_type_of(p.node);
  const int cohort = a.book.cohort_of(w.queue);
  a.meter.touch(cohort, now);
  w.usage = quota_usage(cluster, w, action.requests, type);
  a.book.add(w.queue, w.usage);
  a.queues[static_cast<size_t>(w.queue)].admitted.emplace(w.id, &w);
  if (a.config.wait_for_pods_ready) {
    w.ready_deadline = saturating_add(now, a.config.wait_for_pods_ready->timeout);
    a.ready_deadlines.emplace(w.ready_deadline, w.id);
    if (waker_ != nullptr) waker_->wake_at(w.ready_deadline);
  }
}

bool Scheduler::WalkMemo::rules_out(const Workload& w) const {
  if (w.victims_pending > 0) return false;  // waits for its victims: keeps its queue unparked
  const Totals t{w.requested_gpu_milli, w.requested_cpu_milli, w.requested_memory};
  return dominates(quota, w, t) && dominates(preemption, w, t);
}

GpuTypeId Scheduler::first_allowed_type(const Cluster& cluster, const Workload& w) {
  if (w.requested_gpu_milli == 0) return -1;
  const std::vector<std::string> allowed = w.spec->allowed_gpu_models();
  const GpuCatalog& catalog = cluster.topology().gpus;
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(catalog.size()); ++t)
    if (cluster.total_gpus(t) > 0 &&
        (allowed.empty() || std::any_of(allowed.begin(), allowed.end(), [&](const std::string& n) {
           return catalog.find(n) == t;
         })))
      return t;
  return -1;
}

bool Scheduler::WalkMemo::dominates(const Failure& f, const Workload& w, const Totals& t) {
  if (!f.set) return false;  // before a failure there is no spec to look at
  const JobSpec& a = *f.spec;
  const JobSpec& b = *w.spec;
  return t.gpu_milli >= f.totals.gpu_milli && t.cpu_milli >= f.totals.cpu_milli &&
         t.memory >= f.totals.memory && b.priority <= a.priority && b.min_replicas == 0 &&
         a.gpu_type == b.gpu_type && a.gpu_types == b.gpu_types;
}

Scheduler::AdmitResult Scheduler::try_admit(Cluster& cluster, Workload& w, Time now,
                                            BindAction& out, WalkMemo* memo) {
  const JobSpec& spec = *w.spec;
  const int full = spec.roles.empty() ? 0 : spec.roles.back().replicas;
  const bool partial =
      spec.min_replicas > 0 && !spec.roles.empty() && spec.roles.back().kind == RoleKind::kWorker;
  const int fewest = partial ? std::min(spec.min_replicas, full) : full;
  // Within one queue's walk of a cycle the quota only fills up: a workload asking for at least
  // what an earlier one that failed quota asked (same models, no lower priority) fails too,
  // and one at least as large and no more urgent than an earlier failed preemption search
  // would search the same candidates in vain.
  const WalkMemo::Totals totals =
      WalkMemo::Totals{w.requested_gpu_milli, w.requested_cpu_milli, w.requested_memory};
  if (memo != nullptr && WalkMemo::dominates(memo->quota, w, totals)) {
    if (memo->preemption.set && WalkMemo::dominates(memo->preemption, w, totals))
      return AdmitResult::kNoQuota;
    if (make_room(cluster, w, now)) return AdmitResult::kPreempting;  // shrinks, then preemption
    memo->preemption = WalkMemo::Failure{true, totals, w.spec};
    return AdmitResult::kNoQuota;
  }
  bool quota_passed = false;
  for (int replicas = full; replicas >= fewest; --replicas) {
    const std::vector<Resources> pods = pods_with(spec, w.requests, replicas);
    bool any_quota = false;
    const std::vector<GpuTypeId> types = quota_types(cluster, w, pods, any_quota);
    if (!any_quota) continue;
    quota_passed = true;
    if (place_constrained(cluster, w.id, spec, pods, types, out)) {
      admit(cluster, w, out, now);
      return AdmitResult::kAdmitted;
    }
    // A smaller gang can only help placement if some node ran out of room; the quota check
    // above is cheap, placement is not: stop at the first failure unless partial.
  }
  if (memo != nullptr && !quota_passed && !partial)
    memo->quota = WalkMemo::Failure{true, totals, w.spec};
  if (memo != nullptr && memo->preemption.set && WalkMemo::dominates(memo->preemption, w, totals))
    return quota_passed ? AdmitResult::kNoPlacement : AdmitResult::kNoQuota;
  if (make_room(cluster, w, now)) return AdmitResult::kPreempting;  // shrinks, then preemption
  if (memo != nullptr) memo->preemption = WalkMemo::Failure{true, totals, w.spec};
  return quota_passed ? AdmitResult::kNoPlacement : AdmitResult::kNoQuota;
}

namespace {

// The scheduler's model as a preemption search changes it: candidates leave the quota book
// and the cluster (pods released, put back exactly where they were on restore()).
class ModelSimulation final : public PreemptionSimulation {
 public:
  using FitFn = std::function<bool(bool)>;
  // quota_fits(allow_borrowing): the quota part of fits() alone.
  ModelSimulation(QuotaBook& book, Cluster& cluster, NodeIndex& index, FitFn fits, FitFn quota_fits,
                  std::span<const Resources> pods, const std::vector<GpuTypeId>& types)
      : book_(book),
        cluster_(cluster),
        index_(index),
        fits_(std::move(fits)),
        quota_fits_(std::move(quota_fits)),
        pods_(pods),
        types_(types) {}

  // From counters, touching neither the cluster nor (for long) the book: the quota with their
  // usage taken out, and the GPUs their pods would free counted into each node's free GPUs
  // (the free-GPU histograms' test, which ignores CPU, memory and shares).
  bool could_fit_without(std::span<const PreemptionCandidate* const> gone,
                         bool allow_borrowing) override {
    for (const PreemptionCandidate* c : gone) book_.remove(c->queue, *c->usage);
    const bool quota = quota_fits_(allow_borrowing);
    for (const PreemptionCandidate* c : gone) book_.add(c->queue, *c->usage);
    if (!quota) return false;
    std::map<NodeId, int> freed;
    for (const PreemptionCandidate* c : gone)
      for (const PodPlacement& p : static_cast<const Workload*>(c->owner)->pods)
        if (p.gpu_mask != 0) freed[p.node] += std::popcount(p.gpu_mask);
    const GpuDemand demand = GpuDemand::of(pods_);
    if (demand.total == 0) return true;
    const auto fits_type = [&](GpuTypeId t) {
      std::vector<int> histogram = cluster_.free_gpu_histogram(t);
      int free = cluster_.free_gpus(t);
      for (const auto& [node, gpus] : freed) {
        if (cluster_.gpu_type_of(node) != t || !cluster_.schedulable(node)) continue;
        const auto before = static_cast<size_t>(std::popcount(cluster_.free_gpu_mask(node)));
        const size_t after = std::min(before + static_cast<size_t>(gpus), histogram.size() - 1);
        --histogram[before];
        ++histogram[after];
        free += static_cast<int>(after - before);
      }
      return demand.fits(histogram, free);
    };
    if (!types_.empty()) return std::any_of(types_.begin(), types_.end(), fits_type);
    for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(cluster_.topology().gpus.size()); ++t)
      if (fits_type(t)) return true;
    return false;
  }

  void remove(const PreemptionCandidate& c) override {
    const Workload& w = *static_cast<const Workload*>(c.owner);
    book_.remove(w.queue, w.usage);
    for (size_t pod = 0; pod < w.pods.size(); ++pod) {
      (void)cluster_.release(AllocationOwner{w.id, w.pod_id(pod)});
      index_.note(cluster_, w.pods[pod].node);
    }
  }
  void restore(const PreemptionCandidate& c) override {
    const Workload& w = *static_cast<const Workload*>(c.owner);
    book_.add(w.queue, w.usage);
    const std::span<const Resources> requests = placed_requests(w);
    for (size_t pod = 0; pod < w.pods.size(); ++pod) {
      const PodPlacement& p = w.pods[pod];
      [[maybe_unused]] const Status s = cluster_.allocate(p.node, requests[pod], p.gpu_mask,
                                                          AllocationOwner{w.id, w.pod_id(pod)});
      assert(s && "a preemption candidate could not be put back where it was");
      index_.note(cluster_, p.node);
    }
  }
  bool fits(bool allow_borrowing) override { return fits_(allow_borrowing); }

 private:
  QuotaBook& book_;
  Cluster& cluster_;
  NodeIndex& index_;
  FitFn fits_;
  FitFn quota_fits_;
  std::span<const Resources> pods_;
  const std::vector<GpuTypeId>& types_;
};

}  // namespace

bool Scheduler::try_preemption(Cluster& cluster, Workload& w, Time now) {
  AdmissionQueues& a = *admission_;
  const QueueSpec& spec = a.config.queues[static_cast<size_t>(w.queue)];
  if (!may_preempt(spec)) return false;
  QuotaBook& book = a.book;
  const std::vector<Resources>& pods = w.requests;

  // The preemptor's request as its queue counts it (on the first GPU type it may use).
  Preemptor p;
  p.id = w.id;
  p.queue = w.queue;
  p.priority = w.spec->priority;
  p.submit = w.spec->submit;
  if (w.first_gpu_type == -2) w.first_gpu_type = first_allowed_type(cluster, w);
  p.usage = quota_usage(cluster, w, pods, w.first_gpu_type);

  // A search that failed stays failed until the cohort's usage or the cluster changes.
  const uint64_t cohort_v = a.cohort_version[static_cast<size_t>(book.cohort_of(w.queue))];
  if (w.preemption_failed && w.preemption_cohort_version == cohort_v &&
      w.preemption_cluster_version == growth_version_)
    return false;
  const bool within_nominal = book.within_nominal(w.queue, p.usage);
  const bool fair = a.config.fair_sharing.enabled;

  // Candidates: admitted workloads the policies let it take, not being evicted already, and not
  // admitted by this very cycle (as in Kueue, whose cycle preempts from the snapshot it started
  // with).
  const auto failed = [&] {
    w.preemption_failed = true;
    w.preemption_cohort_version = cohort_v;
    w.preemption_cluster_version = growth_version_;
    return false;
  };
  std::vector<PreemptionCandidate> candidates;
  // Adds queue q's eligible candidates.
  const auto collect = [&](int q) {
    for (const auto& [id, v] : a.queues[static_cast<size_t>(q)].admitted) {
      if (v->evicting || v->withdraw_requested || v->admitted_cycle == cycle_) continue;
      const PreemptionCandidate c{id,        q, v->spec->priority, v->spec->submit, v->admitted_at,
                                  &v->usage, v};
      if (classify_candidate(book, spec, p, c, within_nominal, fair) != CandidateClass::kNever)
        candidates.push_back(c);
    }
  };
  if (spec.within_queue != PreemptionPolicy::kNever) collect(w.queue);
  const size_t own = candidates.size();
  // Classical, borrowWithinCohort off, the preemptor would borrow: Kueue's modes
  // (preemption.hpp) take other queues' workloads only if the preemptor ends within nominal,
  // and try that only while its queue is under nominal. If its own queue's victims cannot bring
  // it within nominal either, the other queues do not matter: they are not even collected.
  bool own_only = false;
  if (!within_nominal && !fair && !spec.borrow_within_cohort) {
    own_only = !book.under_nominal_in(w.queue, p.usage);
    ResourceVector after = p.usage;
    for (size_t r = 0; r < after.size(); ++r) after[r] += book.used(w.queue, static_cast<int>(r));
    for (size_t i = 0; i < own; ++i)
      for (size_t r = 0; r < after.size(); ++r) after[r] -= (*candidates[i].usage)[r];
    for (size_t r = 0; r < after.size(); ++r)
      own_only = own_only || (book.limits(w.queue, static_cast<int>(r)) &&
                              after[r] > book.nominal(w.queue, static_cast<int>(r)));
  }
  if (spec.reclaim_within_cohort != PreemptionPolicy::kNever && !own_only)
    for (const int q : book.cohort_members(book.cohort_of(w.queue)))
      if (q != w.queue && book.borrowing_in(q, p.usage)) collect(q);
  if (candidates.empty()) return failed();

  BindAction scratch;
  const auto fits = [&](bool allow_borrowing) {
    bool any_quota = false;
    std::vector<GpuTypeId> types = quota_types(cluster, w, pods, any_quota);
    if (!any_quota) return false;
    if (!allow_borrowing) {
      // Within nominal only: keep the GPU types whose usage stays within the queue's nominal
      // quota (a GPU-less request is judged once).
      if (types.empty()) {
        if (!book.within_nominal(w.queue, quota_usage(cluster, w, pods, -1))) return false;
      } else {
        std::erase_if(types, [&](GpuTypeId t) {
          return !book.within_nominal(w.queue, quota_usage(cluster, w, pods, t));
        });
        if (types.empty()) return false;
      }
    }
    if (!place_constrained(cluster, w.id, *w.spec, pods, types, scratch)) return false;
    for (size_t pod = 0; pod < scratch.pods.size(); ++pod) {
      (void)cluster.release(AllocationOwner{w.id, static_cast<int32_t>(pod)});
      index_.note(cluster, scratch.pods[pod].node);
    }
    return true;
  };
  const auto quota_fits = [&](bool allow_borrowing) {
    bool any_quota = false;
    const std::vector<GpuTypeId> types = quota_types(cluster, w, pods, any_quota);
    if (!any_quota) return false;
    if (allow_borrowing) return true;
    if (types.empty()) return book.within_nominal(w.queue, quota_usage(cluster, w, pods, -1));
    return std::any_of(types.begin(), types.end(), [&](GpuTypeId t) {
      return book.within_nominal(w.queue, quota_usage(cluster, w, pods, t));
    });
  };
  // The GPU models the job allows (empty: any), for the counters' bound.
  std::vector<GpuTypeId> allowed_types;
  for (const std::string& name : w.spec->allowed_gpu_models())
    if (const GpuTypeId t = cluster.topology().gpus.find(name); t >= 0) allowed_types.push_back(t);
  if (!w.spec->allowed_gpu_models().empty() && allowed_types.empty()) return failed();
  ModelSimulation sim(book, cluster, index_, fits, quota_fits, pods, allowed_types);
  const std::vector<PreemptionTarget> targets = find_preemption_targets(
      book, a.config.queues, a.config.fair_sharing, p, std::move(candidates), sim);
  if (targets.empty()) return failed();
  w.preemption_failed = false;
  for (const PreemptionTarget& t : targets) {
    Workload& v = *workloads_.find(t.id);
    v.evicting = true;
    v.evict_reason = t.reason;
    v.evicted_by = w.id;
    evictions_.push_back(EvictAction{t.id, t.reason, w.id});
  }
  w.victims_pending = static_cast<int>(targets.size());
  // Reserve the preemptor's quota until its victims are gone, so that what they free is not
  // taken by the next workload of the cohort first (Kueue adds a preemptor's usage to its
  // cycle's snapshot for the same reason).
  a.meter.touch(book.cohort_of(w.queue), now);
  book.add(w.queue, p.usage);
  w.reserved = std::move(p.usage);
  return true;
}

void Scheduler::expire_pods_ready(Time now) {
  AdmissionQueues& a = *admission_;
  while (!a.ready_deadlines.empty() && a.ready_deadlines.begin()->first <= now) {
    const JobId id = a.ready_deadlines.begin()->second;
    a.ready_deadlines.erase(a.ready_deadlines.begin());
    Workload& w = *workloads_.find(id);
    if (!is_placed(w.state) || w.state == WorkloadState::kRunning || w.evicting) continue;
    w.evicting = true;
    w.evict_reason = kReasonPodsReadyTimeout;
    w.evicted_by = -1;
    evictions_.push_back(EvictAction{id, kReasonPodsReadyTimeout, -1});
  }
}

void Scheduler::victim_gone(Workload& w, Time now) {
  if (w.evicting && w.evicted_by >= 0)
    if (Workload* p = workloads_.find(w.evicted_by); p != nullptr && p->victims_pending > 0)
      if (--p->victims_pending == 0) {
        release_reservation(*p, now);
        if (p->state == WorkloadState::kPending) admission_->nominated.emplace(p->queue_key, p->id);
      }
  w.evicting = false;
  w.evicted_by = -1;
}

void Scheduler::admission_evicted(Workload& w, Time now, Time not_before) {
  const bool timed_out = w.evicting && w.evict_reason == kReasonPodsReadyTimeout;
  victim_gone(w, now);  // a victim's preemptor stops waiting for it
  if (w.withdraw_requested) return;
  const std::optional<WaitForPodsReadyConfig>& ready = admission_->config.wait_for_pods_ready;
  if (timed_out && ready) {
    if (ready->backoff_limit && w.requeues >= *ready->backoff_limit) {
      (void)workloads_.move(w, WorkloadState::kInactive, now);
      return;
    }
    ++w.requeues;
    // backoff_base · 2^(requeues − 1), capped; by doubling so it cannot overflow.
    Duration wait = ready->backoff_base;
    for (int i = 1; i < w.requeues && wait < ready->backoff_max; ++i) wait = wait + wait;
    if (wait > ready->backoff_max) wait = ready->backoff_max;
    (void)workloads_.move(w, WorkloadState::kPending, now);
    hold_until(w, saturating_add(now, wait));
    return;
  }
  (void)workloads_.move(w, WorkloadState::kPending, now);
  if (not_before > now) {
    hold_until(w, not_before);
  } else {
    admission_enqueue(w);
  }
}

Scheduler::HeadKey Scheduler::head_key(const Cluster& cluster, int q, Workload& w, Time now) const {
  const AdmissionQueues& a = *admission_;
  HeadKey k;
  k.queue = q;
  k.key = w.queue_key;
  // Counted on the first GPU model the job allows (a cheap stand-in for where it will land).
  if (w.first_gpu_type == -2) w.first_gpu_type = first_allowed_type(cluster, w);
  const std::string& model =
      w.first_gpu_type >= 0 ? cluster.topology().gpus.at(w.first_gpu_type).name : kNoModel;
  const ResourceVector usage =
      a.book.usage(q, w.requested_gpu_milli, model, w.requested_cpu_milli, w.requested_memory);
  k.borrows = !a.book.within_nominal(q, usage);
  if (a.config.fair_sharing.enabled) k.share = a.book.dominant_share(q, usage);
  if (a.config.admission_fair_sharing) k.decayed = a.meter.decayed(q, now);
  return k;
}

std::vector<BindAction> Scheduler::run_admission_cycle(Cluster& cluster, Time now) {
  AdmissionQueues& a = *admission_;
  expire_pods_ready(now);
  // Capacity that grew since the last cycle ended (not the releases of this scheduler's own
  // trial placements and preemption searches, which it puts back).
  if (cluster.growth_count() != growth_seen_) ++growth_version_;
  begin_cycle(cluster);
  std::vector<BindAction> placed;

  struct Head {
    HeadKey key;
    std::map<QueueKey, Workload*>::iterator at;
    bool operator>(const Head& o) const { return key > o.key; }
  };
  // Preemptors whose victims have left go first (AdmissionQueues::nominated).
  while (!a.nominated.empty()) {
    const auto [key, id] = *a.nominated.begin();
    a.nominated.erase(a.nominated.begin());
    Workload* w = workloads_.find(id);
    if (w == nullptr || w->state != WorkloadState::kPending || w->victims_pending > 0 ||
        a.queues[static_cast<size_t>(w->queue)].pending.count(key) == 0)
      continue;
    BindAction action;
    if (try_admit(cluster, *w, now, action) == AdmitResult::kAdmitted)
      placed.push_back(std::move(action));
  }

  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  // Per queue in this cycle: did anything happen (admission, preemption), did placement fail.
  std::vector<bool> progressed(a.queues.size(), false), placement_failed(a.queues.size(), false);
  // The cohort version each queue's walk saw: an admission later in the cycle may give it a
  // preemption candidate, so it parks on what it saw, not on what the cycle left.
  std::vector<uint64_t> seen(a.queues.size(), 0);
  std::vector<WalkMemo> memos(a.queues.size());
  for (int q = 0; q < static_cast<int>(a.queues.size()); ++q) {
    AdmissionQueues::Queue& queue = a.queues[static_cast<size_t>(q)];
    if (queue.pending.empty()) continue;
    const uint64_t cohort_v = a.cohort_version[static_cast<size_t>(a.book.cohort_of(q))];
    if (queue.parked && queue.parked_cohort_version == cohort_v &&
        (!queue.parked_on_cluster || queue.parked_cluster_version == growth_version_))
      continue;
    queue.parked = false;
    seen[static_cast<size_t>(q)] = cohort_v;
    const auto first = queue.pending.begin();
    heads.push(Head{head_key(cluster, q, *first->second, now), first});
  }

  while (!heads.empty()) {
    const Head head = heads.top();
    heads.pop();
    const int q = head.key.queue;
    AdmissionQueues::Queue& queue = a.queues[static_cast<size_t>(q)];
    auto it = head.at;
    Workload& w = *it->second;
    const bool strict =
        a.config.queues[static_cast<size_t>(q)].queueing == QueueingStrategy::kStrictFifo;
    auto next = std::next(it);
    AdmitResult result = AdmitResult::kNoQuota;
    if (w.victims_pending > 0) {
      progressed[static_cast<size_t>(q)] = true;  // waiting for its victims: not parked
    } else {
      BindAction action;
      result = try_admit(cluster, w, now, action, &memos[static_cast<size_t>(q)]);
      if (result == AdmitResult::kAdmitted) placed.push_back(std::move(action));
      if (result == AdmitResult::kAdmitted || result == AdmitResult::kPreempting)
        progressed[static_cast<size_t>(q)] = true;
      if (result == AdmitResult::kNoPlacement) placement_failed[static_cast<size_t>(q)] = true;
    }
    // StrictFIFO: a head that is not admitted blocks its queue for this cycle.
    if (strict && result != AdmitResult::kAdmitted) continue;
    // Workloads the walk's memo already rules out (quota and preemption) would fail wherever
    // the heap put them, changing nothing: pass them here instead of ordering each.
    const WalkMemo& memo = memos[static_cast<size_t>(q)];
    while (next != queue.pending.end() && memo.rules_out(*next->second)) ++next;
    if (next != queue.pending.end())
      heads.push(Head{head_key(cluster, q, *next->second, now), next});
  }

  // Park every queue that was walked without progress, with what it saw.
  for (int q = 0; q < static_cast<int>(a.queues.size()); ++q) {
    AdmissionQueues::Queue& queue = a.queues[static_cast<size_t>(q)];
    if (queue.parked || queue.pending.empty() || progressed[static_cast<size_t>(q)]) continue;
    queue.parked = true;
    queue.parked_on_cluster = placement_failed[static_cast<size_t>(q)];
    queue.parked_cohort_version = seen[static_cast<size_t>(q)];
    queue.parked_cluster_version = growth_version_;
  }
  end_cycle(cluster);
  growth_seen_ = cluster.growth_count();
  return placed;
}

}  // namespace gantry
