#include "engine/core/parallel_runs.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gantry {
namespace parallel_runs_test {

// What run_in_order threw, or "" if it returned.
std::string thrown_by(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Blocks until `stop` is requested (a guard of a minute turns a regression into a failure
// rather than a hung test; it never decides a passing run). True if the stop came.
bool wait_for_stop(const std::stop_token& stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  return cv.wait_for(lock, stop, std::chrono::minutes(1), [] { return false; }) ||
         stop.stop_requested();
}

// Each task writes i * i into its own slot: whatever the threads, the slots read 0, 1, 4, ...
// and every index ran exactly once.
TEST(RunInOrder, EveryTaskOnceIntoItsOwnSlot) {
  for (const unsigned threads : {1u, 2u, 3u, 8u}) {
    std::vector<size_t> slots(100, 0);
    std::vector<std::atomic<int>> calls(100);
    run_in_order(100, threads, [&](size_t i, std::stop_token) {
      slots[i] = i * i;
      ++calls[i];
    });
    for (size_t i = 0; i < 100; ++i) {
      EXPECT_EQ(slots[i], i * i) << threads << " threads";
      EXPECT_EQ(calls[i].load(), 1) << i << ", " << threads << " threads";
    }
  }
}

// One thread is the plain loop: on the calling thread, in index order, progress after each.
TEST(RunInOrder, OneThreadIsTheLoopOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::string> seen;
  run_in_order(
      3, 1,
      [&](size_t i, std::stop_token stop) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        EXPECT_FALSE(stop.stop_possible());
        seen.push_back("run " + std::to_string(i));
      },
      [&](size_t finished) { seen.push_back("done " + std::to_string(finished)); });
  EXPECT_EQ(seen,
            (std::vector<std::string>{"run 0", "done 1", "run 1", "done 2", "run 2", "done 3"}));
}

// Progress runs on the calling thread, counts up and ends at the number of tasks (4 threads,
// 50 tasks: 50 finishes, reported in one or more steps).
TEST(RunInOrder, ProgressCountsFinishedTasksOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<size_t> reported;
  run_in_order(
      50, 4, [](size_t, std::stop_token) {},
      [&](size_t finished) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        reported.push_back(finished);
      });
  ASSERT_FALSE(reported.empty());
  for (size_t k = 1; k < reported.size(); ++k) EXPECT_LT(reported[k - 1], reported[k]);
  EXPECT_EQ(reported.back(), 50u);
}

TEST(RunInOrder, NoTasksNothingCalled) {
  bool called = false;
  run_in_order(
      0, 4, [&](size_t, std::stop_token) { called = true; }, [&](size_t) { called = true; });
  EXPECT_FALSE(called);
}

// Tasks 3 and 7 throw: a loop would stop at 3, so 3's exception is thrown, on any number of
// threads (tasks start in order, so 3 always starts, even when 7 fails first).
TEST(RunInOrder, TheLowestFailingIndexIsThrown) {
  for (const unsigned threads : {1u, 2u, 4u}) {
    const std::string what = thrown_by([&] {
      run_in_order(20, threads, [](size_t i, std::stop_token) {
        if (i == 3 || i == 7) throw std::runtime_error("task " + std::to_string(i));
      });
    });
    EXPECT_EQ(what, "task 3") << threads << " threads";
  }
}

// Two threads. Task 1 starts and waits for its stop; task 0 waits until task 1 has started and
// throws. Task 1 is above the failure: it is asked to stop, and nothing after it starts.
TEST(RunInOrder, AFailureStopsTheTasksAfterItAndStartsNoMore) {
  std::latch one_started(1);
  std::mutex m;
  std::set<size_t> started;
  bool one_stopped = false;
  const std::string what = thrown_by([&] {
    run_in_order(100, 2, [&](size_t i, std::stop_token stop) {
      {
        std::lock_guard lock(m);
        started.insert(i);
      }
      if (i == 0) {
        one_started.wait();
        throw std::runtime_error("task 0 failed");
      }
      if (i == 1) {
        one_started.count_down();
        const bool stopped = wait_for_stop(stop);
        std::lock_guard lock(m);
        one_stopped = stopped;
      }
    });
  });
  EXPECT_EQ(what, "task 0 failed");
  EXPECT_TRUE(one_stopped);
  EXPECT_EQ(started, (std::set<size_t>{0, 1}));
}

// Two threads. Task 1 throws while task 0 still runs (task 0 waits for the progress report of
// that finish, made after the failure is recorded): task 0 is below the failure, so it is not
// asked to stop and runs to its end; then it throws too, and being first in order, its
// exception is the one thrown.
TEST(RunInOrder, TasksBeforeAFailureFinishAndTheirFailureWins) {
  std::latch one_recorded(1);
  bool zero_asked_to_stop = true;
  const std::string what = thrown_by([&] {
    run_in_order(
        2, 2,
        [&](size_t i, std::stop_token stop) {
          if (i == 1) throw std::runtime_error("task 1 failed");
          one_recorded.wait();
          zero_asked_to_stop = stop.stop_requested();
          throw std::runtime_error("task 0 failed");
        },
        [&](size_t finished) {
          if (finished == 1) one_recorded.count_down();  // only task 1 can finish first
        });
  });
  EXPECT_EQ(what, "task 0 failed");
  EXPECT_FALSE(zero_asked_to_stop);
}

// A progress callback that throws ends the run with its exception: the running tasks are asked
// to stop (task 1 waits for that), nothing hangs.
TEST(RunInOrder, AThrowingProgressStopsTheTasks) {
  const std::string what = thrown_by([&] {
    run_in_order(
        2, 2,
        [&](size_t i, std::stop_token stop) {
          if (i == 1) {
            EXPECT_TRUE(wait_for_stop(stop));
          }
        },
        [](size_t) -> void { throw std::runtime_error("progress failed"); });
  });
  EXPECT_EQ(what, "progress failed");
}

}  // namespace parallel_runs_test
}  // namespace gantry
