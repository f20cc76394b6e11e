#pragma once
// Where attempts run (STYLE.md habits 8 and 9, Ninja's CommandRunner): the scheduler asks an
// executor to start an attempt and is told, later and on the loop thread, how it ended. The
// simulated world (simulated_executor.hpp) draws durations and outcomes from the task's
// `simulate` block; a live executor would create Kubernetes workloads; tests may script one.

#include <cstdint>
#include <string>

#include "engine/cluster/resources.hpp"
#include "engine/core/time.hpp"

namespace gantry {

struct PipelineSpec;
struct TaskSpec;

// Names one attempt for the life of a scheduler; never reused.
using AttemptId = uint64_t;

struct AttemptRequest {
  AttemptId id = 0;
  const PipelineSpec* pipeline = nullptr;  // owned by the scheduler, outlives the attempt
  const TaskSpec* task = nullptr;
  Time logical_time;
  size_t attempt_index = 0;  // 0 for the first attempt of the task instance
  Resources requests;        // after autosize
};

// How the work of an attempt ended, as the world reports it.
enum class AttemptOutcome {
  kSucceeded,  // exit code 0
  kFailed,     // the work failed
  kError,      // infrastructure failure (node lost, evicted)
};

struct AttemptResult {
  AttemptOutcome outcome = AttemptOutcome::kSucceeded;
  Resources used;  // peak CPU and memory, for autosize
  // Why an unsuccessful attempt ended, for people, when the executor knows more than the
  // outcome ("can never be placed: ..."); empty otherwise. Shown in the timeline and
  // recorded as an event.
  std::string reason{};
};

// The scheduler side: told when an attempt ends on its own.
class AttemptListener {
 public:
  virtual ~AttemptListener() = default;
  // Called on the loop thread at the moment the attempt ended, once per started attempt that
  // was not killed.
  virtual void attempt_finished(AttemptId id, const AttemptResult& result) = 0;
};

class TaskExecutor {
 public:
  virtual ~TaskExecutor() = default;
  // Starts the attempt now. Must not call back synchronously.
  virtual void start(const AttemptRequest& request, AttemptListener& listener) = 0;
  // Stops a running attempt; no attempt_finished() follows. Unknown or finished ids: no-op.
  virtual void kill(AttemptId id) = 0;
};

}  // namespace gantry
