#include "engine/policy/gpu_clustering_plugin.hpp"

namespace gantry {

namespace {

// Affinity of a GPU request: every share is one affinity (0); k whole GPUs are affinity k.
int affinity_of(int32_t gpus, int32_t gpu_milli) { return gpu_milli > 0 ? 0 : gpus; }

}  // namespace

NodeScore GpuClusteringPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  if (!ctx.pod.needs_gpu()) return s;
  const int mine = affinity_of(ctx.pod.gpus, ctx.pod.gpu_milli);
  bool same = false;
  bool other = false;
  for (const GpuRequestCount& r : ctx.cluster.gpu_requests(n)) {
    if (r.pods <= 0) continue;
    (affinity_of(r.gpus, r.gpu_milli) == mine ? same : other) = true;
  }
  const int64_t tier = same ? (other ? 2 : 3) : (other ? 0 : 1);
  const int64_t g = maxima_.gpu_milli;
  s.keys[0] = tier * 25 + 25 * (g - ctx.cluster.node_free_milli(n)) / g;
  return s;
}

std::optional<NodeId> GpuClusteringPlugin::select(const PlacementContext& ctx) {
  return select_with_own_score(*this, ctx);
}

}  // namespace gantry
