// TrainingWorld's faults, drains, elastic survival and nodes that come and go
// (training_world.hpp: "Faults"); training_world.cpp keeps the jobs' life and progress.

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "sim/training_world.hpp"

namespace gantry {

void TrainingWorld::schedule_faults(std::vector<FaultEvent> events) {
  injected_ = std::move(events);
  if (injected_.empty()) return;
  schedule_in_range(std::max(injected_.front().at, loop_.now()), [this] { next_injected(0); });
}

void TrainingWorld::next_injected(size_t i) {
  for (; i < injected_.size() && injected_[i].at <= loop_.now(); ++i) {
    [[maybe_unused]] const Status applied = apply(injected_[i]);
    assert(applied && "fault events name parts of the cluster (checked when loaded)");
  }
  if (i < injected_.size()) schedule_in_range(injected_[i].at, [this, i] { next_injected(i); });
}

void TrainingWorld::schedule_faults(std::unique_ptr<FaultTimeline> timeline, Duration window) {
  timeline_ = std::move(timeline);
  window_ = std::max(window, seconds(1));
  schedule_in_range(loop_.now(), [this] { pull_faults(); });
}

void TrainingWorld::pull_faults() {
  if (placed_jobs_ == 0 && next_arrival_ >= jobs_.size()) {
    faults_paused_ = true;
    return;
  }
  const Time until = saturating_add(std::max(timeline_->drawn_until(), loop_.now()), window_);
  Result<std::vector<FaultEvent>> drawn = timeline_->take_until(until);
  if (!drawn) throw std::invalid_argument("failure model: " + drawn.error());
  fault_events_ = std::move(drawn.value());
  if (fault_events_.empty()) {
    schedule_in_range(until, [this] { pull_faults(); });
    return;
  }
  schedule_in_range(std::max(fault_events_.front().at, loop_.now()), [this] { next_fault(0); });
}

void TrainingWorld::resume_faults() {
  if (!faults_paused_) return;
  faults_paused_ = false;
  // The quiet spell's failures are skipped: the timeline continues from now.
  Result<std::vector<FaultEvent>> skipped = timeline_->take_until(loop_.now());
  if (!skipped) throw std::invalid_argument("failure model: " + skipped.error());
  pull_faults();
}

// Applies every event due now, then schedules the next: one pending fault event at a time.
void TrainingWorld::next_fault(size_t i) {
  for (; i < fault_events_.size() && fault_events_[i].at <= loop_.now(); ++i) {
    [[maybe_unused]] const Status applied = apply(fault_events_[i]);
    assert(applied && "fault events name parts of the cluster (checked when loaded)");
  }
  if (i < fault_events_.size()) {
    schedule_in_range(fault_events_[i].at, [this, i] { next_fault(i); });
  } else {
    pull_faults();
  }
}

Status TrainingWorld::apply(const FaultEvent& e) {
  const bool node_action = e.action != FaultAction::kRackDown && e.action != FaultAction::kRackUp;
  if (node_action && (e.node < 0 || e.node >= cluster_.node_count() || cluster_.removed(e.node)))
    return Status::error(std::string(to_string(e.action)) + ": no node " + std::to_string(e.node));
  if (!node_action &&
      (e.rack < 0 || static_cast<size_t>(e.rack) >= cluster_.topology().racks.size()))
    return Status::error(std::string(to_string(e.action)) + ": no rack " + std::to_string(e.rack));
  const bool gpu_action = e.action == FaultAction::kGpuFail || e.action == FaultAction::kGpuRepair;
  if (gpu_action && (e.gpu < 0 || e.gpu >= cluster_.gpu_count(e.node)))
    return Status::error(std::string(to_string(e.action)) + ": node " + std::to_string(e.node) +
                         " has no GPU " + std::to_string(e.gpu));
  const auto for_rack = [&](auto&& fn) {
    for (NodeId n = 0; n < cluster_.node_count(); ++n)
      if (cluster_.rack_of(n) == e.rack && !cluster_.removed(n)) fn(n);
  };
  const size_t killed_before = killed_;
  log_.faults.push_back(FaultRecord{loop_.now(), e.action, e.node, e.rack, e.gpu, e.cause, 0});
  const size_t record_index = log_.faults.size() - 1;
  switch (e.action) {
    case FaultAction::kNodeDown:
      node_down(e.node, kReasonNodeFailure, e.duration);
      break;
    case FaultAction::kNodeUp:
      node_up(e.node, true);
      break;
    case FaultAction::kRackDown:
      for_rack([&](NodeId n) { node_down(n, kReasonRackFailure, e.duration); });
      break;
    case FaultAction::kRackUp:
      for_rack([&](NodeId n) { node_up(n, true); });
      break;
    case FaultAction::kGpuFail: {
      NodeFaults& f = faults_[static_cast<size_t>(e.node)];
      const uint64_t bit = uint64_t{1} << e.gpu;
      if ((f.failed_gpus & bit) != 0) break;  // already out of service
      kill_jobs_on(e.node, e.gpu, kReasonGpuFailure);
      f.failed_gpus |= bit;
      hold_faulty(e.node);
      if (e.duration > Duration(0)) {
        const NodeId n = e.node;
        const int g = e.gpu;
        schedule_in_range(saturating_add(loop_.now(), e.duration),
                          [this, n, g] { repair_gpu(n, g); });
      }
      break;
    }
    case FaultAction::kGpuRepair:
      repair_gpu(e.node, e.gpu);
      break;
    case FaultAction::kDrain: {
      NodeFaults& f = faults_[static_cast<size_t>(e.node)];
      if (f.draining) break;  // one drain at a time
      f.draining = true;
      f.in_maintenance = false;
      f.maintenance = e.duration;
      const uint32_t drain = ++f.drains;
      ++draining_nodes_;
      tell_node(Observation::Kind::kNodeCordoned, e.node, "Drain");
      if (e.deadline <= Duration(0)) {
        drain_deadline(e.node, drain);
      } else {
        const NodeId n = e.node;
        schedule_in_range(saturating_add(loop_.now(), e.deadline), [this, n, drain] {
          const size_t before = killed_;
          drain_deadline(n, drain);
          if (killed_ == before) return;
          log_.faults.push_back(
              FaultRecord{loop_.now(), FaultAction::kDrain, n, -1, -1, "drain deadline", 0});
          log_.faults.back().jobs = static_cast<int>(killed_ - before);
        });
        drain_check(n);
      }
      break;
    }
  }
  log_.faults[record_index].jobs = static_cast<int>(killed_ - killed_before);
  return Status::ok();
}

void TrainingWorld::note_capacity() {
  const auto gpus = static_cast<int32_t>(cluster_.total_gpus());
  std::vector<SimulationLog::CapacityPoint>& points = log_.capacity;
  if (!points.empty() && points.back().time == loop_.now()) {
    points.back().gpus = gpus;  // one point per instant
  } else {
    points.push_back({loop_.now(), gpus});
  }
}

NodeId TrainingWorld::add_node(NodeInfo info, bool spot) {
  if (log_.capacity.empty())
    log_.capacity.push_back({loop_.now(), static_cast<int32_t>(cluster_.total_gpus())});
  Result<NodeId> added = cluster_.add_node(std::move(info));
  assert(added && "node pools name classes and racks of the cluster (checked when loaded)");
  const NodeId n = added.value();
  note_capacity();
  faults_.resize(static_cast<size_t>(cluster_.node_count()));
  spot_node_.resize(static_cast<size_t>(cluster_.node_count()), false);
  spot_node_[static_cast<size_t>(n)] = spot;
  tell_node(Observation::Kind::kNodeAdded, n, "");
  request_cycle();
  return n;
}

void TrainingWorld::spot_notice(NodeId n) {
  Observation o;
  o.kind = Observation::Kind::kSpotNotice;
  o.at = loop_.now();
  o.node = n;
  if (action_log_ != nullptr) action_log_->observation(o);
  (void)scheduler_.observe(cluster_, o);
  tell_node(Observation::Kind::kNodeCordoned, n, kReasonSpotReclaim);
  // Elastic jobs leave in good order; the rest run until the reclaim.
  std::vector<AllocationOwner> hit;
  for (const AllocationOwner& owner : cluster_.owners_on(n))
    if (owner.workload >= 0) hit.push_back(owner);
  std::sort(hit.begin(), hit.end());
  for (size_t i = 0; i < hit.size();) {
    const JobId id = hit[i].workload;
    std::vector<int32_t> pods;
    for (; i < hit.size() && hit[i].workload == id; ++i) pods.push_back(hit[i].pod);
    (void)survive_elastic(id, pods, kReasonSpotReclaim, true, 0);
  }
}

void TrainingWorld::remove_node(NodeId n, const std::string& reason) {
  if (log_.capacity.empty())
    log_.capacity.push_back({loop_.now(), static_cast<int32_t>(cluster_.total_gpus())});
  kill_jobs_on(n, -1, reason);
  const AllocationOwner hold{kFaultHold, n};
  if (cluster_.allocation_of(hold) != nullptr) (void)cluster_.release(hold);
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  if (f.draining) --draining_nodes_;
  // No repair or drain timer of the node's past may do anything.
  const uint32_t generation = f.generation + 1, drains = f.drains + 1;
  f = NodeFaults{};
  f.generation = generation;
  f.drains = drains;
  [[maybe_unused]] const Status removed = cluster_.remove_node(n);
  assert(removed && "every job on the node was killed");
  note_capacity();
  tell_node(Observation::Kind::kNodeRemoved, n, reason);
  request_cycle();
}

void TrainingWorld::repair_gpu(NodeId n, int g) {
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  const uint64_t bit = uint64_t{1} << g;
  if ((f.failed_gpus & bit) == 0) return;  // repaired already
  f.failed_gpus &= ~bit;
  hold_faulty(n);
  request_cycle();
}

void TrainingWorld::tell_node(Observation::Kind kind, NodeId n, const std::string& reason) {
  Observation o;
  o.kind = kind;
  o.at = loop_.now();
  o.node = n;
  o.reason = reason;
  if (action_log_ != nullptr) action_log_->observation(o);
  [[maybe_unused]] const Status s = scheduler_.observe(cluster_, o);
  assert(s && "the world reports only nodes of its cluster");
}

void TrainingWorld::node_down(NodeId n, const std::string& reason, Duration for_how_long) {
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  if (f.outages++ == 0) {
    kill_jobs_on(n, -1, reason);
    tell_node(Observation::Kind::kNodeFailed, n, reason);
    hold_faulty(n);
  }
  if (for_how_long > Duration(0)) {
    const uint32_t generation = f.generation;
    schedule_in_range(saturating_add(loop_.now(), for_how_long), [this, n, generation] {
      if (faults_[static_cast<size_t>(n)].generation == generation) node_up(n, false);
    });
  }
}

void TrainingWorld::node_up(NodeId n, bool all_outages) {
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  if (f.outages == 0) return;
  if (all_outages) {
    f.outages = 0;
    ++f.generation;  // outages that would have ended by themselves are over already
  } else {
    --f.outages;
  }
  if (f.outages > 0) return;
  tell_node(Observation::Kind::kNodeRecovered, n, "");
  hold_faulty(n);
  request_cycle();
}

void TrainingWorld::kill_jobs_on(NodeId n, int g, const std::string& reason) {
  // (job, pod id) of every pod hit, sorted: jobs in id order.
  std::vector<AllocationOwner> hit;
  for (const AllocationOwner& o : cluster_.owners_on(n)) {
    if (o.workload < 0) continue;
    if (g >= 0) {
      const Allocation* a = cluster_.allocation_of(o);
      if (a == nullptr || (a->gpu_mask & (uint64_t{1} << g)) == 0) continue;
    }
    hit.push_back(o);
  }
  std::sort(hit.begin(), hit.end());
  const bool failure = reason != kReasonDrain;
  // A lost node kills its processes (exit code 137, SIGKILL); a failed GPU makes CUDA calls
  // fail and the worker exit with an error (1). restartPolicy ExitCode tells them apart.
  const int exit_code = g >= 0 ? 1 : 137;
  for (size_t i = 0; i < hit.size();) {
    const JobId id = hit[i].workload;
    std::vector<int32_t> pods;
    for (; i < hit.size() && hit[i].workload == id; ++i) pods.push_back(hit[i].pod);
    JobLog& job = log_.jobs[static_cast<size_t>(id)];
    if (job.state != JobState::kStarting && job.state != JobState::kRunning) continue;
    if (failure) ++job.failures;
    ++killed_;
    if (survive_elastic(id, pods, reason, !failure, exit_code)) continue;
    const Time not_before =
        failure ? saturating_add(loop_.now(), params_.restart_delay) : loop_.now();
    [[maybe_unused]] const Status evicted = evict(id, reason, -1, not_before);
    assert(evicted && "the scheduler knows every placed job");
  }
}

bool TrainingWorld::survive_elastic(JobId id, std::span<const int32_t> pods,
                                    const std::string& reason, bool planned, int exit_code) {
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  const JobSpec& spec = *job.spec;
  if (job.state != JobState::kRunning || !spec.elastic.enabled() ||
      spec.roles.back().kind != RoleKind::kWorker)
    return false;
  const int32_t fixed = spec.total_pods() - spec.roles.back().replicas;
  std::vector<int> workers;
  for (const int32_t pod : pods) {
    if (pod < fixed) return false;  // a Master, Chief, PS or Launcher: the job dies
    workers.push_back(pod - fixed);
  }
  const bool recreate =
      !planned &&
      (spec.restart_policy == RestartPolicy::kOnFailure ||
       (spec.restart_policy == RestartPolicy::kExitCode && retryable_exit_code(exit_code)));
  Result<std::optional<ResizeAction>> r =
      recreate ? scheduler_.replace(cluster_, id, workers, loop_.now(), reason + ": replaced")
               : scheduler_.scale_in(cluster_, id, workers, loop_.now(), reason + ": shrunk");
  if (!r || !r.value()) return false;  // below minReplicas, or no room for replacements
  // An unplanned loss stops the job: the survivors go back to the last checkpoint. A drain or
  // a spot notice lets it checkpoint first.
  if (!planned) rollback_to_checkpoint(id);
  [[maybe_unused]] const Status resized = apply(*r.value());
  assert(resized && "the scheduler resized a running job");
  return true;
}

void TrainingWorld::hold_faulty(NodeId n) {
  const NodeFaults& f = faults_[static_cast<size_t>(n)];
  const AllocationOwner owner{kFaultHold, n};
  if (cluster_.allocation_of(owner) != nullptr) (void)cluster_.release(owner);
  Resources held;
  uint64_t mask = 0;
  if (f.outages > 0) {
    // Down: whatever is free. Jobs were killed; a share pod cannot be left on a GPU.
    const Resources& free = cluster_.free(n);
    mask = cluster_.free_gpu_mask(n);
    held = Resources{free.cpu_milli, free.memory_bytes, std::popcount(mask), 0};
  } else {
    mask = f.failed_gpus & cluster_.free_gpu_mask(n);
    held.gpus = std::popcount(mask);
  }
  if (held.gpus == 0 && held.cpu_milli == 0 && held.memory_bytes == 0) return;
  [[maybe_unused]] const Status s = cluster_.allocate(n, held, mask, owner);
  assert(s && "the held capacity was free");
}

void TrainingWorld::drain_deadline(NodeId n, uint32_t drain) {
  const NodeFaults& f = faults_[static_cast<size_t>(n)];
  if (!f.draining || f.in_maintenance || f.drains != drain) return;
  kill_jobs_on(n, -1, kReasonDrain);
  drain_check(n);
}

void TrainingWorld::drain_check_pods(std::span<const PodPlacement> pods) {
  if (draining_nodes_ == 0) return;
  for (const PodPlacement& p : pods) drain_check(p.node);
}

void TrainingWorld::drain_check(NodeId n) {
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  if (!f.draining || f.in_maintenance) return;
  for (const AllocationOwner& o : cluster_.owners_on(n))
    if (o.workload >= 0) return;  // a job still runs there
  f.in_maintenance = true;
  const uint32_t drain = f.drains;
  schedule_in_range(saturating_add(loop_.now(), f.maintenance), [this, n, drain] {
    NodeFaults& g = faults_[static_cast<size_t>(n)];
    if (!g.draining || g.drains != drain) return;
    g.draining = false;
    g.in_maintenance = false;
    --draining_nodes_;
    tell_node(Observation::Kind::kNodeUncordoned, n, "");
    request_cycle();
  });
}

}  // namespace gantry
