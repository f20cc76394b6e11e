// The GPU-sharing placement policies (random, dotproduct, gpuclustering, gpupacking, bestfit,
// fgd) and share pods under the older plugins, on small hand-built clusters. Each expected
// choice is worked out in the comment above it.

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <set>

#include "engine/policy/best_fit_plugin.hpp"
#include "engine/policy/dot_product_plugin.hpp"
#include "engine/policy/fgd_plugin.hpp"
#include "engine/policy/fgd_score.hpp"
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
  // Both nodes: 10 cores, 2 GPUs. Node 0 empty; node 1 has 8 cores and 1 GPU taken. Spec
  // maxima: 128 cores, 8 GPUs (larger than any node here). Pod: 1 core, 1 GPU (1000 milli).
  //   node 0: dot = (10000/128000)(1000/128000) + (2000/8000)(1000/8000) = 0.000610 + 0.03125
  //           = 0.031860; score = floor(100 (1 - 0.015930)) = 98
  //   node 1: dot = (2000/128000)(1000/128000) + (1000/8000)(1000/8000) = 0.000122 + 0.015625
  //           = 0.015747; score = floor(100 (1 - 0.007874)) = 99  <- highest
  Cluster c = shared_cluster({SharedNode{"A100-80G", 10'000, {1000, 1000}},
                              SharedNode{"A100-80G", 10'000, {1000, 0}, 8'000}});
  Scheduler s(config("dotproduct"));
  const auto got = place(s, c, whole_pod(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);

  // A 1-core GPU-less pod: node 0 dot = 0.000610 -> floor(99.97) = 99; node 1 (1 core left)
  // dot = (1000/128000)(1000/128000) = 0.000061 -> floor(99.997) = 99. Integer scores tie, and
  // the tie goes to the lowest node id, as in the authors' simulator.
  const auto cpu_only = place(s, c, cpu_pod(1'000));
  ASSERT_TRUE(cpu_only.has_value());
  EXPECT_EQ(cpu_only->node, 0);
}

TEST(DotProductPlugin, ScoreIsFlooredExactlyAtWholeSteps) {
  const SpecMaxima openb;  // 128 cores, 8 GPUs
  // dot = (8000/8000)(8000/8000) = 1 -> 100 (1 - 1/2) = 50 exactly.
  EXPECT_EQ(DotProductPlugin::score_of(0, 8000, 0, 8000, openb), 50);
  // dot = 1 · 160/8000 = 0.02 -> 100 (1 - 0.01) = 99 exactly (floating point might say 98.99..).
  EXPECT_EQ(DotProductPlugin::score_of(0, 8000, 0, 160, openb), 99);
  // dot = 162/8000 = 0.02025 -> 98.9875 -> 98.
  EXPECT_EQ(DotProductPlugin::score_of(0, 8000, 0, 162, openb), 98);
  // An idle 128-core 8-GPU node and a pod asking for all of it: dot = 1 + 1 = 2 -> 0.
  EXPECT_EQ(DotProductPlugin::score_of(128000, 8000, 128000, 8000, openb), 0);
}

TEST(DotProductPlugin, ScoreEqualsTheExactDivisionOnEveryStepAndRandomInputs) {
  // score_of avoids a 128-bit division (a double estimate corrected by exact products); the
  // reference is that division. Inputs: every whole score's boundary on a 1-GPU share axis
  // (dot/2 = k/100: pod share k·80 on a full 8-GPU node) and its neighbours, then random free
  // and requested amounts up to large maxima (4,096 cores, 64 GPUs).
  __extension__ typedef __int128 Wide;
  const auto reference = [](int64_t fc, int64_t fg, int64_t pc, int64_t pg, const SpecMaxima& m) {
    const Wide c = m.cpu_milli, g = m.gpu_milli;
    const Wide num = Wide{fc} * pc * g * g + Wide{fg} * pg * c * c;
    return 100 - static_cast<int64_t>(ceil_div<Wide>(100 * num, 2 * c * c * g * g));
  };
  const SpecMaxima openb;
  for (int64_t k = 0; k <= 100; ++k)
    for (int64_t d : {-1, 0, 1}) {
      const int64_t pg = std::max<int64_t>(0, k * 160 + d);
      ASSERT_EQ(DotProductPlugin::score_of(0, 8000, 0, pg, openb), reference(0, 8000, 0, pg, openb))
          << pg;
    }
  SpecMaxima large;
  large.cpu_milli = 4'096'000;
  large.gpu_milli = 64'000;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200'000; ++i) {
    const SpecMaxima& m = i % 2 == 0 ? openb : large;
    std::uniform_int_distribution<int64_t> cpu(0, m.cpu_milli), gpu(0, m.gpu_milli);
    const int64_t fc = cpu(rng), fg = gpu(rng), pc = cpu(rng), pg = gpu(rng);
    ASSERT_EQ(DotProductPlugin::score_of(fc, fg, pc, pg, m), reference(fc, fg, pc, pg, m))
        << fc << " " << fg << " " << pc << " " << pg;
  }
}

// ---- gpuclustering --------------------------------------------------------------------------

TEST(GpuClusteringPlugin, SameAffinityFirstThenIdleNodes) {
  // Node 0 runs a 500 share (free 500+3000 = 3500 milli); node 1 a 300 share (3700); node 2 is
  // idle (4000); node 3 runs a 500 share and a whole GPU (2500). 4 GPUs each; Gmax = 8000.
  // Score = tier·25 + floor(25 (8000 - free) / 8000).
  Cluster c = shared_cluster({SharedNode{"A100-80G", 32'000, {500, 1000, 1000, 1000}},
                              SharedNode{"A100-80G", 32'000, {700, 1000, 1000, 1000}}, SharedNode{},
                              SharedNode{"A100-80G", 32'000, {500, 0, 1000, 1000}}});
  Scheduler s(config("gpuclustering"));
  // A 500 share (affinity "share"): node 0 tier 3: 75 + floor(25·4500/8000 = 14.06) = 89;
  // node 1 tier 3: 75 + floor(13.44) = 88; node 2 tier 1: 25 + 12 = 37; node 3 tier 2 (share
  // and 1-gpu): 50 + floor(17.19) = 67 -> node 0, on its best-fit GPU 0 (500 free -> 0).
  auto got = place(s, c, share_pod(500));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  EXPECT_EQ(got->gpu_mask, 1u);
  // A 300 share: every share has one affinity, so node 0 (now 3000 free: 75 + floor(15.63) =
  // 90) beats node 1, which runs 300s (88).
  got = place(s, c, share_pod(300));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  // A whole GPU: nodes 0 and 1 run only shares (tier 0: 16 and 13), node 2 is idle (37), node
  // 3 runs a 1-gpu pod among others (tier 2: 67) -> node 3.
  got = place(s, c, whole_pod(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 3);
  // Two whole GPUs: node 3 has one fully free GPU left; node 0 two (tier 0, 2700 free: 0 +
  // floor(16.56) = 16), node 1 three (tier 0: 13), node 2 four (tier 1: 37) -> node 2.
  got = place(s, c, whole_pod(2));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 2);
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
  // 250: node 0 idle: max(33 - 4, 4) = 29; node 1 on its 300 GPU: 100 - floor(300/100) = 97;
  // node 2 must take a fresh GPU: max(50 - 1, 33) = 49; node 3 on its 600 GPU: 94 -> node 1.
  auto got = place(s, c, share_pod(250));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  EXPECT_EQ(got->gpu_mask, 1u);
  // 500: node 1's partly used GPU has 50 left, so it takes a fresh one (49); node 3's 600 GPU
  // scores 94 -> node 3, GPU 3.
  got = place(s, c, share_pod(500));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 3);
  EXPECT_EQ(got->gpu_mask, 1u << 3);
  // 700: no partly used GPU has room (50, 100): every used node scores 49, the idle one 29 ->
  // the lowest used node, 1, on its lowest fully free GPU, 1.
  got = place(s, c, share_pod(700));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  EXPECT_EQ(got->gpu_mask, 1u << 1);
  // 3 whole GPUs: only node 3 (used, 3 fully free: max(50 - 3, 33) = 47) and the idle node 0
  // (29) have three -> node 3.
  got = place(s, c, whole_pod(3));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 3);
  // 4 whole GPUs: only the idle node 0 can.
  got = place(s, c, whole_pod(4));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
}

TEST(GpuPackingPlugin, PartlyUsedGpusScoreInStepsOfOneHundredMilli) {
  // A 300 share fits node 0's 360 and node 1's 340: both score 100 - 3 = 97, so the lower node
  // wins although node 1's GPU is the tighter fit.
  Cluster c = shared_cluster(
      {SharedNode{"A100-80G", 32'000, {360, 1000}}, SharedNode{"A100-80G", 32'000, {340, 1000}}});
  Scheduler s(config("gpupacking"));
  const auto got = place(s, c, share_pod(300));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 0);
  EXPECT_EQ(got->gpu_mask, 1u);
}

TEST(GpuPackingPlugin, GpuLessPodsScoreZeroEverywhere) {
  // Node 0 has 4 free cores, node 1 only 1, node 2 4: a 2-core pod scores 0 on nodes 0 and 2
  // under both packing and clustering, so the lowest feasible node, 0, gets it, whatever the
  // seed (the authors' plugins return MinNodeScore for pods without GPUs).
  const std::vector<SharedNode> nodes = {SharedNode{"A100-80G", 4'000, {1000}},
                                         SharedNode{"A100-80G", 4'000, {1000}, 3'000},
                                         SharedNode{"A100-80G", 4'000, {0}}};
  for (const char* name : {"gpupacking", "gpuclustering"}) {
    for (uint64_t seed : {1, 5, 9}) {
      Scheduler s(config(name, seed));
      Cluster c = shared_cluster(nodes);
      EXPECT_EQ(place(s, c, cpu_pod(2'000))->node, 0) << name << " seed " << seed;
    }
  }
}

// ---- bestfit --------------------------------------------------------------------------------

TEST(BestFitPlugin, LeastWeightedLeftover) {
  // Spec maxima 128 cores, 8 GPUs. Node 0: 8 cores free, 4 GPUs free; node 1: 2 cores free
  // (6 used), 4 GPUs free. Pod: 1 core, 1 GPU. L = 0.5 cpu_left/128000 + 0.5 gpu_left/8000:
  //   node 0: 0.5·7000/128000 + 0.5·3000/8000 = 0.02734 + 0.1875 = 0.21484 -> floor(78.5) = 78
  //   node 1: 0.5·1000/128000 + 0.5·3000/8000 = 0.00391 + 0.1875 = 0.19141 -> floor(80.9) = 80
  Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 1000, 1000, 1000}},
                              SharedNode{"A100-80G", 8'000, {1000, 1000, 1000, 1000}, 6'000}});
  Scheduler s(config("bestfit"));
  auto got = place(s, c, whole_pod(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
  // A 1-core 900 share. node 0: 0.02734 + 0.5·3100/8000 = 0.22109 -> 77; node 1 (1 core,
  // 3000 milli free): 0 + 0.5·2100/8000 = 0.13125 -> 86.
  got = place(s, c, share_pod(900));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->node, 1);
}

TEST(BestFitPlugin, LeftoversWithinOneStepTie) {
  // Node 0: 8 cores free; node 1: 7 (1 used); 4 GPUs each. Pod 1 core, 1 GPU:
  //   node 0: 0.5·7000/128000 + 0.1875 = 0.21484 -> 78;  node 1: 0.5·6000/128000 + 0.1875 =
  //   0.21094 -> 78. Same integer score: the lowest node id wins, though node 1 fits tighter.
  Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 1000, 1000, 1000}},
                              SharedNode{"A100-80G", 8'000, {1000, 1000, 1000, 1000}, 1'000}});
  Scheduler s(config("bestfit"));
  EXPECT_EQ(place(s, c, whole_pod(1))->node, 0);
  // Exact arithmetic at a step: 1 GPU left of 8 on a 0-CPU remainder: L = 0.5/8 = 0.0625 ->
  // 93.75 -> 93; all 128 cores and 8 GPUs left: L = 1 -> 0.
  const SpecMaxima openb;
  EXPECT_EQ(BestFitPlugin::score_of(0, 1000, openb), 93);
  EXPECT_EQ(BestFitPlugin::score_of(128000, 8000, openb), 0);
  EXPECT_EQ(BestFitPlugin::score_of(0, 0, openb), 100);
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

TEST(FgdPlugin, GrowthsWithinOneScoreStepTie) {
  // Workload: 500 shares. Node 0: one fully free GPU (F = 0); node 1: one GPU with 480 free
  // (F = 480: a 500 share cannot use it). Pod: a 10 share.
  //   node 0: 1000 -> 990, a 500 still fits: F stays 0, ΔF = 0 -> floor(100 sigmoid(0)) = 50
  //   node 1: 480 -> 470: F = 470, ΔF = -10 -> floor(100 sigmoid(0.01)) = floor(50.25) = 50
  // Exact gradient descent would pick node 1; the authors' integer score ties, node 0 wins.
  Cluster c =
      shared_cluster({SharedNode{"A100-80G", 8'000, {1000}}, SharedNode{"A100-80G", 8'000, {480}}});
  Scheduler s(config("fgd"));
  const std::vector<WeightedPodClass> workload = {weighted(share_pod(500), 1.0)};
  s.set_target_workload(workload);
  EXPECT_EQ(place(s, c, share_pod(10))->node, 0);
}

TEST(FgdScore, SigmoidOfTheReductionInGpus) {
  // W = 1000 scaled units per milli-GPU. score = floor(100 / (1 + e^(ΔF/1000 milli))):
  const FgdScore score(1000);
  EXPECT_EQ(score.score(0), 50);             // 100 · 0.5
  EXPECT_EQ(score.score(-100 * 1000), 52);   // reduction 0.1 GPU: 100 · 0.52498
  EXPECT_EQ(score.score(400 * 1000), 40);    // growth 0.4 GPU: 100 · 0.40131
  EXPECT_EQ(score.score(-8000 * 1000), 99);  // 8 GPUs freed of fragmentation: 99.97
  EXPECT_EQ(score.score(8000 * 1000), 0);    // 8 GPUs more: 0.034
  EXPECT_EQ(score.score(-41 * 1000), 51);    // ln(51/49) = 0.0400 GPU: 0.041 is enough
  EXPECT_EQ(score.score(-39 * 1000), 50);    // 0.039 is not
  EXPECT_EQ(FgdScore(0).score(12345), 50);   // no workload: nothing fragments
}

// ---- for_each_candidate() leaves out only nodes the filters refuse ----------------------------

TEST(SharingPlugins, CandidatesAreEveryNodeWithRoom) {
  // Random states (CPU-only nodes, shares of any size, CPU nearly used up) and pods of every
  // kind whose CPU request is often a node's exact free CPU: the candidates that pass the filters
  // are exactly the nodes that pass them, and the index leaves some nodes out.
  std::mt19937 rng(20261128);
  int64_t left_out = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<SharedNode> nodes;
    for (int i = 0; i < 24; ++i) {
      SharedNode s;
      s.gpu_type = i % 4 == 3 ? "H100-80G" : "A100-80G";
      s.free_milli.assign(i % 6 == 5 ? 0 : 4, 1000);
      for (int& m : s.free_milli) {
        const int r = static_cast<int>(rng() % 3);
        m = r == 0 ? 0 : r == 1 ? 1000 : 1 + static_cast<int>(rng() % 999);
      }
      s.cpu_used = static_cast<int64_t>(rng() % 32'000);
      nodes.push_back(s);
    }
    Cluster cluster = shared_cluster(nodes);
    NodeIndex index;
    index.sync(cluster);
    for (int p = 0; p < 20; ++p) {
      const auto any = static_cast<NodeId>(rng() % nodes.size());
      const int64_t cpu = rng() % 2 == 0
                              ? cluster.free(any).cpu_milli + static_cast<int>(rng() % 3) - 1
                              : static_cast<int64_t>(rng() % 32'000);
      const int kind = static_cast<int>(rng() % 3);
      const Resources pod = kind == 0   ? share_pod(1 + static_cast<int>(rng() % 999), cpu)
                            : kind == 1 ? whole_pod(1 + static_cast<int>(rng() % 4), cpu)
                                        : cpu_pod(cpu);
      GangState gang;
      gang.begin(cluster, {pod},
                 rng() % 2 == 0 ? std::vector<GpuTypeId>{0, 1} : std::vector<GpuTypeId>{0});
      const PlacementContext ctx{cluster, index, gang, pod};
      std::set<NodeId> from_candidates, from_all;
      int64_t visited = 0;
      for_each_candidate(ctx, [&](NodeId n) {
        ++visited;
        if (passes_candidate_filters(ctx, n)) from_candidates.insert(n);
      });
      for (NodeId n = 0; n < cluster.node_count(); ++n)
        if (passes_common_filters(ctx, n)) from_all.insert(n);
      ASSERT_EQ(from_candidates, from_all) << "round " << round << " pod " << p;
      left_out += cluster.node_count() - visited;
    }
  }
  EXPECT_GT(left_out, 10'000) << "the index narrows the candidates";
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
        s.free_milli.assign(i % 5 == 4 ? 0 : i % 3 == 2 ? 2 : 4, 1000);  // node 4, 9: no GPUs
        for (int& m : s.free_milli) {
          const int r = static_cast<int>(rng() % 4);
          // Any share, not only the steps of the NodeIndex's share levels (50 milli).
          m = r == 0 ? 0 : r == 1 ? 1000 : 1 + static_cast<int>(rng() % 999);
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
        // CPU requests up to 12 cores against 2..32 free: the CPU filter often decides.
        const auto cpu = static_cast<int64_t>(rng() % 12'000);
        const Resources pod = kind == 0   ? share_pod(1 + static_cast<int>(rng() % 999), cpu)
                              : kind == 1 ? whole_pod(1 + static_cast<int>(rng() % 2), cpu)
                                          : cpu_pod(cpu);
        const std::string_view plugin_name(name);
        // These two draw GPU-less pods at random (see their headers): not a scoring rule.
        if (!pod.needs_gpu() && (plugin_name == "gpuclustering" || plugin_name == "gpupacking"))
          continue;
        GangState gang;
        gang.begin(cluster, {pod}, {0, 1});  // A100-80G, H100-80G
        const PlacementContext ctx{cluster, index, gang, pod};
        // The definition: best score over every node passing the filters, lowest id on ties.
        reference->pre_score(ctx);
        std::optional<NodeId> want;
        NodeScore best;
        for (NodeId n = 0; n < cluster.node_count(); ++n) {
          if (!passes_common_filters(ctx, n)) continue;
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
        testing::take(cluster, *got, pod, mask);
        index.note(cluster, *got);
      }
    }
  }
  EXPECT_GT(compared, 3'000);
}

}  // namespace
}  // namespace gantry
