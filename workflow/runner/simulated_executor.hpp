#pragma once
// The simulated world's executor: an attempt of task T of pipeline P takes
//   - simulate.duration, exactly, or
//   - a log-normal draw with median simulate.duration and 90th percentile simulate.p90
//     (capped at 100 years, the longest duration a file may state),
// rounded to the microsecond and at least 1us, and ends with
//   - simulate.outcomes[attempt_index] (the last entry repeats), or, when outcomes is empty,
//   - failed with probability simulate.failure_probability, else succeeded.
// Draws come from the named streams "runner/P/T/duration" and "runner/P/T/outcome", so
// adding a pipeline or task never shifts another task's draws, and durations do not shift
// when outcomes change (DESIGN.md rule 4). Draws happen at attempt start, in the event
// loop's deterministic order. The reported `used` resources are simulate.used_* or, when
// absent, the requests.
//
// Nothing queues here: an attempt runs at once. attempt_running() is reported at the start's
// instant but from a loop event of its own (the contract of task_executor.hpp: never inside
// start()), posted after the attempt's end is scheduled, so a timeout armed on it loses a tie
// with the end. kill() acknowledges an attempt not yet finished. adopt() knows nothing: the
// simulated world does not outlive its process.

#include <map>
#include <string>
#include <unordered_map>

#include "engine/core/event_loop.hpp"
#include "engine/core/random.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry {

class SimulatedExecutor final : public TaskExecutor {
 public:
  // `loop` must outlive the executor.
  SimulatedExecutor(EventLoop& loop, uint64_t seed);

  void start(const AttemptRequest& request, AttemptListener& listener) override;
  KillAck kill(AttemptId id) override;
  bool adopt(AttemptId, AttemptListener&) override { return false; }

  size_t running() const { return running_.size(); }

 private:
  struct Streams {
    RandomStream duration;
    RandomStream outcome;
  };
  struct Pending {
    TimerId timer;
    AttemptResult result;
    AttemptListener* listener;
  };

  void report_running(AttemptId id, Time at);
  void finish(AttemptId id);
  Streams& streams(const std::string& pipeline, const std::string& task);

  EventLoop& loop_;
  RandomStreams seeds_;
  std::map<std::string, Streams> streams_;  // by "pipeline/task"
  std::unordered_map<AttemptId, Pending> running_;
};

}  // namespace gantry
