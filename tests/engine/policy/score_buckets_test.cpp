// ScoreBuckets: the cached verdicts per pod class give the nodes the plain walk gives, on long
// random histories (placements, releases, cordons, taints, new nodes, bursts longer than the
// change log), and re-score only the nodes that changed.

#include "engine/policy/score_buckets.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/policy/plugin_registry.hpp"
#include "tests/engine/policy/sharing_test_cluster.hpp"

namespace gantry {
namespace score_buckets_test {

using namespace gantry::testing;

std::vector<SharedNode> random_nodes(std::mt19937& rng, int count) {
  std::vector<SharedNode> nodes;
  for (int i = 0; i < count; ++i) {
    SharedNode s;
    s.gpu_type = i % 4 == 3 ? "H100-80G" : "A100-80G";
    s.free_milli.assign(i % 7 == 6 ? 0 : 4, 1000);  // every 7th node has no GPUs
    for (int& m : s.free_milli) {
      const int r = static_cast<int>(rng() % 3);
      m = r == 0 ? 0 : r == 1 ? 1000 : 1 + static_cast<int>(rng() % 999);
    }
    s.cpu_used = static_cast<int64_t>(rng() % 16'000);
    nodes.push_back(s);
  }
  return nodes;
}

// A few pod classes, so that classes come back after other pods changed the cluster: what the
// buckets are for.
std::vector<Resources> pod_classes() {
  return {share_pod(250, 2'000), share_pod(500, 4'000), share_pod(700, 1'000),
          whole_pod(1, 6'000),   whole_pod(2, 8'000),   cpu_pod(4'000)};
}

TEST(ScoreBuckets, EveryPluginChoosesAsTheWalkDoesOverALongHistory) {
  const std::vector<WeightedPodClass> workload = {
      weighted(share_pod(250, 2'000), 3), weighted(share_pod(500, 4'000), 2),
      weighted(whole_pod(1, 6'000), 2), weighted(cpu_pod(4'000), 1)};
  const std::vector<Resources> classes = pod_classes();
  int64_t compared = 0, placed = 0;
  for (const char* name :
       {"random", "dotproduct", "gpuclustering", "gpupacking", "bestfit", "fgd"}) {
    std::mt19937 rng(20261128);  // fixed: the same history on every run
    Cluster cluster = shared_cluster(random_nodes(rng, 40));
    auto bucketed = make_placement_plugin(name);
    auto walking = make_placement_plugin(name);
    walking->set_score_buckets(false);
    SchedulerConfig config;
    config.seed = 7;
    bucketed->configure(config);
    walking->configure(config);
    bucketed->set_target_workload(workload);
    walking->set_target_workload(workload);
    NodeIndex index;
    std::vector<AllocationOwner> running;
    for (int step = 0; step < 3'000; ++step) {
      const int what = static_cast<int>(rng() % 100);
      if (what < 60) {
        const Resources pod = classes[rng() % classes.size()];
        GangState gang;
        // Pods of either type or A100 only: the same request is two classes then.
        gang.begin(cluster, {pod},
                   rng() % 3 == 0 ? std::vector<GpuTypeId>{0} : std::vector<GpuTypeId>{0, 1});
        index.sync(cluster);
        const PlacementContext ctx{cluster, index, gang, pod};
        const std::optional<NodeId> want = walking->select(ctx);
        const std::optional<NodeId> got = bucketed->select(ctx);
        ASSERT_EQ(got, want) << name << " step " << step;
        ++compared;
        if (!got) continue;
        const uint64_t mask = bucketed->pick_gpus(ctx, *got);
        ASSERT_EQ(mask, walking->pick_gpus(ctx, *got)) << name << " step " << step;
        running.push_back(take(cluster, *got, pod, mask));
        ++placed;
      } else if (what < 90 && !running.empty()) {
        const size_t i = rng() % running.size();
        ASSERT_TRUE(cluster.release(running[i]));
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (what < 94) {
        const auto n = static_cast<NodeId>(rng() % static_cast<uint32_t>(cluster.node_count()));
        cluster.set_cordoned(n, !cluster.cordoned(n));
      } else if (what < 97) {
        const auto n = static_cast<NodeId>(rng() % static_cast<uint32_t>(cluster.node_count()));
        if (cluster.tainted(n))
          cluster.set_taints(n, {});
        else
          cluster.set_taints(n, {Taint{"gpu", "broken", TaintEffect::kNoSchedule}});
      } else if (what < 99) {
        NodeInfo info{"added-" + std::to_string(step), 0, 0};
        ASSERT_TRUE(cluster.add_node(info));
      } else {
        // More changes than the change log holds: the buckets must rebuild, not trust the log.
        for (uint64_t k = 0; k < Cluster::kChangeLogSize + 10; ++k)
          cluster.set_cordoned(0, !cluster.cordoned(0));
      }
    }
  }
  // 6 plugins × about 1,800 placements each.
  EXPECT_GT(compared, 10'000);
  EXPECT_GT(placed, 3'000);
}

TEST(ScoreBuckets, OnlyTheNodesThatChangedAreScoredAgain) {
  std::mt19937 rng(1);
  Cluster cluster = shared_cluster(random_nodes(rng, 30));
  NodeIndex index;
  index.sync(cluster);
  const Resources pod = share_pod(300, 1'000);
  GangState gang;
  gang.begin(cluster, {pod}, {0, 1});
  const PlacementContext ctx{cluster, index, gang, pod};
  int scored = 0;
  // A score any node may have: the node's free CPU in cores, capped at 127.
  const auto score = [&](NodeId n) {
    ++scored;
    NodeScore s;
    s.keys[0] = std::min<int64_t>(127, cluster.free(n).cpu_milli / 1'000);
    return s;
  };
  ScoreBuckets buckets;
  const ScoreBuckets::Class* c = buckets.sync(ctx, score);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(scored, c->feasible) << "the first sync scores every node that passes the filters";
  // The best node by hand: most free cores, lowest id among them.
  std::optional<NodeId> want;
  int64_t most = -1;
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    if (!passes_common_filters(ctx, n)) continue;
    const int64_t cores = std::min<int64_t>(127, cluster.free(n).cpu_milli / 1'000);
    if (cores > most) {
      most = cores;
      want = n;
    }
  }
  ASSERT_TRUE(want);
  EXPECT_EQ(ScoreBuckets::best(*c), want);

  // One pod of 8 cores more on the best node: only that node is judged again (and, holding
  // more CPU than any other node had free, it may lose its place).
  scored = 0;
  take(cluster, *want, cpu_pod(8'000), 0);
  index.sync(cluster);
  c = buckets.sync(ctx, score);
  EXPECT_LE(scored, 1);
  // A release and a cordon of two other nodes: two more.
  scored = 0;
  const NodeId other = *want == 0 ? 1 : 0;
  cluster.set_cordoned(other, true);
  cluster.set_cordoned(other, false);
  cluster.set_cordoned(2, true);
  index.sync(cluster);
  c = buckets.sync(ctx, score);
  EXPECT_LE(scored, 2) << "a node changed twice is judged once; a cordoned node is not scored";
}

TEST(ScoreBuckets, AScoreOutsideTheBucketsLeavesTheClassToTheWalk) {
  std::mt19937 rng(2);
  Cluster cluster = shared_cluster(random_nodes(rng, 8));
  NodeIndex index;
  index.sync(cluster);
  const Resources pod = cpu_pod(1'000);
  GangState gang;
  gang.begin(cluster, {pod}, {0, 1});
  const PlacementContext ctx{cluster, index, gang, pod};
  ScoreBuckets buckets;
  const auto second_key = [](NodeId n) {
    NodeScore s;
    s.keys[1] = n;
    return s;
  };
  EXPECT_EQ(buckets.sync(ctx, second_key), nullptr);
  const auto too_high = [](NodeId) {
    NodeScore s;
    s.keys[0] = ScoreBuckets::kBuckets;
    return s;
  };
  const Resources other = cpu_pod(2'000);
  const PlacementContext other_ctx{cluster, index, gang, other};
  EXPECT_EQ(buckets.sync(other_ctx, too_high), nullptr);
  // And it stays so: the class is not tried again.
  EXPECT_EQ(buckets.sync(ctx, [](NodeId) { return NodeScore{}; }), nullptr);
}

TEST(ScoreBuckets, GangsWithConstraintsAreNotCached) {
  std::mt19937 rng(3);
  Cluster cluster = shared_cluster(random_nodes(rng, 4));
  NodeIndex index;
  index.sync(cluster);
  const Resources pod = cpu_pod(1'000);
  GangState gang;
  gang.begin(cluster, {pod}, {0});
  EXPECT_TRUE(ScoreBuckets::applies({cluster, index, gang, pod}));
  const Labels selector{{"zone", "a"}};
  gang.set_constraints(&selector, nullptr);
  EXPECT_FALSE(ScoreBuckets::applies({cluster, index, gang, pod}));
  const Labels none;
  const std::vector<Toleration> tolerations{Toleration{}};
  gang.set_constraints(&none, &tolerations);
  EXPECT_FALSE(ScoreBuckets::applies({cluster, index, gang, pod}));
  gang.set_constraints(&none, nullptr);
  gang.set_domain(0, -1);
  EXPECT_FALSE(ScoreBuckets::applies({cluster, index, gang, pod}));
}

}  // namespace score_buckets_test
}  // namespace gantry
