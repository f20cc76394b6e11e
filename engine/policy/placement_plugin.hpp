#pragma once
// PlacementPlugin: how the scheduler chooses a node, and GPUs inside it, for one pod of a gang.
//
// In the spirit of the Kubernetes scheduling framework, a plugin has extension points that the
// scheduler calls for every pod, in pod order, while it places a gang:
//
//   pre_score  once per pod, before scoring: precompute what every node's score shares
//   score      how good is this feasible node; higher is better, ties go to the lowest node id
//   pick_gpus  which free GPUs of the chosen node the pod gets
//
// select() ties these together: the best-scoring node among the feasible ones (those passing
// the common filters every plugin shares: see passes_common_filters()). The default scores
// every candidate (for_each_candidate()). No plugin has a filter of its own: the per-node
// virtual call it cost every plugin was a tenth of the FGD artifact's time, so the extension
// point was removed; a plugin that needs one overrides select(). A plugin may override select()
// with a faster search (e.g. walking NodeIndex buckets in score order) but must return the node the
// default would (tests compare both on many states).
//
// Plugins see only cluster state (engine/cluster) and the partial gang; they never allocate.
// The scheduler allocates the chosen GPUs before asking about the next pod, so a plugin sees
// the cluster with this gang's earlier pods already in it.

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/core/random.hpp"
#include "engine/policy/gang_state.hpp"
#include "engine/policy/node_index.hpp"
#include "engine/policy/scheduler_config.hpp"
#include "engine/policy/target_workload.hpp"

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

// The default GPU choice (see PlacementPlugin::pick_gpus()), for plugins that reuse it.
uint64_t default_gpus(const Cluster& cluster, NodeId n, const Resources& pod);

// A node drawn uniformly among those passing the common filters, in
// increasing id order, with one draw from `stream` (none if no node is feasible). `scratch`
// avoids an allocation per pod.
std::optional<NodeId> draw_feasible_node(const PlacementContext& ctx, RandomStream& stream,
                                         std::vector<NodeId>& scratch);

class PlacementPlugin {
 public:
  virtual ~PlacementPlugin() = default;

  // The registry name ("binpack", ...).
  virtual std::string_view name() const = 0;

  // Called once per pod before score(). Default: nothing.
  virtual void pre_score(const PlacementContext& ctx);
  // Score of a feasible node; see NodeScore.
  virtual NodeScore score(const PlacementContext& ctx, NodeId n) const = 0;
  // The GPUs of node n (which passed the filters) the pod gets, as a mask: for a whole-GPU pod
  // exactly pod.gpus bits, all fully free; for a share pod exactly one bit, a GPU with at least
  // pod.gpu_milli free; 0 for a GPU-less pod. Default: the lowest-numbered fully free GPUs; for
  // a share, Cluster::best_fit_share_gpu() (the GPU with the least free milli that still fits,
  // so partly used GPUs fill up before fresh ones are broken into).
  virtual uint64_t pick_gpus(const PlacementContext& ctx, NodeId n) const;

  // Called once by the Scheduler's constructor with its configuration (e.g. the seed a
  // randomised plugin draws from). Default: nothing.
  virtual void configure(const SchedulerConfig& config);
  // The "typical pods" fragmentation-aware plugins optimise for (target_workload.hpp). Plugins
  // that do not use one ignore it (the default).
  virtual void set_target_workload(std::span<const WeightedPodClass> workload);

  // The best feasible node for the pod, or nullopt if none passes the filters.
  virtual std::optional<NodeId> select(const PlacementContext& ctx);

 protected:
  // The default select(): filter + pre_score + score over the given candidates; highest score
  // wins, ties to the lowest node id. Overrides use it on a narrowed candidate set.
  // `of_allowed_types`: every node for_each gives is of one of the gang's GPU types (it walks
  // for_each_candidate()), so the type filter is skipped.
  template <typename ForEach>
  std::optional<NodeId> best_of(const PlacementContext& ctx, ForEach&& for_each,
                                bool of_allowed_types = false) {
    return best_of_scored(ctx, for_each, of_allowed_types, [&](NodeId n) { return score(ctx, n); });
  }
  // The default select() with `self`'s own score() called directly: `self` is *this, a final
  // plugin whose select() calls this from the file that defines its score(), so the compiler
  // inlines the score instead of a virtual call per node (the FGD artifact scores 10^10 nodes).
  template <typename Plugin>
  std::optional<NodeId> select_with_own_score(const Plugin& self, const PlacementContext& ctx) {
    return best_of_scored(
        ctx, [&](auto&& visit) { for_each_candidate(ctx, visit); }, true,
        [&](NodeId n) { return self.Plugin::score(ctx, n); });
  }

 private:
  template <typename ForEach, typename Score>
  std::optional<NodeId> best_of_scored(const PlacementContext& ctx, ForEach&& for_each,
                                       bool of_allowed_types, Score&& score_of) {
    pre_score(ctx);
    std::optional<NodeId> best;
    NodeScore best_score;
    for_each([&](NodeId n) {
      if (!(of_allowed_types ? passes_candidate_filters(ctx, n) : passes_common_filters(ctx, n)))
        return;
      const NodeScore s = score_of(n);
      if (!best || s > best_score || (s == best_score && n < *best)) {
        best = n;
        best_score = s;
      }
    });
    return best;
  }
};

}  // namespace gantry
