#include "engine/policy/topology_plugin.hpp"

#include <algorithm>

#include "engine/policy/gpu_selection.hpp"

namespace gantry {

namespace {

// Like pods of the current pod that node n could hold, counting GPUs only.
int64_t node_capacity(const PlacementContext& ctx, NodeId n) {
  if (ctx.pod.gpus == 0) return 0;
  const int like = ctx.gang.remaining_like_next();
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
  rack_memo_epoch_.assign(rack_nodes_.size(), 0);
  rack_memo_.assign(rack_nodes_.size(), 0);
}

void TopologyPlugin::pre_score(const PlacementContext& ctx) {
  index_racks(ctx.cluster);
  ++pod_epoch_;
}

int64_t TopologyPlugin::rack_capacity(const PlacementContext& ctx, RackId r) const {
  if (ctx.pod.gpus == 0) return 0;
  const auto i = static_cast<size_t>(r);
  if (rack_memo_epoch_[i] == pod_epoch_) return rack_memo_[i];
  int64_t sum = 0;
  for (NodeId n : rack_nodes_[i])
    if (ctx.gang.allows_type(ctx.cluster.gpu_type_of(n))) sum += ctx.cluster.free(n).gpus / ctx.pod.gpus;
  rack_memo_epoch_[i] = pod_epoch_;
  rack_memo_[i] = std::min<int64_t>(sum, ctx.gang.remaining_like_next());
  return rack_memo_[i];
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
  return island_best_fit_gpus(ctx.cluster, n, ctx.pod.gpus);
}

std::optional<NodeId> TopologyPlugin::select(const PlacementContext& ctx) {
  // A feasible node already in the gang beats every other node on key 1.
  const auto& gang_nodes = ctx.gang.nodes();
  const bool any_gang_node_fits = std::any_of(gang_nodes.begin(), gang_nodes.end(), [&](NodeId n) {
    return passes_common_filters(ctx, n) && filter(ctx, n);
  });
  if (any_gang_node_fits)
    return best_of(ctx, [&](auto&& visit) {
      for (NodeId n : gang_nodes) visit(n);
    });
  return PlacementPlugin::select(ctx);
}

}  // namespace gantry
