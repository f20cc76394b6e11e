#include "engine/policy/spread_plugin.hpp"

#include <algorithm>

namespace gantry {

NodeScore SpreadPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  s.keys[0] = ctx.cluster.free(n).gpus - ctx.pod.gpus;
  return s;
}

std::optional<NodeId> SpreadPlugin::select(const PlacementContext& ctx) {
  index_types_for(ctx, types_);
  int top = 0;
  for (GpuTypeId t : types_) top = std::max(top, t < 0 ? 0 : ctx.cluster.max_gpus_per_node(t));
  for (int k = top; k >= ctx.pod.gpus; --k) {
    std::optional<NodeId> best;
    for (GpuTypeId t : types_) {
      // Buckets list nodes in increasing id order: the first feasible one is this type's best.
      bool found = false;
      ctx.index.for_each_node(t, k, [&](NodeId n) {
        // The bucket implies the type.
        if (found || !ctx.pod.fits_in(ctx.cluster.free(n)) || !node_admits(ctx, n)) return;
        found = true;
        if (!best || n < *best) best = n;
      });
    }
    if (best) return best;
  }
  return std::nullopt;
}

}  // namespace gantry
