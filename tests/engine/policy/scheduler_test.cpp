#include "engine/policy/scheduler.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <stdexcept>

#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

using testing::allocated_gpus;
using testing::gpu_pod;
using testing::kGi;
using testing::make_topology;
using testing::NodeDef;
using testing::occupy;
using testing::uniform_cluster;
using testing::worker_job;

SchedulerConfig config(std::string placement, QueueOrder order = QueueOrder::kFifo,
                       Queueing queueing = Queueing::kBestEffortFifo) {
  SchedulerConfig c;
  c.placement = std::move(placement);
  c.order = order;
  c.queueing = queueing;
  return c;
}

std::vector<JobId> ids(const std::vector<BindAction>& actions) {
  std::vector<JobId> out;
  for (const auto& a : actions) out.push_back(a.job);
  return out;
}

class EveryPlugin : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Plugins, EveryPlugin,
                         ::testing::Values("binpack", "spread", "topology", "random", "dotproduct",
                                           "gpuclustering", "gpupacking", "bestfit", "fgd"));

TEST_P(EveryPlugin, GangIsNeverPartial) {
  // Three nodes with 8 free GPUs each, but node 2 has only 2 cores left. A gang of three 8-GPU
  // pods (4 cores each) passes the GPU-count check; two pods find nodes 0 and 1, the third
  // finds nothing, so the first two must be released again.
  Cluster cluster = uniform_cluster(3);
  const Resources hog{94'000, kGi, 0};
  testing::take(cluster, 2, hog, 0);
  Scheduler s(config(GetParam()));
  const JobSpec big = worker_job(3, 8);
  ASSERT_TRUE(s.submit(1, big, big.submit));
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());
  EXPECT_EQ(allocated_gpus(cluster), 0);
  for (NodeId n = 0; n < 2; ++n) {
    EXPECT_EQ(cluster.free_gpu_mask(n), 0xFFu);
    EXPECT_EQ(cluster.free(n), cluster.node_class(n).capacity);
  }
  EXPECT_EQ(s.queued(), 1u);
}

TEST_P(EveryPlugin, GangTooBigForTheFreeGpusLeavesNothingAllocated) {
  // Room for two 8-GPU pods; the gang wants three.
  Cluster cluster = uniform_cluster(2);
  Scheduler s(config(GetParam()));
  const JobSpec big = worker_job(3, 8);
  ASSERT_TRUE(s.submit(1, big, big.submit));
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());
  EXPECT_EQ(allocated_gpus(cluster), 0);
  EXPECT_EQ(cluster.free_gpu_mask(0), 0xFFu);
  EXPECT_EQ(cluster.free_gpu_mask(1), 0xFFu);
  EXPECT_EQ(cluster.free(0), cluster.node_class(0).capacity);
  EXPECT_EQ(s.queued(), 1u);
}

TEST_P(EveryPlugin, LaterJobStillFitsAfterAGangIsRolledBack) {
  Cluster cluster = uniform_cluster(2);
  Scheduler s(config(GetParam()));
  const JobSpec big = worker_job(3, 8);
  const JobSpec fits = worker_job(2, 8);
  ASSERT_TRUE(s.submit(1, big, big.submit));
  ASSERT_TRUE(s.submit(2, fits, fits.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(ids(placed), std::vector<JobId>{2});
  ASSERT_EQ(placed[0].pods.size(), 2u);
  EXPECT_NE(placed[0].pods[0].node, placed[0].pods[1].node);
  EXPECT_EQ(placed[0].pods[0].gpu_mask, 0xFFu);
  EXPECT_EQ(allocated_gpus(cluster), 16);
  EXPECT_EQ(s.queued(), 1u);
}

TEST_P(EveryPlugin, AssumedPodsAreSeenByLaterJobsOfTheSameCycle) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config(GetParam()));
  const JobSpec a = worker_job(1, 6);
  const JobSpec b = worker_job(1, 4);
  const JobSpec c = worker_job(1, 2);
  ASSERT_TRUE(s.submit(1, a, a.submit));
  ASSERT_TRUE(s.submit(2, b, b.submit));
  ASSERT_TRUE(s.submit(3, c, c.submit));
  const auto placed = s.run_cycle(cluster, Time());
  EXPECT_EQ(ids(placed), (std::vector<JobId>{1, 3}));
  EXPECT_EQ(cluster.free(0).gpus, 0);
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_EQ(placed[0].pods[0].gpu_mask & placed[1].pods[0].gpu_mask, 0u);
}

TEST(Scheduler, PriorityOrderPlacesHigherPriorityFirst) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config("binpack", QueueOrder::kPriority));
  const JobSpec low = worker_job(1, 8, /*submit_s=*/0, /*priority=*/0);
  const JobSpec high = worker_job(1, 8, /*submit_s=*/10, /*priority=*/5);
  ASSERT_TRUE(s.submit(1, low, low.submit));
  ASSERT_TRUE(s.submit(2, high, high.submit));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{2});
  EXPECT_EQ(s.queued(), 1u);
}

TEST(Scheduler, FifoOrderIgnoresPriority) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config("binpack", QueueOrder::kFifo));
  const JobSpec low = worker_job(1, 8, 0, 0);
  const JobSpec high = worker_job(1, 8, 10, 5);
  ASSERT_TRUE(s.submit(1, low, low.submit));
  ASSERT_TRUE(s.submit(2, high, high.submit));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{1});
}

TEST(Scheduler, FifoInsideAPriorityBySubmitTimeThenEnqueueOrder) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config("binpack", QueueOrder::kPriority));
  const JobSpec later = worker_job(1, 8, /*submit_s=*/5, 1);
  const JobSpec earlier = worker_job(1, 8, /*submit_s=*/3, 1);
  const JobSpec lower = worker_job(1, 8, /*submit_s=*/1, 0);
  ASSERT_TRUE(s.submit(1, later, later.submit));
  ASSERT_TRUE(s.submit(2, earlier, earlier.submit));
  ASSERT_TRUE(s.submit(3, lower, lower.submit));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{2});
  ASSERT_TRUE(cluster.release(AllocationOwner{2, 0}));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{1});
  ASSERT_TRUE(cluster.release(AllocationOwner{1, 0}));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{3});
}

TEST(Scheduler, EqualSubmitTimesKeepEnqueueOrder) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config("binpack"));
  const JobSpec a = worker_job(1, 5, 7);
  const JobSpec b = worker_job(1, 5, 7);
  ASSERT_TRUE(s.submit(9, a, a.submit));
  ASSERT_TRUE(s.submit(4, b, b.submit));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{9});
}

TEST(Scheduler, BestEffortFifoLetsLaterJobsStart) {
  Cluster cluster = uniform_cluster(1);
  occupy(cluster, 0, 4);
  Scheduler s(config("binpack", QueueOrder::kFifo, Queueing::kBestEffortFifo));
  const JobSpec head = worker_job(1, 8, 0);
  const JobSpec small = worker_job(1, 2, 1);
  ASSERT_TRUE(s.submit(1, head, head.submit));
  ASSERT_TRUE(s.submit(2, small, small.submit));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{2});
  EXPECT_EQ(s.queued(), 1u);
}

TEST(Scheduler, StrictFifoStopsAtTheFirstJobThatDoesNotFit) {
  Cluster cluster = uniform_cluster(1);
  occupy(cluster, 0, 4);
  Scheduler s(config("binpack", QueueOrder::kFifo, Queueing::kStrictFifo));
  const JobSpec first = worker_job(1, 1, 0);
  const JobSpec head = worker_job(1, 8, 1);
  const JobSpec small = worker_job(1, 2, 2);
  ASSERT_TRUE(s.submit(1, first, first.submit));
  ASSERT_TRUE(s.submit(2, head, head.submit));
  ASSERT_TRUE(s.submit(3, small, small.submit));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{1});
  EXPECT_EQ(s.queued(), 2u);
  EXPECT_EQ(cluster.free(0).gpus, 3);
  // Still blocked next cycle, even though nothing changed in between.
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());
}

TEST(Scheduler, JobPlacedOnceGpusAreReleasedBetweenCycles) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config("binpack"));
  const JobSpec a = worker_job(1, 8, 0);
  const JobSpec b = worker_job(1, 8, 1);
  ASSERT_TRUE(s.submit(1, a, a.submit));
  ASSERT_TRUE(s.submit(2, b, b.submit));
  const auto first = s.run_cycle(cluster, Time());
  ASSERT_EQ(ids(first), std::vector<JobId>{1});
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());  // b's shape is remembered as not fitting...
  ASSERT_TRUE(cluster.release(AllocationOwner{1, 0}));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{2});  // ...until GPUs come back
}

TEST(Scheduler, JobPlacedOnceCpuIsReleasedBetweenCycles) {
  // GPUs are free all along; only CPU blocks the job, and freeing CPU does not change the
  // free-GPU histogram. The scheduler must retry anyway.
  Cluster cluster = uniform_cluster(1);
  const Resources cpu_hog{90'000, kGi, 0};
  testing::take(cluster, 0, cpu_hog, 0);
  Scheduler s(config("binpack"));
  const Resources more{3'000, kGi, 0};
  const AllocationOwner more_owner = testing::take(cluster, 0, more, 0);  // 3 of 96 cores left
  const JobSpec job = worker_job(1, 2, 0);                                // asks 4 cores
  ASSERT_TRUE(s.submit(1, job, job.submit));
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());
  ASSERT_TRUE(cluster.release(more_owner));
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), std::vector<JobId>{1});
}

TEST(Scheduler, ManyJobsOfOneShapeArePlacedInOrderUntilFull) {
  Cluster cluster = uniform_cluster(2);
  Scheduler s(config("binpack"));
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 7; ++i) jobs.push_back(worker_job(1, 3, i));
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(s.submit(i, jobs[static_cast<size_t>(i)], Time()));
  // Each node holds two 3-GPU pods (8 / 3 = 2): four jobs fit.
  EXPECT_EQ(ids(s.run_cycle(cluster, Time())), (std::vector<JobId>{0, 1, 2, 3}));
  EXPECT_EQ(s.queued(), 3u);
}

TEST(Scheduler, PodsAreReturnedRoleByRoleReplicaByReplica) {
  Cluster cluster = uniform_cluster(2);
  Scheduler s(config("binpack"));
  JobSpec job;
  job.roles.push_back(RoleSpec{RoleKind::kMaster, 1, gpu_pod(1)});
  job.roles.push_back(RoleSpec{RoleKind::kWorker, 2, gpu_pod(4)});
  ASSERT_TRUE(s.submit(1, job, job.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(placed.size(), 1u);
  ASSERT_EQ(placed[0].pods.size(), 3u);
  // GPU pods are placed first, the bigger ones before: worker 0 on node 0 (GPUs 0-3), worker 1
  // best-fits the rest of node 0 (GPUs 4-7), then the 1-GPU master goes to node 1 (GPU 0).
  // The result still lists the master first.
  EXPECT_EQ(placed[0].pods[0].node, 1);
  EXPECT_EQ(placed[0].pods[0].gpu_mask, 0x01u);
  EXPECT_EQ(placed[0].pods[1].node, 0);
  EXPECT_EQ(placed[0].pods[1].gpu_mask, 0x0Fu);
  EXPECT_EQ(placed[0].pods[2].node, 0);
  EXPECT_EQ(placed[0].pods[2].gpu_mask, 0xF0u);
}

TEST(Scheduler, GpuTypeFilter) {
  Cluster cluster(
      make_topology({NodeDef{.gpu_type = "H100-80G"}, NodeDef{.gpu_type = "A100-80G"}}));
  Scheduler s(config("binpack"));
  const JobSpec a100 = worker_job(1, 2, 0, 0, "A100-80G");
  const JobSpec t4 = worker_job(1, 1, 1, 0, "T4");          // in the catalog, not in the cluster
  const JobSpec b300 = worker_job(1, 1, 2, 0, "no-such");   // not even in the catalog
  const JobSpec h100 = worker_job(1, 8, 3, 0, "h100-80g");  // names compare case-insensitively
  ASSERT_TRUE(s.submit(1, a100, a100.submit));
  ASSERT_TRUE(s.submit(2, t4, t4.submit));
  ASSERT_TRUE(s.submit(3, b300, b300.submit));
  ASSERT_TRUE(s.submit(4, h100, h100.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(ids(placed), (std::vector<JobId>{1, 4}));
  EXPECT_EQ(placed[0].pods[0].node, 1);
  EXPECT_EQ(placed[1].pods[0].node, 0);
  EXPECT_EQ(s.queued(), 2u);
}

TEST(Scheduler, AnyTypeGangDoesNotMixGpuTypes) {
  Cluster cluster(
      make_topology({NodeDef{.gpu_type = "H100-80G"}, NodeDef{.gpu_type = "A100-80G"}}));
  Scheduler s(config("binpack"));
  const JobSpec mixed = worker_job(2, 8);   // 16 GPUs: only across both types
  const JobSpec two = worker_job(2, 4, 1);  // fits one node of either type
  ASSERT_TRUE(s.submit(1, mixed, mixed.submit));
  ASSERT_TRUE(s.submit(2, two, two.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(ids(placed), std::vector<JobId>{2});
  EXPECT_EQ(placed[0].pods[0].node, placed[0].pods[1].node);
  EXPECT_EQ(allocated_gpus(cluster), 8);
}

TEST(Scheduler, CpuOnlyPodsGoWhereCpuAndMemoryFit) {
  // node 0 and 1: 8-GPU nodes; node 2: a CPU-only node.
  Cluster cluster(make_topology({NodeDef{}, NodeDef{}, NodeDef{.gpus = 0, .gpu_type = ""}}));
  Scheduler s(config("binpack"));
  JobSpec tf;
  tf.framework = Framework::kTensorFlow;
  // 93 cores: more than a GPU node keeps once its worker (4 cores) runs there.
  tf.roles.push_back(RoleSpec{RoleKind::kPS, 1, Resources{93'000, 32 * kGi, 0}});
  tf.roles.push_back(RoleSpec{RoleKind::kWorker, 2, gpu_pod(8)});
  ASSERT_TRUE(s.submit(1, tf, tf.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(placed.size(), 1u);
  ASSERT_EQ(placed[0].pods.size(), 3u);
  // The workers take nodes 0 and 1; the PS fits only on the CPU-only node.
  EXPECT_EQ(placed[0].pods[0].node, 2);
  EXPECT_EQ(placed[0].pods[0].gpu_mask, 0u);
  EXPECT_EQ(placed[0].pods[1].node, 0);
  EXPECT_EQ(placed[0].pods[2].node, 1);
  EXPECT_EQ(cluster.free(2).cpu_milli, 96'000 - 93'000);
}

TEST(Scheduler, BinpackPutsAGpuLessPodWhereLeastIsLeftFree) {
  // Same cluster; a small PS joins node 0, whose GPUs are taken and which has the least CPU
  // left (92 cores against 96 on the CPU-only node).
  Cluster cluster(make_topology({NodeDef{}, NodeDef{}, NodeDef{.gpus = 0, .gpu_type = ""}}));
  Scheduler s(config("binpack"));
  JobSpec tf;
  tf.roles.push_back(RoleSpec{RoleKind::kPS, 1, Resources{8'000, 32 * kGi, 0}});
  tf.roles.push_back(RoleSpec{RoleKind::kWorker, 2, gpu_pod(8)});
  ASSERT_TRUE(s.submit(1, tf, tf.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].pods[0].node, 0);
  EXPECT_EQ(cluster.free(0).cpu_milli, 96'000 - 4'000 - 8'000);
}

TEST(Scheduler, CpuOnlyJobRunsOnAClusterWithNoFreeGpu) {
  Cluster cluster = uniform_cluster(2);
  occupy(cluster, 0, 8);
  occupy(cluster, 1, 8);
  Scheduler s(config("topology"));
  JobSpec mpi;
  mpi.framework = Framework::kMPI;
  mpi.roles.push_back(RoleSpec{RoleKind::kLauncher, 1, Resources{90'000, kGi, 0}});
  JobSpec gpu = worker_job(1, 1, 1);
  ASSERT_TRUE(s.submit(1, gpu, gpu.submit));
  ASSERT_TRUE(s.submit(2, mpi, mpi.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(ids(placed), std::vector<JobId>{2});
  EXPECT_EQ(placed[0].pods[0].node, 0);  // 95 cores free on both nodes: lowest node id
  EXPECT_EQ(placed[0].pods[0].gpu_mask, 0u);
}

TEST(Scheduler, CpuOnlyPodThatFitsNowhereBlocksItsGang) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config("spread"));
  JobSpec job;
  job.roles.push_back(RoleSpec{RoleKind::kLauncher, 1, Resources{200'000, kGi, 0}});
  job.roles.push_back(RoleSpec{RoleKind::kWorker, 1, gpu_pod(1)});
  ASSERT_TRUE(s.submit(1, job, job.submit));
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());
  EXPECT_EQ(allocated_gpus(cluster), 0);
}

TEST(Scheduler, UnknownPlacementPluginThrowsNamingTheKnownOnes) {
  try {
    Scheduler s(config("tetris"));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tetris"), std::string::npos) << what;
    EXPECT_NE(what.find("binpack"), std::string::npos) << what;
    EXPECT_NE(what.find("spread"), std::string::npos) << what;
    EXPECT_NE(what.find("topology"), std::string::npos) << what;
  }
}

TEST(Scheduler, EmptyQueueCycleDoesNothing) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config("binpack"));
  EXPECT_TRUE(s.run_cycle(cluster, Time()).empty());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(allocated_gpus(cluster), 0);
}

}  // namespace
}  // namespace gantry

namespace gantry {
namespace {

// Kubernetes' node filters in the scheduler: cordoned nodes take nothing, taints need a
// toleration, nodeSelector needs matching labels; and a shape that failed under one set of
// constraints is not taken as failed for a job with the same requests and other constraints.
TEST(Scheduler, CordonsTaintsAndNodeSelectorsFilterNodes) {
  using testing::uniform_cluster;
  using testing::worker_job;
  Cluster cluster = uniform_cluster(3);
  cluster.set_cordoned(0, true);
  cluster.set_labels(1, {{"pool", "spot"}});
  cluster.set_taints(1, {Taint{"spot", "true", TaintEffect::kNoSchedule}});
  cluster.set_labels(2, {{"pool", "on-demand"}});
  Scheduler s(config("binpack"));

  const JobSpec plain = worker_job(1, 8, 0);  // node 0 cordoned, node 1 tainted: node 2 only
  JobSpec spot = worker_job(1, 8, 1);
  spot.node_selector = {{"pool", "spot"}};
  spot.tolerations = {Toleration{"spot", Toleration::Operator::kEqual, "true"}};
  ASSERT_TRUE(s.submit(1, plain, plain.submit));
  ASSERT_TRUE(s.submit(2, spot, spot.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(ids(placed), (std::vector<JobId>{1, 2}));
  EXPECT_EQ(placed[0].pods[0].node, 2);
  EXPECT_EQ(placed[1].pods[0].node, 1);

  // Same requests, different constraints: the first cannot go anywhere, the second may go to
  // the cordoned node once it is uncordoned — in the same cycle as the first one's failure.
  cluster.set_cordoned(0, false);
  JobSpec nowhere = worker_job(1, 8, 2);
  nowhere.node_selector = {{"pool", "gone"}};
  const JobSpec anywhere = worker_job(1, 8, 3);
  ASSERT_TRUE(s.submit(3, nowhere, nowhere.submit));
  ASSERT_TRUE(s.submit(4, anywhere, anywhere.submit));
  const auto next = s.run_cycle(cluster, Time());
  ASSERT_EQ(ids(next), std::vector<JobId>{4});
  EXPECT_EQ(next[0].pods[0].node, 0);
  EXPECT_EQ(s.queued(), 1u);
  EXPECT_TRUE(cluster.check_invariants()) << cluster.check_invariants().message();
}

}  // namespace
}  // namespace gantry
