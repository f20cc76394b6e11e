// The slot dispatcher (slot_dispatcher.hpp) alone: no loop, no runs, times handed in. The
// pool case is RunnerTask.PoolSmallTasksPassUntilMaxWait replayed by hand.

#include "workflow/runner/slot_dispatcher.hpp"

#include <gtest/gtest.h>

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

using V = std::vector<std::string>;

const char* kNames[] = {"A", "B", "C", "D"};

ReadyTask ready_task(uint32_t task, Time at, int priority = 0, uint32_t run = 0) {
  return ReadyTask{-priority, at, day("00:00"), 0, task, run};
}

V names(const std::vector<ReadyTask>& tasks) {
  V out;
  for (const ReadyTask& t : tasks) out.push_back(kNames[t.task]);
  return out;
}

// Pool gpu, 2 slots. A (1 slot) starts at 00:00. At 00:05 B (2 slots, priority 10), C and D
// (1 slot each) are ready: B does not fit the 1 free slot and lets C pass. C ends at 00:15:
// without maxWait, D passes B too; with maxWait 8m, B has waited 10m > 8m, so nothing
// overtakes it and D waits while B does not fit. A ends at 00:30: B; B ends at 00:40: D.
TEST(SlotDispatcher, PoolLetsSmallTasksPassUntilMaxWait) {
  for (const std::optional<Duration> max_wait :
       {std::optional<Duration>(), std::optional(minutes(8))}) {
    SlotDispatcher d;
    const int gpu = d.add_pool(PoolSpec{"gpu", 2, max_wait, {}});
    d.open_run(0, 0);
    d.add_ready(ready_task(0, day("00:00")), gpu, 1);
    EXPECT_EQ(names(d.dispatch(day("00:00"))), (V{"A"}));
    d.add_ready(ready_task(1, day("00:05"), 10), gpu, 2);
    d.add_ready(ready_task(2, day("00:05")), gpu, 1);
    d.add_ready(ready_task(3, day("00:05")), gpu, 1);
    EXPECT_EQ(names(d.dispatch(day("00:05"))), (V{"C"}));
    EXPECT_EQ(d.used(gpu), 2);
    d.release(0, gpu, 1);  // C ends
    if (!max_wait) {
      EXPECT_EQ(names(d.dispatch(day("00:15"))), (V{"D"}));
      continue;
    }
    EXPECT_EQ(names(d.dispatch(day("00:15"))), V{}) << "B is starved: nothing overtakes it";
    d.release(0, gpu, 1);  // A ends
    EXPECT_EQ(names(d.dispatch(day("00:30"))), (V{"B"}));
    d.release(0, gpu, 2);  // B ends
    EXPECT_EQ(names(d.dispatch(day("00:40"))), (V{"D"}));
  }
}

// Parallelism 1 on run 0: of two ready pool-less tasks only the first (task order, same
// priority and time) starts; the second when the first releases its slot. A closed run (here
// run 1, never opened) has no room.
TEST(SlotDispatcher, ParallelismAndOpenRuns) {
  SlotDispatcher d;
  d.open_run(0, 1);
  d.add_ready(ready_task(0, day("00:00")), kNoPool);
  d.add_ready(ready_task(1, day("00:00")), kNoPool);
  EXPECT_EQ(names(d.dispatch(day("00:00"))), (V{"A"}));
  EXPECT_FALSE(d.has_room(0));
  d.release(0, kNoPool, 1);
  EXPECT_EQ(names(d.dispatch(day("00:10"))), (V{"B"}));
  EXPECT_FALSE(d.has_room(1));
}

}  // namespace
}  // namespace gantry::runner_test
