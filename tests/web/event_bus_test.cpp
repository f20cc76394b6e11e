// The event bus behind Server-Sent Events: ids, resuming after an id, the reset when a client
// missed more than the buffer holds, and close() waking a waiting subscriber.

#include "web/server/event_bus.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace gantry::web {
namespace {

using std::chrono::milliseconds;

TEST(EventBus, ResumesAfterAnId) {
  EventBus bus(10);
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
  EventBus bus(4);
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
  EventBus bus;
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

TEST(EventBus, FormatIsServerSentEvents) {
  EXPECT_EQ(EventBus::format({7, "run", R"({"state":"running"})"}),
            "id: 7\nevent: run\ndata: {\"state\":\"running\"}\n\n");
}

}  // namespace
}  // namespace gantry::web
