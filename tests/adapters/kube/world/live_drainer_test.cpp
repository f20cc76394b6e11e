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

#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/world/kube_pod_evictor.hpp"
#include "engine/policy/action_log.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace live_drainer_test {

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
    fake.create_namespace("ml");
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
        if (!body.contains("spec") || !body["spec"].contains("unschedulable")) continue;
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
  live.fake.create_namespace("ml");
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

// `gantry kube drain`'s request (model/kube_node.hpp) written to a node, as the CLI writes it.
void request_drain(KubeClient& client, const std::string& node, Duration deadline,
                   Duration maintenance, const std::string& requested) {
  client.patch("/api/v1/nodes/" + node,
               annotations_patch({{std::string(kDrainRequestAnnotation),
                                   drain_request_value(deadline, maintenance, requested)}}),
               PatchType::kMerge);
}

// Every write to node r1-n000 and every eviction, in the order the fake server saw them:
// "request", "cordon", "uncordon", "state <state>", "eviction <pod>".
std::vector<std::string> node_writes(const testing::FakeApiServer& fake) {
  std::vector<std::string> out;
  for (const auto& r : fake.requests()) {
    if (r.method == "POST" && r.path.ends_with("/eviction")) {
      const size_t from = r.path.rfind("/pods/") + 6;
      out.push_back("eviction " + r.path.substr(from, r.path.size() - from - 9));
      continue;
    }
    if (r.method != "PATCH" || r.path != "/api/v1/nodes/r1-n000") continue;
    const nlohmann::json body = nlohmann::json::parse(r.body);
    if (body.contains("spec")) {
      // kubelet-sim's patches of the node's taints are not the drain's.
      if (body["spec"].contains("unschedulable"))
        out.push_back(body["spec"]["unschedulable"].get<bool>() ? "cordon" : "uncordon");
      continue;
    }
    const nlohmann::json& a = body["metadata"]["annotations"];
    if (a.contains(std::string(kDrainRequestAnnotation))) out.push_back("request");
    if (a.contains(std::string(kDrainStateAnnotation)))
      out.push_back("state " +
                    nlohmann::json::parse(a[std::string(kDrainStateAnnotation)].get<std::string>())
                        .value("state", "?"));
  }
  return out;
}

// A drain request on a node starts exactly one drain in KubeWorld (what `gantry serve --world
// kube` runs). Timeline by hand: a-0 (4 GPUs, 10 h) bound to r1-n000 at t0; at t0 + 1 min the
// request (deadline 30 min, maintenance 1 h) is written: cordon at t0 + 1 min, then the state
// "draining"; a-0 still runs at the deadline t0 + 31 min and is evicted (no PDB: accepted at
// once, the node empty); maintenance until t0 + 1 h 31 min, uncordon, state "done". The node
// informer shows the request again with every one of those writes: never a second drain.
TEST(LiveDrainer, ADrainRequestOnANodeStartsOneDrain) {
  testing::LiveStack live(kT0, model(), SchedulerConfig{}, seconds(5), "gantry-0", {}, true);
  live.fake.create_namespace("ml");
  live.fake.apply(kPods, pod("a-0", "10h"));
  live.harness.run_until(kT0 + minutes(1));
  const std::string requested = "2026-01-01T00:01:00.000000Z";
  request_drain(live.client, "r1-n000", minutes(30), hours(1), requested);
  live.harness.run_until(kT0 + minutes(2));
  EXPECT_EQ(node_writes(live.fake),
            (std::vector<std::string>{"request", "cordon", "state draining"}));
  EXPECT_TRUE(live.world.drainer()->draining("r1-n000"));
  EXPECT_TRUE(live.world.cluster().cluster().cordoned(0));
  EXPECT_EQ(live.fake.get(kPods, "a-0").value()["status"]["phase"], "Running");

  live.harness.run_until(kT0 + minutes(30) + seconds(59));
  EXPECT_EQ(node_writes(live.fake).size(), 3u) << "nothing before the deadline";
  live.harness.run_until(kT0 + minutes(31));
  EXPECT_EQ(node_writes(live.fake).back(), "eviction a-0");
  EXPECT_FALSE(live.fake.get(kPods, "a-0"));

  live.harness.run_until(kT0 + hours(1) + minutes(30) + seconds(59));
  EXPECT_TRUE(live.world.drainer()->draining("r1-n000")) << "under maintenance";
  live.harness.run_until(kT0 + hours(3));
  EXPECT_EQ(node_writes(live.fake),
            (std::vector<std::string>{"request", "cordon", "state draining", "eviction a-0",
                                      "uncordon", "state done"}));
  EXPECT_FALSE(live.world.cluster().cluster().cordoned(0));
  EXPECT_EQ(live.world.drain_requests_started(), 1u);
  EXPECT_EQ(live.world.drain_requests_refused(), 0u);
  const auto node = live.fake.get("/api/v1/nodes", "r1-n000").value();
  EXPECT_EQ(node["metadata"]["annotations"][std::string(kDrainStateAnnotation)],
            R"({"requested":"2026-01-01T00:01:00.000000Z","state":"done",)"
            R"("at":"2026-01-01T01:31:00Z"})");

  // A new request (a later `requested`) is a new drain; the node is empty: maintenance at once.
  request_drain(live.client, "r1-n000", Duration(0), minutes(10), "2026-01-01T03:00:00.000000Z");
  live.harness.run_until(kT0 + hours(3) + minutes(11));
  EXPECT_EQ(live.world.drain_requests_started(), 2u);
  const std::vector<std::string> writes = node_writes(live.fake);
  EXPECT_EQ(
      std::vector<std::string>(writes.begin() + 6, writes.end()),
      (std::vector<std::string>{"request", "cordon", "state draining", "uncordon", "state done"}));
}

// A request the state already names (taken by an earlier life of the server, or another
// replica) is not repeated; an inactive scheduler (not the leader) takes none; a request that
// cannot be read is refused, with the reason in the state.
TEST(LiveDrainer, ADrainRequestIsTakenOnceByTheLeader) {
  testing::LiveStack live(kT0, model(), SchedulerConfig{}, seconds(5), "gantry-0", {}, true);
  live.fake.create_namespace("ml");
  const std::string requested = "2026-01-01T00:00:00.000000Z";
  live.client.patch("/api/v1/nodes/r1-n000",
                    annotations_patch({{std::string(kDrainRequestAnnotation),
                                        drain_request_value(Duration(0), hours(1), requested)},
                                       {std::string(kDrainStateAnnotation),
                                        drain_state_value(requested, "done", kT0)}}),
                    PatchType::kMerge);
  live.harness.run_until(kT0 + seconds(30));
  EXPECT_FALSE(live.world.drainer()->draining("r1-n000")) << "taken before";
  live.world.scheduler().set_active(false);
  request_drain(live.client, "r1-n001", Duration(0), hours(1), requested);
  live.harness.run_until(kT0 + minutes(1));
  EXPECT_FALSE(live.world.drainer()->draining("r1-n001")) << "not the leader";
  EXPECT_EQ(live.world.drain_requests_started(), 0u);

  live.world.scheduler().set_active(true);
  live.client.patch("/api/v1/nodes/r1-n001",
                    annotations_patch({{std::string(kDrainRequestAnnotation), "now please"}}),
                    PatchType::kMerge);
  live.harness.run_until(kT0 + minutes(2));
  EXPECT_EQ(live.world.drain_requests_refused(), 1u);
  EXPECT_FALSE(live.world.drainer()->draining("r1-n001"));
  const nlohmann::json state = nlohmann::json::parse(
      live.fake.get("/api/v1/nodes", "r1-n001")
          .value()["metadata"]["annotations"][std::string(kDrainStateAnnotation)]
          .get<std::string>());
  EXPECT_EQ(state["requested"], "now please");
  EXPECT_EQ(state["state"], "refused");
  EXPECT_NE(state["reason"].get<std::string>().find(
                "Node r1-n001: metadata.annotations.gantry.dev/drain-request"),
            std::string::npos)
      << state.dump();
}

}  // namespace live_drainer_test
}  // namespace gantry::kube
