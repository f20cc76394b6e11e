#include "workflow/runner/slot_dispatcher.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace gantry {

int SlotDispatcher::add_pool(const PoolSpec& spec) {
  if (spec.slots < 1) throw std::invalid_argument("pool " + spec.name + ": slots must be >= 1");
  if (find_pool(spec.name) != kNoPool)
    throw std::invalid_argument("pool " + spec.name + " declared twice");
  pools_.push_back(Pool{spec, 0, {}});
  return static_cast<int>(pools_.size() - 1);
}

int SlotDispatcher::find_pool(std::string_view name) const {
  for (size_t i = 0; i < pools_.size(); ++i)
    if (pools_[i].spec.name == name) return static_cast<int>(i);
  return kNoPool;
}

void SlotDispatcher::open_run(uint32_t run, int parallelism) {
  RunSlots& slots = runs_[run];
  slots.parallelism = parallelism;
}

void SlotDispatcher::close_run(uint32_t run) {
  const auto it = runs_.find(run);
  if (it == runs_.end()) return;
  assert(it->second.ready.empty() && it->second.waiting_in.empty() && it->second.holding == 0);
  runs_.erase(it);
}

bool SlotDispatcher::has_room(uint32_t run) const {
  const auto it = runs_.find(run);
  if (it == runs_.end()) return false;
  return it->second.parallelism <= 0 || it->second.holding < it->second.parallelism;
}

void SlotDispatcher::add_ready(const ReadyTask& task, int pool, int slots) {
  RunSlots& run = runs_.at(task.run);
  if (pool == kNoPool) {
    run.ready.insert(task);
    changed_runs_.insert(task.run);
    return;
  }
  pools_[static_cast<size_t>(pool)].waiting.emplace(task, slots);
  ++run.waiting_in[pool];
  changed_pools_.insert(pool);
}

void SlotDispatcher::remove_ready(const ReadyTask& task, int pool) {
  RunSlots& run = runs_.at(task.run);
  if (pool == kNoPool) {
    run.ready.erase(task);
    return;
  }
  pools_[static_cast<size_t>(pool)].waiting.erase(task);
  if (--run.waiting_in[pool] == 0) run.waiting_in.erase(pool);
}

void SlotDispatcher::mark_run_changed(uint32_t run, const RunSlots& slots) {
  changed_runs_.insert(run);
  // The run has room again: its tasks waiting in pools may now be eligible there.
  for (const auto& [pool, n] : slots.waiting_in) changed_pools_.insert(pool);
}

void SlotDispatcher::release(uint32_t run, int pool, int slots) {
  RunSlots& r = runs_.at(run);
  --r.holding;
  if (pool != kNoPool) {
    pools_[static_cast<size_t>(pool)].used -= slots;
    changed_pools_.insert(pool);
  }
  mark_run_changed(run, r);
}

void SlotDispatcher::hold(uint32_t run, int pool, int slots) {
  ++runs_.at(run).holding;
  if (pool != kNoPool) pools_[static_cast<size_t>(pool)].used += slots;
}

void SlotDispatcher::take(uint32_t run, std::vector<ReadyTask>& out, const ReadyTask& task) {
  ++runs_.at(run).holding;
  out.push_back(task);
}

std::vector<ReadyTask> SlotDispatcher::dispatch(Time now) {
  std::vector<ReadyTask> out;
  // Taking slots never makes another task ready, so one sweep per changed entry suffices; the
  // outer loop is a guard for pools changed by runs and vice versa.
  while (!changed_pools_.empty() || !changed_runs_.empty()) {
    while (!changed_pools_.empty()) {
      const int k = *changed_pools_.begin();
      changed_pools_.erase(changed_pools_.begin());
      dispatch_pool(pools_[static_cast<size_t>(k)], now, out);
    }
    while (!changed_runs_.empty()) {
      const uint32_t r = *changed_runs_.begin();
      changed_runs_.erase(changed_runs_.begin());
      const auto it = runs_.find(r);
      if (it == runs_.end()) continue;  // ended meanwhile
      RunSlots& run = it->second;
      while (has_room(r) && !run.ready.empty()) {
        const ReadyTask task = *run.ready.begin();
        run.ready.erase(run.ready.begin());
        take(r, out, task);
      }
    }
  }
  return out;
}

void SlotDispatcher::dispatch_pool(Pool& pool, Time now, std::vector<ReadyTask>& out) {
  const int pool_index = static_cast<int>(&pool - pools_.data());
  auto eligible = [&](const ReadyTask& k) { return has_room(k.run); };
  auto starved = [&](const ReadyTask& k) {
    return pool.spec.max_wait && now - k.ready > *pool.spec.max_wait;
  };
  auto take_from_pool = [&](std::map<ReadyTask, int>::iterator it) {
    const ReadyTask task = it->first;
    pool.used += it->second;
    pool.waiting.erase(it);
    RunSlots& run = runs_.at(task.run);
    if (--run.waiting_in[pool_index] == 0) run.waiting_in.erase(pool_index);
    take(task.run, out, task);
  };
  while (pool.used < pool.spec.slots) {
    // A task that has waited past maxWait goes first, and nothing overtakes it.
    const auto first_starved =
        std::find_if(pool.waiting.begin(), pool.waiting.end(),
                     [&](const auto& w) { return eligible(w.first) && starved(w.first); });
    if (first_starved != pool.waiting.end()) {
      if (first_starved->second > pool.spec.slots - pool.used) return;
      take_from_pool(first_starved);
      continue;
    }
    // Otherwise in order, and a task that does not fit lets smaller ones behind it pass.
    for (auto it = pool.waiting.begin(); it != pool.waiting.end() && pool.used < pool.spec.slots;) {
      const auto next = std::next(it);
      if (eligible(it->first) && it->second <= pool.spec.slots - pool.used) take_from_pool(it);
      it = next;
    }
    return;
  }
}

}  // namespace gantry
