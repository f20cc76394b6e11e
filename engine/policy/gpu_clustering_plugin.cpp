#include "engine/policy/gpu_clustering_plugin.hpp"

namespace gantry {

void GpuClusteringPlugin::configure(const SchedulerConfig& config) {
  stream_ = RandomStreams(config.seed).stream("placement.gpuclustering");
}

std::optional<NodeId> GpuClusteringPlugin::select(const PlacementContext& ctx) {
  if (!ctx.pod.needs_gpu()) return draw_feasible_node(*this, ctx, stream_, feasible_);
  return PlacementPlugin::select(ctx);
}

NodeScore GpuClusteringPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  if (ctx.pod.needs_gpu()) {
    bool same = false;
    bool other = false;
    for (const GpuRequestCount& r : ctx.cluster.gpu_requests(n)) {
      if (r.gpus == ctx.pod.gpus && r.gpu_milli == ctx.pod.gpu_milli) {
        same = true;
      } else {
        other = true;
      }
    }
    s.keys[0] = same ? (other ? 2 : 3) : (other ? 0 : 1);
  }
  s.keys[1] = -ctx.cluster.node_free_milli(n);
  return s;
}

}  // namespace gantry
