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

// Whether every node class of a GPU type the gang may use is one island, so key 3 is the same
// for every candidate of a whole-GPU pod.
bool single_island_types(const PlacementContext& ctx) {
  for (const NodeClass& c : ctx.cluster.topology().classes)
    if (c.island_size > 0 && c.island_size < c.capacity.gpus && ctx.gang.allows_type(c.gpu_type))
      return false;
  return true;
}

}  // namespace

void TopologyPlugin::pre_score(const PlacementContext& ctx) {
  const auto racks = static_cast<size_t>(ctx.index.rack_count());
  if (rack_sum_.size() != racks) {
    rack_sum_.assign(racks, 0);
    rack_epoch_.assign(racks, 0);
  }
  ++pod_epoch_;
  // k / g for every bucket k, so rack_capacity() does no division.
  per_bucket_.clear();
  if (ctx.pod.gpus <= 0) return;
  int top = 0;
  for (GpuTypeId t : ctx.gang.gpu_types()) top = std::max(top, ctx.cluster.max_gpus_per_node(t));
  for (int k = 0; k <= top; ++k) per_bucket_.push_back(k / ctx.pod.gpus);
}

int64_t TopologyPlugin::rack_capacity(const PlacementContext& ctx, RackId r) const {
  if (ctx.pod.gpus == 0) return 0;
  const auto i = static_cast<size_t>(r);
  if (rack_epoch_[i] != pod_epoch_) {
    // First time this rack is asked about for this pod: sum the index's per-rack counts over
    // the candidates' (type, free GPUs) buckets, i.e. over for_each_candidate()'s nodes of the
    // rack without visiting them (nodes with fewer free GPUs than the pod add nothing).
    rack_epoch_[i] = pod_epoch_;
    int64_t sum = 0;
    for (GpuTypeId t : ctx.gang.gpu_types())
      for (int k = ctx.pod.gpus; k <= ctx.cluster.max_gpus_per_node(t); ++k)
        sum += int64_t{ctx.index.rack_nodes_with(t, r, k)} * per_bucket_[static_cast<size_t>(k)];
    rack_sum_[i] = sum;
  }
  return std::min<int64_t>(rack_sum_[i], ctx.gang.remaining_like_current());
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
    if (passes_common_filters(ctx, n)) {
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
      if (!passes_common_filters(ctx, n)) continue;
      if (ctx.gang.pods_in_rack(ctx.cluster.rack_of(n)) > 0) return n;
      if (!first) {
        first = n;
        if (gang_nodes.empty()) return first;  // no rack of the gang to look for
      }
    }
    return first;
  }
  if (ctx.pod.gpus == 1 || single_island_types(ctx)) return select_by_buckets(ctx);
  return PlacementPlugin::select(ctx);
}

std::optional<NodeId> TopologyPlugin::select_by_buckets(const PlacementContext& ctx) {
  pre_score(ctx);
  const int g = ctx.pod.gpus;
  int top = 0;
  for (GpuTypeId t : ctx.gang.gpu_types()) top = std::max(top, ctx.cluster.max_gpus_per_node(t));
  if (top < g) return std::nullopt;
  const int like = ctx.gang.remaining_like_current();
  if (like == 1) return best_single(ctx, top);
  // Key 2 is min(like, k / g): level c holds k in [c·g, (c+1)·g − 1], the capped level every
  // k >= like·g.
  for (int c = std::min(like, top / g); c >= 1; --c) {
    const int lo = c * g;
    const int hi = c == like ? top : std::min(top, lo + g - 1);
    if (const std::optional<NodeId> n = best_in_level(ctx, lo, hi)) return n;
  }
  return std::nullopt;
}

std::optional<NodeId> TopologyPlugin::best_single(const PlacementContext& ctx, int top) {
  // One like pod: key 2 is 1 for every candidate (k >= g) and key 5 is 1 for every rack with a
  // candidate, so the order is: a rack of the gang first (key 4), then k upward, then the id.
  const int g = ctx.pod.gpus;
  racks_.clear();
  for (NodeId n : ctx.gang.nodes()) {
    const RackId r = ctx.cluster.rack_of(n);
    if (std::none_of(racks_.begin(), racks_.end(), [&](const RackKey& rk) { return rk.rack == r; }))
      racks_.push_back(RackKey{0, r});
  }
  if (!racks_.empty())
    for (int k = g; k <= top; ++k)
      if (const std::optional<NodeId> n = first_feasible(ctx, 0, racks_.size(), k)) return n;
  // Every rack (the gang's racks hold no feasible candidate now, so they change nothing).
  const auto feasible = [&](NodeId n) { return passes_common_filters(ctx, n); };
  for (int k = g; k <= top; ++k) {
    NodeId best = -1;
    for (GpuTypeId t : ctx.gang.gpu_types()) {
      const NodeId n = ctx.index.first_node(t, k, feasible);
      if (n >= 0 && (best < 0 || n < best)) best = n;
    }
    if (best >= 0) return best;
  }
  return std::nullopt;
}

std::optional<NodeId> TopologyPlugin::best_in_level(const PlacementContext& ctx, int lo, int hi) {
  const auto& types = ctx.gang.gpu_types();
  racks_.clear();
  int64_t best = -1;
  for (RackId r = 0; r < ctx.index.rack_count(); ++r) {
    bool any = false;
    for (GpuTypeId t : types)
      for (int k = lo; k <= hi && !any; ++k) any = ctx.index.rack_nodes_with(t, r, k) > 0;
    if (!any) continue;
    const int64_t key =
        (ctx.gang.pods_in_rack(r) > 0 ? int64_t{1} << 32 : 0) + rack_capacity(ctx, r);
    racks_.push_back(RackKey{key, r});
    best = std::max(best, key);
  }
  // Racks tied on keys 4 and 5 compete on key 6 (k upward) and then on the node id. The racks
  // with the best key usually hold a feasible node, so they are tried before any sorting.
  const auto tied = std::partition(racks_.begin(), racks_.end(),
                                   [&](const RackKey& rk) { return rk.key == best; });
  size_t first = 0;
  auto last = static_cast<size_t>(tied - racks_.begin());
  bool sorted = false;
  while (first < racks_.size()) {
    for (int k = lo; k <= hi; ++k)
      if (const std::optional<NodeId> n = first_feasible(ctx, first, last, k)) return n;
    if (!sorted) {
      std::sort(racks_.begin() + static_cast<std::ptrdiff_t>(last), racks_.end(),
                [](const RackKey& a, const RackKey& b) { return a.key > b.key; });
      sorted = true;
    }
    first = last;
    while (last < racks_.size() && racks_[last].key == racks_[first].key) ++last;
  }
  return std::nullopt;
}

std::optional<NodeId> TopologyPlugin::first_feasible(const PlacementContext& ctx, size_t first,
                                                     size_t last, int k) const {
  std::optional<NodeId> best;
  for (size_t i = first; i < last; ++i) {
    const RackId r = racks_[i].rack;
    int count = 0;
    for (GpuTypeId t : ctx.gang.gpu_types()) count += ctx.index.rack_nodes_with(t, r, k);
    if (count == 0) continue;
    // Members ascend: the first feasible one is this rack's best.
    for (NodeId n : ctx.index.rack_members(r)) {
      if (best && n > *best) break;
      if (ctx.cluster.free(n).gpus != k) continue;
      if (!passes_common_filters(ctx, n)) continue;
      best = n;
      break;
    }
  }
  return best;
}

}  // namespace gantry
