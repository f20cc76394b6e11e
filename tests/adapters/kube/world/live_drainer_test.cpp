// LiveDrainer (live_drainer.hpp) against the fake API server, with kubelet-sim playing two
// nodes and the live world placing pods (live_stack.hpp), on virtual time. Timeline by hand:
// a (4 GPUs, runs 10 min) and b (4 GPUs, runs 2 h) are bound to r1-n000 at t0 (binpack) and run
// from t0 + 5 s. At t0 + 1 min r1-n000 is drained with a 30-minute deadline and 1 hour of
// maintenance: cordoned at once; a ends by itself at t0 + 10 min 5 s; b is still there at the
// deadline t0 + 31 min and is evicted; a PodDisruptionBudget refuses the first eviction with
// Retry-After 30 s, so it is accepted at t0 + 31 min 30 s; the node is empty then, under
// maintenance until t0 + 1 h 31 min 30 s, and uncordoned then.

#include "adapters/kube/world/live_drainer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "adapters/kube/world/kube_pod_evictor.hpp"
#include "engine/policy/action_log.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace {

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

nlohmann::json pod(const std::string& name, const std::string& duration) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"annotations", {{"gantry.dev/simulate-duration", duration}}}}},
          {"spec",
           {{"schedulerName", "gantry"},
            {"containers",
             {{{"name", "main"},
               {"image", "busybox"},
               {"resources",
                {{"requests", {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "4"}}},
                 {"limits", {{"nvidia.com/gpu", "4"}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

struct Drained : testing::LiveStack {
  Drained() : LiveStack(kT0, model(), SchedulerConfig{}, seconds(5)) {
    drainer.on_report([this](const DrainReport& r) { reports.push_back(r); });
    drainer.start();
    harness.add(workers);
    harness.add(drainer.informer(), "/api/v1/pods", "spec.nodeName!=");
    const_cast<Informer&>(drainer.informer()).wait_for_sync();
    fake.wait_for_watches_started(4);
    harness.settle();
  }
  ~Drained() { drainer.stop(); }
  // The drain's writes, in order: "PATCH unschedulable=true", "POST eviction b-0", ...
  std::vector<std::string> writes() const {
    std::vector<std::string> out;
    for (const auto& r : fake.requests()) {
      if (r.method == "PATCH" && r.path == "/api/v1/nodes/r1-n000") {
        const nlohmann::json body = nlohmann::json::parse(r.body);
        out.push_back(std::string("PATCH unschedulable=") +
                      (body["spec"]["unschedulable"].get<bool>() ? "true" : "false"));
      }
      if (r.method == "POST" && r.path.ends_with("/eviction"))
        out.push_back("POST eviction " +
                      r.path.substr(r.path.rfind("/pods/") + 6,
                                    r.path.size() - r.path.rfind("/pods/") - 6 - 9));
    }
    return out;
  }
  ApiWorkers workers{2};
  KubePodEvictor evictor{client, workers, *loop};
  LiveDrainer drainer{client, workers, *loop, evictor};
  std::vector<DrainReport> reports;
  // "<time> <kind> <pod> <reason>", sorted: reports of one instant come in any order (an
  // eviction's answer and the informer's deletion race).
  std::vector<std::string> seen() const {
    std::vector<std::string> out;
    for (const DrainReport& r : reports)
      out.push_back(format_rfc3339(r.at) + " " + std::to_string(static_cast<int>(r.kind)) + " " +
                    r.pod + " " + r.reason);
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string report(Duration at, DrainReport::Kind kind, const std::string& pod = {},
                   const std::string& reason = {}) {
  return format_rfc3339(kT0 + at) + " " + std::to_string(static_cast<int>(kind)) + " " + pod + " " +
         reason;
}

TEST(LiveDrainer, CordonsWaitsEvictsAfterTheDeadlineAndUncordonsAfterMaintenance) {
  Drained live;
  live.fake.apply(kPods, pod("a-0", "10m"));
  live.fake.apply(kPods, pod("b-0", "2h"));
  live.fake.refuse_evictions(1, 30, "b-0");
  live.loop->schedule_at(kT0 + minutes(1), [&] {
    EXPECT_TRUE(live.drainer.drain("r1-n000", minutes(30), hours(1)));
    EXPECT_FALSE(live.drainer.drain("r1-n000", minutes(30), hours(1))) << "one at a time";
  });
  live.harness.run_until(kT0 + minutes(30));
  EXPECT_EQ(live.fake.get(kPods, "a-0").value()["spec"]["nodeName"], "r1-n000");
  EXPECT_EQ(live.fake.get(kPods, "a-0").value()["status"]["phase"], "Succeeded");
  EXPECT_EQ(live.fake.get(kPods, "b-0").value()["status"]["phase"], "Running");
  EXPECT_EQ(live.writes(), std::vector<std::string>{"PATCH unschedulable=true"});
  EXPECT_TRUE(live.world.cluster().cluster().cordoned(0)) << "the live world saw the cordon";

  // The deadline: b's eviction is refused once (429, Retry-After 30 s), then accepted.
  live.harness.run_until(kT0 + minutes(31) + seconds(10));
  EXPECT_EQ(live.writes(),
            (std::vector<std::string>{"PATCH unschedulable=true", "POST eviction b-0"}));
  EXPECT_TRUE(live.fake.get(kPods, "b-0"));
  live.harness.run_until(kT0 + minutes(32));
  EXPECT_EQ(live.writes(), (std::vector<std::string>{"PATCH unschedulable=true",
                                                     "POST eviction b-0", "POST eviction b-0"}));
  EXPECT_FALSE(live.fake.get(kPods, "b-0"));

  // Maintenance until t0 + 1 h 31 min 30 s.
  live.harness.run_until(kT0 + hours(1) + minutes(31));
  EXPECT_TRUE(live.drainer.draining("r1-n000"));
  EXPECT_EQ(live.writes().size(), 3u);
  live.harness.run_until(kT0 + hours(1) + minutes(32));
  EXPECT_FALSE(live.drainer.draining("r1-n000"));
  EXPECT_EQ(live.writes().back(), "PATCH unschedulable=false");
  EXPECT_FALSE(live.world.cluster().cluster().cordoned(0));

  using K = DrainReport::Kind;
  EXPECT_EQ(live.seen(), (std::vector<std::string>{
                             report(minutes(1), K::kCordoned),
                             // Said before the eviction is first asked for, at the deadline.
                             report(minutes(31), K::kEvicting, "ml/b-0", "Drain"),
                             report(minutes(31) + seconds(30), K::kEvicted, "ml/b-0", "Drain"),
                             report(minutes(31) + seconds(30), K::kEmpty),
                             report(hours(1) + minutes(31) + seconds(30), K::kUncordoned)}));
}

// A drain with no deadline evicts at once; a node with no Gantry pod is under maintenance at once.
TEST(LiveDrainer, AnEmptyNodeGoesStraightToMaintenance) {
  Drained live;
  live.loop->schedule_at(kT0 + minutes(1), [&] { live.drainer.drain("r1-n001", {}, minutes(10)); });
  live.harness.run_until(kT0 + minutes(12));
  using K = DrainReport::Kind;
  EXPECT_EQ(live.seen(), (std::vector<std::string>{report(minutes(1), K::kCordoned),
                                                   report(minutes(1), K::kEmpty),
                                                   report(minutes(11), K::kUncordoned)}));
}

// KubeWorld's own drainer (KubeWorldOptions::drains, what gantry serve --world kube runs): the
// pod it is about to evict is reported to the scheduler first, so its gang is evicted with reason
// Drain, as in the simulator (not "pod deleted", as a pod deleted under it would be). It waits
// again at once; with no controller recreating its pod it cannot be bound again, and is
// withdrawn (live_scheduler.hpp).
TEST(LiveDrainer, AKubeWorldsDrainEvictsTheGangWithReasonDrain) {
  testing::LiveStack live(kT0, model(), SchedulerConfig{}, seconds(5), "gantry-0", {}, true);
  std::ostringstream text;
  ActionLog log(text, live.world.cluster().cluster());
  live.world.scheduler().set_action_log(&log);
  live.fake.apply(kPods, pod("a-0", "10h"));  // binpack: r1-n000, GPUs 0-3
  live.harness.run_until(kT0 + minutes(1));
  live.loop->schedule_at(kT0 + minutes(2),
                         [&] { EXPECT_TRUE(live.world.drain("r1-n000", Duration(0), hours(1))); });
  live.harness.run_until(kT0 + minutes(3));
  live.world.scheduler().set_action_log(nullptr);
  EXPECT_NE(text.str().find(
                R"({"t":"2026-01-01T00:02:00Z","kind":"evicted","workload":0,"reason":"Drain"})"),
            std::string::npos)
      << text.str();
  EXPECT_FALSE(live.fake.get(kPods, "a-0")) << "evicted by the drainer";
  EXPECT_TRUE(live.world.cluster().cluster().cordoned(0));
  size_t evictions = 0;
  for (const auto& r : live.fake.requests()) evictions += r.path.ends_with("/eviction") ? 1 : 0;
  EXPECT_EQ(evictions, 1u) << "through the Eviction API, the scheduler deleting nothing itself";
}

}  // namespace
}  // namespace gantry::kube
