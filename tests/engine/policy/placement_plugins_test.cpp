// Hand-worked placements of the built-in plugins, and a check that each plugin's fast select()
// picks the node its filter/score rule defines.

#include <gtest/gtest.h>

#include <array>
#include <random>

#include "engine/policy/binpack_plugin.hpp"
#include "engine/policy/plugin_registry.hpp"
#include "engine/policy/scheduler.hpp"
#include "engine/policy/spread_plugin.hpp"
#include "engine/policy/topology_plugin.hpp"
#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

using testing::gpu_pod;
using testing::kGi;
using testing::make_topology;
using testing::NodeDef;
using testing::occupy;
using testing::uniform_cluster;
using testing::worker_job;

// Places one job with the named plugin on `cluster`; fails the test if it does not fit.
std::vector<PodPlacement> place(Cluster& cluster, const std::string& plugin, const JobSpec& job) {
  SchedulerConfig c;
  c.placement = plugin;
  Scheduler s(c);
  EXPECT_TRUE(s.submit(1, job, job.submit));
  auto placed = s.run_cycle(cluster, Time());
  EXPECT_EQ(placed.size(), 1u) << plugin;
  return placed.empty() ? std::vector<PodPlacement>{} : placed[0].pods;
}

std::vector<NodeId> nodes_of(const std::vector<PodPlacement>& pods) {
  std::vector<NodeId> out;
  for (const auto& p : pods) out.push_back(p.node);
  return out;
}

// Free GPUs: node 0: 8, node 1: 2, node 2: 4.
Cluster partly_used() {
  Cluster c = uniform_cluster(3);
  occupy(c, 1, 6);
  occupy(c, 2, 4);
  return c;
}

TEST(Binpack, PicksTheNodeWithFewestFreeGpusAfterPlacing) {
  Cluster c = partly_used();
  const auto pods = place(c, "binpack", worker_job(1, 2));
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0].node, 1);
  EXPECT_EQ(pods[0].gpu_mask, 0xC0u);  // GPUs 6 and 7, the free ones
}

TEST(Spread, PicksTheNodeWithMostFreeGpus) {
  Cluster c = partly_used();
  const auto pods = place(c, "spread", worker_job(1, 2));
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0].node, 0);
  EXPECT_EQ(pods[0].gpu_mask, 0x03u);
}

TEST(Binpack, BreaksGpuTiesByLeastFreeCpu) {
  Cluster c = uniform_cluster(3);
  occupy(c, 0, 4);
  occupy(c, 1, 4);
  testing::take(c, 1, Resources{50'000, kGi, 0}, 0);  // node 1 has less CPU left
  EXPECT_EQ(nodes_of(place(c, "binpack", worker_job(1, 4))), std::vector<NodeId>{1});
}

TEST(Spread, BreaksTiesByLowestNodeId) {
  Cluster c = uniform_cluster(3);
  occupy(c, 0, 4);
  testing::take(c, 2, Resources{50'000, kGi, 0}, 0);  // CPU does not matter to spread
  EXPECT_EQ(nodes_of(place(c, "spread", worker_job(1, 4))), std::vector<NodeId>{1});
}

TEST(BinpackVersusSpread, SmallGangShareOrSplitNodes) {
  Cluster a = uniform_cluster(2);
  Cluster b = uniform_cluster(2);
  EXPECT_EQ(nodes_of(place(a, "binpack", worker_job(2, 1))), (std::vector<NodeId>{0, 0}));
  EXPECT_EQ(nodes_of(place(b, "spread", worker_job(2, 1))), (std::vector<NodeId>{0, 1}));
}

TEST(Topology, EightSingleGpuPodsLandOnOneNodeWithEightFree) {
  Cluster c = uniform_cluster(2);
  occupy(c, 0, 5);  // node 0: 3 free; node 1: 8 free
  const auto pods = place(c, "topology", worker_job(8, 1));
  EXPECT_EQ(nodes_of(pods), std::vector<NodeId>(8, 1));
  uint64_t all = 0;
  for (const auto& p : pods) all |= p.gpu_mask;
  EXPECT_EQ(all, 0xFFu);

  // Binpack, for contrast, fills node 0's three free GPUs first.
  Cluster d = uniform_cluster(2);
  occupy(d, 0, 5);
  EXPECT_EQ(nodes_of(place(d, "binpack", worker_job(8, 1))),
            (std::vector<NodeId>{0, 0, 0, 1, 1, 1, 1, 1}));
}

TEST(Topology, TwoByEightGangLandsInOneRackWhenPossible) {
  // rack 0: node 0 free, node 1 full; rack 1: nodes 2 and 3 free.
  auto make = [] {
    Cluster c(make_topology(
        {NodeDef{.rack = 0}, NodeDef{.rack = 0}, NodeDef{.rack = 1}, NodeDef{.rack = 1}}));
    occupy(c, 1, 8);
    return c;
  };
  Cluster c = make();
  EXPECT_EQ(nodes_of(place(c, "topology", worker_job(2, 8))), (std::vector<NodeId>{2, 3}));
  Cluster d = make();
  EXPECT_EQ(nodes_of(place(d, "binpack", worker_job(2, 8))), (std::vector<NodeId>{0, 2}));
}

TEST(Topology, GangThatNeedsARackPicksTheRackThatHoldsItAll) {
  // rack 0: nodes 0, 1; rack 1: nodes 2, 3, 4. A 3x8 gang fits only in rack 1.
  auto make = [] {
    return Cluster(make_topology({NodeDef{.rack = 0}, NodeDef{.rack = 0}, NodeDef{.rack = 1},
                                  NodeDef{.rack = 1}, NodeDef{.rack = 1}}));
  };
  Cluster c = make();
  EXPECT_EQ(nodes_of(place(c, "topology", worker_job(3, 8))), (std::vector<NodeId>{2, 3, 4}));
  Cluster d = make();
  EXPECT_EQ(nodes_of(place(d, "binpack", worker_job(3, 8))), (std::vector<NodeId>{0, 1, 2}));
}

TEST(Topology, FirstPodGoesWhereMostOfTheGangCanFollow) {
  Cluster c = uniform_cluster(2);
  occupy(c, 0, 4);  // node 0 holds two 2-GPU pods, node 1 all four
  EXPECT_EQ(nodes_of(place(c, "topology", worker_job(4, 2))), (std::vector<NodeId>{1, 1, 1, 1}));
}

TEST(Topology, SinglePodBestFitsLikeBinpack) {
  Cluster c = uniform_cluster(2);
  occupy(c, 1, 6);
  EXPECT_EQ(nodes_of(place(c, "topology", worker_job(1, 2))), std::vector<NodeId>{1});
}

Cluster islands_of_four(int nodes) {
  std::vector<NodeDef> defs(static_cast<size_t>(nodes), NodeDef{.island_size = 4});
  return Cluster(make_topology(defs));
}

TEST(Topology, GpusInsideTheIslandWithFewestFreeThatFits) {
  Cluster c = islands_of_four(1);
  occupy(c, 0, 2);  // island 0 has GPUs 2, 3 free; island 1 all four
  EXPECT_EQ(place(c, "topology", worker_job(1, 2))[0].gpu_mask, 0x0Cu);
  Cluster d = islands_of_four(1);
  occupy(d, 0, 2);
  EXPECT_EQ(place(d, "topology", worker_job(1, 4))[0].gpu_mask, 0xF0u);
  // Binpack takes the lowest free GPUs and straddles both islands.
  Cluster e = islands_of_four(1);
  occupy(e, 0, 2);
  EXPECT_EQ(place(e, "binpack", worker_job(1, 4))[0].gpu_mask, 0x3Cu);
}

TEST(Topology, PrefersTheNodeWhereThePodFitsInOneIsland) {
  auto make = [] {
    Cluster c = islands_of_four(2);
    testing::take(c, 0, Resources{1'000, kGi, 4}, 0x33);  // node 0: GPUs 2,3 and 6,7 free (2 + 2)
    testing::take(c, 1, Resources{1'000, kGi, 4}, 0x0F);  // node 1: island 1 free
    return c;
  };
  Cluster c = make();
  const auto pods = place(c, "topology", worker_job(1, 4));
  EXPECT_EQ(pods[0].node, 1);
  EXPECT_EQ(pods[0].gpu_mask, 0xF0u);
  Cluster d = make();
  EXPECT_EQ(place(d, "binpack", worker_job(1, 4))[0].node, 0);
}

TEST(Topology, CpuOnlyPodFollowsTheGang) {
  // An MPI job: workers first (pod order of this spec), then a launcher with no GPU. The
  // launcher joins a node of the gang rather than the lowest free node.
  Cluster c = uniform_cluster(3);
  occupy(c, 0, 8);
  JobSpec job;
  job.roles.push_back(RoleSpec{RoleKind::kWorker, 1, gpu_pod(8)});
  job.roles.push_back(RoleSpec{RoleKind::kLauncher, 1, Resources{2'000, kGi, 0}});
  EXPECT_EQ(nodes_of(place(c, "topology", job)), (std::vector<NodeId>{1, 1}));
}

TEST(Topology, LauncherFirstInPodOrderStillJoinsTheGang) {
  // The launcher comes first in pod order, but GPU pods are placed first: the 2x8 workers pick
  // rack 1 (which holds both), and the launcher follows them instead of taking node 0.
  Cluster c(make_topology(
      {NodeDef{.rack = 0}, NodeDef{.rack = 0}, NodeDef{.rack = 1}, NodeDef{.rack = 1}}));
  occupy(c, 1, 8);
  JobSpec job;
  job.roles.push_back(RoleSpec{RoleKind::kLauncher, 1, Resources{2'000, kGi, 0}});
  job.roles.push_back(RoleSpec{RoleKind::kWorker, 2, gpu_pod(8)});
  const auto pods = place(c, "topology", job);
  EXPECT_EQ(nodes_of(pods), (std::vector<NodeId>{2, 2, 3}));
  EXPECT_EQ(pods[0].gpu_mask, 0u);
  EXPECT_EQ(pods[1].gpu_mask, 0xFFu);
}

// ---- select() agrees with the filter/score definition ------------------------------------

// The node the framework's rule defines: common filters, plugin filter, highest score, lowest id.
std::optional<NodeId> reference_select(PlacementPlugin& plugin, const PlacementContext& ctx) {
  plugin.pre_score(ctx);
  std::optional<NodeId> best;
  NodeScore best_score;
  for (NodeId n = 0; n < ctx.cluster.node_count(); ++n) {
    if (!passes_common_filters(ctx, n)) continue;
    const NodeScore s = plugin.score(ctx, n);
    if (!best || s > best_score) {
      best = n;
      best_score = s;
    }
  }
  return best;
}

TEST(PlacementPlugins, SelectMatchesTheScoringRuleOnRandomStates) {
  std::mt19937 rng(20240601);  // fixed seed: the same states on every run
  std::vector<NodeDef> defs;
  for (int i = 0; i < 16; ++i) {
    NodeDef d;
    d.rack = i / 4;
    if (i % 5 == 4) {
      d.gpu_type = "H100-80G";
    } else if (i % 7 == 6) {
      d.gpu_type = "";
      d.gpus = 0;
    } else if (i % 3 == 2) {
      d.gpus = 4;
      d.island_size = 2;
    } else {
      d.island_size = 4;
    }
    defs.push_back(d);
  }
  const Topology topology = make_topology(defs);
  int compared = 0;
  for (const char* name : {"binpack", "spread", "topology"}) {
    for (int round = 0; round < 200; ++round) {
      Cluster cluster(topology);
      for (NodeId n = 0; n < cluster.node_count(); ++n) {
        const int cap = cluster.node_class(n).capacity.gpus;
        const uint64_t mask = cap > 0 ? (rng() & ((1ull << cap) - 1)) : 0;
        const Resources r{static_cast<int64_t>(rng() % 90'000), kGi, std::popcount(mask)};
        testing::take(cluster, n, r, mask);
      }
      std::vector<Resources> pods;
      const int count = 1 + static_cast<int>(rng() % 6);
      const int gpus = static_cast<int>(rng() % 5);  // 0..4
      for (int i = 0; i < count; ++i)
        pods.push_back(Resources{static_cast<int64_t>(rng() % 8'000), kGi, gpus});
      std::vector<GpuTypeId> types;
      if (rng() % 2) {
        types = {0, 1, 2, 3, 4, 5, 6};
      } else {
        types = {static_cast<GpuTypeId>(rng() % 2)};  // A100-80G or H100-80G
      }
      auto plugin = make_placement_plugin(name);
      auto reference = make_placement_plugin(name);
      NodeIndex index;
      index.sync(cluster);
      GangState gang;
      gang.begin(cluster, pods, types);
      while (!gang.complete()) {
        const Resources& pod = gang.pod(gang.current());
        const PlacementContext ctx{cluster, index, gang, pod};
        const auto want = reference_select(*reference, ctx);
        const auto got = plugin->select(ctx);
        ASSERT_EQ(got, want) << name << " round " << round << " pod " << gang.current();
        ++compared;
        if (!got) break;
        const uint64_t mask = plugin->pick_gpus(ctx, *got);
        ASSERT_EQ(std::popcount(mask), pod.gpus);
        ASSERT_EQ(cluster.free_gpu_mask(*got) & mask, mask);
        testing::take(cluster, *got, pod, mask);
        index.note(cluster, *got);
        gang.add(cluster, *got, mask);
      }
    }
  }
  EXPECT_GT(compared, 600);
}

// The topology plugin's bucket walk (NVSwitch-like nodes: one island each, so it does not fall
// back to the full scan) against the scoring rule, on many random states: racks of different
// sizes whose node ids interleave, two GPU types and 4- and 8-GPU nodes, CPU-only nodes, nodes
// short of CPU, cordoned or failed, a nodeSelector now and then, gangs of one or two roles and
// scale-outs next to running pods (so keys 4 and 5 differ between racks).
TEST(Topology, BucketWalkMatchesTheScoringRuleOnRandomStates) {
  std::mt19937 rng(20261128);  // fixed seed: the same states on every run
  int compared = 0;
  int placed_in_a_gang_rack = 0;
  for (int round = 0; round < 1500; ++round) {
    std::vector<NodeDef> defs;
    const int nodes = 8 + static_cast<int>(rng() % 40);
    const int racks = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < nodes; ++i) {
      NodeDef d;
      d.rack = static_cast<int>(rng() % static_cast<unsigned>(racks));
      const unsigned kind = rng() % 10;
      if (kind < 2) d.gpu_type = "H100-80G";
      if (kind == 2) {
        d.gpus = 4;
        d.island_size = 4;
      }
      if (kind == 3) {
        d.gpu_type = "";
        d.gpus = 0;
      }
      defs.push_back(d);
    }
    Cluster cluster(make_topology(defs));
    NodeIndex index;
    index.sync(cluster);  // before the load: the later sync() goes through the change log
    for (NodeId n = 0; n < cluster.node_count(); ++n) {
      const int cap = cluster.node_class(n).capacity.gpus;
      // Mostly busy nodes, as in a loaded cluster, some empty.
      const uint64_t mask = cap == 0 || rng() % 5 == 0 ? 0 : (rng() & rng() & ((1ull << cap) - 1));
      const Resources r{static_cast<int64_t>(rng() % 95'000), kGi, std::popcount(mask)};
      testing::take(cluster, n, r, mask);
      if (rng() % 12 == 0) cluster.set_cordoned(n, true);
      if (rng() % 12 == 0) cluster.set_ready(n, false);
      if (rng() % 2 == 0) cluster.set_labels(n, Labels{{"pool", rng() % 3 == 0 ? "b" : "a"}});
    }
    index.sync(cluster);

    std::vector<Resources> pods;
    const int roles = 1 + static_cast<int>(rng() % 2);
    for (int role = 0; role < roles; ++role) {
      const int count = 1 + static_cast<int>(rng() % 5);
      const int gpus = std::array{1, 2, 3, 4, 8}[rng() % 5];
      const int64_t cpu = static_cast<int64_t>(rng() % 6'000);
      for (int i = 0; i < count; ++i) pods.push_back(Resources{cpu, kGi, gpus});
    }
    std::vector<GpuTypeId> types;
    if (rng() % 3 == 0) {
      types = {0, 1};
    } else {
      types = {static_cast<GpuTypeId>(rng() % 2)};  // A100-80G or H100-80G
    }
    const Labels selector{{"pool", "a"}};
    auto plugin = make_placement_plugin("topology");
    auto reference = make_placement_plugin("topology");
    GangState gang;
    gang.begin(cluster, pods, types);
    if (rng() % 4 == 0) gang.set_constraints(&selector, nullptr);
    if (rng() % 3 == 0) {
      // A scale-out: one to three running pods of the gang, on nodes of its GPU types.
      for (int e = static_cast<int>(rng() % 3); e >= 0; --e) {
        const auto n = static_cast<NodeId>(rng() % static_cast<unsigned>(nodes));
        if (cluster.gpu_type_of(n) == types[0]) gang.add_existing(cluster, n, 0);
      }
    }
    while (!gang.complete()) {
      const Resources& pod = gang.pod(gang.current());
      const PlacementContext ctx{cluster, index, gang, pod};
      const auto want = reference_select(*reference, ctx);
      const auto got = plugin->select(ctx);
      ASSERT_EQ(got, want) << "round " << round << " pod " << gang.current();
      ++compared;
      if (!got) break;
      if (gang.pods_in_rack(cluster.rack_of(*got)) > 0 && gang.pods_on(*got) == 0)
        ++placed_in_a_gang_rack;
      const uint64_t mask = plugin->pick_gpus(ctx, *got);
      testing::take(cluster, *got, pod, mask);
      index.note(cluster, *got);
      gang.add(cluster, *got, mask);
    }
  }
  // The states are varied enough to reach every part of the walk.
  EXPECT_GT(compared, 3000);
  EXPECT_GT(placed_in_a_gang_rack, 100);
}

}  // namespace
}  // namespace gantry
