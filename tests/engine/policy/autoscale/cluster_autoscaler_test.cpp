// ClusterAutoscaler (engine/policy/autoscale/cluster_autoscaler.hpp) on a hand-built cluster:
// one static 8-GPU A100 node and six pools of different shapes, prices and constraints. Every
// expected count and pool is worked out in the comments.

#include "engine/policy/autoscale/cluster_autoscaler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

using ::testing::ElementsAre;
using testing::kGi;

constexpr int32_t kA100 = 0, kH100 = 1, kL40S = 2, kA10 = 3, kCpu = 4;
enum PoolIndex { kA100Od, kA100Spot, kH100Od, kL40SOd, kA10Od, kCpuOd };

NodeClass node_class(const GpuCatalog& gpus, std::string name, const char* model, int count,
                     int64_t cores, int64_t memory_gi) {
  NodeClass c;
  c.name = std::move(name);
  c.capacity = Resources{cores * 1000, memory_gi * kGi, count};
  c.gpu_type = model == nullptr ? -1 : gpus.find(model);
  c.island_size = count;
  return c;
}

// Classes: a100x8 (96 cores, 1 Ti), h100x8 (192 cores, 2 Ti), l40sx4 (48 cores, 512 Gi), a10x1
// (32 cores, 128 Gi), cpu (64 cores, 256 Gi). Node 0: a static a100x8 in rack r0.
Cluster make_cluster() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes = {node_class(t.gpus, "a100x8", "A100-80G", 8, 96, 1024),
               node_class(t.gpus, "h100x8", "H100-80G", 8, 192, 2048),
               node_class(t.gpus, "l40sx4", "L40S", 4, 48, 512),
               node_class(t.gpus, "a10x1", "A10", 1, 32, 128),
               node_class(t.gpus, "cpu", nullptr, 0, 64, 256)};
  t.racks = {"r0", "r1"};
  t.nodes.push_back(NodeInfo{"static-a100", kA100, 0});
  return Cluster(std::move(t));
}

NodePoolSpec pool(std::string name, int32_t cls, int max, double price) {
  NodePoolSpec p;
  p.name = std::move(name);
  p.node_class = cls;
  p.max_nodes = max;
  p.price_per_hour = price;
  p.provisioning = DelayDistribution::constant(minutes(3));
  return p;
}

std::vector<NodePoolSpec> make_pools() {
  NodePoolSpec spot = pool("a100-spot", kA100, 2, 12.0);
  spot.rack = 1;
  spot.capacity = CapacityType::kSpot;
  spot.reclaim.mean_time_to_reclaim = hours(20);
  spot.labels = {{"capacity", "spot"}};
  spot.taints = {Taint{"spot", "true", TaintEffect::kNoSchedule}};
  return {pool("a100-od", kA100, 4, 32.77), spot,
          pool("h100-od", kH100, 2, 98.32), pool("l40s-od", kL40S, 4, 40.0),
          pool("a10-od", kA10, 8, 1.0),     pool("cpu-od", kCpu, 10, 3.0)};
}

JobSpec gpu_job(int pods, int gpus, std::string model = "") {
  return testing::worker_job(pods, gpus, 0, 0, std::move(model));
}

Toleration spot_toleration() {
  Toleration t;
  t.key = "spot";
  t.value = "true";
  return t;
}

struct Harness {
  explicit Harness(AutoscalerConfig config = {}, std::vector<NodePoolSpec> specs = make_pools())
      : cluster(make_cluster()), states(specs.size()), autoscaler(std::move(specs), config) {}

  AutoscalerDecision run(const std::vector<JobSpec>& jobs, Time now = Time::from_micros(0)) {
    std::vector<const JobSpec*> pending;
    for (const JobSpec& j : jobs) pending.push_back(&j);
    return autoscaler.run(cluster, states, pending, now);
  }
  // A node of pool p, up.
  NodeId add_pool_node(int p) {
    const NodePoolSpec& spec = autoscaler.pools()[static_cast<size_t>(p)];
    const Result<NodeId> n =
        cluster.add_node(NodeInfo{spec.name + "-" + std::to_string(cluster.node_count()),
                                  spec.node_class, spec.rack, spec.labels, spec.taints});
    EXPECT_TRUE(n.is_ok());
    states[static_cast<size_t>(p)].nodes.push_back(n.value());
    return n.value();
  }

  Cluster cluster;
  std::vector<PoolState> states;
  ClusterAutoscaler autoscaler;
};

// ---- scale-up ----

TEST(ClusterAutoscaler, GangThatFitsOnFreeRoomAddsNothing) {
  Harness h;
  // The static node's 8 free A100s hold a 1 × 8-GPU gang.
  const AutoscalerDecision d = h.run({gpu_job(1, 8)});
  EXPECT_TRUE(d.scale_ups.empty());
  EXPECT_THAT(d.fits, ElementsAre(0));
  EXPECT_TRUE(d.skipped.empty());
  EXPECT_EQ(d.considered, 1);
}

TEST(ClusterAutoscaler, ExpandersDisagreeOnAFourGpuPod) {
  // Static node full. One pod of 4 GPUs, 4 cores, any model. Candidates, one new node each:
  //   a100-od   idle 4 GPUs (4000 milli), idle CPU 96000 − 4000 = 92000, 32.77/h
  //   h100-od   idle 4000 milli, CPU 188000, 98.32/h
  //   l40s-od   idle 0 milli (4 of 4 taken), CPU 44000, 40.00/h
  //   a100-spot taint not tolerated; a10-od: 4 GPUs > 1; cpu-od: no GPU.
  // least-waste: l40s-od (0 idle GPU milli). price: a100-od (32.77 < 40 < 98.32).
  for (const auto& [expander, chosen] :
       {std::pair{Expander::kLeastWaste, kL40SOd}, std::pair{Expander::kPrice, kA100Od}}) {
    Harness h(AutoscalerConfig{.expander = expander});
    testing::occupy(h.cluster, 0, 8);
    const AutoscalerDecision d = h.run({gpu_job(1, 4)});
    ASSERT_EQ(d.scale_ups.size(), 1u) << to_string(expander);
    EXPECT_EQ(d.scale_ups[0].pool, chosen) << to_string(expander);
    EXPECT_EQ(d.scale_ups[0].count, 1);
    EXPECT_EQ(d.scale_ups[0].to_min, 0);
    EXPECT_THAT(d.scale_ups[0].gangs, ElementsAre(0));
  }
}

TEST(ClusterAutoscaler, TiesGoToThePoolNameThatSortsFirst) {
  // Two identical pools, listed "zeta" first: same waste, same price -> "alpha" (index 1).
  for (Expander e : {Expander::kLeastWaste, Expander::kPrice}) {
    Harness h(AutoscalerConfig{.expander = e},
              {pool("zeta", kA100, 4, 10.0), pool("alpha", kA100, 4, 10.0)});
    testing::occupy(h.cluster, 0, 8);
    const AutoscalerDecision d = h.run({gpu_job(1, 8)});
    ASSERT_EQ(d.scale_ups.size(), 1u);
    EXPECT_EQ(d.scale_ups[0].pool, 1) << to_string(e);
  }
}

TEST(ClusterAutoscaler, SpotPoolWinsOnPriceWhenTolerated) {
  // A job tolerating the spot taint, no selector, A100 only: a100-od and a100-spot both host its
  // 8-GPU pod on one new node. Price: spot 12 < 32.77. Least-waste: both leave 0 GPUs and 92000m
  // CPU idle, a tie -> "a100-od" < "a100-spot".
  JobSpec job = gpu_job(1, 8, "A100-80G");
  job.tolerations = {spot_toleration()};
  for (const auto& [expander, chosen] :
       {std::pair{Expander::kPrice, kA100Spot}, std::pair{Expander::kLeastWaste, kA100Od}}) {
    Harness h(AutoscalerConfig{.expander = expander});
    testing::occupy(h.cluster, 0, 8);
    const AutoscalerDecision d = h.run({job});
    ASSERT_EQ(d.scale_ups.size(), 1u);
    EXPECT_EQ(d.scale_ups[0].pool, chosen) << to_string(expander);
  }
}

TEST(ClusterAutoscaler, NodeSelectorLimitsThePools) {
  // Selector capacity=spot matches only a100-spot's labels; the toleration lets it in. Without
  // the selector least-waste would pick l40s-od for a 4-GPU pod (ExpandersDisagree...).
  JobSpec job = gpu_job(1, 4);
  job.node_selector = {{"capacity", "spot"}};
  job.tolerations = {spot_toleration()};
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d = h.run({job});
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].pool, kA100Spot);
  EXPECT_EQ(d.scale_ups[0].count, 1);
}

TEST(ClusterAutoscaler, CountsNodesByFirstFitDecreasing) {
  // Static node: all 8 GPUs taken, 95 cores free (occupy() takes 1 core). The job: a Master of 8
  // cores and no GPU, then 5 Workers of 4 GPUs (4 cores each), A100 only.
  // FFD: the workers first (more GPUs); none fits on existing room (no free GPU), so they go to
  // new a100x8 nodes two by two: 4+4 | 4+4 | 4 = 3 nodes (ceil(5 / 2)). The Master then fits on
  // the static node's free CPU: no node for it. Only a100-od may host A100 pods without the spot
  // toleration.
  JobSpec job = gpu_job(5, 4, "A100-80G");
  job.roles.insert(job.roles.begin(), RoleSpec{RoleKind::kMaster, 1, Resources{8'000, 8 * kGi}});
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d = h.run({job});
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].pool, kA100Od);
  EXPECT_EQ(d.scale_ups[0].count, 3);
}

TEST(ClusterAutoscaler, GangsShareANewNodesRoom) {
  // Static node full. Gang 0: one 4-GPU A100 pod -> a100-od +1 node, 4 GPUs left on it. Gang 1:
  // one 4-GPU pod -> those 4 GPUs (no new node). Gang 2: one 8-GPU pod -> +1 node. Total 2.
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d =
      h.run({gpu_job(1, 4, "A100-80G"), gpu_job(1, 4, "A100-80G"), gpu_job(1, 8, "A100-80G")});
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].pool, kA100Od);
  EXPECT_EQ(d.scale_ups[0].count, 2);
  EXPECT_THAT(d.scale_ups[0].gangs, ElementsAre(0, 2));
  EXPECT_THAT(d.fits, ElementsAre(1));
}

TEST(ClusterAutoscaler, NodesBeingProvisionedAreRoom) {
  // a100-od has one node being provisioned: gang 0 (8 GPUs) counts on it; gang 1 needs a new one.
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  h.states[kA100Od].provisioning = 1;
  const AutoscalerDecision d = h.run({gpu_job(1, 8, "A100-80G"), gpu_job(1, 8, "A100-80G")});
  EXPECT_THAT(d.fits, ElementsAre(0));
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].count, 1);
  EXPECT_THAT(d.scale_ups[0].gangs, ElementsAre(1));
}

TEST(ClusterAutoscaler, MaxSizeIsRespected) {
  // 5 pods of 8 A100s need 5 a100x8 nodes; a100-od allows 4. Every other pool is out.
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d = h.run({gpu_job(5, 8, "A100-80G")});
  EXPECT_TRUE(d.scale_ups.empty());
  ASSERT_EQ(d.skipped.size(), 1u);
  EXPECT_EQ(d.skipped[0].why,
            "pool a100-od: needs 5 new nodes, room for 4 (max 4); "
            "pool a100-spot: taint spot=true:NoSchedule not tolerated; "
            "pool h100-od: GPU model H100-80G is not one the job allows (A100-80G); "
            "pool l40s-od: GPU model L40S is not one the job allows (A100-80G); "
            "pool a10-od: GPU model A10 is not one the job allows (A100-80G); "
            "pool cpu-od: node class cpu has no GPU");
}

TEST(ClusterAutoscaler, MaxCountsNodesUpAndBeingProvisioned) {
  // a100-od: 3 nodes up (all busy) + 1 provisioning = 4 = max. A gang of 2 × 8 GPUs: one pod on
  // the provisioning node, the other needs 1 new node, room 4 − 3 − 1 = 0: skipped.
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  for (int i = 0; i < 3; ++i) testing::occupy(h.cluster, h.add_pool_node(kA100Od), 8);
  h.states[kA100Od].provisioning = 1;
  const AutoscalerDecision d = h.run({gpu_job(2, 8, "A100-80G")});
  EXPECT_TRUE(d.scale_ups.empty());
  ASSERT_EQ(d.skipped.size(), 1u);
  EXPECT_THAT(d.skipped[0].why,
              ::testing::StartsWith("pool a100-od: needs 1 new node, room for 0 (max 4); "));
}

TEST(ClusterAutoscaler, GangNoPoolCanHostIsSkippedWithEveryReason) {
  // H800 is in the catalog, but no pool has it.
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d = h.run({gpu_job(1, 8, "H800"), gpu_job(1, 1, "A10")});
  ASSERT_EQ(d.skipped.size(), 1u);
  EXPECT_EQ(d.skipped[0].gang, 0);
  EXPECT_EQ(d.skipped[0].why,
            "pool a100-od: GPU model A100-80G is not one the job allows (H800); "
            "pool a100-spot: taint spot=true:NoSchedule not tolerated; "
            "pool h100-od: GPU model H100-80G is not one the job allows (H800); "
            "pool l40s-od: GPU model L40S is not one the job allows (H800); "
            "pool a10-od: GPU model A10 is not one the job allows (H800); "
            "pool cpu-od: node class cpu has no GPU");
  // The gang behind it is not held up: one A10 node.
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].pool, kA10Od);
  EXPECT_THAT(d.scale_ups[0].gangs, ElementsAre(1));
}

TEST(ClusterAutoscaler, NoPoolsAtAll) {
  Harness h(AutoscalerConfig{}, {});
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d = h.run({gpu_job(1, 8)});
  ASSERT_EQ(d.skipped.size(), 1u);
  EXPECT_EQ(d.skipped[0].why, "no node pool");
}

TEST(ClusterAutoscaler, GpuSharesPackIntoOneGpu) {
  // Three pods of half an A10 (500 milli, 2 cores): two share the GPU of one a10x1 node, the
  // third opens a second node: 2 nodes.
  JobSpec job = gpu_job(3, 0, "A10");
  job.roles[0].per_replica = Resources{2'000, 4 * kGi, 0, 500};
  Harness h;
  const AutoscalerDecision d = h.run({job});
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].pool, kA10Od);
  EXPECT_EQ(d.scale_ups[0].count, 2);
}

TEST(ClusterAutoscaler, PartialAdmissionFallsBackToMinReplicas) {
  // 4 Workers of 8 A100s, minReplicas 2; a100-od allows 2 nodes here. All 4 need 4 nodes > 2;
  // with 2 replicas, 2 nodes.
  std::vector<NodePoolSpec> pools = make_pools();
  pools[kA100Od].max_nodes = 2;
  Harness h(AutoscalerConfig{}, pools);
  testing::occupy(h.cluster, 0, 8);
  JobSpec job = gpu_job(4, 8, "A100-80G");
  job.min_replicas = 2;
  const AutoscalerDecision d = h.run({job});
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].count, 2);
  EXPECT_TRUE(d.skipped.empty());
}

TEST(ClusterAutoscaler, PoolBelowMinimumIsRestored) {
  // a100-od min 2, nothing up: +2 (to_min 2). The 8-GPU gang counts on one of them.
  std::vector<NodePoolSpec> pools = make_pools();
  pools[kA100Od].min_nodes = 2;
  Harness h(AutoscalerConfig{}, pools);
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d = h.run({gpu_job(1, 8, "A100-80G")});
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].count, 2);
  EXPECT_EQ(d.scale_ups[0].to_min, 2);
  EXPECT_TRUE(d.scale_ups[0].gangs.empty());
  EXPECT_THAT(d.fits, ElementsAre(0));
}

TEST(ClusterAutoscaler, LooksAtMostMaxGangsPerCall) {
  Harness h(AutoscalerConfig{.max_gangs_per_call = 1});
  testing::occupy(h.cluster, 0, 8);
  const AutoscalerDecision d = h.run({gpu_job(1, 8, "A100-80G"), gpu_job(1, 8, "A100-80G")});
  EXPECT_EQ(d.considered, 1);
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].count, 1);
}

TEST(ClusterAutoscaler, LargeBacklogOnALargeCluster) {
  // 2,000 more static a100x8 nodes, every GPU of all 2,001 taken; 10,000 pending 8-GPU A100
  // gangs. The first 1,000 (max_gangs_per_call) are looked at: gangs 0-3 get a100-od's 4 nodes
  // (max 4), the other 996 are skipped (the first of them with a reason, the rest as its equals).
  Harness h;
  for (int i = 0; i < 2'000; ++i)
    ASSERT_TRUE(h.cluster.add_node(NodeInfo{"s" + std::to_string(i), kA100, 0}).is_ok());
  for (NodeId n = 0; n < h.cluster.node_count(); ++n) testing::occupy(h.cluster, n, 8);
  const std::vector<JobSpec> jobs(10'000, gpu_job(1, 8, "A100-80G"));
  const AutoscalerDecision d = h.run(jobs);
  EXPECT_EQ(d.considered, 1'000);
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(d.scale_ups[0].count, 4);
  EXPECT_THAT(d.scale_ups[0].gangs, ElementsAre(0, 1, 2, 3));
  ASSERT_EQ(d.skipped.size(), 996u);
  EXPECT_EQ(d.skipped.front().gang, 4);
  EXPECT_EQ(d.skipped.back().gang, 999);
}

// ---- scale-down ----

const Time kT0 = Time::from_micros(0) + hours(1);

TEST(ClusterAutoscaler, EmptyNodeGoesAfterExactlyTheUnneededTime) {
  Harness h;
  const NodeId n = h.add_pool_node(kA100Od);
  EXPECT_TRUE(h.run({}, kT0).scale_downs.empty());
  EXPECT_EQ(h.autoscaler.empty_since(n), kT0);
  // 10 min − 1 µs after: not yet.
  EXPECT_TRUE(h.run({}, kT0 + minutes(10) - microseconds(1)).scale_downs.empty());
  const AutoscalerDecision d = h.run({}, kT0 + minutes(10));
  ASSERT_EQ(d.scale_downs.size(), 1u);
  EXPECT_EQ(d.scale_downs[0].pool, kA100Od);
  EXPECT_EQ(d.scale_downs[0].node, n);
  // The static node (in no pool) is never a candidate.
  EXPECT_EQ(h.autoscaler.empty_since(0), std::nullopt);
}

TEST(ClusterAutoscaler, BusyNodeRestartsItsClockAndMinIsKept) {
  // Pool min 1, two nodes. n2 empty from T0; n1 busy until T0+1m, so empty from T0+1m.
  std::vector<NodePoolSpec> pools = make_pools();
  pools[kA100Od].min_nodes = 1;
  Harness h(AutoscalerConfig{}, pools);
  const NodeId n1 = h.add_pool_node(kA100Od);
  const NodeId n2 = h.add_pool_node(kA100Od);
  const AllocationOwner busy = testing::occupy(h.cluster, n1, 8);
  h.run({}, kT0);
  ASSERT_TRUE(h.cluster.release(busy));
  h.run({}, kT0 + minutes(1));
  EXPECT_EQ(h.autoscaler.empty_since(n1), kT0 + minutes(1));
  EXPECT_EQ(h.autoscaler.empty_since(n2), kT0);
  // At T0+10m only n2 is due; size 2 − min 1 leaves room for one removal anyway.
  AutoscalerDecision d = h.run({}, kT0 + minutes(10));
  ASSERT_EQ(d.scale_downs.size(), 1u);
  EXPECT_EQ(d.scale_downs[0].node, n2);
  // The world removes n2; at T0+11m n1 is due but the pool is at its minimum of 1.
  ASSERT_TRUE(h.cluster.remove_node(n2));
  h.states[kA100Od].nodes = {n1};
  d = h.run({}, kT0 + minutes(11));
  EXPECT_TRUE(d.scale_downs.empty());
}

TEST(ClusterAutoscaler, BothEmptyNodesDueTheLongestEmptyGoesFirst) {
  // Min 1, n1 empty from T0+1m, n2 from T0: at T0+11m both are due, one may go: n2.
  std::vector<NodePoolSpec> pools = make_pools();
  pools[kA100Od].min_nodes = 1;
  Harness h(AutoscalerConfig{}, pools);
  const NodeId n1 = h.add_pool_node(kA100Od);
  const NodeId n2 = h.add_pool_node(kA100Od);
  const AllocationOwner busy = testing::occupy(h.cluster, n1, 8);
  h.run({}, kT0);
  ASSERT_TRUE(h.cluster.release(busy));
  h.run({}, kT0 + minutes(1));
  const AutoscalerDecision d = h.run({}, kT0 + minutes(11));
  ASSERT_EQ(d.scale_downs.size(), 1u);
  EXPECT_EQ(d.scale_downs[0].node, n2);
}

TEST(ClusterAutoscaler, NodeAPendingGangWillUseIsNotRemoved) {
  // n empty since T0; at T0+10m a pending 8-GPU gang fits on it: kept, its clock restarts at the
  // next call that sees it empty and unwanted.
  Harness h;
  testing::occupy(h.cluster, 0, 8);
  const NodeId n = h.add_pool_node(kA100Od);
  h.run({}, kT0);
  const AutoscalerDecision d = h.run({gpu_job(1, 8, "A100-80G")}, kT0 + minutes(10));
  EXPECT_TRUE(d.scale_downs.empty());
  EXPECT_THAT(d.fits, ElementsAre(0));
  EXPECT_EQ(h.autoscaler.empty_since(n), std::nullopt);
  h.run({}, kT0 + minutes(10) + seconds(1));
  EXPECT_EQ(h.autoscaler.empty_since(n), kT0 + minutes(10) + seconds(1));
}

TEST(ClusterAutoscaler, NoScaleDownSoonAfterThePoolGrew) {
  // Delay after add 20 min. n busy at T0+3m while a gang makes the pool grow (last scale-up
  // T0+3m); n empty from T0+4m. At T0+14m n has been empty 10 min, but the pool grew 11 min
  // ago < 20: kept. Removed at T0+3m+20m = T0+23m, not 1 µs before.
  Harness h(AutoscalerConfig{.scale_down_delay_after_add = minutes(20)});
  testing::occupy(h.cluster, 0, 8);
  const NodeId n = h.add_pool_node(kA100Od);
  const AllocationOwner busy = testing::occupy(h.cluster, n, 8);
  const AutoscalerDecision up = h.run({gpu_job(1, 8, "A100-80G")}, kT0 + minutes(3));
  ASSERT_EQ(up.scale_ups.size(), 1u);
  ASSERT_EQ(up.scale_ups[0].pool, kA100Od);
  h.states[kA100Od].provisioning = 1;
  ASSERT_TRUE(h.cluster.release(busy));
  h.run({}, kT0 + minutes(4));
  EXPECT_TRUE(h.run({}, kT0 + minutes(14)).scale_downs.empty());
  EXPECT_TRUE(h.run({}, kT0 + minutes(23) - microseconds(1)).scale_downs.empty());
  const AutoscalerDecision d = h.run({}, kT0 + minutes(23));
  ASSERT_EQ(d.scale_downs.size(), 1u);
  EXPECT_EQ(d.scale_downs[0].node, n);
}

}  // namespace
}  // namespace gantry
