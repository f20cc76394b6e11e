#include "workflow/runner/memory_run_store.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

bool MemoryRunStore::create_run(const Run& run) {
  auto [it, inserted] = runs_.try_emplace(RunKey{run.pipeline, run.logical_time}, run);
  if (!inserted) ++refused_;
  return inserted;
}

void MemoryRunStore::update_run(const RunKey& key, RunState state, std::optional<Time> start,
                                std::optional<Time> end) {
  auto it = runs_.find(key);
  assert(it != runs_.end());
  it->second.state = state;
  it->second.start = start;
  it->second.end = end;
}

TaskInstance& MemoryRunStore::task(const RunKey& key, std::string_view name) {
  auto it = runs_.find(key);
  assert(it != runs_.end());
  for (TaskInstance& t : it->second.tasks) {
    if (t.name == name) return t;
  }
  assert(false && "unknown task");
  return it->second.tasks.front();
}

void MemoryRunStore::update_task(const RunKey& key, std::string_view name, TaskState state,
                                 const Resources& requests) {
  TaskInstance& t = task(key, name);
  t.state = state;
  t.requests = requests;
}

void MemoryRunStore::attempt_started(const RunKey& key, std::string_view name, size_t index,
                                     AttemptId id, Time start) {
  TaskInstance& t = task(key, name);
  assert(index == t.attempts.size());
  (void)index;
  t.attempts.push_back(Attempt{start, std::nullopt, AttemptState::kRunning, {}, id});
}

void MemoryRunStore::attempt_running(const RunKey& key, std::string_view name, size_t index,
                                     Time at) {
  TaskInstance& t = task(key, name);
  assert(index < t.attempts.size());
  t.attempts[index].running = at;
}

void MemoryRunStore::attempt_ended(const RunKey& key, std::string_view name, size_t index, Time end,
                                   AttemptState state, std::string_view reason) {
  TaskInstance& t = task(key, name);
  assert(index < t.attempts.size());
  t.attempts[index].end = end;
  t.attempts[index].state = state;
  t.attempts[index].reason = std::string(reason);
}

void MemoryRunStore::record_event(const SchedulerEvent& event) { events_.push_back(event); }

AttemptId MemoryRunStore::max_attempt_id() const {
  AttemptId out = 0;
  for (const auto& [key, run] : runs_)
    for (const TaskInstance& t : run.tasks)
      for (const Attempt& a : t.attempts) out = std::max(out, a.id);
  return out;
}

std::vector<Run> MemoryRunStore::load_runs(RunSelection which) const {
  std::vector<Run> out;
  if (which == RunSelection::kAll) {
    out.reserve(runs_.size());
    for (const auto& [key, run] : runs_) out.push_back(run);
    return out;
  }
  // Runs are ordered by (pipeline, logical time): walking backwards, the first run met of a
  // pipeline is its newest, and the first one that counts its newest for the schedule.
  const auto counts = [](const Run& r) {
    return r.trigger == RunTrigger::kSchedule || r.trigger == RunTrigger::kCatchup ||
           r.state == RunState::kSkipped;
  };
  const std::string* pipeline = nullptr;
  bool counting_seen = false;
  for (auto it = runs_.rbegin(); it != runs_.rend(); ++it) {
    const Run& run = it->second;
    const bool newest = pipeline == nullptr || *pipeline != run.pipeline;
    if (newest) {
      pipeline = &run.pipeline;
      counting_seen = false;
    }
    const bool newest_counting = counts(run) && !counting_seen;
    counting_seen = counting_seen || counts(run);
    if (!is_finished(run.state) || newest || newest_counting) out.push_back(run);
  }
  return out;
}

std::optional<Run> MemoryRunStore::load_run(const RunKey& key) const {
  const auto it = runs_.find(key);
  if (it == runs_.end()) return std::nullopt;
  return it->second;
}

std::optional<Run> MemoryRunStore::load_run_before(std::string_view pipeline, Time before) const {
  auto it = runs_.lower_bound(RunKey{std::string(pipeline), before});
  if (it == runs_.begin()) return std::nullopt;
  --it;
  if (it->first.pipeline != pipeline) return std::nullopt;
  return it->second;
}

}  // namespace gantry
