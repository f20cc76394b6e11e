#pragma once
// A RunStore that writes through to the real store and then tells the world: every change of
// a run, a task instance or an attempt is published on the event bus (Server-Sent Events) and
// counted for /metrics. Writing first means a subscriber never hears of a change the database
// does not hold (a crash between the two loses the event, never the change).
//
// Event data (web/API.md, "Live updates"):
//   run      {"pipeline","logicalTime","trigger"?,"state","start","end"}
//   task     {"pipeline","logicalTime","task","state"}
//   attempt  {"pipeline","logicalTime","task","attempt","state","start"?,"running"?,"end"?,
//            "reason"?}   (reason: with "end", when the executor said why it ended)
//
// Thread safety: the event loop's thread, like any RunStore; metrics() is read under its own
// lock from HTTP threads.

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "web/server/event_bus.hpp"
#include "workflow/runner/run_store.hpp"

namespace gantry::web {

// What /metrics shows about runs and tasks.
struct RunMetrics {
  std::map<std::string, int64_t> runs_by_state;  // state word -> runs now in it
  // Attempt latency (running → end, or start → end when it never reported running), by the
  // histogram's buckets in seconds.
  static constexpr std::array<double, 9> kBuckets = {1, 10, 60, 300, 900, 1800, 3600, 14400, 86400};
  std::array<uint64_t, kBuckets.size()> attempt_le{};
  uint64_t attempts_ended = 0;
  double attempt_seconds_sum = 0;
};

class PublishingRunStore final : public RunStore {
 public:
  // Both must outlive this store.
  PublishingRunStore(RunStore& inner, EventBus& bus);

  bool create_run(const Run& run) override;
  void update_run(const RunKey& key, RunState state, std::optional<Time> start,
                  std::optional<Time> end) override;
  void update_task(const RunKey& key, std::string_view task, TaskState state,
                   const Resources& requests) override;
  void attempt_started(const RunKey& key, std::string_view task, size_t index, AttemptId id,
                       Time start) override;
  void attempt_running(const RunKey& key, std::string_view task, size_t index, Time at) override;
  void attempt_ended(const RunKey& key, std::string_view task, size_t index, Time end,
                     AttemptState state, std::string_view reason) override;
  void record_event(const SchedulerEvent& event) override;
  std::vector<Run> load_runs(RunSelection which) const override;
  std::optional<Run> load_run(const RunKey& key) const override;
  std::optional<Run> load_run_before(std::string_view pipeline, Time before) const override;
  AttemptId max_attempt_id() const override;

  // Publishes an event, or keeps it while held.
  void publish(std::string type, std::string data);
  // While held (a group of changes not committed yet, SqliteRunStore::begin_group()), events
  // are kept; release() publishes them in order (the group committed), discard() drops them
  // (it was rolled back: subscribers never hear of what the database does not hold).
  void hold();
  void release();
  void discard();

  // The runs stored before this process started, by state (SqliteRunStore::
  // count_runs_by_state()); call once, before recover(), so runs_by_state covers them.
  void seed_counts(std::map<std::string, int64_t> runs_by_state);
  RunMetrics metrics() const;

 private:
  // A run's state before a change: from run_state_ while it is in flight, else read from the
  // inner store (a run that had finished: only reruns and mark-success move it again).
  std::optional<RunState> state_before(const RunKey& key) const;
  // Counts a run's move from `from` (nullopt: a new run) into `to`.
  void count_move(const RunKey& key, std::optional<RunState> from, RunState to);
  // An "attempt" event: {..., "task", "attempt", "state", time_key: at, "reason"?}.
  void publish_attempt(const RunKey& key, std::string_view task, size_t index,
                       std::string_view state, const char* time_key, Time at,
                       std::string_view reason = {});

  RunStore& inner_;
  EventBus& bus_;
  bool holding_ = false;
  std::vector<std::pair<std::string, std::string>> held_;  // (type, data) while held
  mutable std::mutex mu_;                                  // guards metrics_
  RunMetrics metrics_;
  // The state of each run not finished, for runs_by_state moves; a run leaves it when it
  // finishes, so the map holds the runs in flight, not the history.
  std::map<RunKey, RunState> run_state_;
  // (run, task, attempt index) -> when it started running (or was asked for)
  std::map<std::tuple<RunKey, std::string, size_t>, Time> attempt_start_;
};

}  // namespace gantry::web
