#pragma once
// Shared pieces of the serving tests: the example service ("chat": two predictors on
// A10s, one a whole GPU and one half of one) and a KPA service of one predictor.

#include "engine/cluster/service_spec.hpp"

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

}  // namespace gantry::kube::testing
