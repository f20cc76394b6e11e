#include "engine/policy/placement_plugin.hpp"

#include <algorithm>

namespace gantry {

bool node_admits(const PlacementContext& ctx, NodeId n) {
  return ctx.cluster.schedulable(n) && ctx.gang.admits(ctx.cluster, n);
}

bool passes_common_filters(const PlacementContext& ctx, NodeId n) {
  if (ctx.pod.needs_gpu() && !ctx.gang.allows_type(ctx.cluster.gpu_type_of(n))) return false;
  return ctx.pod.fits_in(ctx.cluster.free(n)) && node_admits(ctx, n);
}

void index_types_for(const PlacementContext& ctx, std::vector<GpuTypeId>& out) {
  out.clear();
  if (ctx.pod.needs_gpu()) {
    out = ctx.gang.gpu_types();
    return;
  }
  out.push_back(-1);
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(ctx.cluster.topology().gpus.size()); ++t)
    out.push_back(t);
}

bool PlacementPlugin::filter(const PlacementContext&, NodeId) const { return true; }

void PlacementPlugin::pre_score(const PlacementContext&) {}

uint64_t PlacementPlugin::pick_gpus(const PlacementContext& ctx, NodeId n) const {
  return default_gpus(ctx.cluster, n, ctx.pod);
}

void PlacementPlugin::configure(const SchedulerConfig&) {}

void PlacementPlugin::set_target_workload(std::span<const WeightedPodClass>) {}

std::optional<NodeId> draw_feasible_node(const PlacementPlugin& plugin, const PlacementContext& ctx,
                                         RandomStream& stream, std::vector<NodeId>& scratch) {
  scratch.clear();
  for_each_candidate(ctx, [&](NodeId n) {
    if (passes_common_filters(ctx, n) && plugin.filter(ctx, n)) scratch.push_back(n);
  });
  if (scratch.empty()) return std::nullopt;
  std::sort(scratch.begin(), scratch.end());
  return scratch[static_cast<size_t>(
      stream.uniform_int(0, static_cast<int64_t>(scratch.size()) - 1))];
}

uint64_t default_gpus(const Cluster& cluster, NodeId n, const Resources& pod) {
  if (pod.shares_gpu()) {
    const int g = cluster.best_fit_share_gpu(n, pod.gpu_milli);
    return g < 0 ? 0 : 1ull << g;
  }
  return cluster.lowest_free_gpus(n, pod.gpus);
}

std::optional<NodeId> PlacementPlugin::select(const PlacementContext& ctx) {
  return best_of(ctx, [&](auto&& visit) { for_each_candidate(ctx, visit); });
}

}  // namespace gantry
