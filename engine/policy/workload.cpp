#include "engine/policy/workload.hpp"

namespace gantry {

const char* to_string(WorkloadState s) {
  switch (s) {
    case WorkloadState::kPending:
      return "pending";
    case WorkloadState::kAssumed:
      return "assumed";
    case WorkloadState::kBound:
      return "bound";
    case WorkloadState::kRunning:
      return "running";
    case WorkloadState::kFinished:
      return "finished";
    case WorkloadState::kFailed:
      return "failed";
    case WorkloadState::kEvicted:
      return "evicted";
    case WorkloadState::kWithdrawn:
      return "withdrawn";
    case WorkloadState::kInactive:
      return "inactive";
  }
  return "?";
}

bool transition_allowed(WorkloadState from, WorkloadState to) {
  using S = WorkloadState;
  switch (from) {
    case S::kPending:
      return to == S::kAssumed || to == S::kWithdrawn;
    case S::kAssumed:
      return to == S::kBound || to == S::kPending || to == S::kEvicted;
    case S::kBound:
      return to == S::kRunning || to == S::kPending || to == S::kEvicted || to == S::kFailed;
    case S::kRunning:
      return to == S::kFinished || to == S::kFailed || to == S::kEvicted;
    case S::kEvicted:
      return to == S::kPending || to == S::kWithdrawn || to == S::kInactive;
    case S::kFinished:
    case S::kFailed:
    case S::kWithdrawn:
    case S::kInactive:
      return false;
  }
  return false;
}

Result<Workload*> WorkloadTable::add(JobId id, const JobSpec& spec, Time now) {
  auto [it, added] = by_id_.try_emplace(id);
  if (!added) return Status::error("workload " + std::to_string(id) + " was already submitted");
  Workload& w = it->second;
  w.id = id;
  w.spec = &spec;
  w.history.push_back(WorkloadTransition{WorkloadState::kPending, now});
  ++counts_[static_cast<size_t>(WorkloadState::kPending)];
  return &w;
}

Workload* WorkloadTable::find(JobId id) {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

const Workload* WorkloadTable::find(JobId id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

Status WorkloadTable::move(Workload& w, WorkloadState to, Time now) {
  if (!transition_allowed(w.state, to))
    return Status::error("workload " + std::to_string(w.id) + " cannot go from " +
                         to_string(w.state) + " to " + to_string(to));
  --counts_[static_cast<size_t>(w.state)];
  ++counts_[static_cast<size_t>(to)];
  if (w.spec->elastic.enabled()) {
    if (to == WorkloadState::kRunning) running_elastic_.insert(w.id);
    if (w.state == WorkloadState::kRunning) running_elastic_.erase(w.id);
  }
  w.state = to;
  w.history.push_back(WorkloadTransition{to, now});
  return Status::ok();
}

}  // namespace gantry
