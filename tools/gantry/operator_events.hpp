#pragma once
// The `--events EVENTS.yaml` file of `gantry pipeline run`: operator actions and injected
// faults at given times, a YAML list of
//
//   - {at: 2026-01-02T03:00:00Z, action: scheduler-down}
//   - {at: 2026-01-02T07:00:00Z, action: scheduler-up}
//   - {at: ..., action: trigger, pipeline: hourly-etl}
//   - {at: ..., action: rerun | mark-success, pipeline: NAME, logicalTime: T}
//   - {at: ..., action: fail | kill-task, pipeline: NAME, logicalTime: T, task: NAME}
//   - {at: ..., action: kill-run, pipeline: NAME, logicalTime: T}
//   - {at: ..., action: clear-task, pipeline: NAME, logicalTime: T, task: NAME,
//      downstream: false, upstream: false, failedOnly: false}
//   - {at: ..., action: mark-task-success | mark-task-failed, pipeline: NAME, logicalTime: T,
//      task: NAME}
//   - {at: ..., action: pause | resume, pipeline: NAME}
//   - {at: ..., action: backfill, pipeline: NAME, from: T, to: T, rerun: none | failed | all}
//
// Every problem is an InputError naming file, line, column and field: unknown actions, fields
// an action does not take or lacks, pipelines and tasks that the pipeline files do not define,
// times before the run starts (`not_before`, --from). All of them are collected and thrown
// together as InputErrors (engine/config/config_errors.hpp), in file order.
//
// Actions after the run ends (`not_after`, --until) are not errors: stopping a replay early to
// look at the state before an action is a legitimate use of one events file with several
// --until values. But they must not vanish silently either: each is left out of the result
// and reported in `skipped` (when given) as an InputError naming file, line, column and field,
// which `gantry pipeline run` prints as a warning on stderr.

#include <string>
#include <vector>

#include "engine/core/errors.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/operator_action.hpp"

namespace gantry::cli {

std::vector<OperatorAction> load_operator_events(const std::string& path,
                                                 const PipelineDocuments& pipelines,
                                                 Time not_before, Time not_after,
                                                 std::vector<InputError>* skipped = nullptr);

std::vector<OperatorAction> load_operator_events_text(const std::string& text,
                                                      const std::string& file_name,
                                                      const PipelineDocuments& pipelines,
                                                      Time not_before, Time not_after,
                                                      std::vector<InputError>* skipped = nullptr);

}  // namespace gantry::cli
