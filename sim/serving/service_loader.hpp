#pragma once
// Reading an inference service (issue #14): an entry of a Scenario's spec.workload.services, or
// the spec of a `kind: InferenceService` file (sim/serving/service_file.hpp), into a ServiceSpec
// (engine/cluster/service_spec.hpp). Keys follow KServe, Knative and Kubernetes where they have
// one; their spellings are accepted too (noted below).
//
//   - name: chat                       # required (a file: metadata.name instead); unique
//     start: 10m                       # offset from the scenario's start; default 0
//     predictors:                      # required, 1..100 model versions; names unique
//     - name: v1                       # required
//       model: llama-13b               # required: the model cache key (may be shared)
//       traffic: 90                    # percent, 0..100; normalised over the predictors.
//                                      # Default 100 with one predictor; required with several
//                                      # unless canaryTrafficPercent is set (it overrides them)
//       resources: {gpu: 1, gpuType: A10, cpu: "8", memory: 32Gi}
//                                      # gpu required: whole GPUs or a share ("0.5" or 0.5);
//                                      # cpu, memory optional (default 0: not counted);
//                                      # gpuType optional: empty = any model `capacity` names.
//                                      # gpuType may also sit beside resources (one of the two)
//       image: vllm/vllm-openai:v0.6   # the image cache key; default "<model>-server"
//     canaryTrafficPercent: 10         # KServe's: 0..100 to the last predictor, the rest to the
//                                      # one before it; needs >= 2 predictors
//     capacity:                        # required: per GPU model and GPUs of a replica
//       A10: {tokensPerSecond: 2400, maxBatch: 16, prefillTokensPerSecond: 24000,
//       pricePerHour: 1.2}
//                                      # pricePerHour: a replica-hour on this key, >= 0, for
//                                      # `gantry tune`; default 0: priced by the GPUs it takes
//       "A10@0.5": {tokensPerSecond: 1100, maxBatch: 8}   # prefill default 10 × decode
//     coldStart:                       # optional; every part defaults to 0 (no cost)
//       imagePull: 40s
//       modelDownload: {size: 26GB, cache: true, bandwidth: 1GB/s}  # size required; cache
//                                      # default false; bandwidth default 1 GB/s ("10Gbps" too)
//       load: 25s
//       prefetch: 2                    # nodes to warm the model cache on; needs cache: true
//     autoscaler:                      # required
//       kind: KPA                      # KPA | HPA | none; Knative's class names
//                                      # kpa.autoscaling.knative.dev, hpa.autoscaling.knative.dev
//       minReplicas: 0                 # KPA/HPA; default 1 (KServe); 0 = scale to zero (KPA only)
//       maxReplicas: 40                # KPA/HPA; required, >= 1 (Knative's 0 = unbounded is not
//                                      # simulated), >= minReplicas
//       replicas: 2                    # kind none only, and required there: a fixed count
//       target: {concurrency: 70, utilization: 70}   # KPA: default {concurrency: 100}; the
//                                      # utilization (Knative's target-utilization-percentage) in
//                                      # (0, 100], 70 or "70%", default 100
//       # target: {metric: gpu, utilization: 60}     # HPA, required: gpu | cpu with
//       # target: {metric: qps, averageValue: 50}    # utilization (0, 100], or qps with
//                                      # averageValue > 0 per replica ("500m" = 0.5 too)
//       # KPA only (Knative's config-autoscaler keys; defaults in service_spec.hpp):
//       stableWindow: 60s              # 6s..1h, whole seconds
//       panicWindow: 6s                # (0, stableWindow]; or panicWindowPercentage: 10 (1..100
//                                      # of stableWindow); default 10 % of stableWindow
//       panicThreshold: 2              # a ratio 1.1..10, or "200%"; or Knative's
//                                      # panicThresholdPercentage: 200 (110..1000)
//       maxScaleDownRate: 2            # > 1
//       maxScaleUpRate: 1000           # > 1
//       scaleToZeroGracePeriod: 30s    # > 0
//       scaleDownDelay: 5m             # 0..1h (Knative's scale-down-delay; default 0)
//       # HPA only (Kubernetes' defaults in service_spec.hpp):
//       tolerance: 0.1                 # [0, 1)
//       scaleDownStabilization: 5m     # 0..1h (behavior.scaleDown.stabilizationWindowSeconds)
//     slo: {p99Latency: 2s}            # optional; p99Latency required there and > 0
//     load:                            # required: exactly one of trace, curve, poisson
//       trace: {format: azure-llm-2023, file: data/azure-llm/code.csv, loop: true, speedup: 1}
//                                      # file resolved against this file's folder, must exist
//                                      # and be readable; loop default true, speedup > 0,
//                                      # default 1; token counts come from the trace
//       curve: {kind: diurnal, peakQps: 300, troughQps: 20, period: 24h, peakAt: 14h}
//                                      # 0 <= troughQps <= peakQps, peakQps > 0; period > 0,
//                                      # default 24h; peakAt in [0, period), default 14h of a
//                                      # 24h period (the same phase of another period)
//       poisson: {qps: 50}             # qps > 0
//       prefillTokens: 512             # curve and poisson only: tokens of every request
//       decodeTokens: 128              # (defaults 512 and 128; prefill >= 0, decode >= 1)
//
// Capacity keys (capacity_key(), engine/cluster/service_spec.hpp): "<GPU model>" for a replica
// on one whole GPU, "<GPU model>x<k>" on k whole GPUs (2..64), "<GPU model>@<share>" on a share
// of one GPU below 1 with at most three decimals. Keys are stored in the canonical form
// ServiceSpec::capacity_for looks up: the catalog's spelling of the model (the cluster's
// catalog, else the default one when it knows the model), the shortest decimal share
// ("A10@0.50" is stored as "A10@0.5") and a plain count ("A10x02" as "A10x2"). Two keys that are
// one after that are an error, and so are "A10x1" (write "A10") and "A10@1" (whole GPUs).
//
// Semantic checks, each at the offending field: predictor names unique; traffic sums above 0
// (unless canary); every predictor has its capacity entry, as ServiceSpec::capacity_for finds it
// (naming the key it needs and the keys there are; a predictor without gpuType needs some key of
// its share or GPU count); gpuType on some node
// class of the cluster and capacity models in its catalog (when the context has a cluster);
// minReplicas <= maxReplicas; HPA with minReplicas 0 refused (Kubernetes disables an HPA whose
// target has 0 replicas); each target and advanced key only with its kind; canary only with
// >= 2 predictors; prefetch only with a cached model download; token counts only with
// generated loads; start within the simulated range.
//
// Errors are recorded in `errors` and reading goes on (engine/config/config_errors.hpp), each
// naming the file, line, column and field path. A check that needs a value which could not be
// read is skipped, so one mistake is reported once. A spec read with errors must not be run.

#include <optional>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// Typo guards, far above real services (KServe deployments run tens to hundreds of replicas;
// the fastest serving stacks do some 10^4 tokens per second per GPU).
inline constexpr int64_t kMaxServices = 1000;   // services of one workload
inline constexpr int64_t kMaxPredictors = 100;  // predictors of one service
inline constexpr int64_t kMaxServiceReplicas = 10'000;
inline constexpr double kMaxServiceQps = 1e7;
inline constexpr double kMaxTokensPerSecond = 1e9;
inline constexpr int64_t kMaxBatch = 100'000;
inline constexpr int64_t kMaxRequestTokens = 10'000'000;  // per request; contexts reach 10^6
inline constexpr double kMaxTargetConcurrency = 1e6;
inline constexpr int64_t kMaxPrefetchNodes = 100'000;

struct ServiceContext {
  // The cluster, when it was read without errors: gpuType is checked to be on some node class
  // and capacity models to be in its catalog. nullptr (an InferenceService file, or a cluster
  // with errors): names are only checked for their shape.
  const Topology* topology = nullptr;
  // The scenario's start: start + a service's start offset must not pass kLatestTime.
  Time start;
};

// Reads one service (`node`: an entry of spec.workload.services).
ServiceSpec read_service(const ConfigNode& node, const ServiceContext& ctx, ConfigErrors& errors);

// Reads the spec of a service whose name is given elsewhere (metadata.name of a kind:
// InferenceService file): the keys above except `name`.
ServiceSpec read_service_spec(const ConfigNode& node, std::string name, const ServiceContext& ctx,
                              ConfigErrors& errors);

// Reads spec.workload.services: a list of at most kMaxServices services, names unique ("duplicate
// service name 'chat' (first used at line 14)", at the later one). Every entry is returned,
// readable or not.
std::vector<ServiceSpec> read_services(const ConfigNode& list, const ServiceContext& ctx,
                                       ConfigErrors& errors);

}  // namespace gantry
