#include "engine/policy/placement_plugin.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace gantry {

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

void PlacementPlugin::pre_score(const PlacementContext&) {}

uint64_t PlacementPlugin::pick_gpus(const PlacementContext& ctx, NodeId n) const {
  return default_gpus(ctx.cluster, n, ctx.pod);
}

void PlacementPlugin::configure(const SchedulerConfig&) {}

void PlacementPlugin::set_target_workload(std::span<const WeightedPodClass>) {}

std::optional<NodeId> draw_feasible_node(const PlacementContext& ctx, RandomStream& stream,
                                         std::vector<NodeId>& scratch) {
  // The feasible nodes as bits of a node-id bitmap (scratch's ints, 32 nodes each), then the
  // k-th set bit: the k-th feasible node in increasing id order, as sorting them would give,
  // without the sort (a quarter of a Random run's time).
  const auto words = static_cast<size_t>((ctx.cluster.node_count() + 31) / 32);
  scratch.assign(words, 0);
  int64_t feasible = 0;
  for_each_candidate(ctx, [&](NodeId n) {
    if (!passes_candidate_filters(ctx, n)) return;
    scratch[static_cast<size_t>(n) / 32] |=
        static_cast<NodeId>(1u << (static_cast<unsigned>(n) % 32));
    ++feasible;
  });
  if (feasible == 0) return std::nullopt;
  int64_t k = stream.uniform_int(0, feasible - 1);
  for (size_t w = 0; w < words; ++w) {
    auto bits = static_cast<uint32_t>(scratch[w]);
    const int count = std::popcount(bits);
    if (k >= count) {
      k -= count;
      continue;
    }
    for (; k > 0; --k) bits &= bits - 1;  // drop the k lowest set bits
    return static_cast<NodeId>(w * 32 + static_cast<size_t>(std::countr_zero(bits)));
  }
  return std::nullopt;  // not reached: k < feasible
}

uint64_t default_gpus(const Cluster& cluster, NodeId n, const Resources& pod) {
  if (pod.shares_gpu()) {
    const int g = cluster.best_fit_share_gpu(n, pod.gpu_milli);
    return g < 0 ? 0 : 1ull << g;
  }
  return cluster.lowest_free_gpus(n, pod.gpus);
}

std::optional<NodeId> PlacementPlugin::select(const PlacementContext& ctx) {
  return best_of(
      ctx, [&](auto&& visit) { for_each_candidate(ctx, visit); }, true);
}

}  // namespace gantry
