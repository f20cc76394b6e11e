#include "engine/core/event_loop.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace gantry {
namespace {

const Time kStart = Time::from_micros(1'767'225'600'000'000);

TEST(EventLoop, RunsByTimeThenInsertionOrder) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::string order;
  loop.schedule_at(kStart + seconds(2), [&] { order += "c"; });
  loop.schedule_at(kStart + seconds(1), [&] { order += "a"; });
  loop.schedule_at(kStart + seconds(2), [&] { order += "d"; });
  loop.schedule_at(kStart + seconds(1), [&] { order += "b"; });
  loop.run();
  EXPECT_EQ(order, "abcd");
  EXPECT_EQ(loop.now(), kStart + seconds(2));
}

TEST(EventLoop, VirtualClockJumpsToEachEvent) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::vector<int64_t> seen;
  loop.schedule_after(hours(5), [&] { seen.push_back((loop.now() - kStart).micros()); });
  loop.schedule_after(seconds(3), [&] {
    seen.push_back((loop.now() - kStart).micros());
    loop.schedule_after(seconds(3), [&] { seen.push_back((loop.now() - kStart).micros()); });
  });
  loop.run();
  EXPECT_EQ(seen, (std::vector<int64_t>{3'000'000, 6'000'000, hours(5).micros()}));
}

// next_timer() only looks: after it saw the timer at 10 s, one scheduled at 5 s (still in the
// future) runs first, at 5 s. (Taking the queue's top to answer used to raise its floor to
// 10 s, and the 5 s timer came out at 10 s.) A cancelled timer's instant may be answered.
TEST(EventLoop, NextTimerOnlyLooks) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::vector<int64_t> seen;
  const auto note = [&] { seen.push_back((loop.now() - kStart).micros() / 1'000'000); };
  const TimerId cancelled = loop.schedule_at(kStart + seconds(1), note);
  loop.schedule_at(kStart + seconds(10), note);
  loop.cancel(cancelled);
  EXPECT_EQ(loop.next_timer(), kStart + seconds(1));
  loop.schedule_at(kStart + seconds(5), note);
  loop.run();
  EXPECT_EQ(seen, (std::vector<int64_t>{5, 10}));
  EXPECT_EQ(loop.next_timer(), std::nullopt);
}

TEST(EventLoop, CancelledTimersNeverRun) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  int ran = 0;
  const TimerId a = loop.schedule_after(seconds(1), [&] { ran += 1; });
  const TimerId b = loop.schedule_after(seconds(2), [&] { ran += 10; });
  EXPECT_EQ(loop.pending(), 2u);
  EXPECT_TRUE(loop.cancel(a));
  EXPECT_FALSE(loop.cancel(a)) << "second cancel of the same id";
  EXPECT_EQ(loop.pending(), 1u);
  loop.run();
  EXPECT_EQ(ran, 10);
  EXPECT_FALSE(loop.cancel(b)) << "cancel after it ran";
}

// Equal-time timers run in insertion order, so a timer at the current instant scheduled after
// the running one is still pending and can be cancelled; one scheduled before has run.
TEST(EventLoop, CancelAtTheCurrentInstantKnowsWhatRan) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::string order;
  TimerId earlier{}, later{};
  earlier = loop.schedule_after(seconds(1), [&] { order += "e"; });
  loop.schedule_after(seconds(1), [&] {
    order += "m";
    EXPECT_FALSE(loop.cancel(earlier)) << "ran just before, at the same instant";
    EXPECT_TRUE(loop.cancel(later));
  });
  later = loop.schedule_after(seconds(1), [&] { order += "l"; });
  loop.run();
  EXPECT_EQ(order, "em");
  EXPECT_EQ(loop.pending(), 0u);
}

TEST(EventLoop, StaleIdDoesNotCancelTheSlotsNextTimer) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  int ran = 0;
  const TimerId first = loop.schedule_after(seconds(1), [] {});
  ASSERT_TRUE(loop.cancel(first));
  loop.schedule_after(seconds(1), [&] { ++ran; });  // reuses the freed slot
  EXPECT_FALSE(loop.cancel(first));
  loop.run();
  EXPECT_EQ(ran, 1);
}

// A cancelled timer's entry is dropped when its time comes; cancelling the same id again after
// that must still fail and leave the count alone.
TEST(EventLoop, CancelAgainAfterTheCancelledTimerCameUpFails) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  const TimerId a = loop.schedule_after(seconds(1), [] {});
  ASSERT_TRUE(loop.cancel(a));
  loop.run();
  EXPECT_FALSE(loop.cancel(a));
  EXPECT_EQ(loop.pending(), 0u);
}

TEST(EventLoop, CallbackCannotCancelItself) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  TimerId self{};
  bool cancelled = true;
  self = loop.schedule_after(seconds(1), [&] { cancelled = loop.cancel(self); });
  loop.run();
  EXPECT_FALSE(cancelled) << "it is running: too late to cancel";
}

// Callables too big or not trivially copyable live on the heap; each is freed exactly once,
// whether it ran, was cancelled, or was still pending when the loop was destroyed.
TEST(EventLoop, HeapHeldCallbacksAreReleasedExactlyOnce) {
  auto owned = std::make_shared<int>(0);
  {
    const auto owner = EventLoop::virtual_time(kStart);
    EventLoop& loop = *owner;
    loop.schedule_after(seconds(1), [owned] { *owned += 1; });
    const TimerId b = loop.schedule_after(seconds(1), [owned] { *owned += 10; });
    loop.schedule_after(seconds(2), [owned] { *owned += 100; });
    EXPECT_EQ(owned.use_count(), 4);
    loop.cancel(b);
    EXPECT_EQ(owned.use_count(), 3) << "cancel releases at once";
    loop.run_until(kStart + seconds(1));
    EXPECT_EQ(owned.use_count(), 2) << "the one that ran is released";
  }
  EXPECT_EQ(owned.use_count(), 1) << "the pending one is released with the loop";
  EXPECT_EQ(*owned, 1);
}

// Microseconds and centuries apart in one queue.
TEST(EventLoop, HugeTimeGapsKeepTheirOrder) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::string order;
  const Duration century = hours(24 * 365 * 100);
  loop.schedule_after(century, [&] { order += "c"; });
  loop.schedule_after(Duration(1), [&] { order += "a"; });
  loop.schedule_after(century + Duration(1), [&] { order += "d"; });
  loop.schedule_after(hours(1), [&] {
    order += "b";
    loop.schedule_after(century - hours(1), [&] { order += "C"; });  // same instant as "c", later
  });
  loop.run();
  EXPECT_EQ(order, "abcCd");
  EXPECT_EQ(loop.now(), kStart + century + Duration(1));
}

// The same scripted workload runs on the event loop and on a plain model (a std::multimap, which
// keeps equal keys in insertion order, and a flag per timer): each running timer schedules 0..3
// timers (delays of 0, a few µs, up to 1000 s, or years: ties and huge gaps) and cancels a random
// timer ever scheduled (pending, run, or cancelled). Each side draws from its own copy of one
// random stream, so the two logs agree only if every dispatch and every cancel result agree.
struct ScriptedTimers {
  std::mt19937_64 rng{20260107};
  std::vector<std::string> log;
  size_t scheduled = 0;
  static constexpr size_t kTimers = 30'000;

  int64_t next_delay() {
    switch (rng() % 4) {
      case 0:
        return 0;
      case 1:
        return static_cast<int64_t>(rng() % 4);
      case 2:
        return static_cast<int64_t>(rng() % 1'000'000'000);
      default:
        return static_cast<int64_t>(rng() % (int64_t{1} << 50));
    }
  }
  // What timer `id` does when it runs at `now`: schedule(delay) and cancel(victim) -> bool.
  template <typename Schedule, typename Cancel>
  void fire(size_t id, int64_t now, Schedule schedule, Cancel cancel) {
    log.push_back(std::to_string(now) + " run " + std::to_string(id));
    const int n = static_cast<int>(rng() % 4);  // 1.5 on average: grows to kTimers, then drains
    for (int i = 0; i < n && scheduled < kTimers; ++i) schedule(next_delay());
    if (rng() % 2 == 0) {
      const size_t victim = static_cast<size_t>(rng() % scheduled);
      log.push_back("cancel " + std::to_string(victim) + (cancel(victim) ? " yes" : " no"));
    }
  }
};

TEST(EventLoop, MatchesAReferenceModelUnderRandomScheduleAndCancel) {
  // The event loop.
  ScriptedTimers on_loop;
  {
    const auto owner = EventLoop::virtual_time(kStart);
    EventLoop& loop = *owner;
    std::vector<TimerId> ids;
    std::function<void(int64_t)> schedule = [&](int64_t delay) {
      const size_t id = on_loop.scheduled++;
      ids.push_back(loop.schedule_after(Duration(delay), [&, id] {
        on_loop.fire(id, (loop.now() - kStart).micros(), schedule,
                     [&](size_t victim) { return loop.cancel(ids[victim]); });
      }));
    };
    for (int i = 0; i < 100; ++i) schedule(on_loop.next_delay());
    loop.run();
    EXPECT_EQ(loop.pending(), 0u);
  }
  // The model.
  ScriptedTimers on_model;
  {
    int64_t now = 0;
    std::multimap<int64_t, size_t> queue;
    std::vector<std::multimap<int64_t, size_t>::iterator> where;
    std::vector<bool> pending;
    auto schedule = [&](int64_t delay) {
      const size_t id = on_model.scheduled++;
      where.push_back(queue.emplace(now + delay, id));
      pending.push_back(true);
    };
    auto cancel = [&](size_t victim) {
      if (!pending[victim]) return false;
      queue.erase(where[victim]);
      pending[victim] = false;
      return true;
    };
    for (int i = 0; i < 100; ++i) schedule(on_model.next_delay());
    while (!queue.empty()) {
      const auto [t, id] = *queue.begin();
      queue.erase(queue.begin());
      pending[id] = false;
      now = t;
      on_model.fire(id, now, schedule, cancel);
    }
  }
  ASSERT_EQ(on_loop.scheduled, ScriptedTimers::kTimers) << "the script ran to its end";
  ASSERT_EQ(on_loop.log.size(), on_model.log.size());
  for (size_t i = 0; i < on_model.log.size(); ++i) ASSERT_EQ(on_loop.log[i], on_model.log[i]) << i;
}

TEST(EventLoop, RunUntilStopsAtHorizonAndJumpsThere) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  int ran = 0;
  loop.schedule_after(seconds(10), [&] { ++ran; });
  loop.schedule_after(seconds(11), [&] { ++ran; });
  loop.run_until(kStart + seconds(10));
  EXPECT_EQ(ran, 1) << "an event exactly at the horizon runs";
  EXPECT_EQ(loop.now(), kStart + seconds(10));
  loop.run_until(kStart + seconds(100));
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(loop.now(), kStart + seconds(100));
}

// After run_until stops short of the next timer, a timer scheduled between the horizon and
// that timer must still run first and at its own time (the loop only peeked at the next one).
TEST(EventLoop, TimerScheduledAfterAHorizonBeforeThePendingOneRunsInOrder) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::vector<std::pair<std::string, int64_t>> ran;
  loop.schedule_at(kStart + minutes(120),
                   [&] { ran.emplace_back("late", (loop.now() - kStart).micros()); });
  loop.run_until(kStart + minutes(90));
  loop.schedule_at(kStart + minutes(100),
                   [&] { ran.emplace_back("early", (loop.now() - kStart).micros()); });
  loop.run_until(kStart + minutes(110));
  ASSERT_EQ(ran.size(), 1u);
  EXPECT_EQ(ran[0], std::make_pair(std::string("early"), minutes(100).micros()));
  loop.run();
  ASSERT_EQ(ran.size(), 2u);
  EXPECT_EQ(ran[1].first, "late");
}

// Same with a cancelled timer at the front of the queue when run_until stops.
TEST(EventLoop, CancelledFrontDoesNotRaiseTheFloor) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::string order;
  const TimerId gone = loop.schedule_at(kStart + minutes(50), [&] { order += "x"; });
  loop.schedule_at(kStart + minutes(120), [&] { order += "b"; });
  loop.cancel(gone);
  loop.run_until(kStart + minutes(60));
  loop.schedule_at(kStart + minutes(70), [&] { order += "a"; });
  loop.run();
  EXPECT_EQ(order, "ab");
}

TEST(EventLoop, PostedWorkRunsBeforeTheNextTimer) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  std::string order;
  loop.schedule_after(seconds(1), [&] {
    order += "t";
    loop.post([&] { order += "p"; });
  });
  loop.schedule_after(seconds(1), [&] { order += "u"; });
  loop.run();
  EXPECT_EQ(order, "tpu");
}

TEST(EventLoop, StopEndsRunAfterTheCurrentEvent) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  int ran = 0;
  loop.schedule_after(seconds(1), [&] {
    ++ran;
    loop.stop();
  });
  loop.schedule_after(seconds(2), [&] { ++ran; });
  loop.run();
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(loop.pending(), 1u);
}

TEST(EventLoop, RunOneStepsByHand) {
  const auto owner = EventLoop::virtual_time(kStart);
  EventLoop& loop = *owner;
  int ran = 0;
  loop.schedule_after(seconds(1), [&] { ++ran; });
  loop.schedule_after(seconds(2), [&] { ++ran; });
  EXPECT_TRUE(loop.run_one());
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(loop.now(), kStart + seconds(1));
  EXPECT_TRUE(loop.run_one());
  EXPECT_FALSE(loop.run_one());
}

// A wall-clock loop with nothing scheduled blocks until another thread posts; the post is then
// served and its answer delivered through a future (the pattern HTTP handlers use). The test
// synchronises only on the future and on join(), never on sleeps.
TEST(EventLoop, WallLoopServesPostsFromOtherThreads) {
  EventLoop loop(std::make_unique<WallClock>());
  std::thread runner([&] { loop.run(); });
  std::promise<int> answer;
  auto result = answer.get_future();
  loop.post([&] { answer.set_value(41 + 1); });
  EXPECT_EQ(result.get(), 42);
  loop.stop();
  runner.join();
  EXPECT_EQ(loop.dispatched(), 1u);
}

// A scaled wall clock: one wall microsecond is 1e6 simulated ones, so a timer a simulated
// minute away is due after 60 wall microseconds; the loop sleeps for it rather than spinning
// and run_until returns once the horizon is reached. Times are taken from the clock once the
// loop exists: at this scale, building the loop (allocating its queue) on a busy machine can
// take a simulated minute or more.
TEST(EventLoop, WallLoopFiresTimersAtScaledTime) {
  EventLoop loop(std::make_unique<WallClock>(kStart, 1e6));
  const Time start = loop.now();
  std::vector<std::string> fired;
  loop.schedule_at(start + minutes(1), [&] { fired.push_back("1m"); });
  loop.schedule_at(start + minutes(2), [&] { fired.push_back("2m"); });
  loop.run_until(start + minutes(3));
  EXPECT_EQ(fired, (std::vector<std::string>{"1m", "2m"}));
  EXPECT_GE(loop.now(), start + minutes(3));
}

}  // namespace
}  // namespace gantry
