#include "engine/policy/binpack_plugin.hpp"

#include <algorithm>

namespace gantry {

NodeScore BinpackPlugin::score(const PlacementContext& ctx, NodeId n) const {
  const Resources& free = ctx.cluster.free(n);
  NodeScore s;
  s.keys[0] = -(free.gpus - ctx.pod.gpus);
  s.keys[1] = -(free.cpu_milli - ctx.pod.cpu_milli);
  return s;
}

std::optional<NodeId> BinpackPlugin::select(const PlacementContext& ctx) {
  index_types_for(ctx, types_);
  int top = 0;
  for (GpuTypeId t : types_) top = std::max(top, t < 0 ? 0 : ctx.cluster.max_gpus_per_node(t));
  // Key 1 is the bucket: the first bucket (fewest free GPUs) with a feasible node decides;
  // inside it, key 2 (least free CPU) then the lowest id.
  for (int k = ctx.pod.gpus; k <= top; ++k) {
    std::optional<NodeId> best;
    int64_t best_cpu = 0;
    for (GpuTypeId t : types_) {
      ctx.index.for_each_node(t, k, [&](NodeId n) {
        // The bucket implies the type.
        if (!ctx.pod.fits_in(ctx.cluster.free(n)) || !node_admits(ctx, n)) return;
        const int64_t cpu = ctx.cluster.free(n).cpu_milli;
        if (!best || cpu < best_cpu || (cpu == best_cpu && n < *best)) {
          best = n;
          best_cpu = cpu;
        }
      });
    }
    if (best) return best;
  }
  return std::nullopt;
}

}  // namespace gantry
