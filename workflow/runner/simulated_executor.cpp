#include "workflow/runner/simulated_executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

SimulatedExecutor::SimulatedExecutor(EventLoop& loop, uint64_t seed) : loop_(loop), seeds_(seed) {}

SimulatedExecutor::Streams& SimulatedExecutor::streams(const std::string& pipeline,
                                                       const std::string& task) {
  std::string name = pipeline + "/" + task;
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    it = streams_
             .emplace(name, Streams{seeds_.stream("runner/" + name + "/duration"),
                                    seeds_.stream("runner/" + name + "/outcome")})
             .first;
  }
  return it->second;
}

void SimulatedExecutor::start(const AttemptRequest& request, AttemptListener& listener) {
  const SimulateSpec& sim = request.task->simulate;
  Streams& s = streams(request.pipeline->name, request.task->name);

  Duration d = sim.duration;
  if (sim.p90) {
    double median = sim.duration.seconds();
    double p90 = std::max(sim.p90->seconds(), median);
    d = Duration::from_seconds(s.duration.lognormal_median_p90(median, p90));
  }
  // A far tail of the log-normal can exceed any representable span; a draw is capped at the
  // longest duration a file may state (100 years, engine/config/limits.hpp), so instants
  // computed from it stay far inside int64.
  d = std::clamp(d, microseconds(1), days(36'500));

  AttemptResult result;
  // The reason names the field that decided, so that a failure is never unexplained (#26 §1).
  if (!sim.outcomes.empty()) {
    const size_t k = std::min(request.attempt_index, sim.outcomes.size() - 1);
    const std::string& o = sim.outcomes[k];
    result.outcome = o == "failed"  ? AttemptOutcome::kFailed
                     : o == "error" ? AttemptOutcome::kError
                                    : AttemptOutcome::kSucceeded;
    if (result.outcome == AttemptOutcome::kFailed)
      result.reason = fmt::format("simulated failure (simulate.outcomes[{}] is failed)", k);
    if (result.outcome == AttemptOutcome::kError)
      result.reason =
          fmt::format("simulated infrastructure error (simulate.outcomes[{}] is error)", k);
  } else if (sim.failure_probability > 0) {
    result.outcome = s.outcome.uniform() < sim.failure_probability ? AttemptOutcome::kFailed
                                                                   : AttemptOutcome::kSucceeded;
    if (result.outcome == AttemptOutcome::kFailed)
      result.reason = fmt::format("simulated failure (simulate.failureProbability {:g})",
                                  sim.failure_probability);
  }
  result.used = request.requests;
  if (sim.used_cpu_milli) result.used.cpu_milli = *sim.used_cpu_milli;
  if (sim.used_memory_bytes) result.used.memory_bytes = *sim.used_memory_bytes;

  const AttemptId id = request.id;
  const TimerId timer = loop_.schedule_after(d, [this, id] { finish(id); });
  running_.emplace(id, Pending{timer, result, &listener});
  const Time now = loop_.now();
  loop_.schedule_after(Duration(0), [this, id, now] { report_running(id, now); });
}

void SimulatedExecutor::report_running(AttemptId id, Time at) {
  const auto it = running_.find(id);
  if (it == running_.end()) return;  // killed meanwhile
  it->second.listener->attempt_running(id, at);
}

void SimulatedExecutor::finish(AttemptId id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  Pending p = it->second;
  running_.erase(it);
  p.listener->attempt_finished(id, p.result);
}

KillAck SimulatedExecutor::kill(AttemptId id) {
  const auto it = running_.find(id);
  if (it == running_.end()) return KillAck::kUnknown;
  loop_.cancel(it->second.timer);
  running_.erase(it);
  return KillAck::kKilled;
}

}  // namespace gantry
