#pragma once
// Which ready tasks start now (issue #4, the slot rules of run_scheduler.hpp, INSIDE A RUN):
// the runs' parallelism, the pools' slots and maxWait, and the order of ready tasks. Pure
// bookkeeping: no event loop, no store, no executor. The scheduler core tells it which runs
// are open, which tasks are ready and which attempts ended; dispatch() answers which tasks
// start, their slots already taken.
//
// RULES
//   Ready tasks start in the order of ReadyTask (priority desc, ready time, run logical time,
//   pipeline, task order, run) while their run is open and has fewer than `parallelism`
//   (0 = unlimited) attempts holding slots and, for pool tasks, the pool has the task's slots
//   free.
//   - pools: a ready task that does not fit the free slots does not block smaller ones behind
//     it; but once a ready task has waited longer than the pool's maxWait (and its run has
//     room), nothing else from that pool starts before it.
//   - pools are served before runs' pool-less tasks when both compete for a parallelism slot
//     (dispatch() looks at the pools that changed first, in declaration order, then at the runs
//     that changed, in index order, and again until nothing changed).
//   Only pools and runs whose situation changed since the last dispatch() are looked at (a new
//   ready task, a released slot, a run that got room): the others cannot start anything, as
//   time passing alone only ever makes a pool stricter (maxWait).
//
// Cost (w = tasks waiting in a pool, r = ready pool-less tasks of a run):
//   add_ready / remove_ready / release / hold: O(log w) or O(log r)
//   dispatch: O(w) per changed pool plus O(log r) per started task
//
// Thread safety: none; the scheduler's loop thread only.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/time.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

// A ready task, and the order in which ready tasks start (smallest first).
struct ReadyTask {
  int neg_priority = 0;  // -TaskSpec::priority: higher priorities sort first
  Time ready;            // when it became ready
  Time logical;          // its run's logical time
  uint32_t pipeline = 0;
  uint32_t task = 0;  // index in the pipeline's tasks
  uint32_t run = 0;   // the scheduler's run index
  auto operator<=>(const ReadyTask&) const = default;
};

// No pool: the task waits in its run's own queue.
inline constexpr int kNoPool = -1;

class SlotDispatcher {
 public:
  // Declares a pool; returns its index (0, 1, ... in declaration order). Throws
  // std::invalid_argument on a duplicate name or slots < 1.
  int add_pool(const PoolSpec& spec);
  // The pool's index, or kNoPool.
  int find_pool(std::string_view name) const;
  const PoolSpec& pool_spec(int pool) const { return pools_[static_cast<size_t>(pool)].spec; }
  // Slots of `pool` taken by attempts.
  int used(int pool) const { return pools_[static_cast<size_t>(pool)].used; }
  // Ready tasks waiting in `pool` for slots.
  size_t waiting(int pool) const { return pools_[static_cast<size_t>(pool)].waiting.size(); }

  // A run starts (its tasks may take slots) / ends (it must hold nothing and have nothing
  // ready any more: the core has closed its tasks first).
  void open_run(uint32_t run, int parallelism);
  void close_run(uint32_t run);
  // The run is open and below its parallelism.
  bool has_room(uint32_t run) const;

  // `task` (of an open run) is ready, waiting in `pool` (kNoPool: its run's queue) for
  // `slots` slots (1 without a pool).
  void add_ready(const ReadyTask& task, int pool, int slots = 1);
  // It is not ready any more (its run ended before it started).
  void remove_ready(const ReadyTask& task, int pool);
  // An attempt of an open run that held `slots` of `pool` (kNoPool: only a parallelism slot)
  // ended: its slots are free again.
  void release(uint32_t run, int pool, int slots);
  // An attempt started elsewhere (adopted after a restart) holds slots as if dispatched. A pool
  // may end up above its size; nothing from it starts until it is below again.
  void hold(uint32_t run, int pool, int slots);

  // Takes the slots of every task that may start now (RULES) and returns those tasks in the
  // order they start. They are no longer ready; release() their slots when they end.
  std::vector<ReadyTask> dispatch(Time now);

 private:
  struct Pool {
    PoolSpec spec;
    int used = 0;
    std::map<ReadyTask, int> waiting;  // ready task -> its slots
  };
  struct RunSlots {
    int parallelism = 0;
    int holding = 0;                // attempts holding a slot
    std::set<ReadyTask> ready;      // ready tasks without a pool
    std::map<int, int> waiting_in;  // pool -> ready tasks of this run waiting in it
  };

  void dispatch_pool(Pool& pool, Time now, std::vector<ReadyTask>& out);
  void take(uint32_t run, std::vector<ReadyTask>& out, const ReadyTask& task);
  void mark_run_changed(uint32_t run, const RunSlots& slots);

  std::vector<Pool> pools_;
  std::unordered_map<uint32_t, RunSlots> runs_;  // open runs only
  std::set<int> changed_pools_;
  std::set<uint32_t> changed_runs_;
};

}  // namespace gantry
