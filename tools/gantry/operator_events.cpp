#include "tools/gantry/operator_events.hpp"

#include <algorithm>
#include <optional>

#include "engine/config/config_errors.hpp"
#include "engine/config/config_fields.hpp"
#include "engine/config/reader.hpp"

namespace gantry::cli {

namespace {

const PipelineSpec* find_pipeline(const PipelineDocuments& docs, const std::string& name) {
  for (const PipelineSpec& p : docs.pipelines)
    if (p.name == name) return &p;
  return nullptr;
}

// The action, or nullopt when it is after `not_after` (reported in `skipped`) or wrong
// (reported in `errors`). Its fields are checked all the same: a mistake is a mistake even in
// an action that will not happen.
std::optional<OperatorAction> read_action(const ConfigNode& node, const PipelineDocuments& docs,
                                          Time not_before, Time not_after,
                                          std::vector<InputError>* skipped, ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields m(node,
                       {"at", "action", "pipeline", "logicalTime", "task", "from", "to", "rerun",
                        "downstream", "upstream", "failedOnly"},
                       errors);
  if (!m.valid()) return std::nullopt;
  OperatorAction a;
  m.read_required("at", [&](const ConfigNode& n) {
    a.at = n.as_time();
    if (a.at < not_before)
      n.fail("the action is before the run starts (" + format_rfc3339(not_before) + ")");
  });
  std::string word;
  std::optional<ActionKind> kind;
  m.read_required("action", [&](const ConfigNode& n) {
    word = n.as_name();
    kind = parse_action_kind(word);
    if (!kind)
      n.fail("unknown action '" + word +
             "'; expected one of: scheduler-down, scheduler-up, trigger, rerun, "
             "mark-success, fail, pause, resume, backfill, kill-run, kill-task, clear-task, "
             "mark-task-success, mark-task-failed");
  });
  if (!kind) return std::nullopt;  // which fields the action takes is not known
  a.kind = *kind;

  // Which fields each action takes.
  const bool global = a.kind == ActionKind::kSchedulerDown || a.kind == ActionKind::kSchedulerUp;
  const bool needs_run = a.kind == ActionKind::kRerun || a.kind == ActionKind::kMarkSuccess ||
                         a.kind == ActionKind::kFail || a.kind == ActionKind::kKillRun ||
                         a.kind == ActionKind::kKillTask || a.kind == ActionKind::kClearTask ||
                         a.kind == ActionKind::kMarkTaskSuccess ||
                         a.kind == ActionKind::kMarkTaskFailed;
  const bool needs_task = a.kind == ActionKind::kFail || a.kind == ActionKind::kKillTask ||
                          a.kind == ActionKind::kClearTask ||
                          a.kind == ActionKind::kMarkTaskSuccess ||
                          a.kind == ActionKind::kMarkTaskFailed;
  const bool window = a.kind == ActionKind::kBackfill;
  const auto refuse = [&](std::string_view key, bool allowed) {
    if (allowed) return;
    m.read(key, [&](const ConfigNode& n) { n.fail(word + " does not take " + std::string(key)); });
  };
  refuse("pipeline", !global);
  refuse("logicalTime", needs_run);
  refuse("task", needs_task);
  refuse("from", window);
  refuse("to", window);
  refuse("rerun", window);
  const bool clear = a.kind == ActionKind::kClearTask;
  refuse("downstream", clear);
  refuse("upstream", clear);
  refuse("failedOnly", clear);
  if (clear) {
    m.read("downstream", [&](const ConfigNode& n) { a.downstream = n.as_bool(); });
    m.read("upstream", [&](const ConfigNode& n) { a.upstream = n.as_bool(); });
    m.read("failedOnly", [&](const ConfigNode& n) { a.failed_only = n.as_bool(); });
  }

  const PipelineSpec* pipeline = nullptr;
  if (!global)
    m.read_required("pipeline", [&](const ConfigNode& n) {
      a.pipeline = n.as_name();
      pipeline = find_pipeline(docs, a.pipeline);
      if (pipeline == nullptr)
        n.fail("no pipeline named '" + a.pipeline + "' in the pipeline files");
    });
  if (needs_run)
    m.read_required("logicalTime", [&](const ConfigNode& n) { a.logical_time = n.as_time(); });
  if (needs_task)
    m.read_required("task", [&](const ConfigNode& n) {
      a.task = n.as_name();
      if (pipeline == nullptr) return;  // the pipeline's own error is reported
      const bool known = std::any_of(pipeline->tasks.begin(), pipeline->tasks.end(),
                                     [&](const TaskSpec& ts) { return ts.name == a.task; });
      if (!known) n.fail("pipeline '" + a.pipeline + "' has no task '" + a.task + "'");
    });
  if (window) {
    const bool from_ok =
        m.read_required("from", [&](const ConfigNode& n) { a.from = n.as_time(); });
    m.read_required("to", [&](const ConfigNode& n) {
      a.to = n.as_time();
      if (from_ok && a.to < a.from) n.fail("the window ends before it starts");
    });
    m.read("rerun", [&](const ConfigNode& n) {
      const std::string value = n.as_name();
      const auto rerun = parse_backfill_rerun(value);
      if (!rerun) n.fail("unknown rerun '" + value + "'; expected one of: none, failed, all");
      a.rerun = *rerun;
    });
  }
  if (errors.size() != before) return std::nullopt;
  if (a.at > not_after) {
    if (skipped != nullptr) {
      const ConfigNode at = *m.optional("at");
      skipped->emplace_back(at.location(), at.path(),
                            "the action is after the run ends (" + format_rfc3339(not_after) +
                                "), so it does not happen");
    }
    return std::nullopt;
  }
  return a;
}

}  // namespace

std::vector<OperatorAction> load_operator_events_text(const std::string& text,
                                                      const std::string& file_name,
                                                      const PipelineDocuments& pipelines,
                                                      Time not_before, Time not_after,
                                                      std::vector<InputError>* skipped) {
  const ConfigNode doc = parse_yaml_document(text, file_name);
  std::vector<OperatorAction> actions;
  ConfigErrors errors;
  errors.attempt([&] {
    for (const ConfigNode& item : doc.as_sequence())
      if (auto a = read_action(item, pipelines, not_before, not_after, skipped, errors))
        actions.push_back(std::move(*a));
  });
  errors.throw_if_any({file_name});
  // Actions at one instant apply in file order; stable_sort keeps it.
  std::stable_sort(actions.begin(), actions.end(),
                   [](const OperatorAction& x, const OperatorAction& y) { return x.at < y.at; });
  return actions;
}

std::vector<OperatorAction> load_operator_events(const std::string& path,
                                                 const PipelineDocuments& pipelines,
                                                 Time not_before, Time not_after,
                                                 std::vector<InputError>* skipped) {
  return load_operator_events_text(read_text_file(path), path, pipelines, not_before, not_after,
                                   skipped);
}

}  // namespace gantry::cli
