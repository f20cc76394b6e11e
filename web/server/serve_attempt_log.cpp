// ServeEngine::attempt_log(): the facts of one attempt gathered on the loop thread
// (attempt_log.hpp tells them).

#include <fmt/format.h>

#include <algorithm>

#include "web/server/api_server.hpp"
#include "web/server/serve_engine.hpp"

namespace gantry::web {

ServeEngine::AttemptLog ServeEngine::attempt_log(const std::string& name, Time logical,
                                                 const std::string& task, size_t number) {
  const PipelineSpec& spec = require_run(name, logical, task);
  const Run& run = *scheduler_->fetch_run(name, logical);
  const auto inst = std::find_if(run.tasks.begin(), run.tasks.end(),
                                 [&](const TaskInstance& i) { return i.name == task; });
  const size_t count = inst == run.tasks.end() ? 0 : inst->attempts.size();
  if (number < 1 || number > count)
    throw ApiError(
        404, "not_found",
        fmt::format("task {} of run {} {} has {} attempt{}; there is no attempt {}", task, name,
                    format_rfc3339(logical), count, count == 1 ? "" : "s", number));
  AttemptFacts f;
  f.pipeline = name;
  f.task = task;
  f.logical_time = logical;
  f.number = number;
  f.attempt = inst->attempts[number - 1];
  f.params = run.params;
  for (const TaskSpec& t : spec.tasks)
    if (t.name == task) f.spec = &t;
  const JobId job = world_->job_of(f.attempt.id);
  std::string waiting;
  if (!f.attempt.end && !f.attempt.running && job >= 0) {
    waiting = world_->pending_reason(job);
    if (const Workload* w = world_->scheduler().workloads().find(job);
        waiting.empty() && w != nullptr)
      waiting = w->last_reason;
  }
  AttemptLog out;
  out.text = attempt_story(f, job, world_->scheduler(), trail_, waiting);
  out.id = f.attempt.id;
  out.live = world_->live();
  return out;
}

}  // namespace gantry::web
