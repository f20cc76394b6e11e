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
#include "engine/policy/placement_context.hpp"
#include "engine/policy/scheduler_config.hpp"
#include "engine/policy/score_buckets.hpp"
#include "engine/policy/target_workload.hpp"

namespace gantry {

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

  // Off: every select() walks and scores the candidates, as without ScoreBuckets (the answers
  // are the same; tests and benchmarks compare the two). On by default.
  void set_score_buckets(bool on) {
    score_buckets_on_ = on;
    score_buckets_.clear();
  }

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
  // Such a plugin's score depends on the node, the pod and its own settings only, so the answer
  // comes from ScoreBuckets where they apply; a plugin whose settings change calls
  // score_settings_changed().
  template <typename Plugin>
  std::optional<NodeId> select_with_own_score(const Plugin& self, const PlacementContext& ctx) {
    pre_score(ctx);
    const auto score_of = [&](NodeId n) { return self.Plugin::score(ctx, n); };
    if (score_buckets_on_ && ScoreBuckets::applies(ctx))
      if (const ScoreBuckets::Class* c = score_buckets_.sync(ctx, score_of))
        return ScoreBuckets::best(*c);
    return best_of_pre_scored(
        ctx, [&](auto&& visit) { for_each_candidate(ctx, visit); }, true, score_of);
  }
  // The verdicts of every pod class (score_buckets.hpp), for select_with_own_score() and
  // plugins with a select() of their own.
  ScoreBuckets& score_buckets() { return score_buckets_; }
  bool score_buckets_on() const { return score_buckets_on_; }
  // Drops the cached verdicts: what the plugin's scores depend on has changed.
  void score_settings_changed() { score_buckets_.clear(); }

 private:
  template <typename ForEach, typename Score>
  std::optional<NodeId> best_of_scored(const PlacementContext& ctx, ForEach&& for_each,
                                       bool of_allowed_types, Score&& score_of) {
    pre_score(ctx);
    return best_of_pre_scored(ctx, for_each, of_allowed_types, score_of);
  }
  template <typename ForEach, typename Score>
  std::optional<NodeId> best_of_pre_scored(const PlacementContext& ctx, ForEach&& for_each,
                                           bool of_allowed_types, Score&& score_of) {
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

  ScoreBuckets score_buckets_;
  bool score_buckets_on_ = true;
};

}  // namespace gantry
