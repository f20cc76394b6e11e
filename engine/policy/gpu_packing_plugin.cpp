#include "engine/policy/gpu_packing_plugin.hpp"

#include <algorithm>

namespace gantry {

NodeScore GpuPackingPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  if (!ctx.pod.needs_gpu()) return s;
  const Cluster& c = ctx.cluster;
  const int fully_free = c.free(n).gpus;
  if (fully_free == c.gpu_count(n)) {
    s.keys[0] = std::max(33 - fully_free, fully_free);
    return s;
  }
  // Walking the GPUs by increasing free milli, a whole-GPU pod can only take fully free ones
  // (u = k); a share takes the best-fit GPU, which is partly used when one has room.
  if (!ctx.pod.shares_gpu()) {
    s.keys[0] = std::max(50 - ctx.pod.gpus, 33);
    return s;
  }
  const int g = c.best_fit_share_gpu(n, ctx.pod.gpu_milli);
  const int free_milli = c.gpu_free_milli(n, g);
  s.keys[0] = free_milli == kMilliPerGpu ? 49 : 100 - free_milli / 100;
  return s;
}

std::optional<NodeId> GpuPackingPlugin::select(const PlacementContext& ctx) {
  return select_with_own_score(*this, ctx);
}

}  // namespace gantry
