// The run store of `gantry serve` that publishes each change and counts runs by state for
// /metrics. It remembers only the runs in flight; the counts must still follow a run that
// finished long ago and is moved again (rerun, mark-success), and the runs of earlier lives.

#include "web/server/publishing_run_store.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "workflow/runner/memory_run_store.hpp"

namespace gantry::web {
namespace {

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

Run queued_run(int hour) {
  Run r;
  r.pipeline = "p";
  r.logical_time = kT0 + hours(hour);
  r.state = RunState::kQueued;
  r.tasks.push_back(TaskInstance{"t", TaskState::kPending, {}, {}});
  return r;
}

using Counts = std::map<std::string, int64_t>;

TEST(PublishingRunStore, CountsFollowRunsThatFinishedBefore) {
  MemoryRunStore inner;
  // An earlier life left one failed run (hour 0) in the store.
  gantry::Run old = queued_run(0);
  old.state = RunState::kFailed;
  ASSERT_TRUE(inner.create_run(old));
  EventBus bus(16);
  PublishingRunStore store(inner, bus);
  store.seed_counts({{"failed", 1}});

  ASSERT_TRUE(store.create_run(queued_run(1)));
  EXPECT_FALSE(store.create_run(queued_run(1))) << "exists: nothing counted";
  const RunKey one{"p", kT0 + hours(1)};
  store.update_run(one, RunState::kRunning, kT0, std::nullopt);
  store.update_run(one, RunState::kSucceeded, kT0, kT0 + minutes(5));
  EXPECT_EQ(store.metrics().runs_by_state, (Counts{{"failed", 1}, {"succeeded", 1}}));

  // The run of the earlier life is rerun, then succeeds: failed -> queued -> succeeded.
  const RunKey zero{"p", kT0};
  store.update_run(zero, RunState::kQueued, kT0, std::nullopt);
  EXPECT_EQ(store.metrics().runs_by_state, (Counts{{"queued", 1}, {"succeeded", 1}}));
  store.update_run(zero, RunState::kSucceeded, kT0, kT0 + hours(2));
  // Hour 1, finished above, is marked succeeded again: succeeded -> succeeded.
  store.update_run(one, RunState::kSucceeded, kT0, kT0 + minutes(5));
  EXPECT_EQ(store.metrics().runs_by_state, (Counts{{"succeeded", 2}}));
  // 2 creations refused or not: 1 run event + 5 updates = 6 events published.
  EXPECT_EQ(bus.wait_after(0, std::chrono::milliseconds(0)).events.size(), 6u);
}

// An attempt's end carries the executor's reason (issue 23: a live API server's refusal), and
// only when there is one; the store below keeps it too.
TEST(PublishingRunStore, AnAttemptsEndCarriesItsReason) {
  MemoryRunStore inner;
  EventBus bus(16);
  PublishingRunStore store(inner, bus);
  ASSERT_TRUE(store.create_run(queued_run(0)));
  const RunKey key{"p", kT0};
  store.attempt_started(key, "t", 0, 1, kT0);
  const std::string why =
      R"(creating configmap ml/p-t-a1: 404 NotFound: namespaces "ml" not found)";
  store.attempt_ended(key, "t", 0, kT0 + minutes(1), AttemptState::kError, why);
  store.attempt_started(key, "t", 1, 2, kT0 + minutes(2));
  store.attempt_ended(key, "t", 1, kT0 + minutes(3), AttemptState::kSucceeded, "");
  std::vector<nlohmann::json> ends;
  for (const BusEvent& e : bus.wait_after(0, std::chrono::milliseconds(0)).events) {
    const nlohmann::json d = nlohmann::json::parse(e.data);
    if (e.type == "attempt" && d.contains("end")) ends.push_back(d);
  }
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0]["state"], "error");
  EXPECT_EQ(ends[0]["reason"], why);
  EXPECT_FALSE(ends[1].contains("reason")) << ends[1].dump();
  EXPECT_EQ(inner.load_run(key)->tasks[0].attempts[0].reason, why);
}

}  // namespace
}  // namespace gantry::web
