#pragma once
// Loading pipeline files (issue #4) into PipelineDocuments (workflow/pipeline/pipeline_spec.hpp).
//
// A file holds one or more YAML documents separated by `---`, each of one of two kinds:
//
//   apiVersion: gantry.dev/v1
//   kind: Pipeline
//   metadata: {name: hourly-etl, namespace: team-a, description: "...", labels: {k: v},
//              owner: data-team, tags: [etl, nightly]}   # owner, tags: for search (#26 §6)
//   spec:
//     schedule:            # absent: manual runs only
//       cron: "0 * * * *"              # required; Vixie syntax (workflow/cron/cron.hpp)
//       timezone: America/New_York     # IANA name; default UTC; "" is an error
//       start: 2026-01-01T00:00:00Z    # required; RFC 3339
//       end: 2026-12-31T00:00:00Z      # optional; not before start
//       semantics: trigger|interval    # default trigger
//       catchup: true                  # default true
//       startingDeadline: 1h           # > 0
//       maxMissedRuns: 100             # 0..1000000; default 100
//     concurrency: {maxActiveRuns: 1 (>= 1), policy: Allow|Forbid|Replace, keepLatest: 0 (>= 0)}
//     dependsOnPast: false
//     parallelism: 3                   # >= 0; 0 (the default) = unlimited
//     timeout: 6h                      # > 0
//     env: {NAME: value}               # names [A-Za-z_][A-Za-z0-9_]*, values strings
//     params:                          # a manual run's parameters (pipeline_params.hpp)
//       epochs: {type: int, default: 3, description: "..."}   # type string|int|float|bool;
//                                      # default of that type; needed when scheduled; tasks
//                                      # see env GANTRY_PARAM_EPOCHS
//     tasks:                           # required, at least one
//     - name: extract                  # required; see kTaskNameRule below
//       template: container|tfjob|pytorchjob|mpijob|xgboostjob|rayjob|sparkjob
//       image: registry.local/etl:1
//       command: [python, extract.py]
//       resources: {cpu: "2", memory: 4Gi, gpu: "0.5", gpuType: V100}
//       replicas: {master: 1, worker: 4}   # required for every template but container, which
//                                          # must not have it; counts 1..10000
//       dependsOn: [a, b]
//       triggerRule: all_success|all_failed|all_done|one_success|one_failed|none_failed|always
//       dependsOnPast: false
//       pool: etl                      # a Pool declared in any of the files loaded together
//       poolSlots: 1                   # >= 1, at most the pool's slots; needs pool
//       priority: 0
//       timeout: 30m                   # per attempt, > 0
//       retry: {limit: 3 (>= 0), policy: OnFailure|OnError|Always, delay: 10s, factor: 2 (>= 1),
//               cap: 5m, maxDuration: 2h (> 0)}
//       skip: false
//       autosize: false
//       simulate:
//         duration: 20m                # or {distribution: lognormal, median: 20m, p90: 45m}
//                                      # (median > 0, p90 >= median)
//         outcomes: [failed, succeeded]  # each succeeded|failed|error; or
//         failureProbability: 0.1        # 0..1; not both
//         used: {cpu: "1", memory: 2Gi}  # actually used (autosize); default: the requests
//   ---
//   apiVersion: gantry.dev/v1
//   kind: Pool
//   metadata: {name: etl}              # pools are global: no namespace
//   spec: {slots: 4, maxWait: 10m}     # slots >= 1 required; maxWait >= 0 optional
//
// Names: metadata.name of both kinds matches ^[a-z][a-z0-9-]*[a-z0-9]$ and has at most 54
// characters; a namespace is a DNS label (^[a-z0-9]([a-z0-9-]*[a-z0-9])?$, at most 63).
// `gpu` is whole GPUs ("1", "2") or a share of one GPU below 1 ("0.5" = 500 milli, see
// engine/cluster/resources.hpp); "1.5" is an error.
//
// ERRORS
// Loading collects every problem it can find rather than stopping at the first, each an
// InputError "file:line:col: field.path: message" naming what was expected. Listed in file
// order (files in the order given), then line and column; at most kMaxReportedErrors, then a
// note that checking stopped (engine/config/config_errors.hpp). Checked:
//  - YAML syntax (one error per file: the rest of that file cannot be read), apiVersion, kind;
//  - unknown fields (every one, listing the allowed fields), duplicate keys, missing required
//    fields, wrong types, bad units, values out of range, bad enum values (listing the choices);
//    durations are 0s..36500d, times 0001-01-01..9999-12-31 with offsets within +-23:59, CPU
//    and memory as engine/config/resource_fields.hpp (README, "Limits and ranges");
//  - name rules; duplicate pipeline names within a namespace and duplicate pool names, across
//    all files; duplicate task names within a pipeline;
//  - dependsOn: unknown task names (naming the name and listing the pipeline's tasks), a task
//    depending on itself, a name listed twice, cycles ("cycle: a -> b -> c -> a", reported at
//    the dependsOn entry that closes it);
//  - schedule: cron errors naming the field, pointing at the offending character inside the
//    expression; unknown time zones; end before start; an expression that never fires;
//  - replicas required/forbidden by template; gpuType without a GPU request; poolSlots without
//    a pool or more than the pool's slots; pools referenced but declared in none of the files
//    (not checked when a file could not be parsed: its pools are unknown); outcomes together
//    with failureProbability; retry factor < 1.
// A document whose kind cannot be read is skipped after its error; other documents still load.
//
// Thread safety: the functions are reentrant (no shared state).

#include <string>
#include <vector>

#include "engine/config/config_errors.hpp"
#include "engine/core/errors.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

// Every problem found in a set of pipeline files (engine/config/config_errors.hpp): what() is
// every error's "file:line:col: field: message", one per line, where() and detail() the first's.
using PipelineErrors = InputErrors;

// Reads the files at `paths` (all of them, then checks references across them: pools, names).
// Throws FileError if one cannot be read, PipelineErrors if anything is wrong. PipelineSpec::file
// is the path it came from.
PipelineDocuments load_pipeline_files(const std::vector<std::string>& paths);

// The same for one text; `file_name` is used in messages and as PipelineSpec::file.
PipelineDocuments load_pipeline_text(const std::string& text, const std::string& file_name);

// The non-throwing form: one text per source, loaded together. Fills `out` with what could be
// read (pipelines and pools with errors are left out) and returns every error, empty when the
// sources are valid.
struct PipelineSource {
  std::string file_name;
  std::string text;
};
std::vector<InputError> validate_pipeline_sources(const std::vector<PipelineSource>& sources,
                                                  PipelineDocuments& out);

}  // namespace gantry
