#pragma once
// The `--events EVENTS.yaml` file of `gantry pipeline run`: operator actions and injected
// faults at given times, a YAML list of
//
//   - {at: 2026-01-02T03:00:00Z, action: scheduler-down}
//   - {at: 2026-01-02T07:00:00Z, action: scheduler-up}
//   - {at: ..., action: trigger, pipeline: hourly-etl}
//   - {at: ..., action: rerun | mark-success, pipeline: NAME, logicalTime: T}
//   - {at: ..., action: fail, pipeline: NAME, logicalTime: T, task: NAME}
//   - {at: ..., action: pause | resume, pipeline: NAME}
//   - {at: ..., action: backfill, pipeline: NAME, from: T, to: T, rerun: none | failed | all}
//
// Every problem is an InputError naming file, line, column and field: unknown actions, fields
// an action does not take or lacks, pipelines and tasks that the pipeline files do not define,
// times before the run starts.

#include <string>
#include <vector>

#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/operator_action.hpp"

namespace gantry::cli {

std::vector<OperatorAction> load_operator_events(const std::string& path,
                                                 const PipelineDocuments& pipelines,
                                                 Time not_before);

std::vector<OperatorAction> load_operator_events_text(const std::string& text,
                                                      const std::string& file_name,
                                                      const PipelineDocuments& pipelines,
                                                      Time not_before);

}  // namespace gantry::cli
