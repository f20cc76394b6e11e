#pragma once
// ScoreBuckets: a placement plugin's verdict on every node, per pod class, kept current from the
// cluster's change log, so choosing a node costs the nodes that changed instead of every node
// with room.
//
// Why: the default select() scores each candidate node for every pod. In the FGD artifact that
// is 197 M scored nodes for 200 M visits; yet from one pod to the next only the node the last
// pod went to changes (pods never leave there), and pods repeat a few dozen request classes.
// So per class (the pod's Resources and the GPU types it may use) the buckets keep every node's
// score and, per score value, the set of nodes with it; a pod then re-scores only the nodes
// the change log (Cluster::changed_node()) names since its class was last placed, and the best
// node is the lowest id of the highest non-empty bucket.
//
// When it holds (a plugin asks applies() first): the plugin's score must be a function of the
// node's state (everything that bumps Cluster::version(n)), the pod's Resources and the
// plugin's own settings (clear() when those change), with keys[0] in [0, kBuckets) and no
// other key. The filters must read nothing but the node too: the gang has no nodeSelector,
// tolerations or topology domain (GangState::admits_by_node_alone()). A score outside that
// shape makes the class unbucketable: sync() returns null for it from then on, and the caller
// scores every candidate as before. The answers are the default select()'s exactly: the same
// filters (passes_common_filters()) and the same rule (highest score, ties to the lowest id);
// tests compare both on random states.
//
// Cost (N nodes, W = ceil(N / 64), C changes since the class was last synced):
//   sync()   O(C) re-scores, or a rebuild scoring the candidates when C >= min(N, log size)
//   best()   O(W) at worst (the first word of the best bucket with a node)
//   nth()    O(W) popcounts (the uniform draw of the "random" plugin)
// Memory per class: N × 9 bytes plus kBuckets × W words; classes beyond kMaxBytes in all are
// dropped (clear()) and rebuilt as they come back.
//
// Not thread-safe: one per plugin, on the scheduler's thread.

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/policy/placement_context.hpp"

namespace gantry {

class ScoreBuckets {
 public:
  static constexpr int kBuckets = 128;
  static constexpr size_t kMaxBytes = size_t{64} << 20;

  // One pod class's verdicts (see above).
  struct Class {
    bool bucketable = true;
    uint64_t synced = 0;            // Cluster::change_count() the verdicts describe
    int32_t nodes = -1;             // node count they were built for (-1: never built)
    size_t words = 0;               // per bucket row
    std::vector<uint64_t> version;  // per node: Cluster::version() when judged
    std::vector<int8_t> bucket;     // per node: its score, or -1 if it fails the filters
    std::vector<uint64_t> bits;     // kBuckets rows of `words`: the nodes of each score
    std::array<int32_t, kBuckets> count{};
    std::array<uint64_t, kBuckets / 64> nonempty{};
    int32_t feasible = 0;  // nodes in any bucket
  };

  // Can cached verdicts stand for the pod of ctx (see above: node-local filters, and GPU type
  // ids the class key can hold)?
  static bool applies(const PlacementContext& ctx);

  // Forgets every class: call when what a score depends on, beyond node and pod, changes.
  void clear();

  // The class of ctx's pod, brought up to date with ctx.cluster using `score` (a callable
  // NodeId -> NodeScore, the plugin's score for this pod, after its pre_score()); null when
  // the class is unbucketable. Requires applies(ctx).
  template <typename Score>
  const Class* sync(const PlacementContext& ctx, Score&& score);

  // The best node of a synced class: the lowest id of its highest score; nullopt if no node
  // passes the filters.
  static std::optional<NodeId> best(const Class& c);
  // The k-th (0-based) node passing the filters in increasing id order; k < c.feasible. Use
  // with a score that is the same for every node (a single bucket).
  static NodeId nth(const Class& c, int64_t k);

 private:
  struct Key {
    Resources pod;
    std::array<uint64_t, 2> types{};  // the gang's GPU types, as bits (ids < 128)
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };

  Class& class_of(const PlacementContext& ctx);
  // Resets c for ctx.cluster's nodes, every node judged unfit and at its current version.
  void reset(Class& c, const Cluster& cluster);
  // Moves node n out of its bucket (if any).
  static void remove(Class& c, NodeId n);
  // Puts node n in the bucket of score s; false (and the class unbucketable) when s has not
  // the shape buckets hold.
  static bool put(Class& c, NodeId n, const NodeScore& s);

  uint64_t cluster_ = 0;  // Cluster::instance_id() of the classes
  size_t bytes_ = 0;      // held by classes_, about
  std::unordered_map<Key, Class, KeyHash> classes_;
};

template <typename Score>
const ScoreBuckets::Class* ScoreBuckets::sync(const PlacementContext& ctx, Score&& score) {
  Class& c = class_of(ctx);
  if (!c.bucketable) return nullptr;
  const Cluster& cluster = ctx.cluster;
  const uint64_t now = cluster.change_count();
  const auto judge = [&](NodeId n) {
    remove(c, n);
    return !passes_common_filters(ctx, n) || put(c, n, score(n));
  };
  const uint64_t behind = now - c.synced;
  bool rebuild = c.nodes != cluster.node_count() ||
                 behind >= std::min<uint64_t>(Cluster::kChangeLogSize,
                                              static_cast<uint64_t>(cluster.node_count()));
  for (uint64_t change = c.synced + 1; !rebuild && change <= now; ++change) {
    const NodeId n = cluster.changed_node(change);
    if (n < 0 || n >= c.nodes) {
      rebuild = true;
      break;
    }
    const uint64_t v = cluster.version(n);
    if (c.version[static_cast<size_t>(n)] == v) continue;  // judged since (changed twice)
    c.version[static_cast<size_t>(n)] = v;
    if (!judge(n)) return nullptr;
  }
  if (rebuild) {
    reset(c, cluster);
    bool shaped = true;
    for_each_candidate(ctx, [&](NodeId n) {
      if (shaped && passes_candidate_filters(ctx, n)) shaped = put(c, n, score(n));
    });
    if (!shaped) return nullptr;
  }
  c.synced = now;
  return &c;
}

}  // namespace gantry
