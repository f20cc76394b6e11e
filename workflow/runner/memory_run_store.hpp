#pragma once
// RunStore kept in memory: for tests (a "restarted" scheduler recovers from the same object)
// and for virtual-time runs that need no database. Not thread-safe (like every RunStore, it
// is used from the loop thread only).
//
// Cost (n = runs):  create_run O(log n)  ·  update_* O(log n)  ·  load_run(_before) O(log n)
//                   ·  load_runs O(size)

#include <map>
#include <vector>

#include "workflow/runner/run_store.hpp"

namespace gantry {

class MemoryRunStore final : public RunStore {
 public:
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

  // For tests.
  const std::map<RunKey, Run>& runs() const { return runs_; }
  const std::vector<SchedulerEvent>& events() const { return events_; }
  // create_run() calls refused because the run existed.
  size_t refused_creations() const { return refused_; }

 private:
  TaskInstance& task(const RunKey& key, std::string_view name);

  std::map<RunKey, Run> runs_;
  std::vector<SchedulerEvent> events_;
  size_t refused_ = 0;
};

}  // namespace gantry
