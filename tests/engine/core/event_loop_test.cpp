#include "engine/core/event_loop.hpp"

#include <gtest/gtest.h>

#include <future>
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
  loop.schedule_at(kStart + minutes(120), [&] { ran.emplace_back("late", (loop.now() - kStart).micros()); });
  loop.run_until(kStart + minutes(90));
  loop.schedule_at(kStart + minutes(100), [&] { ran.emplace_back("early", (loop.now() - kStart).micros()); });
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
  loop.schedule_after(seconds(1), [&] { ++ran; loop.stop(); });
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
// and run_until returns once the horizon is reached.
TEST(EventLoop, WallLoopFiresTimersAtScaledTime) {
  EventLoop loop(std::make_unique<WallClock>(kStart, 1e6));
  std::vector<std::string> fired;
  loop.schedule_at(kStart + minutes(1), [&] { fired.push_back("1m"); });
  loop.schedule_at(kStart + minutes(2), [&] { fired.push_back("2m"); });
  loop.run_until(kStart + minutes(3));
  EXPECT_EQ(fired, (std::vector<std::string>{"1m", "2m"}));
  EXPECT_GE(loop.now(), kStart + minutes(3));
}

}  // namespace
}  // namespace gantry
