#include "workflow/runner/run.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/operator_action.hpp"
#include "workflow/runner/run_store.hpp"

namespace gantry {

bool is_finished(RunState s) { return s != RunState::kQueued && s != RunState::kRunning; }
bool is_finished(TaskState s) { return s != TaskState::kPending && s != TaskState::kRunning; }

std::string_view to_string(RunTrigger v) {
  switch (v) {
    case RunTrigger::kSchedule:
      return "schedule";
    case RunTrigger::kCatchup:
      return "catchup";
    case RunTrigger::kBackfill:
      return "backfill";
    case RunTrigger::kManual:
      return "manual";
  }
  return "?";
}

std::string_view to_string(RunState v) {
  switch (v) {
    case RunState::kQueued:
      return "queued";
    case RunState::kRunning:
      return "running";
    case RunState::kSucceeded:
      return "succeeded";
    case RunState::kFailed:
      return "failed";
    case RunState::kSkipped:
      return "skipped";
    case RunState::kExpired:
      return "expired";
    case RunState::kKilled:
      return "killed";
  }
  return "?";
}

std::string_view to_string(TaskState v) {
  switch (v) {
    case TaskState::kPending:
      return "pending";
    case TaskState::kRunning:
      return "running";
    case TaskState::kSucceeded:
      return "succeeded";
    case TaskState::kFailed:
      return "failed";
    case TaskState::kUpstreamFailed:
      return "upstream_failed";
    case TaskState::kSkipped:
      return "skipped";
    case TaskState::kKilled:
      return "killed";
  }
  return "?";
}

std::string_view to_string(AttemptState v) {
  switch (v) {
    case AttemptState::kRunning:
      return "running";
    case AttemptState::kSucceeded:
      return "succeeded";
    case AttemptState::kFailed:
      return "failed";
    case AttemptState::kError:
      return "error";
    case AttemptState::kTimeout:
      return "timeout";
    case AttemptState::kKilled:
      return "killed";
    case AttemptState::kLost:
      return "lost";
  }
  return "?";
}

std::string_view to_string(SchedulerEventKind k) {
  switch (k) {
    case SchedulerEventKind::kTooManyMissed:
      return "too-many-missed";
    case SchedulerEventKind::kMissedDeadline:
      return "missed-deadline";
    case SchedulerEventKind::kForbidSkip:
      return "forbid-skip";
    case SchedulerEventKind::kReplace:
      return "replace";
    case SchedulerEventKind::kExpire:
      return "expire";
    case SchedulerEventKind::kAutosize:
      return "autosize";
    case SchedulerEventKind::kSchedulerDown:
      return "scheduler-down";
    case SchedulerEventKind::kSchedulerUp:
      return "scheduler-up";
    case SchedulerEventKind::kPause:
      return "pause";
    case SchedulerEventKind::kResume:
      return "resume";
    case SchedulerEventKind::kTrigger:
      return "trigger";
    case SchedulerEventKind::kRerun:
      return "rerun";
    case SchedulerEventKind::kMarkSuccess:
      return "mark-success";
    case SchedulerEventKind::kFail:
      return "fail";
    case SchedulerEventKind::kBackfill:
      return "backfill";
    case SchedulerEventKind::kLostAttempt:
      return "lost-attempt";
    case SchedulerEventKind::kAdoptedAttempt:
      return "adopted-attempt";
    case SchedulerEventKind::kKillUnknown:
      return "kill-unknown";
    case SchedulerEventKind::kRejected:
      return "rejected";
    case SchedulerEventKind::kAttemptError:
      return "attempt-error";
    case SchedulerEventKind::kAttemptEnded:
      return "attempt-ended";
    case SchedulerEventKind::kPipelineNotLoaded:
      return "pipeline-not-loaded";
    case SchedulerEventKind::kKill:
      return "kill";
    case SchedulerEventKind::kClearTask:
      return "clear-task";
    case SchedulerEventKind::kMarkTask:
      return "mark-task";
  }
  return "?";
}

namespace {
constexpr std::array<std::pair<std::string_view, ActionKind>, 14> kActionNames{{
    {"scheduler-down", ActionKind::kSchedulerDown},
    {"scheduler-up", ActionKind::kSchedulerUp},
    {"trigger", ActionKind::kTrigger},
    {"rerun", ActionKind::kRerun},
    {"mark-success", ActionKind::kMarkSuccess},
    {"fail", ActionKind::kFail},
    {"pause", ActionKind::kPause},
    {"resume", ActionKind::kResume},
    {"backfill", ActionKind::kBackfill},
    {"kill-run", ActionKind::kKillRun},
    {"kill-task", ActionKind::kKillTask},
    {"clear-task", ActionKind::kClearTask},
    {"mark-task-success", ActionKind::kMarkTaskSuccess},
    {"mark-task-failed", ActionKind::kMarkTaskFailed},
}};
}  // namespace

std::string_view to_string(ActionKind k) {
  for (const auto& [name, kind] : kActionNames) {
    if (kind == k) return name;
  }
  return "?";
}

std::optional<ActionKind> parse_action_kind(std::string_view text) {
  for (const auto& [name, kind] : kActionNames) {
    if (name == text) return kind;
  }
  return std::nullopt;
}

std::optional<BackfillRerun> parse_backfill_rerun(std::string_view text) {
  if (text == "none") return BackfillRerun::kNone;
  if (text == "failed") return BackfillRerun::kFailed;
  if (text == "all") return BackfillRerun::kAll;
  return std::nullopt;
}

std::map<std::string, std::string> param_env(const std::map<std::string, std::string>& params) {
  std::map<std::string, std::string> env;
  for (const auto& [name, literal] : params) {
    std::string key = "GANTRY_PARAM_" + name;
    for (char& c : key)
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    const nlohmann::json value = nlohmann::json::parse(literal, nullptr, false);
    env[key] = value.is_string() ? value.get<std::string>() : literal;
  }
  return env;
}

std::vector<TaskInstance> tasks_in_pipeline_order(const PipelineSpec& spec,
                                                  std::vector<TaskInstance> stored) {
  std::vector<TaskInstance> out;
  out.reserve(spec.tasks.size());
  for (const TaskSpec& t : spec.tasks) {
    const auto same = std::find_if(stored.begin(), stored.end(),
                                   [&](const TaskInstance& i) { return i.name == t.name; });
    out.push_back(same != stored.end()
                      ? std::move(*same)
                      : TaskInstance{t.name, TaskState::kPending, {}, t.resources});
  }
  return out;
}

}  // namespace gantry
