#pragma once
// An inference service as a scenario describes it (spec.workload.services[], or a file of
// kind InferenceService): its predictors (model versions) and their traffic share, the capacity
// of a replica on each GPU model or share, the cold start, the autoscaler, the SLO and the load.
// Plain data: sim/serving/service_loader fills it, the autoscalers (engine/policy/serving) and
// the request-level simulator (sim/serving) read it, the live adapter turns it into Deployments.
//
// Defaults and their sources are stated field by field.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/resources.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// One model version of a service (KServe's predictor of a revision).
struct PredictorSpec {
  std::string name;      // "v1"
  std::string model;     // "llama-13b": the model cache key (two predictors may share it)
  double traffic = 0;    // as written, in percent; normalised by traffic_split.hpp
  Resources resources;   // per replica: whole GPUs or a share (gpu_milli)
  std::string gpu_type;  // "A10"; empty: any model the capacity table names
  std::string image;     // container image (the image cache key); empty: "<model>-server"
};

// What one replica does on a GPU model (or share of one): the capacity table's key is the GPU
// model name, with "@<share>" for a share ("A10@0.5").
//
// Service model (sim/serving/replica_queue.hpp): a replica runs up to max_batch requests at once
// (continuous batching) and each running request proceeds at tokens_per_second / max_batch
// decode tokens per second, independent of how many others run: LLM decode is memory-bound, so a
// step costs about the same for 1 or max_batch sequences and the replica's throughput at full
// batch is tokens_per_second. Prefill tokens go at prefill_tokens_per_second / max_batch.
struct ReplicaCapacity {
  std::string key;               // "A10", "A10@0.5"
  double tokens_per_second = 0;  // decode tokens per second at full batch
  int max_batch = 1;             // requests running at once
  // Prompt tokens per second at full batch. Default: 10 × tokens_per_second, an assumption:
  // prefill is compute-bound and processes a prompt's tokens in parallel, decode one token per
  // step (Patel et al., "Splitwise", ISCA'24, §3 — prefill is an order of magnitude faster per
  // token than decode on A100/H100).
  double prefill_tokens_per_second = 0;  // 0: the default above
  // What a replica on this key costs per hour (any currency), for `gantry tune`'s "cheapest".
  // 0: the GPUs it takes, so the cheapest is the fewest GPU-hours.
  double price_per_hour = 0;
};

struct ModelDownloadSpec {
  int64_t size_bytes = 0;  // 0: nothing to download
  bool cache = false;      // keep the model on the node after the first download (Fluid-like)
  // Download bandwidth per node. Default 1 GB/s, an assumption: a node's share of an object
  // store or a Fluid/JuiceFS cache tier over a 10–25 GbE storage network.
  double bandwidth_bytes_per_second = 1e9;
};

// Cold start = image pull (skipped when the node has the image: the kubelet's image cache)
// + model download (skipped when cached on the node) + load into GPU memory.
struct ColdStartSpec {
  Duration image_pull;
  ModelDownloadSpec model_download;
  Duration load;
  // Prefetch: warm the model cache on this many nodes where replicas are likely to land, at the
  // service's start (0: off). Nodes are chosen by the placement policy's ranking for one replica.
  int prefetch_nodes = 0;
};

enum class AutoscalerKind { kNone, kHpa, kKpa };
const char* to_string(AutoscalerKind k);

// The HPA's metric (Kubernetes autoscaling/v2).
enum class HpaMetric { kGpu, kCpu, kQps };
const char* to_string(HpaMetric m);

struct AutoscalerSpec {
  AutoscalerKind kind = AutoscalerKind::kKpa;  // Knative's default for a KServe service
  int min_replicas = 1;
  int max_replicas = 1;
  // KPA: target concurrency per replica (Knative's `autoscaling.knative.dev/target`; default
  // 100, Knative's container-concurrency-target-default) times target_utilization (percent;
  // Knative's container-concurrency-target-percentage defaults to 70, Gantry to 100 so that
  // desired = ceil(concurrency / target) holds as written; set 70 to match Knative).
  double target_concurrency = 100;
  double target_utilization_percent = 100;
  // KPA windows (Knative defaults: stable-window 60 s, panic-window-percentage 10 % → 6 s,
  // panic-threshold-percentage 200 %, max-scale-down-rate 2, max-scale-up-rate 1000, tick 2 s,
  // scale-to-zero-grace-period 30 s).
  Duration stable_window = seconds(60);
  Duration panic_window = seconds(6);
  double panic_threshold = 2.0;
  double max_scale_down_rate = 2.0;
  double max_scale_up_rate = 1000.0;
  Duration tick = seconds(2);
  Duration scale_to_zero_grace = seconds(30);
  // Knative's scale-down-delay (autoscaling.knative.dev/scale-down-delay, default 0): the desire
  // is the highest of the last scale_down_delay, so a dip shorter than that removes nothing.
  Duration scale_down_delay;
  // HPA (Kubernetes defaults: sync period 15 s, tolerance 0.1, scale-down stabilisation 300 s,
  // scale-up policies 4 pods or 100 % per 15 s, the larger).
  HpaMetric hpa_metric = HpaMetric::kGpu;
  double target_utilization = 60;  // percent, for gpu and cpu
  double target_qps = 0;           // per replica, for qps (averageValue)
  Duration sync_period = seconds(15);
  double tolerance = 0.1;
  Duration scale_down_stabilization = seconds(300);
};

struct SloSpec {
  Duration p99_latency;  // 0: no SLO
};

// Where requests come from: one of trace, curve, poisson.
enum class LoadKind { kPoisson, kCurve, kTrace };

struct LoadSpec {
  LoadKind kind = LoadKind::kPoisson;
  // poisson: {qps}; curve: {kind: diurnal, peakQps, troughQps, period, peakAt}
  double qps = 0;
  double peak_qps = 0;
  double trough_qps = 0;
  Duration period = seconds(86'400);
  Duration peak_at = seconds(14 * 3600);  // offset into the period of the peak (default 14:00)
  // Token counts of generated requests (poisson, curve): fixed per request.
  int64_t prefill_tokens = 512;
  int64_t decode_tokens = 128;
  // trace: {format: azure-llm-2023, file, loop, speedup}
  std::string trace_format;  // "azure-llm-2023"
  std::string trace_file;    // resolved against the scenario file's folder
  // Where `file` is written, and its dotted path (spec.workload.services[0].load.trace.file):
  // for the errors of whoever reads the trace (sim/trace_loaders.hpp).
  SourceLocation trace_where;
  std::string trace_field;
  bool loop = true;      // replay again from the start when the trace ends
  double speedup = 1.0;  // arrival times divided by this (a denser load)
};

struct ServiceSpec {
  std::string name;
  std::vector<PredictorSpec> predictors;
  std::vector<ReplicaCapacity> capacity;
  ColdStartSpec cold_start;
  AutoscalerSpec autoscaler;
  SloSpec slo;
  LoadSpec load;
  // Canary (KServe canaryTrafficPercent): when set, this share goes to the last predictor and
  // the rest to the one before it, overriding their `traffic`.
  std::optional<double> canary_percent;
  Duration start;  // offset from the scenario start when the service is created

  // The capacity entry for a predictor (by its gpu_type and share), or nullptr. With a
  // gpu_type, the entry whose key is capacity_key(gpu_type, resources); without one, the first
  // entry (in the order written) whose key has the same share part (capacity_key_share()): a
  // predictor on "0.5" of any GPU takes the first "<model>@0.5" entry. The pointer is into
  // `capacity` and lives as long as it is not modified.
  const ReplicaCapacity* capacity_for(const PredictorSpec& p) const;
};

// The capacity table's key for a replica of `r` on `gpu_type`:
//   one whole GPU        gpus = 1            "A10"
//   a share              gpu_milli = m       "A10@0.5" (m / 1000 in its shortest decimal form:
//                                            500 → "0.5", 250 → "0.25", 125 → "0.125")
//   several whole GPUs   gpus = k >= 2       "A10x2": a replica on k GPUs (tensor parallel)
//                                            serves at a different rate from one on 1 GPU, so
//                                            it has its own entry; "A10" never stands for it
//   no GPU               gpus = 0, milli = 0 gpu_type as it is
std::string capacity_key(const std::string& gpu_type, const Resources& r);

// The share part of a key: "" for one whole GPU, "@0.5" for a share, "x2" for two whole GPUs,
// i.e. capacity_key(gpu_type, r) minus gpu_type. For a key from a capacity table: the text from
// its last '@', else a trailing "x<digits>", else "".
std::string capacity_key_share(const Resources& r);
std::string capacity_key_share(const std::string& key);

}  // namespace gantry
