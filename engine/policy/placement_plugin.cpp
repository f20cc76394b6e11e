#include "engine/policy/placement_plugin.hpp"

namespace gantry {

bool passes_common_filters(const PlacementContext& ctx, NodeId n) {
  if (ctx.pod.gpus > 0 && !ctx.gang.allows_type(ctx.cluster.gpu_type_of(n))) return false;
  return ctx.pod.fits_in(ctx.cluster.free(n));
}

void index_types_for(const PlacementContext& ctx, std::vector<GpuTypeId>& out) {
  out.clear();
  if (ctx.pod.gpus > 0) {
    out = ctx.gang.gpu_types();
    return;
  }
  out.push_back(-1);
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(ctx.cluster.topology().gpus.size()); ++t) out.push_back(t);
}

bool PlacementPlugin::filter(const PlacementContext&, NodeId) const { return true; }

void PlacementPlugin::pre_score(const PlacementContext&) {}

uint64_t PlacementPlugin::pick_gpus(const PlacementContext& ctx, NodeId n) const {
  return ctx.cluster.lowest_free_gpus(n, ctx.pod.gpus);
}

std::optional<NodeId> PlacementPlugin::select(const PlacementContext& ctx) {
  return best_of(ctx, [&](auto&& visit) { for_each_candidate(ctx, visit); });
}

}  // namespace gantry
