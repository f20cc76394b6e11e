// libFuzzer target for the operator events file of `gantry pipeline run --events`
// (tools/gantry/operator_events.hpp): arbitrary bytes in, against a fixed pair of pipelines.
// The only acceptable failure is an InputError naming the file; what loads must keep its
// promises: every action within [--from, --until], in time order, naming a pipeline of the
// files (and, for fail, one of its tasks); every action after --until reported, as an
// InputError naming the file. Any other exception escapes and libFuzzer reports it as a crash;
// violations trap; sanitizers report memory errors and UB.
//
// Build and run (clang only), as tools/fuzz-smoke.sh does:
//   cmake --build build-fuzz --target events_fuzz
//   build-fuzz/tests/fuzz/events_fuzz -max_total_time=60 -dict=tests/fuzz/events.dict \
//     tests/fuzz/corpus/events

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/errors.hpp"
#include "tools/gantry/operator_events.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"

namespace {

const gantry::PipelineDocuments& pipelines() {
  static const gantry::PipelineDocuments docs =
      gantry::load_pipeline_text(R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: hourly-etl}
spec:
  schedule: {cron: "0 * * * *", start: 2026-03-01T00:00:00Z}
  tasks:
  - {name: extract}
  - {name: load, dependsOn: [extract]}
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: manual}
spec:
  tasks:
  - {name: only}
)",
                                 "pipelines.yaml");
  return docs;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const gantry::PipelineDocuments& docs = pipelines();
  gantry::Time from, until;
  if (!gantry::parse_rfc3339("2026-04-01T00:00:00Z", from)) __builtin_trap();
  if (!gantry::parse_rfc3339("2026-04-02T00:00:00Z", until)) __builtin_trap();
  std::vector<gantry::InputError> skipped;
  std::vector<gantry::OperatorAction> actions;
  try {
    actions =
        gantry::cli::load_operator_events_text(text, "events.yaml", docs, from, until, &skipped);
  } catch (const gantry::InputError& e) {
    if (!starts_with(e.what(), "events.yaml")) __builtin_trap();
    return 0;
  }
  for (const gantry::InputError& e : skipped)
    if (!starts_with(e.what(), "events.yaml")) __builtin_trap();
  for (size_t i = 0; i < actions.size(); ++i) {
    const gantry::OperatorAction& a = actions[i];
    if (a.at < from || a.at > until) __builtin_trap();
    if (i > 0 && a.at < actions[i - 1].at) __builtin_trap();
    const bool global =
        a.kind == gantry::ActionKind::kSchedulerDown || a.kind == gantry::ActionKind::kSchedulerUp;
    if (global) continue;
    const auto p =
        std::find_if(docs.pipelines.begin(), docs.pipelines.end(),
                     [&](const gantry::PipelineSpec& s) { return s.name == a.pipeline; });
    if (p == docs.pipelines.end()) __builtin_trap();
    if (a.kind == gantry::ActionKind::kFail &&
        std::none_of(p->tasks.begin(), p->tasks.end(),
                     [&](const gantry::TaskSpec& t) { return t.name == a.task; }))
      __builtin_trap();
  }
  return 0;
}
