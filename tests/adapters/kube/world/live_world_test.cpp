// The live world end to end: the shared Scheduler placing pods through the client against the
// fake API server, with kubelet-sim playing the nodes, on a virtual-time loop that moves only
// when everything has settled (live_harness.hpp). Cluster: two nodes r1-n000, r1-n001 of 8
// A100-80G (one NVSwitch island), 128 cores, 1 TiB; binpack; pod start-up 5 s. Expected
// placements and times by hand.

#include <gtest/gtest.h>

#include <sstream>

#include "engine/policy/action_log.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace live_world_test {

using testing::FakeApiServer;
using testing::LiveHarness;

constexpr int64_t kGi = int64_t{1} << 30;
const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
const char* kPods = "/api/v1/namespaces/ml/pods";

Topology model() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(
      NodeClass{"dgx-a100", Resources{128'000, 1024 * kGi, 8, 0}, t.gpus.find("A100-80G"), 8});
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}, NodeInfo{"r1-n001", 0, 0}};
  return t;
}

nlohmann::json pod(const std::string& name, const std::string& gang, int size, int gpus,
                   const std::string& duration) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"labels", {{"gantry.dev/gang", gang}}},
            {"annotations",
             {{"gantry.dev/gang-size", std::to_string(size)},
              {"gantry.dev/simulate-duration", duration}}}}},
          {"spec",
           {{"schedulerName", "gantry"},
            {"containers",
             {{{"name", "main"},
               {"image", "busybox"},
               {"resources",
                {{"requests",
                  {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}}},
                 {"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

// The fake server, kubelet-sim for the model's nodes and the live world, wired to one loop.
struct Live : testing::LiveStack {
  Live() : LiveStack(kT0, model(), SchedulerConfig{}, seconds(5)) { fake.create_namespace("ml"); }
  nlohmann::json get_pod(const std::string& name) { return *fake.get(kPods, name); }
  size_t requests(const std::string& method, const std::string& suffix) {
    size_t n = 0;
    for (const auto& r : fake.requests())
      if (r.method == method && r.path.size() >= suffix.size() &&
          r.path.compare(r.path.size() - suffix.size(), suffix.size(), suffix) == 0)
        ++n;
    return n;
  }
};

std::string gpus(const std::vector<int>& g) {
  std::string out;
  for (int i : g) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out;
}

TEST(LiveWorld, AGangIsPlacedBoundPlayedAndFinished) {
  Live live;
  EXPECT_TRUE(live.world.cluster().cluster().schedulable(0)) << "kubelet-sim registered r1-n000";
  live.fake.apply(kPods, pod("train-0", "train", 2, 4, "10m"));
  live.fake.apply(kPods, pod("train-1", "train", 2, 4, "10m"));
  live.harness.run_until(kT0 + hours(1));

  // binpack: both 4-GPU pods on r1-n000, GPUs 0-3 and 4-7, at t0.
  const auto& d = live.world.scheduler().decisions();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].pod, "ml/train-0");
  EXPECT_EQ(d[0].node, "r1-n000");
  EXPECT_EQ(gpus(d[0].gpus), "0,1,2,3");
  EXPECT_EQ(d[1].node, "r1-n000");
  EXPECT_EQ(gpus(d[1].gpus), "4,5,6,7");
  EXPECT_EQ(d[0].at, kT0);
  // Bound once each, annotated, played: running at t0 + 5 s, done 10 min later.
  EXPECT_EQ(live.requests("POST", "/binding"), 2u);
  const nlohmann::json p0 = live.get_pod("train-0");
  EXPECT_EQ(p0["spec"]["nodeName"], "r1-n000");
  EXPECT_EQ(p0["metadata"]["annotations"]["gantry.dev/gpu-index"], "0,1,2,3");
  EXPECT_EQ(p0["status"]["phase"], "Succeeded");
  EXPECT_EQ(p0["status"]["startTime"], "2026-01-01T00:00:05Z");
  EXPECT_EQ(p0["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"],
            "2026-01-01T00:10:05Z");
  const Workload* w = live.world.scheduler().scheduler().workloads().find(0);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->state, WorkloadState::kFinished);
  EXPECT_EQ(live.world.cluster().cluster().free_gpus(), 16);
  // One Scheduled event per pod, through events.k8s.io/v1.
  EXPECT_EQ(live.requests("POST", "/apis/events.k8s.io/v1/namespaces/ml/events"), 2u);
}

TEST(LiveWorld, AGangThatCannotFitIsNeverBoundInPart) {
  Live live;
  for (int i = 0; i < 3; ++i)
    live.fake.apply(kPods, pod("big-" + std::to_string(i), "big", 3, 8, "1h"));
  live.harness.run_until(kT0 + hours(2));
  EXPECT_EQ(live.requests("POST", "/binding"), 0u) << "24 GPUs on 16: nothing, not a part";
  EXPECT_TRUE(live.world.scheduler().decisions().empty());
  // FailedScheduling once per pod of the try, not once per cycle.
  EXPECT_EQ(live.requests("POST", "/apis/events.k8s.io/v1/namespaces/ml/events"), 3u);
}

TEST(LiveWorld, ARefusedBindUndoesTheBoundMembers) {
  Live live;
  // The API server refuses the second pod's binding once (another scheduler got there first).
  testing::Fault f;
  f.method = "POST";
  f.path_prefix = "/api/v1/namespaces/ml/pods/pair-1/binding";
  f.status = 409;
  live.fake.inject(f);
  live.fake.apply(kPods, pod("pair-0", "pair", 2, 8, "10m"));
  live.fake.apply(kPods, pod("pair-1", "pair", 2, 8, "10m"));
  live.harness.run_until(kT0 + hours(1));
  // pair-0 was bound, then deleted to undo the gang (uid precondition); pair-1 never bound.
  EXPECT_EQ(live.requests("DELETE", "/pods/pair-0"), 1u);
  EXPECT_FALSE(live.fake.get(kPods, "pair-0").has_value());
  EXPECT_FALSE(live.get_pod("pair-1")["spec"].contains("nodeName"));
  // The gang lost a member for good (no controller here), so it is not tried again half.
  EXPECT_EQ(live.requests("POST", "/binding"), 2u);
  EXPECT_EQ(live.world.cluster().cluster().free_gpus(), 16);
}

// Two runs of the same live scenario give the same decisions and the same objects.
TEST(LiveWorld, IsDeterministic) {
  const auto run = [] {
    Live live;
    live.fake.apply(kPods, pod("a-0", "a", 1, 2, "5m"));
    live.fake.apply(kPods, pod("b-0", "b", 2, 6, "7m"));
    live.fake.apply(kPods, pod("b-1", "b", 2, 6, "7m"));
    live.fake.apply(kPods, pod("c-0", "c", 1, 8, "1m"));
    live.harness.run_until(kT0 + hours(1));
    std::vector<std::string> out;
    for (const auto& d : live.world.scheduler().decisions())
      out.push_back(format_rfc3339(d.at) + " " + d.pod + " " + d.node + " " + gpus(d.gpus));
    for (const char* p : {"a-0", "b-0", "b-1", "c-0"})
      out.push_back(live.get_pod(p)["status"].dump());
    return out;
  };
  const std::vector<std::string> first = run();
  EXPECT_EQ(first, run());
  // a-0 and b fit at once (binpack: a-0 r1-n000 GPUs 0-1, b-0 the rest of it, b-1 r1-n001);
  // c-0 needs a whole node: when b ends (00:07:05; a ended at 00:05:05) both nodes are
  // empty, and binpack's tie goes to the lower id, r1-n000.
  ASSERT_EQ(first.size(), 8u);
  EXPECT_EQ(first[3], "2026-01-01T00:07:05Z ml/c-0 r1-n000 0,1,2,3,4,5,6,7");
}

// Two replicas of the live world on one cluster, with leader election: only the one holding
// the Lease places pods; when it stops renewing, the other takes over once the lease expired
// (15 s, measured on the candidates' own clock, here a virtual one) and places the next pods.
TEST(LiveWorld, OnlyTheLeaderPlacesPods) {
  Live live;  // its world has no election: it is the cluster's kubelet-sim and API server
  live.world.scheduler().set_active(false);  // ... and stays out of the way
  VirtualClock election_clock(kT0);
  const auto replica = [&](const std::string& id) {
    KubeWorldOptions o{.model = model(), .identity = id, .leader_election = true};
    o.election.clock = &election_clock;
    o.election_thread = false;
    return std::make_unique<KubeWorld>(live.client, *live.loop, std::move(o));
  };
  std::unique_ptr<KubeWorld> a = replica("replica-a");
  std::unique_ptr<KubeWorld> b = replica("replica-b");
  for (KubeWorld* w : {a.get(), b.get()}) {
    w->start();
    const_cast<Informer&>(w->node_informer()).wait_for_sync();
    const_cast<Informer&>(w->pod_informer()).wait_for_sync();
    live.harness.add(w->workers());
    live.harness.add(w->event_workers());
    live.harness.add(w->node_informer(), "/api/v1/nodes");
    live.harness.add(w->pod_informer(), "/api/v1/pods");
  }
  live.fake.wait_for_watches_started(7);
  EXPECT_TRUE(a->campaign());
  EXPECT_FALSE(b->campaign()) << "the lease is a's";
  live.fake.apply(kPods, pod("one-0", "one", 1, 8, "1m"));
  live.harness.run_until(kT0 + minutes(5));
  EXPECT_EQ(a->scheduler().decisions().size(), 1u);
  EXPECT_TRUE(b->scheduler().decisions().empty()) << "a follower keeps its model, places nothing";
  EXPECT_EQ(live.requests("POST", "/binding"), 1u) << "one bind: no replica raced another";

  // a stops renewing. b saw a's record at t0: 10 s later it is still a's, 16 s later (past
  // the 15 s lease) it has expired and b takes it.
  a->stop();
  election_clock.jump_to(kT0 + seconds(10));
  EXPECT_FALSE(b->campaign()) << "a's lease still runs";
  election_clock.jump_to(kT0 + seconds(16));
  EXPECT_TRUE(b->campaign()) << "a's lease expired: b takes it";
  live.fake.apply(kPods, pod("two-0", "two", 1, 8, "1m"));
  live.harness.run_until(live.loop->now() + minutes(5));
  ASSERT_EQ(b->scheduler().decisions().size(), 1u);
  EXPECT_EQ(b->scheduler().decisions()[0].pod, "ml/two-0");
  EXPECT_EQ(live.requests("POST", "/binding"), 2u);
  b->stop();
}

}  // namespace live_world_test
}  // namespace gantry::kube

namespace gantry::kube {
namespace live_world_test {

// kubelet-sim's gpu-fail (kubelet_sim.hpp) and what the live world makes of it. Two gangs of
// one 4-GPU pod on r1-n000 (binpack: GPUs 0-3 and 4-7); GPU 5 fails at t0 + 10 min: only the
// pod holding it ends (Failed, GPUFailure, exit code 137), its gang is evicted with reason
// GPUFailure and its pod deleted; the node's allocatable drops to 7 and GPU 5 stays out of use
// (held), so the cluster has 16 − 4 (a) − 1 (held) = 11 GPUs free. Repaired at t0 + 20 min:
// 16 − 4 = 12.
TEST(LiveWorld, AFailedGpuEndsThePodOnItAndIsKeptOutOfUse) {
  Live live;
  std::ostringstream actions;
  ActionLog log(actions, live.world.cluster().cluster());
  live.world.scheduler().set_action_log(&log);
  live.fake.apply(kPods, pod("a-0", "a", 1, 4, "1h"));
  live.fake.apply(kPods, pod("b-0", "b", 1, 4, "1h"));
  FaultEvent fail;
  fail.at = kT0 + minutes(10);
  fail.action = FaultAction::kGpuFail;
  fail.node = 0;
  fail.gpu = 5;
  FaultEvent repair = fail;
  repair.at = kT0 + minutes(20);
  repair.action = FaultAction::kGpuRepair;
  live.kubelet.schedule_faults({fail, repair});
  live.harness.run_until(kT0 + minutes(15));

  EXPECT_EQ(live.get_pod("a-0")["status"]["phase"], "Running");
  EXPECT_FALSE(live.fake.get(kPods, "b-0")) << "b's pod was deleted for its controller";
  EXPECT_EQ(live.requests("DELETE", "/pods/b-0"), 1u);
  const Workload* b = live.world.scheduler().scheduler().workloads().find(1);
  ASSERT_NE(b, nullptr);
  // No controller recreates it here: tried again at once (restart delay 0) without its pod,
  // the workload is withdrawn, as an evicted gang re-admitted before its pods are back is.
  EXPECT_EQ(b->state, WorkloadState::kWithdrawn);
  EXPECT_EQ(b->evictions, 1);
  const nlohmann::json node = *live.fake.get("/api/v1/nodes", "r1-n000");
  EXPECT_EQ(node["status"]["allocatable"]["nvidia.com/gpu"], "7");
  EXPECT_EQ(node["metadata"]["annotations"]["gantry.dev/unhealthy-gpus"], "5");
  const Cluster& c = live.world.cluster().cluster();
  EXPECT_TRUE(c.schedulable(0)) << "one GPU out is not the node out";
  EXPECT_EQ(c.free_gpus(), 11);
  EXPECT_EQ(c.free_gpu_mask(0), 0b1101'0000u) << "GPUs 4, 6, 7 free; 5 held";
  EXPECT_NE(actions.str().find(R"("kind":"evicted","workload":1,"reason":"GPUFailure")"),
            std::string::npos)
      << actions.str();

  live.harness.run_until(kT0 + minutes(25));
  EXPECT_FALSE(live.fake.get("/api/v1/nodes", "r1-n000")
                   .value()["metadata"]["annotations"]
                   .contains("gantry.dev/unhealthy-gpus"));
  EXPECT_EQ(c.free_gpus(), 12);
  live.world.scheduler().set_action_log(nullptr);
}

}  // namespace live_world_test
}  // namespace gantry::kube
