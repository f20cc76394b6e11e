#pragma once
// What the run scheduler produces (issue #4): runs of a pipeline, one task instance per task,
// one attempt per try. Plain data shared by the scheduler (run_scheduler.hpp), the store
// (run_store.hpp) and the timeline writers (timeline.hpp). The string forms below are the
// words of the JSON timeline and never change.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/resources.hpp"
#include "engine/core/time.hpp"

namespace gantry {

struct PipelineSpec;

// Names one attempt for good: the store keeps it with the attempt (RunStore::attempt_started)
// and a scheduler that recovers continues after the greatest stored id, so an id is never
// reused, across restarts too, and an executor can be asked about it after one
// (TaskExecutor::adopt). 0 names no attempt (and attempts stored before ids were kept).
using AttemptId = uint64_t;

// Why a run exists.
enum class RunTrigger {
  kSchedule,  // a tick handled on time
  kCatchup,   // a tick that was due before the scheduler was switched on, came back up or
              // the pipeline was resumed
  kBackfill,  // created by backfill() for a past window
  kManual,    // an operator's trigger action; logical time = the moment of the action
};

enum class RunState {
  kQueued,     // created, waiting for maxActiveRuns, dependsOnPast or the scheduler
  kRunning,    // started; tasks are being run
  kSucceeded,  // every leaf task succeeded or was skipped (or an operator marked it success)
  kFailed,     // a leaf failed or was upstream_failed, or the run timed out
  kSkipped,    // concurrency Forbid: the tick found a run in flight; recorded, never ran
  kExpired,    // keepLatest: newer runs pushed it out (killed if it was running)
  kKilled,     // concurrency Replace: a newer tick replaced it
};

enum class TaskState {
  kPending,         // waiting for upstream, a slot, dependsOnPast or a retry's backoff
  kRunning,         // an attempt was started (the executor may still be queueing it)
  kSucceeded,       // the last attempt succeeded (or an operator marked the run success)
  kFailed,          // the last attempt was unsuccessful and no retry is left
  kUpstreamFailed,  // its trigger rule can no longer be met because upstream failed
  kSkipped,         // skip: true, or a trigger rule (all_failed, one_failed) that cannot fire
  kKilled,          // the run ended (timeout, Replace, keepLatest) before the task finished
};

enum class AttemptState {
  kRunning,    // not ended yet, queued by the executor or running (never in a finished
               // timeline; Attempt::running tells which)
  kSucceeded,  // the work finished successfully
  kFailed,     // the work failed (exit code != 0), or an operator's fail action
  kError,      // infrastructure: node lost, evicted, orchestrator lost track of it
  kTimeout,    // ran past the task's per-attempt timeout and was stopped
  kKilled,     // stopped because its run ended
  kLost,       // running when the orchestrator itself stopped (RunScheduler::recover()); the
               // task is run again at once, and this attempt does not count as a retry
};

struct Attempt {
  Time start;  // when the scheduler asked the executor for it
  std::optional<Time> end;
  AttemptState state = AttemptState::kRunning;
  std::string reason{};  // why it ended unsuccessfully, when the executor said (stored)
  AttemptId id = 0;
  // When its work actually started (AttemptListener::attempt_running): after `start` when the
  // executor queued it (a gang waiting for GPUs). Unset while queued, and for an attempt that
  // ended without ever running. Timeouts count from here.
  std::optional<Time> running{};
};

struct TaskInstance {
  std::string name;
  TaskState state = TaskState::kPending;
  std::vector<Attempt> attempts;
  // The CPU and memory asked for by the latest attempt (autosize may lower them).
  Resources requests;
};

struct Run {
  std::string pipeline;
  Time logical_time;
  RunTrigger trigger = RunTrigger::kSchedule;
  RunState state = RunState::kQueued;
  std::optional<Time> start;        // first time it went running
  std::optional<Time> end;          // when it reached its final state
  std::vector<TaskInstance> tasks;  // in the pipeline's task order
  // The run's params (spec.params), name -> JSON literal of the value ("\"abc\"", "3",
  // "true"): given at a manual trigger, defaults otherwise. Empty for a pipeline without any.
  std::map<std::string, std::string> params{};
};

// The environment a run's params give its tasks: GANTRY_PARAM_<NAME upper-cased> = the value
// as text (a string without its quotes, a number or true/false as written).
std::map<std::string, std::string> param_env(const std::map<std::string, std::string>& params);

// The identity of a run: a run exists at most once per (pipeline, logical time).
struct RunKey {
  std::string pipeline;
  Time logical_time;
  auto operator<=>(const RunKey&) const = default;
};

bool is_finished(RunState s);   // succeeded, failed, skipped, expired, killed
bool is_finished(TaskState s);  // anything but pending and running

std::string_view to_string(RunTrigger v);
std::string_view to_string(RunState v);
std::string_view to_string(TaskState v);
std::string_view to_string(AttemptState v);

// A run's task instances in the pipeline's task order, matched by name: instances of tasks the
// pipeline no longer has are dropped, tasks it gained are pending with no attempts. What a
// restart with a changed pipeline file, or a replaced pipeline, does to the runs it has.
std::vector<TaskInstance> tasks_in_pipeline_order(const PipelineSpec& spec,
                                                  std::vector<TaskInstance> stored);

}  // namespace gantry
