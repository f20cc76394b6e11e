#pragma once
// Shared pieces of the serving tests: the example service ("chat": two predictors on
// A10s, one a whole GPU and one half of one), a KPA service of one predictor, and two nodes of
// four A10s for the live ones.

#include "engine/cluster/service_spec.hpp"
#include "engine/cluster/topology.hpp"

namespace gantry::kube::testing {

inline constexpr int64_t kGi = int64_t{1} << 30;

// Issue #14's example: v1 (llama-13b, 90 %, one A10) and v2 (llama-13b-q, 10 %, half an A10,
// its own image); capacity A10 max batch 16, A10@0.5 max batch 8; cold start 40 s pull, 26 GB at
// 1 GB/s (26 s) cached, 25 s load; KPA 0..40 at concurrency 70.
inline ServiceSpec chat_service() {
  ServiceSpec s;
  s.name = "chat";
  PredictorSpec v1;
  v1.name = "v1";
  v1.model = "llama-13b";
  v1.traffic = 90;
  v1.resources = Resources{4000, 16 * kGi, 1, 0};
  v1.gpu_type = "A10";
  PredictorSpec v2;
  v2.name = "v2";
  v2.model = "llama-13b-q";
  v2.traffic = 10;
  v2.resources = Resources{2000, 8 * kGi, 0, 500};
  v2.gpu_type = "A10";
  v2.image = "registry.example/llama-q:1";
  s.predictors = {v1, v2};
  ReplicaCapacity a10;
  a10.key = "A10";
  a10.tokens_per_second = 2400;
  a10.max_batch = 16;
  ReplicaCapacity half;
  half.key = "A10@0.5";
  half.tokens_per_second = 1100;
  half.max_batch = 8;
  s.capacity = {a10, half};
  s.cold_start.image_pull = seconds(40);
  s.cold_start.model_download.size_bytes = 26'000'000'000;
  s.cold_start.model_download.cache = true;
  s.cold_start.load = seconds(25);
  s.autoscaler.kind = AutoscalerKind::kKpa;
  s.autoscaler.min_replicas = 0;
  s.autoscaler.max_replicas = 40;
  s.autoscaler.target_concurrency = 70;
  return s;
}

// Two nodes (r1-n000, r1-n001) of 4 A10s, 64 CPUs and 256 GiB.
inline Topology a10_nodes() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(
      NodeClass{"a10x4", Resources{64'000, 256 * kGi, 4, 0}, t.gpus.find("A10"), 4});
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}, NodeInfo{"r1-n001", 0, 0}};
  return t;
}

// "chat" of one predictor v1 (llama-7b on a whole A10 of 2,400 tokens/s at 16 batch slots,
// 4 CPUs, 16 GiB), KPA 1..3 at target concurrency 10; no cold start (the tests set theirs).
inline ServiceSpec one_predictor_kpa_service() {
  ServiceSpec s;
  s.name = "chat";
  PredictorSpec v1;
  v1.name = "v1";
  v1.model = "llama-7b";
  v1.traffic = 100;
  v1.resources = Resources{4000, 16 * kGi, 1, 0};
  v1.gpu_type = "A10";
  s.predictors = {v1};
  ReplicaCapacity a10;
  a10.key = "A10";
  a10.tokens_per_second = 2400;
  a10.max_batch = 16;
  s.capacity = {a10};
  s.autoscaler.kind = AutoscalerKind::kKpa;
  s.autoscaler.min_replicas = 1;
  s.autoscaler.max_replicas = 3;
  s.autoscaler.target_concurrency = 10;
  return s;
}

}  // namespace gantry::kube::testing
