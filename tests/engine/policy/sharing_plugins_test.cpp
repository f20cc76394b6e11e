// The GPU-sharing placement policies (random, dotproduct, gpuclustering, gpupacking, bestfit,
// fgd) and share pods under the older plugins, on small hand-built clusters. Each expected
// choice is worked out in the comment above it.

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <set>

#include "engine/policy/fgd_plugin.hpp"
#include "engine/policy/scheduler.hpp"
#include "tests/engine/policy/sharing_test_cluster.hpp"

namespace gantry {
namespace {

using testing::cpu_pod;
using testing::kGi;
using testing::share_pod;
using testing::shared_cluster;
using testing::SharedNode;
using testing::weighted;
using testing::whole_pod;

SchedulerConfig config(std::string placement, uint64_t seed = 0) {
  SchedulerConfig c;
  c.placement = std::move(placement);
  c.seed = seed;
  return c;
}

JobSpec one_pod(const Resources& pod, std::vector<std::string> models = {}) {
  JobSpec j;
  j.name = "pod";
  j.gpu_types = std::move(models);
  j.roles.push_back(RoleSpec{RoleKind::kWorker, 1, pod});
  return j;
}

// Places one pod now; the node and GPUs it got, or nullopt.
std::optional<PodPlacement> place(Scheduler& s, Cluster& c, const Resources& pod,
                                  std::vector<std::string> models = {}) {
  static JobId next = 1;
  const auto action = s.place_now(c, next++, one_pod(pod, std::move(models)));
  if (!action) return std::nullopt;
  EXPECT_EQ(action->pods.size(), 1u);
  return action->pods[0];
}

TEST(PlaceNow, PlacesOrGivesUpAndLeavesNothingQueued) {
  Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 1000}}});
  Scheduler s(config("binpack"));
  const auto got = place(s, c, whole_pod(2));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  EXPECT_EQ(got->gpu_mask, 0b11u);
  EXPECT_EQ(c.free(0).gpus, 0);
  EXPECT_FALSE(place(s, c, whole_pod(1)).has_value());  // nothing left
  EXPECT_FALSE(place(s, c, share_pod(10)).has_value());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(c.allocated_gpu_milli(), 2'000);  // the failures took nothing
}

TEST(GpuModels, PodsOnlyGoToAllowedModels) {
  // Node 0 is an A100, node 1 a V100 (both empty). binpack alone would take node 0 (lowest id).
  Cluster c =
      shared_cluster({SharedNode{"A100-80G", 8'000, {1000}}, SharedNode{"V100", 8'000, {1000}}});
  Scheduler s(config("binpack"));
  auto got = place(s, c, share_pod(300), {"V100", "T4"});
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  got = place(s, c, whole_pod(1), {"T4", "A100-80G"});
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  // No node of an allowed model; and a model the catalog does not know at all.
  EXPECT_FALSE(place(s, c, share_pod(100), {"T4"}).has_value());
  EXPECT_FALSE(place(s, c, share_pod(100), {"NoSuchGpu"}).has_value());
  // GPU-less pods ignore models.
  EXPECT_TRUE(place(s, c, cpu_pod(1'000), {"T4"}).has_value());
}

TEST(GpuModels, TheSingleGpuTypeStillWorks) {
  Cluster c =
      shared_cluster({SharedNode{"A100-80G", 8'000, {1000}}, SharedNode{"V100", 8'000, {1000}}});
  Scheduler s(config("binpack"));
  JobSpec j = one_pod(whole_pod(1));
  j.gpu_type = "V100";
  const auto action = s.place_now(c, 1, j);
  ASSERT_TRUE(action.has_value());
  EXPECT_EQ(action->pods[0].node, 1);
}

// ---- the older plugins with share pods -----------------------------------------------------

TEST(SharePods, BinpackPrefersNodesWithFewFullyFreeGpusAndTheBestFitGpu) {
  // Node 0: 4 fully free GPUs. Node 1: GPUs {1000, 400, 700, 0}: 1 fully free. Binpack key 1
  // (fewest fully free GPUs) picks node 1; inside it the best-fit GPU for 300 is GPU 1 (400).
  Cluster c = shared_cluster({SharedNode{}, SharedNode{"A100-80G", 32'000, {1000, 400, 700, 0}}});
  Scheduler s(config("binpack"));
  const auto got = place(s, c, share_pod(300));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  EXPECT_EQ(got->gpu_mask, 1u << 1);
  EXPECT_EQ(c.gpu_free_milli(1, 1), 100);
}

TEST(SharePods, SpreadAndTopologyPlaceSharesToo) {
  // Spread: the most fully free GPUs: node 0 (4) over node 1 (1); node 0's best fit for a
  // share is its lowest fully free GPU, GPU 0.
  Cluster c = shared_cluster({SharedNode{}, SharedNode{"A100-80G", 32'000, {1000, 400, 700, 0}}});
  Scheduler spread(config("spread"));
  auto got = place(spread, c, share_pod(300));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  EXPECT_EQ(got->gpu_mask, 1u);
  // Topology: a share pod off any gang node goes to the lowest node id with room; a 750 share
  // does not fit node 0's GPU 0 (700 left) but fits GPU 1 (fully free): best fit = GPU 1.
  Scheduler topo(config("topology"));
  got = place(topo, c, share_pod(750));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  EXPECT_EQ(got->gpu_mask, 1u << 1);
}

// ---- random ---------------------------------------------------------------------------------

TEST(RandomPlugin, OnlyFeasibleNodesAllOfThemAndReproducibly) {
  // Nodes 0, 2, 4 have a GPU with >= 600 free; 1 and 3 do not (500 and fully used).
  const std::vector<SharedNode> nodes = {
      SharedNode{"A100-80G", 8'000, {1000}}, SharedNode{"A100-80G", 8'000, {500}},
      SharedNode{"A100-80G", 8'000, {600}}, SharedNode{"A100-80G", 8'000, {0}},
      SharedNode{"A100-80G", 8'000, {1000}}};
  const auto draws = [&](uint64_t seed) {
    std::vector<NodeId> out;
    Scheduler s(config("random", seed));
    for (int i = 0; i < 300; ++i) {
      Cluster c = shared_cluster(nodes);  // fresh: every draw sees the same feasible set
      const auto got = place(s, c, share_pod(600));
      EXPECT_TRUE(got.has_value());
      if (got) out.push_back(got->node);
    }
    return out;
  };
  const auto a = draws(42);
  const std::set<NodeId> seen(a.begin(), a.end());
  // Uniform over 3 nodes: in 300 draws each appears (missing one has probability ~3·(2/3)^300).
  EXPECT_EQ(seen, (std::set<NodeId>{0, 2, 4}));
  EXPECT_EQ(draws(42), a);  // same seed, same choices
  EXPECT_NE(draws(43), a);  // another seed, other choices
}

// ---- dotproduct -----------------------------------------------------------------------------

TEST(DotProductPlugin, SmallestNormalisedProduct) {
  // Both nodes: 10 cores, 2 GPUs. Node 0 empty; node 1 has 8 cores and 1 GPU taken.
  // Pod: 1 core, 1 GPU (1000 milli).
  //   node 0: (10/10)·(1/10) + (2000/2000)·(1000/2000) = 0.1  + 0.5  = 0.6
  //   node 1: ( 2/10)·(1/10) + (1000/2000)·(1000/2000) = 0.02 + 0.25 = 0.27  <- smallest
  Cluster c = shared_cluster({SharedNode{"A100-80G", 10'000, {1000, 1000}},
                              SharedNode{"A100-80G", 10'000, {1000, 0}, 8'000}});
  Scheduler s(config("dotproduct"));
  const auto got = place(s, c, whole_pod(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);

  // A CPU-heavy GPU-less pod (5 cores) fits only node 0 now (node 1 has 2 - 0 = 2 cores).
  // Pod of 1 core: node 0: (10/10)(1/10) = 0.1 + GPU term 0 (pod has no GPU) = 0.1;
  // node 1: (2/10)(1/10) = 0.02 -> node 1.
  const auto cpu_only = place(s, c, cpu_pod(1'000));
  ASSERT_TRUE(cpu_only.has_value());
  EXPECT_EQ(cpu_only->node, 1);
}

// ---- gpuclustering --------------------------------------------------------------------------

TEST(GpuClusteringPlugin, SameRequestFirstThenIdleNodes) {
  // Node 0 runs a 500 share; node 1 a 300 share; node 2 is idle; node 3 runs a 500 share and
  // a whole GPU. All have 4 GPUs.
  Cluster c = shared_cluster({SharedNode{"A100-80G", 32'000, {500, 1000, 1000, 1000}},
                              SharedNode{"A100-80G", 32'000, {700, 1000, 1000, 1000}}, SharedNode{},
                              SharedNode{"A100-80G", 32'000, {500, 0, 1000, 1000}}});
  Scheduler s(config("gpuclustering"));
  // A 500 share: tier 3 (only 500s) = node 0.
  auto got = place(s, c, share_pod(500));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  // A 300 share: node 1 (tier 3).
  got = place(s, c, share_pod(300));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  // A 700 share: nobody runs 700s; the idle node 2 (tier 1) beats nodes with other requests.
  got = place(s, c, share_pod(700));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 2);
  // A whole GPU: node 3 runs one (with a 500 share: tier 2); no node runs only whole GPUs, and
  // node 2 is no longer idle, so node 3 wins.
  got = place(s, c, whole_pod(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 3);
}

TEST(GpuClusteringPlugin, InsideATierTheNodeWithLeastIdleGpu) {
  // Nodes 0 and 1 both run only 500 shares; node 1 has less idle GPU (1000 + 500 = 1500 vs
  // 500 + 1000 + 1000 = 2500), so it gets the next 500.
  Cluster c = shared_cluster({SharedNode{"A100-80G", 32'000, {500, 1000, 1000}},
                              SharedNode{"A100-80G", 32'000, {1000, 500}}});
  Scheduler s(config("gpuclustering"));
  const auto got = place(s, c, share_pod(500));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  EXPECT_EQ(got->gpu_mask, 1u << 1);  // best fit: the GPU with 500 free
}

// ---- gpupacking -----------------------------------------------------------------------------

TEST(GpuPackingPlugin, PartlyUsedGpusThenUsedNodesThenIdleNodes) {
  // Node 0 idle; node 1 has one GPU with 300 free; node 2 two whole GPUs taken (2 fully
  // free); node 3 one GPU with 600 free. 4 GPUs each.
  Cluster c = shared_cluster({SharedNode{}, SharedNode{"A100-80G", 32'000, {300, 1000, 1000, 1000}},
                              SharedNode{"A100-80G", 32'000, {0, 0, 1000, 1000}},
                              SharedNode{"A100-80G", 32'000, {1000, 1000, 1000, 600}}});
  Scheduler s(config("gpupacking"));
  // 250: fits partly used GPUs on nodes 1 (300) and 3 (600); best fit 300 -> node 1, GPU 0.
  auto got = place(s, c, share_pod(250));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  EXPECT_EQ(got->gpu_mask, 1u);
  // 500: only node 3's partly used GPU (600) holds it -> node 3, GPU 3.
  got = place(s, c, share_pod(500));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 3);
  EXPECT_EQ(got->gpu_mask, 1u << 3);
  // 700: no partly used GPU has 700 (50, 100 left); a fully free GPU on a used node: node 1
  // and 3 have 3 fully free, node 2 has 2 -> node 2 (fewest), its lowest free GPU 2.
  got = place(s, c, share_pod(700));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 2);
  EXPECT_EQ(got->gpu_mask, 1u << 2);
  // 3 whole GPUs: used nodes 1 and 3 have exactly 3 fully free (tier 2), idle node 0 is tier
  // 1 -> node 1 (lowest id among equals).
  got = place(s, c, whole_pod(3));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  // 4 whole GPUs: only the idle node 0 can.
  got = place(s, c, whole_pod(4));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
}

TEST(GpuPackingPlugin, GpuLessPodsGoToARandomFeasibleNode) {
  // Nodes 0 and 2 have 4 free cores, node 1 only 1: a 2-core pod may go to 0 or 2, each about
  // half the time over 200 fresh draws (missing one has probability 2·2^-200), reproducibly.
  const std::vector<SharedNode> nodes = {SharedNode{"A100-80G", 4'000, {1000}},
                                         SharedNode{"A100-80G", 4'000, {1000}, 3'000},
                                         SharedNode{"A100-80G", 4'000, {0}}};
  for (const char* name : {"gpupacking", "gpuclustering"}) {
    const auto draws = [&](uint64_t seed) {
      std::vector<NodeId> out;
      Scheduler s(config(name, seed));
      for (int i = 0; i < 200; ++i) {
        Cluster c = shared_cluster(nodes);
        out.push_back(place(s, c, cpu_pod(2'000))->node);
      }
      return out;
    };
    const auto a = draws(5);
    EXPECT_EQ(std::set<NodeId>(a.begin(), a.end()), (std::set<NodeId>{0, 2})) << name;
    EXPECT_EQ(draws(5), a) << name;
  }
}

// ---- bestfit --------------------------------------------------------------------------------

TEST(BestFitPlugin, LeastWeightedLeftover) {
  // Max capacity in the cluster: 8 cores, 4 GPUs (4000 milli). Node 0: 8 cores free, 4 GPUs
  // free; node 1: 2 cores free (6 used), 4 GPUs free. Pod: 1 core, 1 GPU.
  //   node 0: 0.5·7000/8000 + 0.5·3000/4000 = 0.4375 + 0.375 = 0.8125
  //   node 1: 0.5·1000/8000 + 0.5·3000/4000 = 0.0625 + 0.375 = 0.4375  <- least
  Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 1000, 1000, 1000}},
                              SharedNode{"A100-80G", 8'000, {1000, 1000, 1000, 1000}, 6'000}});
  Scheduler s(config("bestfit"));
  auto got = place(s, c, whole_pod(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  // Now GPU matters: a 1-core 900 share. node 0: 0.5·7000/8000 + 0.5·3100/4000 = 0.4375 +
  // 0.3875 = 0.825; node 1 (1 core, 3000 milli free): 0.5·0/8000 + 0.5·2100/4000 = 0.2625.
  got = place(s, c, share_pod(900));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
}

// ---- fgd ------------------------------------------------------------------------------------

TEST(FgdPlugin, PlacesWhereFragmentationGrowsLeast) {
  // Node 0: one fully free GPU; node 1: one GPU with 600 free. Workload {500 share: 0.5,
  // 1 GPU: 0.5}. Pod: a 200 share.
  //   node 0: before F = 0 (both classes fit, no partly used GPU); after (800 free): 500 share
  //           fits -> 0, 1 GPU cannot -> 800; F = 0.5·800 = 400; ΔF = 400
  //   node 1: before F = 0.5·0 + 0.5·600 = 300; after (400): neither fits -> 400 each;
  //           F = 400; ΔF = 100  <- smallest
  Cluster c =
      shared_cluster({SharedNode{"A100-80G", 8'000, {1000}}, SharedNode{"A100-80G", 8'000, {600}}});
  Scheduler s(config("fgd"));
  const std::vector<WeightedPodClass> workload = {weighted(share_pod(500), 0.5),
                                                  weighted(whole_pod(1), 0.5)};
  s.set_target_workload(workload);
  const auto got = place(s, c, share_pod(200));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  // The plugin's model now reads F = 0 (node 0) + 400 (node 1).
  auto& fgd = dynamic_cast<FgdPlugin&>(s.plugin());
  EXPECT_NEAR(fgd.model().cluster_fragmentation(c), 400.0, 1e-6);
}

TEST(FgdPlugin, ChoosesTheGpuInsideTheNode) {
  // GPUs {1000, 600}, workload: 500 shares. A 500 share on GPU 0 leaves {500, 600} (ΔF = 0),
  // on GPU 1 leaves {1000, 100} (ΔF = 100): FGD takes GPU 0.
  Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 600}}});
  Scheduler s(config("fgd"));
  const std::vector<WeightedPodClass> workload = {weighted(share_pod(500), 1.0)};
  s.set_target_workload(workload);
  const auto got = place(s, c, share_pod(500));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->gpu_mask, 1u);
}

TEST(FgdPlugin, TiesGoToTheLowestNode) {
  // Identical idle nodes: equal ΔF everywhere -> node 0; then node 0 is no longer idle and
  // a whole-GPU pod there leaves {0, 1000}: workload 1 GPU only: ΔF on node 0 = 0 (the other
  // GPU is still fully free, nothing partly used) = ΔF on node 1 -> node 0 again.
  Cluster c = shared_cluster(
      {SharedNode{"A100-80G", 8'000, {1000, 1000}}, SharedNode{"A100-80G", 8'000, {1000, 1000}}});
  Scheduler s(config("fgd"));
  const std::vector<WeightedPodClass> workload = {weighted(whole_pod(1), 1.0)};
  s.set_target_workload(workload);
  EXPECT_EQ(place(s, c, whole_pod(1))->node, 0);
  EXPECT_EQ(place(s, c, whole_pod(1))->node, 0);
}

// ---- select() agrees with the scoring rule, share pods included ---------------------------

TEST(SharingPlugins, SelectMatchesTheScoringRuleOnRandomStates) {
  std::mt19937 rng(20240602);  // fixed seed: the same states on every run
  int compared = 0;
  const std::vector<WeightedPodClass> workload = {
      weighted(share_pod(250, 2'000), 3), weighted(share_pod(500, 4'000), 2),
      weighted(whole_pod(1, 6'000), 2), weighted(whole_pod(2, 8'000), 1),
      weighted(cpu_pod(4'000), 1)};
  for (const char* name :
       {"binpack", "spread", "dotproduct", "gpuclustering", "gpupacking", "bestfit", "fgd"}) {
    for (int round = 0; round < 100; ++round) {
      std::vector<SharedNode> nodes;
      for (int i = 0; i < 10; ++i) {
        SharedNode s;
        s.gpu_type = i % 4 == 3 ? "H100-80G" : "A100-80G";
        s.free_milli.assign(i % 3 == 2 ? 2 : 4, 1000);
        for (int& m : s.free_milli) {
          const int r = static_cast<int>(rng() % 4);
          m = r == 0 ? 0 : r == 1 ? 1000 : 100 * (1 + static_cast<int>(rng() % 9));
        }
        s.cpu_used = static_cast<int64_t>(rng() % 30'000);
        nodes.push_back(s);
      }
      Cluster cluster = shared_cluster(nodes);
      auto plugin = make_placement_plugin(name);
      auto reference = make_placement_plugin(name);
      plugin->set_target_workload(workload);
      reference->set_target_workload(workload);
      NodeIndex index;
      index.sync(cluster);
      for (int p = 0; p < 6; ++p) {
        const int kind = static_cast<int>(rng() % 3);
        const Resources pod = kind == 0 ? share_pod(100 * (1 + static_cast<int>(rng() % 9)), 1'000)
                              : kind == 1 ? whole_pod(1 + static_cast<int>(rng() % 2), 1'000)
                                          : cpu_pod(2'000);
        const std::string_view plugin_name(name);
        // These two draw GPU-less pods at random (see their headers): not a scoring rule.
        if (!pod.needs_gpu() && (plugin_name == "gpuclustering" || plugin_name == "gpupacking")) continue;
        GangState gang;
        gang.begin(cluster, {pod}, {0, 1});  // A100-80G, H100-80G
        const PlacementContext ctx{cluster, index, gang, pod};
        // The definition: best score over every node passing the filters, lowest id on ties.
        reference->pre_score(ctx);
        std::optional<NodeId> want;
        NodeScore best;
        for (NodeId n = 0; n < cluster.node_count(); ++n) {
          if (!passes_common_filters(ctx, n) || !reference->filter(ctx, n)) continue;
          const NodeScore sc = reference->score(ctx, n);
          if (!want || sc > best) {
            want = n;
            best = sc;
          }
        }
        const auto got = plugin->select(ctx);
        ASSERT_EQ(got, want) << name << " round " << round << " pod " << p;
        ++compared;
        if (!got) continue;
        const uint64_t mask = plugin->pick_gpus(ctx, *got);
        if (pod.shares_gpu()) {
          ASSERT_EQ(std::popcount(mask), 1);
          ASSERT_GE(cluster.gpu_free_milli(*got, std::countr_zero(mask)), pod.gpu_milli);
        } else {
          ASSERT_EQ(std::popcount(mask), pod.gpus);
          ASSERT_EQ(cluster.free_gpu_mask(*got) & mask, mask);
        }
        cluster.allocate(*got, pod, mask);
        index.note(cluster, *got);
      }
    }
  }
  EXPECT_GT(compared, 3'000);
}

}  // namespace
}  // namespace gantry
