#pragma once
// A `kind: InferenceService` file: one inference service (issue #14) outside a Scenario, for
// `gantry tune SERVICE.yaml` and for the live adapter. The spec holds the keys of an entry of a
// Scenario's spec.workload.services (sim/serving/service_loader.hpp) except `name`, which is
// metadata.name:
//
//   apiVersion: gantry.dev/v1
//   kind: InferenceService
//   metadata: {name: chat}
//   spec:
//     predictors: [{name: v1, model: llama-13b, resources: {gpu: 1, gpuType: A10}}]
//     capacity: {A10: {tokensPerSecond: 2400, maxBatch: 16}}
//     autoscaler: {kind: KPA, minReplicas: 0, maxReplicas: 40, target: {concurrency: 70}}
//     load: {trace: {format: azure-llm-2023, file: data/azure-llm/code.csv}}
//
// No cluster is known when the file is read: gpuType and the capacity keys' models are checked
// for their shape only (and spelled as the default catalog spells the models it knows); a trace
// file is resolved against this file's folder.
//
// Throws InputErrors (every problem, file:line:col and field path each), or FileError for a file
// that cannot be read.

#include <string>

#include "engine/cluster/service_spec.hpp"
#include "engine/config/envelope.hpp"

namespace gantry {

// Reads an InferenceService document's spec, recording problems in `errors`.
ServiceSpec read_service_file(const Envelope& envelope, ConfigErrors& errors);

// `file_name` is used in messages and to resolve the trace file.
ServiceSpec load_service_text(const std::string& text, const std::string& file_name);
ServiceSpec load_service_file(const std::string& path);

}  // namespace gantry
