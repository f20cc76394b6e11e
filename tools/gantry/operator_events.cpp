#include "tools/gantry/operator_events.hpp"

#include <algorithm>
#include <optional>

#include "engine/config/reader.hpp"

namespace gantry::cli {

namespace {

const PipelineSpec* find_pipeline(const PipelineDocuments& docs, const std::string& name) {
  for (const PipelineSpec& p : docs.pipelines)
    if (p.name == name) return &p;
  return nullptr;
}

// The action, or nullopt when it is after `not_after` (reported in `skipped`). Its fields are
// checked all the same: a mistake is a mistake even in an action that will not happen.
std::optional<OperatorAction> read_action(const ConfigNode& node, const PipelineDocuments& docs,
                                          Time not_before, Time not_after,
                                          std::vector<InputError>* skipped) {
  const ConfigMap m =
      node.as_map({"at", "action", "pipeline", "logicalTime", "task", "from", "to", "rerun"});
  OperatorAction a;
  const ConfigNode at = m.required("at");
  a.at = at.as_time();
  if (a.at < not_before)
    at.fail("the action is before the run starts (" + format_rfc3339(not_before) + ")");
  const ConfigNode action = m.required("action");
  const std::string word = action.as_name();
  const std::optional<ActionKind> kind = parse_action_kind(word);
  if (!kind)
    action.fail("unknown action '" + word +
                "'; expected one of: scheduler-down, scheduler-up, trigger, rerun, "
                "mark-success, fail, pause, resume, backfill");
  a.kind = *kind;

  // Which fields each action takes.
  const bool global = a.kind == ActionKind::kSchedulerDown || a.kind == ActionKind::kSchedulerUp;
  const bool needs_run = a.kind == ActionKind::kRerun || a.kind == ActionKind::kMarkSuccess ||
                         a.kind == ActionKind::kFail;
  const bool needs_task = a.kind == ActionKind::kFail;
  const bool window = a.kind == ActionKind::kBackfill;
  const auto refuse = [&](std::string_view key, bool allowed) {
    if (allowed) return;
    if (auto n = m.optional(key)) n->fail(word + " does not take " + std::string(key));
  };
  refuse("pipeline", !global);
  refuse("logicalTime", needs_run);
  refuse("task", needs_task);
  refuse("from", window);
  refuse("to", window);
  refuse("rerun", window);

  const PipelineSpec* pipeline = nullptr;
  if (!global) {
    const ConfigNode p = m.required("pipeline");
    a.pipeline = p.as_name();
    pipeline = find_pipeline(docs, a.pipeline);
    if (pipeline == nullptr) p.fail("no pipeline named '" + a.pipeline + "' in the pipeline files");
  }
  if (needs_run) a.logical_time = m.required("logicalTime").as_time();
  if (needs_task) {
    const ConfigNode t = m.required("task");
    a.task = t.as_name();
    const bool known = std::any_of(pipeline->tasks.begin(), pipeline->tasks.end(),
                                   [&](const TaskSpec& ts) { return ts.name == a.task; });
    if (!known) t.fail("pipeline '" + a.pipeline + "' has no task '" + a.task + "'");
  }
  if (window) {
    a.from = m.required("from").as_time();
    const ConfigNode to = m.required("to");
    a.to = to.as_time();
    if (a.to < a.from) to.fail("the window ends before it starts");
    if (auto r = m.optional("rerun")) {
      const std::string value = r->as_name();
      const auto rerun = parse_backfill_rerun(value);
      if (!rerun) r->fail("unknown rerun '" + value + "'; expected one of: none, failed, all");
      a.rerun = *rerun;
    }
  }
  if (a.at > not_after) {
    if (skipped != nullptr) {
      try {
        at.fail("the action is after the run ends (" + format_rfc3339(not_after) +
                "), so it does not happen");
      } catch (const InputError& e) {
        skipped->push_back(e);
      }
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
  for (const ConfigNode& item : doc.as_sequence()) {
    if (auto a = read_action(item, pipelines, not_before, not_after, skipped))
      actions.push_back(std::move(*a));
  }
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
