#include "engine/policy/gpu_packing_plugin.hpp"

#include <bit>

namespace gantry {

void GpuPackingPlugin::configure(const SchedulerConfig& config) {
  stream_ = RandomStreams(config.seed).stream("placement.gpupacking");
}

std::optional<NodeId> GpuPackingPlugin::select(const PlacementContext& ctx) {
  if (!ctx.pod.needs_gpu()) return draw_feasible_node(*this, ctx, stream_, feasible_);
  return PlacementPlugin::select(ctx);
}

NodeScore GpuPackingPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  const Cluster& c = ctx.cluster;
  if (!ctx.pod.needs_gpu()) {
    s.keys[1] = -c.node_free_milli(n);
    return s;
  }
  if (ctx.pod.shares_gpu()) {
    const int g = c.best_fit_share_gpu(n, ctx.pod.gpu_milli);
    if (g >= 0 && ((c.partial_gpu_mask(n) >> g) & 1)) {
      s.keys[0] = 3;
      s.keys[1] = -c.gpu_free_milli(n, g);
      return s;
    }
  }
  const bool idle = c.free(n).gpus == c.gpu_count(n);
  s.keys[0] = idle ? 1 : 2;
  s.keys[1] = -c.free(n).gpus;
  return s;
}

}  // namespace gantry
