#pragma once
// What a placement plugin sees while it places one pod (PlacementContext), how it rates a node
// (NodeScore), the filters every plugin shares and the walk over the nodes that may pass them
// (for_each_candidate()). Apart from placement_plugin.hpp so that helpers of the plugins
// (score_buckets.hpp) can use them without the plugin interface.

#include <array>
#include <compare>
#include <cstdint>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/policy/gang_state.hpp"
#include "engine/policy/node_index.hpp"

namespace gantry {

// A lexicographic score: keys[0] matters most. Higher is better. Unused keys stay 0.
struct NodeScore {
  std::array<int64_t, 6> keys{};
  auto operator<=>(const NodeScore&) const = default;
};

// Everything a plugin may look at while placing one pod.
struct PlacementContext {
  const Cluster& cluster;
  const NodeIndex& index;  // synced with `cluster`
  const GangState& gang;   // gang.current() is the pod being placed
  const Resources& pod;    // == gang.pod(gang.current())
};

// The filters every plugin shares: a pod that needs a GPU (whole or share) needs a node of one
// of gang.gpu_types(); any pod needs its request to fit in cluster.free(n): CPU, memory, and
// k fully free GPUs for a k-GPU pod or one GPU with at least gpu_milli free for a share pod
// (resources.hpp); and node_admits(). GPU-less pods may go on any node, with or without GPUs,
// that has the CPU and memory.
// The node-level filters: schedulable (present, ready, not cordoned), labels matching the job's
// nodeSelector, taints tolerated (Kubernetes' NodeUnschedulable, NodeAffinity and
// TaintToleration filters).
// Inline, as the filters below: they run for every candidate node of every pod (the FGD
// artifact's 1,020 runs place 10^8 pods × nodes).
inline bool node_admits(const PlacementContext& ctx, NodeId n) {
  return ctx.cluster.schedulable(n) && ctx.gang.admits(ctx.cluster, n);
}
inline bool passes_common_filters(const PlacementContext& ctx, NodeId n) {
  if (ctx.pod.needs_gpu() && !ctx.gang.allows_type(ctx.cluster.gpu_type_of(n))) return false;
  return ctx.pod.fits_in(ctx.cluster.free(n)) && node_admits(ctx, n);
}
// passes_common_filters() for a node for_each_candidate() gave: its GPU type is one of the
// gang's already, so only the fit and node_admits() are left to check.
inline bool passes_candidate_filters(const PlacementContext& ctx, NodeId n) {
  return ctx.pod.fits_in(ctx.cluster.free(n)) && node_admits(ctx, n);
}

// Calls f(NodeId) for each node that may hold the pod, from the NodeIndex (so full nodes cost
// nothing): for a whole-GPU pod, the nodes of an allowed type with at least pod.gpus fully free
// GPUs; for a share pod, the nodes of an allowed type whose share room may be enough; for a
// GPU-less pod, any node; in every case only nodes whose free CPU may be enough. The index's
// levels are coarse, so some of these nodes still lack the room: callers apply
// passes_candidate_filters(), and the nodes left out are exactly nodes it would refuse. Order
// is unspecified.
template <typename F>
void for_each_candidate(const PlacementContext& ctx, F&& f) {
  const int cpu = NodeIndex::cpu_level(ctx.pod.cpu_milli);
  if (!ctx.pod.needs_gpu()) {
    ctx.index.for_each_with_cpu(cpu, f);
    return;
  }
  if (ctx.pod.shares_gpu()) {
    const int share = NodeIndex::share_level(ctx.pod.gpu_milli);
    for (GpuTypeId t : ctx.gang.gpu_types()) ctx.index.for_each_with_room(t, share, cpu, f);
    return;
  }
  for (GpuTypeId t : ctx.gang.gpu_types())
    for (int k = ctx.pod.gpus; k <= ctx.cluster.max_gpus_per_node(t); ++k)
      ctx.index.for_each_node(t, k, cpu, f);
}

// The NodeIndex types a pod may use, for plugins that walk the buckets themselves: the gang's
// allowed GPU types for a pod that needs a GPU (whole or share); every GPU type of the catalog plus
// -1 (nodes without GPUs) for a GPU-less pod. Written into `out` (cleared first) to avoid an
// allocation per pod.
void index_types_for(const PlacementContext& ctx, std::vector<GpuTypeId>& out);

}  // namespace gantry
