#pragma once
// The run timeline as output: the JSON of `gantry pipeline run --format json` (stable; issue
// #4 and workflow/README.md) and a compact text form for people.
//
// JSON, exactly (keys in this order, times RFC 3339 UTC, null when absent):
//   {"runs": [{"pipeline", "logicalTime", "trigger", "state", "start", "end",
//              "tasks": [{"name", "state",
//                         "attempts": [{"start"[, "running"], "end", "state"[, "reason"]}]}]}]}
// "running" appears only on an attempt whose work started after it was asked for (the
// executor queued it, e.g. a gang job waiting for GPUs): when it started. "reason" appears
// only on an attempt the executor gave a reason for ("can never be placed: ..."); the text
// form shows it in brackets after the attempt.
// Runs come in the order given; RunScheduler::timeline() orders them by pipeline, then
// logical time.
//
// Text, one line per run, then one indented line per task that has attempts or did not
// succeed:
//   hourly-etl 2026-01-01T00:00:00Z schedule succeeded 2026-01-01T00:00:00Z..2026-01-01T00:20:00Z
//     load failed: 00:10:00Z-00:12:00Z failed, 00:12:10Z-00:14:00Z failed
// Attempt times there are shortened to the time of day when on the run's logical date.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "workflow/runner/run.hpp"

namespace gantry {

nlohmann::ordered_json run_json(const Run& run);
nlohmann::ordered_json timeline_json(const std::vector<Run>& runs);
// timeline_json(runs).dump(indent) with a final newline (indent < 0: one line), written run by
// run so memory stays proportional to one run.
std::string write_timeline_json(const std::vector<Run>& runs, int indent = 2);
std::string write_timeline_text(const std::vector<Run>& runs);

// The same bytes, streamed: add() writes one run to `out` at once, finish() closes the JSON
// document. A year of runs is printed without ever holding the document (162 MB for
// bench/pipeline_year.sh) or a copy of the runs in memory.
class TimelineWriter {
 public:
  enum class Format { kJson, kText };
  TimelineWriter(std::ostream& out, Format format, int indent = 2);
  void add(const Run& run);
  void finish();

 private:
  std::ostream& out_;
  Format format_;
  int indent_;
  size_t runs_ = 0;
};

}  // namespace gantry
