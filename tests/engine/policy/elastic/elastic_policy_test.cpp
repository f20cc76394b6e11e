// The Scheduler's elasticity policies (scheduler.hpp, "Elasticity policies") with a scripted
// world (elastic_rig.hpp). Every expected resize is worked by hand in the comment above it:
// binpack fills the most used node first and takes its lowest free GPUs.

#include <gtest/gtest.h>

#include "tests/engine/policy/elastic/elastic_rig.hpp"

namespace gantry {
namespace elastic_policy_test {

using testing::elastic_config;
using testing::elastic_job;
using testing::ElasticRig;
using testing::kT0;
using testing::occupy;
using testing::quota_queue;
using testing::uniform_cluster;
using testing::worker_job;

using Ids = std::vector<JobId>;
using PodIds = std::vector<int32_t>;

std::vector<int32_t> nodes_of(const std::vector<PodPlacement>& pods) {
  std::vector<int32_t> out;
  for (const PodPlacement& p : pods) out.push_back(p.node);
  return out;
}
std::vector<uint64_t> masks_of(const std::vector<PodPlacement>& pods) {
  std::vector<uint64_t> out;
  for (const PodPlacement& p : pods) out.push_back(p.gpu_mask);
  return out;
}

// ---- scale-out-idle ----

// Two 8-GPU nodes. Job 0: 2 Workers of 2 GPUs (max 8, step 2) on node 0, GPUs 0-3. Nothing
// pending: it may grow (8 − 2) / 2 = 3 steps = 6 Workers = 12 GPUs, exactly the 12 idle ones.
// Workers 2..7 are pods 2..7: binpack fills node 0 (GPUs 4-5, 6-7), then node 1 (0-1 .. 6-7).
TEST(ScaleOutIdle, GrowsIntoIdleGpusByWholeSteps) {
  ElasticRig rig(uniform_cluster(2), elastic_config(ElasticPolicy::kScaleOutIdle));
  const JobId job = rig.submit(elastic_job(2, 2, 1, 8, 2));
  // The first cycle places it; it runs only after the cycle, so it grows at the next one.
  EXPECT_EQ(rig.cycle(), (Ids{job}));
  EXPECT_TRUE(rig.resizes.empty());
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  const ResizeAction& r = rig.resizes[0];
  EXPECT_EQ(r.job, job);
  EXPECT_EQ(r.replicas, 8);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(r.first_added, 2);
  EXPECT_EQ(nodes_of(r.added), (std::vector<int32_t>{0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(masks_of(r.added), (std::vector<uint64_t>{0x30, 0xC0, 0x03, 0x0C, 0x30, 0xC0}));
  EXPECT_EQ(r.reason, "ScaleOutIdle");
  EXPECT_EQ(rig.cluster.free_gpus(), 0);
  // At its maximum: nothing more, in flight or not.
  rig.cycle();
  rig.resized();
  rig.cycle();
  EXPECT_EQ(rig.resizes.size(), 1u);
}

// Issue 22: scale-out-idle acted only when something else caused a cycle, so a job alone on an
// idle cluster never grew. Two 8-GPU nodes; an elastic job (2 Workers of 2 GPUs, 1..8 by 2) and
// a rigid one of 8 GPUs (node 0, GPUs 0-3, and node 1). Both start running in the first cycle:
// the elastic job's start asks for a cycle at once (the rigid one's need not). That cycle grows
// the elastic job by the one step that fits: 2 Workers into the 4 idle GPUs of node 0. When the
// rigid job finishes at 60 s node 1's 8 GPUs are idle: the scheduler asks for a cycle then too,
// where the elastic job grows by the two steps that fit, 4 Workers of 2 GPUs: 4 → 8, its maximum.
TEST(ScaleOutIdle, AStartAndIdleGpusAskForACycle) {
  ElasticRig rig(uniform_cluster(2), elastic_config(ElasticPolicy::kScaleOutIdle));
  const JobId job = rig.submit(elastic_job(2, 2, 1, 8, 2));
  const JobId rigid = rig.submit(worker_job(1, 8));
  EXPECT_EQ(rig.cycle(), (Ids{job, rigid}));
  EXPECT_EQ(rig.wakes, (std::set<Time>{kT0})) << "the elastic job's start";
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].replicas, 4);
  rig.resized();
  rig.wakes.clear();
  rig.now = kT0 + seconds(60);
  rig.tell(Observation::Kind::kFinished, rigid);
  EXPECT_EQ(rig.wakes, (std::set<Time>{kT0 + seconds(60)})) << "the rigid job's GPUs are idle";
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 2u);
  EXPECT_EQ(rig.resizes[1].replicas, 8);
}

// One 8-GPU node, 2 GPUs taken by other load. Jobs 0 (priority 0) and 1 (priority 1), 2
// Workers of 1 GPU each (max 4, step 2): 4 GPUs used, 2 idle. Job 1 goes first and takes both
// (Workers 2, 3 = pods 2, 3 on GPUs 6, 7); job 0's step of 2 then does not fit: no action.
TEST(ScaleOutIdle, HigherPriorityGrowsFirstAndAStepThatDoesNotFitIsSkipped) {
  ElasticRig rig(uniform_cluster(1), elastic_config(ElasticPolicy::kScaleOutIdle));
  occupy(rig.cluster, 0, 2);
  const JobId low = rig.submit(elastic_job(2, 1, 1, 4, 2, 0));
  const JobId high = rig.submit(elastic_job(2, 1, 1, 4, 2, 1));
  EXPECT_EQ(rig.cycle(), (Ids{low, high}));
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].job, high);
  EXPECT_EQ(rig.resizes[0].replicas, 4);
  EXPECT_EQ(rig.resizes[0].first_added, 2);
  EXPECT_EQ(masks_of(rig.resizes[0].added), (std::vector<uint64_t>{0x40, 0x80}));
  rig.resized();
  rig.cycle();
  EXPECT_EQ(rig.resizes.size(), 1u) << "job 0's step still does not fit";
  EXPECT_EQ(rig.workers(low), 2);
}

// Equal priority, same start: the lower id grows first. Three jobs of 2 one-GPU Workers (max 4,
// step 2) on one 8-GPU node: 6 used, 2 idle: only job 0 grows.
TEST(ScaleOutIdle, TiesGoToTheLowerIdDeterministically) {
  for (int run = 0; run < 2; ++run) {
    ElasticRig rig(uniform_cluster(1), elastic_config(ElasticPolicy::kScaleOutIdle));
    for (int j = 0; j < 3; ++j) rig.submit(elastic_job(2, 1, 1, 4, 2));
    rig.cycle();
    rig.cycle();
    ASSERT_EQ(rig.resizes.size(), 1u);
    EXPECT_EQ(rig.resizes[0].job, 0);
    EXPECT_EQ(masks_of(rig.resizes[0].added), (std::vector<uint64_t>{0x40, 0x80}));
  }
}

// While a workload is pending nothing grows: job 1 (an 8-GPU pod) cannot fit next to job 0 (4
// one-GPU Workers, max 8) on one 8-GPU node. Once job 1 is withdrawn, job 0 grows to 8.
TEST(ScaleOutIdle, DoesNothingWhileAWorkloadIsPending) {
  ElasticRig rig(uniform_cluster(1), elastic_config(ElasticPolicy::kScaleOutIdle));
  const JobId job = rig.submit(elastic_job(4, 1, 1, 8, 2));
  EXPECT_EQ(rig.cycle(), (Ids{job}));
  const JobId big = rig.submit(worker_job(1, 8), 1);
  rig.now = kT0 + seconds(1);
  EXPECT_EQ(rig.cycle(), Ids{});
  EXPECT_TRUE(rig.resizes.empty());
  ASSERT_TRUE(rig.scheduler.withdraw(big, rig.now));
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].replicas, 8);
}

// Without a policy the scheduler never resizes on its own.
TEST(ScaleOutIdle, PolicyNoneNeverResizes) {
  ElasticRig rig(uniform_cluster(1), SchedulerConfig{});
  rig.submit(elastic_job(2, 1, 1, 8, 2));
  rig.cycle();
  rig.cycle();
  EXPECT_TRUE(rig.resizes.empty());
}

// ---- shrink-to-admit ----

// One 8-GPU node full with job 0: 8 one-GPU Workers (min 2, step 2). Job 1 needs 4 GPUs on
// one pod. Cutting one step (Workers 6, 7) frees 2: not enough; two steps (4..7) free GPUs 4-7:
// job 1 fits. So job 0 is resized to 4, pods 4..7 removed; nobody is evicted. Before the world
// reports it, the next cycle shrinks nothing more; after kResized job 1 is placed on GPUs 4-7.
TEST(ShrinkToAdmit, ShrinksAnElasticJobInsteadOfLeavingTheHeadWaiting) {
  ElasticRig rig(uniform_cluster(1), elastic_config(ElasticPolicy::kShrinkToAdmit));
  const JobId job = rig.submit(elastic_job(8, 1, 2, 8, 2));
  EXPECT_EQ(rig.cycle(), (Ids{job}));
  const JobId head = rig.submit(worker_job(1, 4), 1);
  rig.now = kT0 + seconds(1);
  EXPECT_EQ(rig.cycle(), Ids{});
  ASSERT_EQ(rig.resizes.size(), 1u);
  const ResizeAction& r = rig.resizes[0];
  EXPECT_EQ(r.job, job);
  EXPECT_EQ(r.replicas, 4);
  EXPECT_EQ(r.removed, (PodIds{4, 5, 6, 7}));
  EXPECT_TRUE(r.added.empty());
  EXPECT_EQ(r.reason, "ShrinkToAdmit");
  // In flight: the GPUs are not free yet, and no second shrink is made for the same head.
  rig.now = kT0 + seconds(2);
  EXPECT_EQ(rig.cycle(), Ids{});
  EXPECT_EQ(rig.resizes.size(), 1u);
  rig.resized();
  rig.now = kT0 + seconds(3);
  EXPECT_EQ(rig.cycle(), (Ids{head}));
  EXPECT_EQ(rig.workload(head).pods[0].gpu_mask, 0xF0u);
  EXPECT_EQ(rig.workers(job), 4);
  EXPECT_TRUE(rig.evictions.empty());
  EXPECT_EQ(rig.resizes.size(), 1u);
}

// Two policies at once: the same shrink as above, then, once the head has finished and nothing
// waits, scale-out-idle grows job 0 back into GPUs 4-7: 4 → 8 Workers by two steps of 2, with new
// pod ids 8..11 (ids are never reused).
TEST(ShrinkToAdmit, WithScaleOutIdleTheShrunkJobGrowsBackOnceNothingWaits) {
  SchedulerConfig config;
  config.elasticity.add(ElasticPolicy::kScaleOutIdle);
  config.elasticity.add(ElasticPolicy::kShrinkToAdmit);
  ElasticRig rig(uniform_cluster(1), config);
  const JobId job = rig.submit(elastic_job(8, 1, 2, 8, 2));
  EXPECT_EQ(rig.cycle(), (Ids{job}));
  const JobId head = rig.submit(worker_job(1, 4), 1);
  rig.now = kT0 + seconds(1);
  EXPECT_EQ(rig.cycle(), Ids{});
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].removed, (PodIds{4, 5, 6, 7}));
  rig.resized();
  rig.now = kT0 + seconds(2);
  EXPECT_EQ(rig.cycle(), (Ids{head}));
  EXPECT_EQ(rig.resizes.size(), 1u) << "the cluster is full again: nothing to grow into";
  rig.now = kT0 + seconds(3);
  rig.tell(Observation::Kind::kFinished, head);
  EXPECT_EQ(rig.cycle(), Ids{});
  ASSERT_EQ(rig.resizes.size(), 2u);
  const ResizeAction& grow = rig.resizes[1];
  EXPECT_EQ(grow.job, job);
  EXPECT_EQ(grow.replicas, 8);
  EXPECT_EQ(grow.first_added, 8);
  EXPECT_EQ(grow.added.size(), 4u);
  EXPECT_TRUE(grow.removed.empty());
  EXPECT_TRUE(rig.evictions.empty());
}

// A shrink that would not let the head in is not made: job 0 (8 Workers, min 6, step 2) can
// free only 2 GPUs; the head needs 4.
TEST(ShrinkToAdmit, ShrinksNothingWhenTheHeadStillWouldNotFit) {
  ElasticRig rig(uniform_cluster(1), elastic_config(ElasticPolicy::kShrinkToAdmit));
  rig.submit(elastic_job(8, 1, 6, 8, 2));
  rig.cycle();
  rig.submit(worker_job(1, 4), 1);
  rig.cycle();
  EXPECT_TRUE(rig.resizes.empty());
  EXPECT_EQ(rig.cluster.free_gpus(), 0);
}

// Candidates: lower priority first. Jobs 0 (priority 0) and 1 (priority 1) hold 4 one-GPU
// Workers each (min 2, step 2) on one 8-GPU node; the head (priority 1) needs 2 GPUs. Job 0 is
// shrunk by one step (pods 2, 3); job 1 is left alone.
TEST(ShrinkToAdmit, ShrinksTheLowestPriorityFirst) {
  SchedulerConfig config = elastic_config(ElasticPolicy::kShrinkToAdmit);
  config.order = QueueOrder::kPriority;
  ElasticRig rig(uniform_cluster(1), config);
  const JobId low = rig.submit(elastic_job(4, 1, 2, 4, 2, 0));
  const JobId high = rig.submit(elastic_job(4, 1, 2, 4, 2, 1));
  EXPECT_EQ(rig.cycle(), (Ids{high, low}));
  rig.submit(worker_job(1, 2, 0, 1), 1);
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].job, low);
  EXPECT_EQ(rig.resizes[0].removed, (PodIds{2, 3}));
}

// Among equals, the most recently started first: job 1 started after job 0.
TEST(ShrinkToAdmit, ShrinksTheMostRecentlyStartedAmongEquals) {
  ElasticRig rig(uniform_cluster(1), elastic_config(ElasticPolicy::kShrinkToAdmit));
  const JobId first = rig.submit(elastic_job(4, 1, 2, 4, 2));
  EXPECT_EQ(rig.cycle(), (Ids{first}));
  rig.now = kT0 + seconds(10);
  const JobId second = rig.submit(elastic_job(4, 1, 2, 4, 2), 10);
  EXPECT_EQ(rig.cycle(), (Ids{second}));
  rig.submit(worker_job(1, 2), 11);
  rig.now = kT0 + seconds(11);
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].job, second);
}

// Admission: queues a and b (8 GPUs of nominal quota each) share cohort c on two 8-GPU nodes;
// b may reclaim lent quota by eviction (reclaimWithinCohort Any). Job 0 of a runs 16 one-GPU
// Workers (min 8, step 4): it borrows b's 8. Job 1 of b needs one 8-GPU pod. The cohort is full,
// so it does not fit; a borrows, so job 0 is shrunk first: one step (Workers 12..15) leaves a
// borrowing 4 and frees 4 GPUs (no 8-GPU node); two steps (8..15) bring a back to its nominal 8
// and free node 1. Job 0 goes to 8 Workers and nobody is evicted; with policy none, job 0 is
// evicted instead.
TEST(ShrinkToAdmit, ABorrowerIsShrunkBeforeAnyPreemption) {
  for (const ElasticPolicy policy : {ElasticPolicy::kShrinkToAdmit, ElasticPolicy::kNone}) {
    SCOPED_TRACE(to_string(policy));
    SchedulerConfig config = elastic_config(policy);
    config.order = QueueOrder::kPriority;
    config.admission.queues = {quota_queue("a", "c", 8), quota_queue("b", "c", 8)};
    config.admission.queues[1].reclaim_within_cohort = PreemptionPolicy::kAny;
    ElasticRig rig(uniform_cluster(2), config);
    const JobId job = rig.submit(elastic_job(16, 1, 8, 16, 4), 0, "a");
    EXPECT_EQ(rig.cycle(), (Ids{job}));
    const JobId head = rig.submit(worker_job(1, 8), 1, "b");
    rig.now = kT0 + seconds(1);
    EXPECT_EQ(rig.cycle(), Ids{});
    if (policy == ElasticPolicy::kNone) {
      ASSERT_EQ(rig.evictions.size(), 1u);
      EXPECT_EQ(rig.evictions[0].job, job);
      continue;
    }
    EXPECT_TRUE(rig.evictions.empty());
    ASSERT_EQ(rig.resizes.size(), 1u);
    EXPECT_EQ(rig.resizes[0].job, job);
    EXPECT_EQ(rig.resizes[0].replicas, 8);
    EXPECT_EQ(rig.resizes[0].removed, (PodIds{8, 9, 10, 11, 12, 13, 14, 15}));
    // In flight: no preemption and no second shrink for the head.
    rig.now = kT0 + seconds(2);
    EXPECT_EQ(rig.cycle(), Ids{});
    EXPECT_TRUE(rig.evictions.empty());
    EXPECT_EQ(rig.resizes.size(), 1u);
    rig.resized();
    rig.now = kT0 + seconds(3);
    EXPECT_EQ(rig.cycle(), (Ids{head}));
    EXPECT_EQ(rig.workload(head).pods[0].node, 1);
    EXPECT_TRUE(rig.evictions.empty());
    const QuotaBook& book = *rig.scheduler.quota_book();
    EXPECT_EQ(book.used(0, book.find_resource(kQuotaGpu)), 8 * testing::kGpuMilli);
    EXPECT_EQ(book.used(1, book.find_resource(kQuotaGpu)), 8 * testing::kGpuMilli);
  }
}

// ---- goodput ----

// Steps per second by job name: "flat" does not speed up at all, "steep" scales linearly.
struct FakeThroughput : ThroughputModel {
  double steps_per_second(const Cluster&, const JobSpec& job, int workers) const override {
    ++calls;
    return job.name == "flat" ? 1.0 : static_cast<double>(workers);
  }
  mutable int calls = 0;
};

// One 8-GPU node: "flat" (job 0) on GPUs 0-3 and "steep" (job 1) on GPUs 4-7, 4 one-GPU Workers
// each, min 2, max 6, step 2, resize cost 10 s, interval 300 s.
//   steep: U(n) = n/2 · 2 · 1 = n: gain per GPU (6 − 4)/2 = 1; flat: U(n) = 1/1 · 2 = 2: loss 0.
//   net gain = 300 · [(6 − 4) − (2 − 2)] − 10 s · 6 GPUs − 10 s · 2 GPUs = 600 − 80 = 520 > 0.
// No idle GPU, so flat gives its Workers 2, 3 (pods 2, 3 on GPUs 2, 3) and, once that is done,
// steep grows to 6 there (pods 4, 5).
struct GoodputCase {
  explicit GoodputCase(Duration resize_cost, double min_gain = 0)
      : rig(uniform_cluster(1), [&] {
          SchedulerConfig c = elastic_config(ElasticPolicy::kGoodput);
          c.elasticity.interval = seconds(300);
          c.elasticity.min_gain_gpu_seconds = min_gain;
          return c;
        }()) {
    rig.scheduler.set_throughput_model(&model);
    for (const char* name : {"flat", "steep"}) {
      JobSpec j = elastic_job(4, 1, 2, 6, 2);
      j.name = name;
      j.elastic.resize_cost = resize_cost;
      rig.submit(j);
    }
  }
  FakeThroughput model;
  ElasticRig rig;
};

TEST(Goodput, MovesWorkersFromAFlatJobToASteepOne) {
  GoodputCase c(seconds(10));
  ElasticRig& rig = c.rig;
  EXPECT_EQ(rig.cycle(), (Ids{0, 1}));
  // Evaluations are due every 300 s from the first cycle; the next cycle asks for a wake-up.
  rig.now = kT0 + seconds(1);
  rig.cycle();
  EXPECT_EQ(rig.wakes.count(kT0 + seconds(300)), 1u);
  EXPECT_TRUE(rig.resizes.empty());
  rig.now = kT0 + seconds(300);
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].job, 0);
  EXPECT_EQ(rig.resizes[0].replicas, 2);
  EXPECT_EQ(rig.resizes[0].removed, (PodIds{2, 3}));
  EXPECT_EQ(rig.resizes[0].reason, "Goodput");
  // The receiver waits for the donor's kResized.
  rig.now = kT0 + seconds(301);
  rig.cycle();
  EXPECT_EQ(rig.resizes.size(), 1u);
  rig.resized();
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 2u);
  EXPECT_EQ(rig.resizes[1].job, 1);
  EXPECT_EQ(rig.resizes[1].replicas, 6);
  EXPECT_EQ(rig.resizes[1].first_added, 4);
  EXPECT_EQ(masks_of(rig.resizes[1].added), (std::vector<uint64_t>{0x04, 0x08}));
  EXPECT_TRUE(rig.evictions.empty());
}

// Resize cost 300 s: net gain = 600 − 300 · 6 − 300 · 2 = −1800: no move. With 10 s but a
// minimum gain of 520 GPU-seconds: 520 is not more than 520: no move either.
TEST(Goodput, DoesNothingWhenTheGainDoesNotCoverTheCost) {
  for (const auto& [cost, min_gain] :
       {std::pair{seconds(300), 0.0}, std::pair{seconds(10), 520.0}}) {
    GoodputCase c(cost, min_gain);
    ElasticRig& rig = c.rig;
    rig.cycle();
    rig.now = kT0 + seconds(300);
    rig.cycle();
    EXPECT_TRUE(rig.resizes.empty()) << cost.seconds() << " s, min " << min_gain;
    EXPECT_GT(c.model.calls, 0) << "it did evaluate";
  }
}

// Idle GPUs go to the highest gain first: one 8-GPU node with "steep" alone (4 Workers, max 6):
// gain 300 · (6 − 4) − 10 · 6 = 540 > 0, so it grows into 2 idle GPUs (4, 5) with no donor.
TEST(Goodput, GivesIdleGpusToTheSteepestJob) {
  ElasticRig rig(uniform_cluster(1), [] {
    SchedulerConfig c = elastic_config(ElasticPolicy::kGoodput);
    c.elasticity.interval = seconds(300);
    return c;
  }());
  FakeThroughput model;
  rig.scheduler.set_throughput_model(&model);
  JobSpec j = elastic_job(4, 1, 2, 6, 2);
  j.name = "steep";
  j.elastic.resize_cost = seconds(10);
  rig.submit(j);
  rig.cycle();
  rig.now = kT0 + seconds(300);
  rig.cycle();
  ASSERT_EQ(rig.resizes.size(), 1u);
  EXPECT_EQ(rig.resizes[0].replicas, 6);
  EXPECT_EQ(masks_of(rig.resizes[0].added), (std::vector<uint64_t>{0x10, 0x20}));
}

}  // namespace elastic_policy_test
}  // namespace gantry
