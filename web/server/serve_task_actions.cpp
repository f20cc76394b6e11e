// ServeEngine::task_action(): clear, mark success and mark failed of one task of a run, or
// what they would change (?dryRun=true), for a confirmation dialog that lists it (web/API.md,
// "Task actions").

#include <optional>
#include <variant>

#include "web/server/serve_engine.hpp"
#include "web/server/serve_engine_guarded.hpp"
#include "workflow/runner/timeline.hpp"

namespace gantry::web {

namespace {

std::string action_word(ActionKind k) {
  switch (k) {
    case ActionKind::kClearTask:
      return "clear";
    case ActionKind::kMarkTaskSuccess:
      return "mark-success";
    default:
      return "mark-failed";
  }
}

// {"task", "from", "to", "stopsAttempt"}: stopsAttempt is the attempt's number as the UI shows
// it (1 for the first), null when no running attempt is stopped.
nlohmann::json change_json(const std::string& task, TaskState from, TaskState to,
                           std::optional<size_t> stops) {
  return {{"task", task},
          {"from", to_string(from)},
          {"to", to_string(to)},
          {"stopsAttempt", stops ? nlohmann::json(*stops + 1) : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json ServeEngine::task_action(const std::string& name, Time logical,
                                        const OperatorAction& options, const std::string& by,
                                        bool dry_run) {
  return guarded([&]() -> nlohmann::json {
    require_run(name, logical, options.task);
    OperatorAction a = options;
    a.at = loop_->now();
    a.pipeline = name;
    a.logical_time = logical;
    a.by = by;
    auto planned = scheduler_->preview(a);
    if (const auto* why = std::get_if<std::string>(&planned)) throw ApiError(409, "conflict", *why);
    const TaskActionPlan& plan = std::get<TaskActionPlan>(planned);
    nlohmann::json out = {{"action", action_word(a.kind)}, {"dryRun", dry_run}};
    nlohmann::json changes = nlohmann::json::array();
    if (dry_run) {
      for (const TaskChange& c : plan.tasks)
        changes.push_back(change_json(c.task, c.from, c.to, c.stops_attempt));
      out["runState"] = {{"from", to_string(plan.run_from)}, {"to", to_string(plan.run_to)}};
      out["changes"] = std::move(changes);
      out["run"] = run_json(*scheduler_->fetch_run(name, logical));
      return out;
    }
    // What the action did: every task whose state moved, the planned ones and those their
    // trigger rules moved at once (a downstream task upstream_failed after mark-failed).
    const Run before = *scheduler_->fetch_run(name, logical);
    if (const auto refused = scheduler_->apply(a)) throw ApiError(409, "conflict", *refused);
    const Run& after = *scheduler_->fetch_run(name, logical);
    for (size_t i = 0; i < before.tasks.size() && i < after.tasks.size(); ++i) {
      std::optional<size_t> stops;
      bool planned_task = false;
      for (const TaskChange& c : plan.tasks) {
        if (c.task != before.tasks[i].name) continue;
        stops = c.stops_attempt;
        planned_task = true;
      }
      // A cleared task that started again at once moved pending -> running: still a change.
      if (planned_task || before.tasks[i].state != after.tasks[i].state)
        changes.push_back(
            change_json(before.tasks[i].name, before.tasks[i].state, after.tasks[i].state, stops));
    }
    out["runState"] = {{"from", to_string(before.state)}, {"to", to_string(after.state)}};
    out["changes"] = std::move(changes);
    out["run"] = run_json(after);
    return out;
  });
}

}  // namespace gantry::web
