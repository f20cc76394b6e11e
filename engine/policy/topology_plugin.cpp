#include "engine/policy/topology_plugin.hpp"

#include <algorithm>

#include "engine/policy/gpu_selection.hpp"

namespace gantry {

namespace {

// Like pods of the current pod that node n could hold, counting GPUs only.
int64_t node_capacity(const PlacementContext& ctx, NodeId n) {
  if (ctx.pod.gpus == 0) return 0;
  const int like = ctx.gang.remaining_like_current();
  return std::min(like, ctx.cluster.free(n).gpus / ctx.pod.gpus);
}

}  // namespace

void TopologyPlugin::index_racks(const Cluster& cluster) {
  if (racks_of_ == &cluster) return;
  racks_of_ = &cluster;
  rack_nodes_.assign(std::max(cluster.topology().racks.size(), size_t{1}), {});
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    const auto r = static_cast<size_t>(cluster.rack_of(n));
    if (r >= rack_nodes_.size()) rack_nodes_.resize(r + 1);
    rack_nodes_[r].push_back(n);
  }
  rack_sum_.assign(rack_nodes_.size(), 0);
  racks_epoch_ = 0;
}

void TopologyPlugin::pre_score(const PlacementContext& ctx) {
  index_racks(ctx.cluster);
  ++pod_epoch_;
}

int64_t TopologyPlugin::rack_capacity(const PlacementContext& ctx, RackId r) const {
  if (ctx.pod.gpus == 0) return 0;
  if (racks_epoch_ != pod_epoch_) {
    // First rack asked about for this pod: fill every rack from the index's per-rack counts,
    // over the candidates' (type, free GPUs) buckets: for_each_candidate()'s nodes, summed
    // without visiting them (nodes with fewer free GPUs than the pod add nothing).
    racks_epoch_ = pod_epoch_;
    for (size_t r = 0; r < rack_sum_.size(); ++r) {
      int64_t sum = 0;
      for (GpuTypeId t : ctx.gang.gpu_types())
        for (int k = ctx.pod.gpus; k <= ctx.cluster.max_gpus_per_node(t); ++k)
          sum +=
              int64_t{ctx.index.rack_nodes_with(t, static_cast<RackId>(r), k)} * (k / ctx.pod.gpus);
      rack_sum_[r] = sum;
    }
  }
  return std::min<int64_t>(rack_sum_[static_cast<size_t>(r)], ctx.gang.remaining_like_current());
}

NodeScore TopologyPlugin::score(const PlacementContext& ctx, NodeId n) const {
  const RackId rack = ctx.cluster.rack_of(n);
  NodeScore s;
  s.keys[0] = ctx.gang.pods_on(n) > 0 ? 1 : 0;
  s.keys[1] = node_capacity(ctx, n);
  s.keys[2] = -islands_needed(ctx.cluster, n, ctx.pod.gpus);
  s.keys[3] = ctx.gang.pods_in_rack(rack) > 0 ? 1 : 0;
  s.keys[4] = rack_capacity(ctx, rack);
  s.keys[5] = ctx.pod.gpus == 0 ? 0 : -(ctx.cluster.free(n).gpus - ctx.pod.gpus);
  return s;
}

uint64_t TopologyPlugin::pick_gpus(const PlacementContext& ctx, NodeId n) const {
  if (ctx.pod.shares_gpu()) return default_gpus(ctx.cluster, n, ctx.pod);
  return island_best_fit_gpus(ctx.cluster, n, ctx.pod.gpus);
}

std::optional<NodeId> TopologyPlugin::select(const PlacementContext& ctx) {
  // A feasible node already in the gang beats every other node on key 1.
  const auto& gang_nodes = ctx.gang.nodes();
  int fitting = 0;
  NodeId only = -1;
  for (NodeId n : gang_nodes) {
    if (passes_common_filters(ctx, n) && filter(ctx, n)) {
      ++fitting;
      only = n;
    }
  }
  if (fitting == 1) return only;
  if (fitting > 1)
    return best_of(ctx, [&](auto&& visit) {
      for (NodeId n : gang_nodes) visit(n);
    });
  if (ctx.pod.gpus == 0) {
    // Share pods too: GPU-less and share pods score 0 on every key but 1 and 4.
    // Only key 4 can differ among GPU-less pods off the gang's nodes: the lowest node id in a
    // rack of the gang, else the lowest node id.
    std::optional<NodeId> first;
    for (NodeId n = 0; n < ctx.cluster.node_count(); ++n) {
      if (!passes_common_filters(ctx, n) || !filter(ctx, n)) continue;
      if (ctx.gang.pods_in_rack(ctx.cluster.rack_of(n)) > 0) return n;
      if (!first) {
        first = n;
        if (gang_nodes.empty()) return first;  // no rack of the gang to look for
      }
    }
    return first;
  }
  return PlacementPlugin::select(ctx);
}

}  // namespace gantry
