// Resize requests through Scheduler::resize(), scale_in() and replace() (scheduler.hpp,
// "Elasticity"), with et-operator's semantics and its gaps closed: Worker indices are never
// reused, named scale-ins, minReplicas/maxReplicas checked on every request (et-operator
// accepts a scale-in below minReplicas), a request made while a resize is in flight waits and
// the newer one wins, and a scale-out whose pods never ran is rolled back. Worked by hand:
// binpack on one 8-GPU node fills the lowest free GPUs.

#include <gtest/gtest.h>

#include "tests/engine/policy/elastic/elastic_rig.hpp"

namespace gantry {
namespace resize_requests_test {

using testing::elastic_job;
using testing::ElasticRig;
using testing::kT0;
using testing::uniform_cluster;
using testing::worker_job;

using PodIds = std::vector<int32_t>;

// A running elastic job of 4 one-GPU Workers (min 2, max 8) on one 8-GPU node: GPUs 0-3.
struct Running {
  Running() : rig(uniform_cluster(1), SchedulerConfig{}) {
    job = rig.submit(elastic_job(4, 1, 2, 8, 1));
    EXPECT_EQ(rig.cycle().size(), 1u);
  }
  ResizeAction ok(Result<std::optional<ResizeAction>> r) {
    EXPECT_TRUE(r) << (r ? "" : r.error());
    EXPECT_TRUE(r && r.value().has_value());
    return r && r.value() ? *r.value() : ResizeAction{};
  }
  void report(Observation::Kind kind) { rig.tell(kind, job); }
  ElasticRig rig;
  JobId job = -1;
};

TEST(ResizeRequests, ANamedScaleInThenAScaleOutNeverReusesAnIndex) {
  Running r;
  // Worker 1 leaves by name: pod 1 (GPU 1).
  const int workers[] = {1};
  const ResizeAction in = r.ok(r.rig.scheduler.scale_in(r.rig.cluster, r.job, workers, kT0));
  EXPECT_EQ(in.removed, PodIds{1});
  EXPECT_EQ(in.replicas, 3);
  r.report(Observation::Kind::kResized);
  EXPECT_EQ(r.rig.workload(r.job).pod_ids, (PodIds{0, 2, 3}));
  EXPECT_EQ(r.rig.cluster.free_gpu_mask(0), 0xF2u) << "GPU 1 and 4-7 free";
  // Back to 5: the new Workers are 4 and 5 (after the highest ever used, 3), on GPUs 1 and 4.
  const ResizeAction out = r.ok(r.rig.scheduler.resize(r.rig.cluster, r.job, 5, kT0));
  EXPECT_EQ(out.first_added, 4);
  ASSERT_EQ(out.added.size(), 2u);
  EXPECT_EQ(out.added[0].gpu_mask, 0x02u);
  EXPECT_EQ(out.added[1].gpu_mask, 0x10u);
  r.report(Observation::Kind::kResized);
  EXPECT_EQ(r.rig.workload(r.job).pod_ids, (PodIds{0, 2, 3, 4, 5}));
  // A plain scale-in removes the highest indices: 5 and 4.
  const ResizeAction down = r.ok(r.rig.scheduler.resize(r.rig.cluster, r.job, 3, kT0));
  EXPECT_EQ(down.removed, (PodIds{4, 5}));
  EXPECT_TRUE(r.rig.cluster.check_invariants());
}

TEST(ResizeRequests, MinAndMaxAreCheckedOnEveryRequest) {
  Running r;
  const auto error_of = [](const Result<std::optional<ResizeAction>>& res) {
    return res ? std::string() : res.error();
  };
  EXPECT_EQ(error_of(r.rig.scheduler.resize(r.rig.cluster, r.job, 1, kT0)),
            "workload 0: 1 Worker(s) is below its minReplicas 2");
  EXPECT_EQ(error_of(r.rig.scheduler.resize(r.rig.cluster, r.job, 9, kT0)),
            "workload 0: 9 Worker(s) is above its maxReplicas 8");
  const int three[] = {0, 1, 2};
  EXPECT_EQ(error_of(r.rig.scheduler.scale_in(r.rig.cluster, r.job, three, kT0)),
            "workload 0: 1 Worker(s) is below its minReplicas 2");
  const int missing[] = {9};
  EXPECT_EQ(error_of(r.rig.scheduler.scale_in(r.rig.cluster, r.job, missing, kT0)),
            "workload 0 has no running Worker 9 (or it is named twice)");
  EXPECT_EQ(r.rig.workers(r.job), 4) << "a refused request changes nothing";
  EXPECT_TRUE(r.rig.cluster.check_invariants());
}

TEST(ResizeRequests, WhileOneIsInFlightTheNewerRequestWins) {
  Running r;
  const ResizeAction first = r.ok(r.rig.scheduler.resize(r.rig.cluster, r.job, 6, kT0));
  EXPECT_EQ(first.added.size(), 2u);
  // Two requests while it is in flight: both wait, the second replaces the first.
  Result<std::optional<ResizeAction>> waits = r.rig.scheduler.resize(r.rig.cluster, r.job, 2, kT0);
  ASSERT_TRUE(waits);
  EXPECT_FALSE(waits.value().has_value());
  const int named[] = {0};
  waits = r.rig.scheduler.scale_in(r.rig.cluster, r.job, named, kT0);
  ASSERT_TRUE(waits);
  EXPECT_FALSE(waits.value().has_value());
  EXPECT_TRUE(r.rig.scheduler.take_resizes().empty());
  // The first is done: the newer request (Worker 0 leaves) is carried out, not the scale-in
  // to 2.
  r.report(Observation::Kind::kResized);
  const std::vector<ResizeAction> next = r.rig.scheduler.take_resizes();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].removed, PodIds{0});
  EXPECT_EQ(next[0].replicas, 5);
}

TEST(ResizeRequests, AScaleOutWhosePodsNeverRanIsRolledBack) {
  Running r;
  const ResizeAction out = r.ok(r.rig.scheduler.resize(r.rig.cluster, r.job, 8, kT0));
  EXPECT_EQ(out.added.size(), 4u);
  EXPECT_EQ(r.rig.cluster.free_gpus(), 0);
  r.report(Observation::Kind::kResizeFailed);
  EXPECT_EQ(r.rig.workload(r.job).pods.size(), 4u);
  EXPECT_EQ(r.rig.cluster.free_gpus(), 4) << "the added pods' GPUs are back";
  // The ids the failed pods had are not handed out again.
  const ResizeAction again = r.ok(r.rig.scheduler.resize(r.rig.cluster, r.job, 5, kT0));
  EXPECT_EQ(again.first_added, 8);
  EXPECT_TRUE(r.rig.cluster.check_invariants());
}

TEST(ResizeRequests, ReplacementsTakeNewIndicesAndAsManyAsFit) {
  // The node is full (job 1 takes GPUs 4-7): replacing Workers 2 and 3 finds no room, so the
  // job goes on with Workers 0 and 1 (its minimum); with room, they come back as 4 and 5.
  Running r;
  const JobId other = r.rig.submit(worker_job(1, 4), 1);
  r.rig.now = kT0 + seconds(1);
  EXPECT_EQ(r.rig.cycle().size(), 1u);
  const int failed[] = {2, 3};
  const ResizeAction shrink =
      r.ok(r.rig.scheduler.replace(r.rig.cluster, r.job, failed, r.rig.now, "NodeFailure"));
  EXPECT_EQ(shrink.removed, (PodIds{2, 3}));
  EXPECT_TRUE(shrink.added.empty());
  EXPECT_EQ(shrink.replicas, 2);
  r.report(Observation::Kind::kResized);
  r.rig.tell(Observation::Kind::kFinished, other);
  const int lost[] = {1};
  const ResizeAction replaced =
      r.ok(r.rig.scheduler.replace(r.rig.cluster, r.job, lost, r.rig.now, "NodeFailure"));
  EXPECT_EQ(replaced.removed, PodIds{1});
  EXPECT_EQ(replaced.first_added, 4);
  EXPECT_EQ(replaced.added.size(), 1u);
  EXPECT_EQ(replaced.replicas, 2);
}

}  // namespace resize_requests_test
}  // namespace gantry
