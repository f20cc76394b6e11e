// Resizes in the live world (live_scheduler.hpp, "Resizes"; issue #13) against the fake API
// server with kubelet-sim, on the virtual-time loop: the requests Gantry sends and their order,
// the host list ConfigMap, the observations. Cluster: two nodes r1-n000, r1-n001 of 8 A100-80G,
// binpack, pod start-up 5 s. The gang "train": elastic 1..4 Workers of 2 GPUs, placed at t0
// on r1-n000 (binpack: GPUs 0,1 and 2,3), running from t0 + 5 s.

#include <gtest/gtest.h>

#include <sstream>

#include "adapters/kube/world/resize_writer.hpp"
#include "engine/policy/action_log.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace live_resize_test {

using testing::Fault;

constexpr int64_t kGi = int64_t{1} << 30;
const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
const char* kPods = "/api/v1/namespaces/ml/pods";
const char* kConfigMaps = "/api/v1/namespaces/ml/configmaps";

Topology model() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(
      NodeClass{"dgx-a100", Resources{128'000, 1024 * kGi, 8, 0}, t.gpus.find("A100-80G"), 8});
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}, NodeInfo{"r1-n001", 0, 0}};
  return t;
}

nlohmann::json worker(int i, int size) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", "train-worker-" + std::to_string(i)},
            {"namespace", "ml"},
            {"labels", {{"gantry.dev/gang", "train"}, {"app", "train"}}},
            {"annotations",
             {{"gantry.dev/gang-size", std::to_string(size)},
              {"gantry.dev/gang-index", std::to_string(i)},
              {"gantry.dev/elastic-min", "1"},
              {"gantry.dev/elastic-max", "4"},
              {"gantry.dev/simulate-duration", "10h"}}}}},
          {"spec",
           {{"schedulerName", "gantry"},
            {"containers",
             {{{"name", "main"},
               {"image", "busybox"},
               {"resources",
                {{"requests", {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "2"}}},
                 {"limits", {{"nvidia.com/gpu", "2"}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

struct Live : testing::LiveStack {
  Live()
      : LiveStack(kT0, model(), SchedulerConfig{}, seconds(5)),
        log(text, world.cluster().cluster()) {
    fake.create_namespace("ml");
    world.scheduler().set_action_log(&log);
    fake.apply(kPods, worker(0, 2));
    fake.apply(kPods, worker(1, 2));
    harness.run_until(kT0 + seconds(30));
  }
  ~Live() { world.scheduler().set_action_log(nullptr); }
  JobId job() { return *world.scheduler().workload_of("ml/train"); }
  const Workload& workload() { return *world.scheduler().scheduler().workloads().find(job()); }
  // "METHOD path" of the requests that write pods and ConfigMaps (not status, not Events).
  std::vector<std::string> writes() {
    std::vector<std::string> out;
    for (const auto& r : fake.requests()) {
      if (r.method == "GET" || r.path.find("/status") != std::string::npos) continue;
      if (r.path.rfind(kPods, 0) != 0 && r.path.rfind(kConfigMaps, 0) != 0) continue;
      out.push_back(r.method + " " + r.path);
    }
    return out;
  }
  std::string hostfile() {
    const auto cm = fake.get(kConfigMaps, "train-hosts");
    return cm ? (*cm)["data"]["hostfile"].get<std::string>() : "(none)";
  }
  std::ostringstream text;
  ActionLog log;
};

size_t index_of(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}

TEST(LiveResize, AnElasticGangIsOneJobWithAWorkerRole) {
  Live live;
  const Workload& w = live.workload();
  ASSERT_EQ(w.state, WorkloadState::kRunning);
  ASSERT_EQ(w.spec->roles.size(), 1u) << "two Workers with one request: one role";
  EXPECT_EQ(w.spec->roles[0].replicas, 2);
  EXPECT_EQ(w.spec->elastic.min_replicas, 1);
  EXPECT_EQ(w.spec->elastic.max_replicas, 4);
  EXPECT_EQ(w.spec->restart_policy, RestartPolicy::kOnFailure);
}

TEST(LiveResize, AScaleOutCreatesBindsWaitsForRunningThenWritesTheHostList) {
  Live live;
  live.fake.clear_requests();
  const Time at = kT0 + minutes(1);
  live.loop->schedule_at(
      at, [&] { ASSERT_TRUE(live.world.scheduler().resize(live.job(), 4, "Test")); });
  // Created and bound at once; running 5 s later (kubelet-sim's start-up): no host list before.
  live.harness.run_until(at + seconds(4));
  EXPECT_EQ(live.world.scheduler().resizes_done(), 0u);
  EXPECT_EQ(live.hostfile(), "(none)");
  live.harness.run_until(at + seconds(5));
  EXPECT_EQ(live.world.scheduler().resizes_done(), 1u);

  const std::vector<std::string> w = live.writes();
  const std::string p = kPods;
  // Each new pod created, then bound; the ConfigMap (absent: PUT 404, then POST) after both.
  ASSERT_EQ(w.size(), 6u) << ::testing::PrintToString(w);
  for (const char* name : {"train-worker-2", "train-worker-3"}) {
    EXPECT_LT(index_of(w, "POST " + p), index_of(w, "POST " + p + "/" + name + "/binding"));
    EXPECT_LT(index_of(w, "POST " + p + "/" + name + "/binding"),
              index_of(w, std::string("PUT ") + kConfigMaps + "/train-hosts"));
  }
  EXPECT_EQ(w[4], std::string("PUT ") + kConfigMaps + "/train-hosts");
  EXPECT_EQ(w[5], std::string("POST ") + kConfigMaps);
  EXPECT_EQ(live.hostfile(),
            "train-worker-0 slots=2\ntrain-worker-1 slots=2\ntrain-worker-2 slots=2\n"
            "train-worker-3 slots=2\n");

  // The new pods: the template's labels and annotations, their own index and the new size,
  // bound by binpack next to the others on r1-n000 (GPUs 4,5 and 6,7).
  const nlohmann::json p2 = *live.fake.get(kPods, "train-worker-2");
  EXPECT_EQ(p2["metadata"]["labels"]["app"], "train");
  EXPECT_EQ(p2["metadata"]["annotations"]["gantry.dev/gang-index"], "2");
  EXPECT_EQ(p2["metadata"]["annotations"]["gantry.dev/gang-size"], "4");
  EXPECT_EQ(p2["metadata"]["annotations"]["gantry.dev/elastic-max"], "4");
  EXPECT_EQ(p2["spec"]["nodeName"], "r1-n000");
  EXPECT_EQ(p2["metadata"]["annotations"]["gantry.dev/gpu-index"], "4,5");
  EXPECT_EQ(p2["status"]["phase"], "Running");
  EXPECT_EQ(
      (*live.fake.get(kPods, "train-worker-3"))["metadata"]["annotations"]["gantry.dev/gpu-index"],
      "6,7");
  // The scheduler's view: 4 pods, ids 0..3; 16 - 8 GPUs free.
  const Workload& wl = live.workload();
  EXPECT_EQ(wl.pods.size(), 4u);
  EXPECT_EQ(wl.resize_to_pods, -1) << "no resize in flight";
  EXPECT_EQ(live.world.cluster().cluster().free_gpus(), 8);
  const std::string text = live.text.str();
  EXPECT_NE(
      text.find(
          R"({"t":"2026-01-01T00:01:00Z","kind":"resize","workload":0,"replicas":4,"pods":[{"pod":2,"node":"r1-n000","gpus":[4,5])"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"({"t":"2026-01-01T00:01:05Z","kind":"resized","workload":0})"),
            std::string::npos)
      << text;
}

TEST(LiveResize, AScaleInWritesTheHostListBeforeDeletingTheHighestWorkers) {
  Live live;
  live.fake.apply(kConfigMaps, {{"apiVersion", "v1"},
                                {"kind", "ConfigMap"},
                                {"metadata", {{"name", "train-hosts"}, {"namespace", "ml"}}},
                                {"data", {{"hostfile", "old"}}}});
  live.harness.run_until(kT0 + minutes(1));
  live.fake.clear_requests();
  const std::string uid1 = (*live.fake.get(kPods, "train-worker-1"))["metadata"]["uid"];
  live.loop->schedule_at(
      kT0 + minutes(2), [&] { ASSERT_TRUE(live.world.scheduler().resize(live.job(), 1, "Test")); });
  live.harness.run_until(kT0 + minutes(2));
  const std::vector<std::string> w = live.writes();
  ASSERT_EQ(w.size(), 2u) << ::testing::PrintToString(w);
  EXPECT_EQ(w[0], std::string("PUT ") + kConfigMaps + "/train-hosts");
  EXPECT_EQ(w[1], "DELETE " + std::string(kPods) + "/train-worker-1");
  // The delete carries the pod's uid as a precondition.
  for (const auto& r : live.fake.requests()) {
    if (r.method == "DELETE") {
      EXPECT_EQ(nlohmann::json::parse(r.body)["preconditions"]["uid"], uid1);
    }
  }
  EXPECT_EQ(live.hostfile(), "train-worker-0 slots=2\n");
  EXPECT_FALSE(live.fake.get(kPods, "train-worker-1"));
  // Reported once the informer showed the pod gone (the same instant: the fake deletes at once).
  EXPECT_EQ(live.world.scheduler().resizes_done(), 1u);
  EXPECT_EQ(live.workload().pods.size(), 1u);
  EXPECT_EQ(live.world.cluster().cluster().free_gpus(), 14);
  EXPECT_NE(
      live.text.str().find(
          R"({"t":"2026-01-01T00:02:00Z","kind":"resize","workload":0,"replicas":1,"removed":[1],"reason":"Test"})"),
      std::string::npos)
      << live.text.str();
}

TEST(LiveResize, AScaleOutWhosePodsDoNotRunInTimeIsRolledBack) {
  Live live;
  live.fake.clear_requests();
  // kubelet-sim cannot write train-worker-3's status: it never runs.
  Fault f;
  f.method = "PATCH";
  f.path_prefix = std::string(kPods) + "/train-worker-3/status";
  f.times = 1000;
  f.status = 500;
  live.fake.inject(f);
  const Time at = kT0 + minutes(1);
  live.loop->schedule_at(
      at, [&] { ASSERT_TRUE(live.world.scheduler().resize(live.job(), 4, "Test")); });
  live.harness.run_until(at + minutes(5) - seconds(1));
  EXPECT_EQ(live.world.scheduler().resizes_failed(), 0u) << "the default timeout is 5 min";
  EXPECT_EQ(live.workload().pods.size(), 4u);
  live.harness.run_until(at + minutes(5));
  EXPECT_EQ(live.world.scheduler().resizes_failed(), 1u);
  EXPECT_EQ(live.world.scheduler().resizes_done(), 0u);

  const std::vector<std::string> w = live.writes();
  const std::string p = kPods;
  ASSERT_EQ(w.size(), 6u) << ::testing::PrintToString(w);
  // Created and bound, no host list, then both new pods deleted.
  EXPECT_EQ(std::count(w.begin(), w.begin() + 4, "POST " + p), 2);
  // The two deletes run on two API workers: in either order.
  std::vector<std::string> deletes(w.begin() + 4, w.end());
  std::sort(deletes.begin(), deletes.end());
  EXPECT_EQ(deletes, (std::vector<std::string>{"DELETE " + p + "/train-worker-2",
                                               "DELETE " + p + "/train-worker-3"}));
  EXPECT_EQ(live.hostfile(), "(none)");
  // Bound, both are deleted gracefully (their 30 s by default, from the API server): kept
  // until kubelet-sim confirms at 00:06:30, even train-worker-3, whose status it cannot write.
  EXPECT_EQ(live.workload().pods.size(), 2u);
  for (const char* pod : {"train-worker-2", "train-worker-3"})
    EXPECT_TRUE((*live.fake.get(kPods, pod))["metadata"].contains("deletionTimestamp")) << pod;
  EXPECT_EQ(live.world.cluster().cluster().free_gpus(), 8) << "their GPUs held meanwhile";
  live.harness.run_until(at + minutes(5) + seconds(30));
  EXPECT_FALSE(live.fake.get(kPods, "train-worker-2"));
  EXPECT_FALSE(live.fake.get(kPods, "train-worker-3"));
  EXPECT_EQ(live.world.cluster().cluster().free_gpus(), 12);
  EXPECT_NE(
      live.text.str().find(
          R"({"t":"2026-01-01T00:06:00Z","kind":"resize-failed","workload":0,"reason":"the new pods did not all run within 300s"})"),
      std::string::npos)
      << live.text.str();
  // The gang keeps running on its two Workers.
  EXPECT_EQ(live.workload().state, WorkloadState::kRunning);
}

}  // namespace live_resize_test
}  // namespace gantry::kube
