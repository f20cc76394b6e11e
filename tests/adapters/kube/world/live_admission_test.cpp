// Admission in the live world, end to end on the virtual-time harness (live_stack.hpp): queues,
// a cohort's reclamation carried out through the Eviction API against the fake API server,
// PodDisruptionBudget refusals waited out on the loop's timers, and gangs refused for their
// queue. Cluster: two nodes r1-n000, r1-n001 of 8 A100-80G, 128 cores, 1 TiB; binpack; pod
// start-up 5 s. Queues: team-a and team-b, 8 GPUs of nominal quota each, in the cohort "lab";
// team-a reclaims what it lent from any borrower (reclaimWithinCohort: Any).

#include <gtest/gtest.h>

#include <sstream>

#include "adapters/kube/request_bodies.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace live_admission_test {

using testing::RecordedRequest;

constexpr int64_t kGi = int64_t{1} << 30;
const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
const char* kPods = "/api/v1/namespaces/ml/pods";
const char* kEvents = "/apis/events.k8s.io/v1/namespaces/ml/events";

Topology model() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(
      NodeClass{"dgx-a100", Resources{128'000, 1024 * kGi, 8, 0}, t.gpus.find("A100-80G"), 8});
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}, NodeInfo{"r1-n001", 0, 0}};
  return t;
}

SchedulerConfig policy() {
  SchedulerConfig p;
  p.order = QueueOrder::kPriority;
  QueueSpec a;
  a.name = "team-a";
  a.cohort = "lab";
  a.nominal = {{kQuotaGpu, 8'000}};
  a.reclaim_within_cohort = PreemptionPolicy::kAny;
  QueueSpec b;
  b.name = "team-b";
  b.cohort = "lab";
  b.nominal = {{kQuotaGpu, 8'000}};
  p.admission.queues = {a, b};
  return p;
}

// A pod of gang `gang` (size `size`) in queue `queue` ("" for no label), asking for `gpus` GPUs,
// played by kubelet-sim for `duration`.
nlohmann::json pod(const std::string& name, const std::string& gang, int size,
                   const std::string& queue, int gpus, const std::string& duration) {
  nlohmann::json p = {
      {"apiVersion", "v1"},
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
  if (!queue.empty()) p["metadata"]["labels"]["gantry.dev/queue"] = queue;
  return p;
}

struct Live : testing::LiveStack {
  Live() : LiveStack(kT0, model(), policy(), seconds(5)) {
    fake.create_namespace("ml");
    world.scheduler().set_action_log(&log);
  }
  ~Live() { world.scheduler().set_action_log(nullptr); }
  std::vector<RecordedRequest> requests(const std::string& method, const std::string& path) {
    std::vector<RecordedRequest> out;
    for (const RecordedRequest& r : fake.requests())
      if (r.method == method && r.path == path) out.push_back(r);
    return out;
  }
  // The Events posted about pod `name`, as "<type> <reason>: <note>".
  std::vector<std::string> events(const std::string& name) {
    std::vector<std::string> out;
    for (const RecordedRequest& r : requests("POST", kEvents)) {
      const nlohmann::json e = nlohmann::json::parse(r.body);
      if (e["regarding"]["name"] == name)
        out.push_back(e["type"].get<std::string>() + " " + e["reason"].get<std::string>() + ": " +
                      e.value("note", ""));
    }
    return out;
  }
  std::string uid(const std::string& name) {
    return (*fake.get(kPods, name))["metadata"]["uid"].get<std::string>();
  }
  // The action log's lines of `kind` ("bind", "evict", "evicted", ...), without their pods.
  std::vector<std::string> logged(const std::string& kind) {
    std::vector<std::string> out;
    std::istringstream in(actions.str());
    for (std::string l; std::getline(in, l);) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(l);
      if (j["kind"] != kind) continue;
      j.erase("pods");
      out.push_back(j.dump());
    }
    return out;
  }
  const Workload& workload(JobId id) { return *world.scheduler().scheduler().workloads().find(id); }

  std::ostringstream actions;
  ActionLog log{actions, world.cluster().cluster()};
};

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// team-b's gang "borrow" (2 pods × 8 GPUs: its 8 and team-a's 8) runs from t0; at t0 + 10 min
// team-a's gang "reclaim" (1 pod × 8 GPUs, within its nominal quota) finds no room and reclaims
// what it lent: borrow's two pods are evicted through the Eviction API, reported evicted once the
// informer saw both go, and reclaim is bound to the node they freed, at the same instant. borrow
// waits again as the same workload; its controller (the test) recreates its pods, and they run
// again when reclaim is done (t0 + 10 min + 5 s start-up + 10 min).
TEST(LiveAdmission, ACohortReclaimsItsQuotaThroughTheEvictionApi) {
  Live live;
  live.fake.apply(kPods, pod("borrow-0", "borrow", 2, "team-b", 8, "1h"));
  live.fake.apply(kPods, pod("borrow-1", "borrow", 2, "team-b", 8, "1h"));
  live.harness.run_until(kT0 + minutes(5));
  ASSERT_EQ(live.world.scheduler().decisions().size(), 2u) << "team-b borrows team-a's 8 GPUs";
  EXPECT_EQ(live.workload(0).state, WorkloadState::kRunning);
  const std::string uid0 = live.uid("borrow-0");
  const std::string uid1 = live.uid("borrow-1");
  EXPECT_TRUE(live.requests("POST", "/api/v1/namespaces/ml/pods/borrow-0/eviction").empty());

  live.loop->schedule_at(kT0 + minutes(10), [&live] {
    live.fake.apply(kPods, pod("reclaim-0", "reclaim", 1, "team-a", 8, "10m"));
  });
  live.harness.run_until(kT0 + minutes(10));

  // One eviction per pod of the victim, each a policy/v1 Eviction for that incarnation.
  for (const auto& [name, uid] : {std::pair{"borrow-0", uid0}, std::pair{"borrow-1", uid1}}) {
    const std::vector<RecordedRequest> posts =
        live.requests("POST", "/api/v1/namespaces/ml/pods/" + std::string(name) + "/eviction");
    ASSERT_EQ(posts.size(), 1u) << name;
    EXPECT_EQ(nlohmann::json::parse(posts[0].body), eviction_body("ml", name, uid)) << name;
    EXPECT_FALSE(live.fake.get(kPods, name).has_value()) << name << " deleted";
  }
  EXPECT_TRUE(live.requests("DELETE", "/api/v1/namespaces/ml/pods/borrow-0").empty())
      << "a preemption's victims are evicted, not deleted";
  // The decision, as Events on both sides.
  const std::string victim =
      "Normal InCohortReclamation: gang ml/borrow is evicted: preempted by gang ml/reclaim, whose "
      "queue reclaims the quota its own lent";
  EXPECT_TRUE(has(live.events("borrow-0"), victim))
      << ::testing::PrintToString(live.events("borrow-0"));
  EXPECT_TRUE(has(live.events("borrow-1"), victim));
  EXPECT_TRUE(has(live.events("reclaim-0"),
                  "Normal Preempting: gang ml/reclaim is preempting gang ml/borrow"))
      << ::testing::PrintToString(live.events("reclaim-0"));
  // The action log: the eviction decided (by workload 1, the preemptor), the victim evicted,
  // then the preemptor bound, all at t0 + 10 min.
  EXPECT_EQ(
      live.logged("evict"),
      std::vector<std::string>{
          R"({"t":"2026-01-01T00:10:00Z","kind":"evict","workload":0,"reason":"InCohortReclamation","by":1})"});
  EXPECT_EQ(
      live.logged("evicted"),
      std::vector<std::string>{
          R"({"t":"2026-01-01T00:10:00Z","kind":"evicted","workload":0,"reason":"InCohortReclamation"})"});
  const std::vector<std::string> binds = live.logged("bind");
  ASSERT_EQ(binds.size(), 2u);
  EXPECT_EQ(binds[1], R"({"t":"2026-01-01T00:10:00Z","kind":"bind","workload":1})");
  const std::string text = live.actions.str();
  EXPECT_LT(text.find(R"("kind":"evicted")"), text.find(R"("kind":"bind","workload":1)"))
      << "the preemptor is bound only once its victim is gone";
  EXPECT_EQ(live.workload(0).state, WorkloadState::kPending) << "waits again, same workload";
  EXPECT_EQ(live.workload(1).state, WorkloadState::kBound);
  // binpack: the lowest node of those the victim freed.
  ASSERT_EQ(live.world.scheduler().decisions().size(), 3u);
  EXPECT_EQ(live.world.scheduler().decisions()[2].pod, "ml/reclaim-0");
  EXPECT_EQ(live.world.scheduler().decisions()[2].node, "r1-n000");

  // The controller recreates borrow's pods; they wait (team-a holds its 8, so team-b has only
  // its own 8 GPUs and borrow asks 16) until reclaim ends at 00:20:05, then bind again as
  // workload 0.
  live.loop->schedule_at(kT0 + minutes(11), [&live] {
    live.fake.apply(kPods, pod("borrow-0", "borrow", 2, "team-b", 8, "1h"));
    live.fake.apply(kPods, pod("borrow-1", "borrow", 2, "team-b", 8, "1h"));
  });
  live.harness.run_until(kT0 + minutes(30));
  EXPECT_EQ(live.workload(1).state, WorkloadState::kFinished);
  EXPECT_EQ(live.logged("bind").back(),
            R"({"t":"2026-01-01T00:20:05Z","kind":"bind","workload":0})");
  EXPECT_EQ(live.workload(0).state, WorkloadState::kRunning);
  EXPECT_EQ(live.workload(0).evictions, 1);
  EXPECT_EQ(live.world.scheduler().refused_gangs(), 0u);
}

// A PodDisruptionBudget refuses borrow-1's eviction once, with Retry-After: 2. borrow-0 goes at
// once; borrow-1's eviction is asked again 2 s later (virtual time, a timer of the loop) and
// accepted. Until then the victim still holds borrow-1's node: it is not reported evicted and
// the preemptor waits.
TEST(LiveAdmission, ADisruptionBudgetsRetryAfterIsWaitedOnTheLoop) {
  Live live;
  live.fake.apply(kPods, pod("borrow-0", "borrow", 2, "team-b", 8, "1h"));
  live.fake.apply(kPods, pod("borrow-1", "borrow", 2, "team-b", 8, "1h"));
  live.harness.run_until(kT0 + minutes(5));
  live.fake.refuse_evictions(1, 2, "borrow-1");
  live.loop->schedule_at(kT0 + minutes(10), [&live] {
    live.fake.apply(kPods, pod("reclaim-0", "reclaim", 1, "team-a", 8, "10m"));
  });
  const std::string evictions = "/api/v1/namespaces/ml/pods/borrow-1/eviction";

  live.harness.run_until(kT0 + minutes(10) + seconds(1));
  EXPECT_EQ(live.requests("POST", evictions).size(), 1u) << "refused, not asked again yet";
  EXPECT_FALSE(live.fake.get(kPods, "borrow-0").has_value());
  EXPECT_TRUE(live.fake.get(kPods, "borrow-1").has_value());
  EXPECT_TRUE(live.logged("evicted").empty()) << "a pod of the victim is still there";
  EXPECT_EQ(live.world.scheduler().decisions().size(), 2u) << "the preemptor waits";

  live.harness.run_until(kT0 + minutes(10) + seconds(2));
  const std::vector<RecordedRequest> posts = live.requests("POST", evictions);
  ASSERT_EQ(posts.size(), 2u) << "asked again after Retry-After";
  EXPECT_EQ(posts[0].body, posts[1].body);
  EXPECT_FALSE(live.fake.get(kPods, "borrow-1").has_value());
  EXPECT_EQ(
      live.logged("evicted"),
      std::vector<std::string>{
          R"({"t":"2026-01-01T00:10:02Z","kind":"evicted","workload":0,"reason":"InCohortReclamation"})"});
  ASSERT_EQ(live.world.scheduler().decisions().size(), 3u);
  EXPECT_EQ(live.world.scheduler().decisions()[2].at, kT0 + minutes(10) + seconds(2));
  const PodEvictorStats& stats = live.world.evictor().stats();
  EXPECT_EQ(stats.throttled, 1);
  EXPECT_EQ(stats.accepted, 2);
  EXPECT_EQ(stats.given_up, 0);
}

// With admission on, a gang must name a configured queue: one that names an unknown queue, and
// one that names none, are not submitted; each pod gets a Warning Event saying why (once), and
// neither is bound. Relabelled into a real queue, the first is scheduled.
TEST(LiveAdmission, AGangWithAnUnknownQueueIsToldAndNotScheduled) {
  Live live;
  live.fake.apply(kPods, pod("lost-0", "lost", 1, "nope", 1, "1m"));
  live.fake.apply(kPods, pod("bare-0", "bare", 1, "", 1, "1m"));
  live.harness.run_until(kT0 + minutes(5));
  EXPECT_TRUE(live.world.scheduler().decisions().empty());
  EXPECT_TRUE(live.requests("POST", "/api/v1/namespaces/ml/pods/lost-0/binding").empty());
  EXPECT_EQ(live.events("lost-0"),
            std::vector<std::string>{
                "Warning FailedScheduling: gang ml/lost names the admission queue 'nope', which is "
                "not configured (queues: team-a, team-b)"});
  EXPECT_EQ(live.events("bare-0"),
            std::vector<std::string>{"Warning FailedScheduling: gang ml/bare names no admission "
                                     "queue: label its pods gantry.dev/queue=<queue>"});
  EXPECT_EQ(live.world.scheduler().refused_gangs(), 2u);
  EXPECT_EQ(live.world.scheduler().scheduler().workloads().size(), 0u);

  nlohmann::json fixed = *live.fake.get(kPods, "lost-0");
  fixed["metadata"]["labels"]["gantry.dev/queue"] = "team-a";
  live.fake.apply(kPods, fixed);
  live.harness.run_until(kT0 + minutes(6));
  ASSERT_EQ(live.world.scheduler().decisions().size(), 1u);
  EXPECT_EQ(live.world.scheduler().decisions()[0].pod, "ml/lost-0");
  EXPECT_EQ(live.world.scheduler().refused_gangs(), 2u);
}

}  // namespace live_admission_test
}  // namespace gantry::kube
