// The event bus behind Server-Sent Events: ids, resuming after an id, the reset when a client
// missed more than the buffer holds, and close() waking a waiting subscriber.

#include "web/server/event_bus.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace gantry::web {
namespace {

using std::chrono::milliseconds;

TEST(EventBus, ResumesAfterAnId) {
  EventBus bus(10, 1);
  for (int i = 1; i <= 5; ++i)
    EXPECT_EQ(bus.publish("run", "{\"n\":" + std::to_string(i) + "}"), static_cast<uint64_t>(i));
  const EventBus::Batch b = bus.wait_after(2, milliseconds(0));
  EXPECT_FALSE(b.reset);
  ASSERT_EQ(b.events.size(), 3u);
  EXPECT_EQ(b.events[0].id, 3u);
  EXPECT_EQ(b.events[2].data, "{\"n\":5}");
  EXPECT_TRUE(bus.wait_after(5, milliseconds(0)).events.empty()) << "nothing new";
  EXPECT_EQ(bus.wait_after(0, milliseconds(0), 2).events.size(), 2u) << "at most max";
}

// Capacity 4, ids 1..10 published: 7..10 are kept. A client at 3 missed 4..6: reset, then 7..10.
// A client at 6 missed nothing that is gone: no reset.
TEST(EventBus, ResetWhenTheBufferLostEventsTheClientMissed) {
  EventBus bus(4, 1);
  for (int i = 0; i < 10; ++i) bus.publish("task", "{}");
  const EventBus::Batch lost = bus.wait_after(3, milliseconds(0));
  EXPECT_TRUE(lost.reset);
  ASSERT_EQ(lost.events.size(), 4u);
  EXPECT_EQ(lost.events.front().id, 7u);
  const EventBus::Batch kept = bus.wait_after(6, milliseconds(0));
  EXPECT_FALSE(kept.reset);
  EXPECT_EQ(kept.events.front().id, 7u);
}

// A subscriber blocked in wait_after() is woken by a publish (and by close), with no sleep in
// the test: the waiter's thread is joined, which only returns once it got its batch.
TEST(EventBus, PublishAndCloseWakeAWaiter) {
  EventBus bus(16, 1);
  EventBus::Batch got;
  std::thread waiter([&] { got = bus.wait_after(0, std::chrono::hours(1)); });
  bus.publish("run", "{}");
  waiter.join();
  ASSERT_EQ(got.events.size(), 1u);
  std::thread closer_waiter([&] { got = bus.wait_after(1, std::chrono::hours(1)); });
  bus.close();
  closer_waiter.join();
  EXPECT_TRUE(got.closed);
}

// A restarted server's bus starts its ids above the previous run's (gantry serve takes them from
// the clock): a client that comes back with the previous run's last id, 1029, is told to reset
// at once, before any event and after some, and resumes from the new bus's ids. An id above
// any this bus issued (a clock stepped back) is a reset too.
TEST(EventBus, AnIdThisBusDidNotIssueIsAReset) {
  EventBus earlier(16, 1000);
  for (int i = 0; i < 30; ++i) earlier.publish("run", "{}");
  EXPECT_EQ(earlier.last_id(), 1029u);  // 1000 + 30 - 1
  EventBus restarted(16, 5000);
  const EventBus::Batch before_any = restarted.wait_after(1029, milliseconds(0));
  EXPECT_TRUE(before_any.reset);
  EXPECT_TRUE(before_any.events.empty());
  EXPECT_EQ(before_any.last, 4999u) << "resume after the id before the first";
  EXPECT_FALSE(restarted.wait_after(4999, milliseconds(0)).reset) << "no reset twice";
  for (int i = 0; i < 3; ++i) restarted.publish("run", "{}");
  const EventBus::Batch after_some = restarted.wait_after(1029, milliseconds(0));
  EXPECT_TRUE(after_some.reset);
  ASSERT_EQ(after_some.events.size(), 3u);
  EXPECT_EQ(after_some.events.front().id, 5000u);
  EXPECT_EQ(after_some.last, 5002u);
  const EventBus::Batch future = restarted.wait_after(9999, milliseconds(0));
  EXPECT_TRUE(future.reset);
  EXPECT_TRUE(future.events.empty());
  EXPECT_EQ(future.last, 5002u);
}

// 2023-11-14T22:13:20Z is 1.7e15 µs after the epoch; 2^53 (exact in JavaScript) is 9.007e15.
TEST(EventBus, IdsFromTheClockAreMicrosecondsSinceTheEpoch) {
  const uint64_t id = EventBus::first_id_from_clock();
  EXPECT_GT(id, 1'700'000'000'000'000u);
  EXPECT_LT(id, uint64_t{1} << 53);
  EventBus bus;
  EXPECT_GE(bus.publish("run", "{}"), id) << "the default starts from the clock";
}

TEST(EventBus, FormatIsServerSentEvents) {
  EXPECT_EQ(EventBus::format({7, "run", R"({"state":"running"})"}),
            "id: 7\nevent: run\ndata: {\"state\":\"running\"}\n\n");
}

}  // namespace
}  // namespace gantry::web
