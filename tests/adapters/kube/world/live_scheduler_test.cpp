// The live scheduler front: Gantry's pods gathered into gangs, placed by the shared Scheduler,
// bound through a scripted binder (the API server's side), with a gang never left half-bound.
// Cluster: the model of live_cluster_test (two 8-GPU A100 nodes r1-n000, r1-n001), policy
// binpack; expected placements by hand.

#include "adapters/kube/world/live_scheduler.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace gantry::kube {
namespace live_scheduler_test {

constexpr int64_t kGi = int64_t{1} << 30;
const Resources kDgx{128'000, 1024 * kGi, 8, 0};
const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

Topology model() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(NodeClass{"dgx-a100", kDgx, t.gpus.find("A100-80G"), 8});
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}, NodeInfo{"r1-n001", 0, 0}};
  return t;
}

nlohmann::json node_json(const std::string& name) {
  return {{"metadata",
           {{"name", name},
            {"labels",
             {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}, {"gantry.dev/rack", "r1"}}}}},
          {"status",
           {{"allocatable", {{"cpu", "128"}, {"memory", "1Ti"}, {"nvidia.com/gpu", "8"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

// A pod of gang `gang` (size `size`), asking for `gpus` GPUs and 4 cores.
nlohmann::json pod_json(const std::string& name, const std::string& gang, int size, int gpus,
                        const std::string& scheduler = "gantry") {
  nlohmann::json p = {
      {"metadata",
       {{"name", name},
        {"namespace", "ml"},
        {"uid", name + "-uid"},
        {"labels", nlohmann::json::object()},
        {"annotations", nlohmann::json::object()}}},
      {"spec",
       {{"schedulerName", scheduler},
        {"containers",
         {{{"name", "main"},
           {"resources",
            {{"requests",
              {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}},
      {"status", {{"phase", "Pending"}}}};
  if (!gang.empty()) {
    p["metadata"]["labels"]["gantry.dev/gang"] = gang;
    p["metadata"]["annotations"]["gantry.dev/gang-size"] = std::to_string(size);
  }
  return p;
}

nlohmann::json with(nlohmann::json p, const std::string& node, const std::string& phase) {
  p["spec"]["nodeName"] = node;
  p["status"]["phase"] = phase;
  return p;
}

// The API server's side: binds wait until the test settles them; what is bound and what was
// evicted is kept, so a test can check that no gang is left half-bound.
class ScriptedBinder : public PodBinder {
 public:
  struct Call {
    PodBinding binding;
    std::function<void(Status)> done;
  };
  void bind(const PodBinding& b, std::function<void(Status)> done) override {
    calls.push_back({b, std::move(done)});
  }
  void evict(const PodRef& pod, const std::string&) override {
    evicted.push_back(pod.key());
    bound.erase(pod.key());
  }
  void record(const PodEvent& e) override {
    events.push_back(e.reason + " " + e.pod.key());
    notes.push_back(e.note);
  }
  // Settles the oldest open bind: ok, or refused with `error`.
  void settle(const std::string& error = {}) {
    Call c = std::move(calls.front());
    calls.pop_front();
    if (error.empty()) bound[c.binding.pod.key()] = c.binding.node;
    c.done(error.empty() ? Status::ok() : Status::error(error));
  }
  std::deque<Call> calls;
  std::map<std::string, std::string> bound;  // pod key -> node
  std::vector<std::string> evicted;
  std::vector<std::string> events;
  std::vector<std::string> notes;  // each event's note, in the same order
};

// The Eviction API's side: evictions are recorded and answered when the test says.
class ScriptedEvictor : public PodEvictor {
 public:
  struct Call {
    PodRef pod;
    std::function<void(Status)> done;
  };
  void evict(const PodRef& pod, std::function<void(Status)> done) override {
    calls.push_back({pod, std::move(done)});
  }
  std::deque<Call> calls;
};

struct Fixture {
  explicit Fixture(SchedulerConfig policy = {})
      : loop(EventLoop::virtual_time(kT0)),
        live(model()),
        scheduler(*loop, live, binder, evictor, LiveSchedulerConfig{.policy = std::move(policy)}) {
    scheduler.node_changed(node_json("r1-n000"));
    scheduler.node_changed(node_json("r1-n001"));
  }
  void settle_loop() { loop->run_until(loop->now()); }
  WorkloadState state(JobId job) const {
    return scheduler.scheduler().workloads().find(job)->state;
  }

  std::unique_ptr<EventLoop> loop;
  LiveCluster live;
  ScriptedBinder binder;
  ScriptedEvictor evictor;
  LiveScheduler scheduler;
};

std::string gpus(const std::vector<int>& g) {
  std::string out;
  for (int i : g) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out;
}

TEST(LiveScheduler, AGangIsPlacedWhenCompleteAndBoundWhole) {
  Fixture f;
  f.scheduler.pod_changed(pod_json("train-0", "train", 2, 4));
  f.settle_loop();
  EXPECT_TRUE(f.binder.calls.empty()) << "one of two pods: the gang waits";
  f.scheduler.pod_changed(pod_json("train-1", "train", 2, 4));
  f.settle_loop();
  // binpack: both 4-GPU pods on the first node, GPUs 0-3 and 4-7.
  ASSERT_EQ(f.binder.calls.size(), 2u);
  EXPECT_EQ(f.binder.calls[0].binding.node, "r1-n000");
  EXPECT_EQ(gpus(f.binder.calls[0].binding.gpu_index), "0,1,2,3");
  EXPECT_EQ(f.binder.calls[1].binding.node, "r1-n000");
  EXPECT_EQ(gpus(f.binder.calls[1].binding.gpu_index), "4,5,6,7");
  EXPECT_EQ(f.state(0), WorkloadState::kAssumed);
  f.binder.settle();
  EXPECT_EQ(f.state(0), WorkloadState::kAssumed) << "one bind of two";
  f.binder.settle();
  EXPECT_EQ(f.state(0), WorkloadState::kBound);
  EXPECT_EQ(f.binder.events,
            (std::vector<std::string>{"Scheduled ml/train-0", "Scheduled ml/train-1"}));
  ASSERT_EQ(f.scheduler.decisions().size(), 2u);
  EXPECT_EQ(f.scheduler.decisions()[1].pod, "ml/train-1");

  // The informer shows them bound, then running, then done: the workload follows.
  f.scheduler.pod_changed(with(pod_json("train-0", "train", 2, 4), "r1-n000", "Running"));
  EXPECT_EQ(f.state(0), WorkloadState::kBound);
  f.scheduler.pod_changed(with(pod_json("train-1", "train", 2, 4), "r1-n000", "Running"));
  EXPECT_EQ(f.state(0), WorkloadState::kRunning);
  EXPECT_EQ(f.live.cluster().free_gpus(), 8);
  f.scheduler.pod_changed(with(pod_json("train-0", "train", 2, 4), "r1-n000", "Succeeded"));
  f.scheduler.pod_changed(with(pod_json("train-1", "train", 2, 4), "r1-n000", "Succeeded"));
  EXPECT_EQ(f.state(0), WorkloadState::kFinished);
  EXPECT_EQ(f.live.cluster().free_gpus(), 16);
  EXPECT_TRUE(f.live.cluster().check_invariants());
}

TEST(LiveScheduler, AFailedBindUndoesTheGangAndRetriesAfterTheBackoff) {
  Fixture f;
  f.scheduler.pod_changed(pod_json("a-0", "a", 2, 8));
  f.scheduler.pod_changed(pod_json("a-1", "a", 2, 8));
  f.settle_loop();
  ASSERT_EQ(f.binder.calls.size(), 2u);
  f.binder.settle();                                  // a-0 bound on r1-n000
  f.binder.settle("pod ml/a-1 is already assigned");  // a-1 refused
  // Never half-bound: the bound member was evicted, the workload forgotten and in backoff.
  EXPECT_TRUE(f.binder.bound.empty());
  EXPECT_EQ(f.binder.evicted, (std::vector<std::string>{"ml/a-0"}));
  EXPECT_EQ(f.state(0), WorkloadState::kPending);
  EXPECT_EQ(f.live.cluster().free_gpus(), 16) << "the model released the whole gang";
  EXPECT_EQ(f.binder.events,
            (std::vector<std::string>{"FailedScheduling ml/a-0", "FailedScheduling ml/a-1"}));
  // The controller recreates a-0 (a new uid); a-1 still waits. After the backoff (1 s, the
  // scheduler's default) the gang is placed again with the new incarnation.
  nlohmann::json again = pod_json("a-0", "a", 2, 8);
  again["metadata"]["uid"] = "a-0-second";
  f.scheduler.pod_deleted(with(pod_json("a-0", "a", 2, 8), "r1-n000", "Pending"));
  f.scheduler.pod_changed(again);
  f.settle_loop();
  EXPECT_TRUE(f.binder.calls.empty()) << "still backing off";
  f.loop->run_until(kT0 + seconds(1));
  ASSERT_EQ(f.binder.calls.size(), 2u);
  EXPECT_EQ(f.binder.calls[0].binding.pod.uid, "a-0-second");
  f.binder.settle();
  f.binder.settle();
  EXPECT_EQ(f.state(0), WorkloadState::kBound);
  EXPECT_EQ(f.binder.bound.size(), 2u);
}

TEST(LiveScheduler, AGangThatDoesNotFitWaitsWholeAndSaysWhyOnce) {
  Fixture f;
  for (int i = 0; i < 3; ++i)
    f.scheduler.pod_changed(pod_json("big-" + std::to_string(i), "big", 3, 8));
  f.settle_loop();
  EXPECT_TRUE(f.binder.calls.empty()) << "24 GPUs on 16: nothing is bound, not even part";
  EXPECT_EQ(f.binder.events.size(), 3u) << "one FailedScheduling per pod";
  f.scheduler.node_changed(node_json("r1-n001"));  // a change: another cycle
  f.settle_loop();
  EXPECT_EQ(f.binder.events.size(), 3u) << "not repeated every cycle";
  // A third node appears: the gang fits now, on all three.
  f.scheduler.node_changed(node_json("extra-0"));
  f.settle_loop();
  ASSERT_EQ(f.binder.calls.size(), 3u);
  std::set<std::string> nodes;
  for (const auto& c : f.binder.calls) nodes.insert(c.binding.node);
  EXPECT_EQ(nodes, (std::set<std::string>{"r1-n000", "r1-n001", "extra-0"}));
}

// A node as a fresh real API server shows it: Ready, yet tainted
// node.kubernetes.io/not-ready:NoSchedule (issue #23: the Event said "does not fit: 64 GPUs free
// on 8 schedulable nodes", hiding the taint).
nlohmann::json tainted_node_json(const std::string& name) {
  nlohmann::json n = node_json(name);
  n["spec"]["taints"] = {{{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}}};
  return n;
}

nlohmann::json tolerating(nlohmann::json p) {
  p["spec"]["tolerations"] = {
      {{"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
  return p;
}

TEST(LiveScheduler, AGangKeptOffEveryNodeByATaintSaysSo) {
  Fixture f;
  f.scheduler.node_changed(tainted_node_json("r1-n000"));
  f.scheduler.node_changed(tainted_node_json("r1-n001"));
  // Two pods of 4 GPUs and 4 cores would fit on either node, but neither takes them.
  f.scheduler.pod_changed(pod_json("t-0", "t", 2, 4));
  f.scheduler.pod_changed(pod_json("t-1", "t", 2, 4));
  f.settle_loop();
  EXPECT_TRUE(f.binder.calls.empty());
  const std::string why =
      "gang ml/t of 2 pods (8 GPUs, 0 GPU milli shared, 8 cores) does not fit: none of the 2 "
      "nodes is eligible (2 tainted node.kubernetes.io/not-ready:NoSchedule)";
  EXPECT_EQ(f.binder.notes, (std::vector<std::string>{why, why}));
  EXPECT_EQ(f.scheduler.pending_reason(0),
            "none of the 2 nodes is eligible (2 tainted node.kubernetes.io/not-ready:NoSchedule)")
      << "what the queue API shows: the Event's reason, the gang being the queue entry's";
  // A gang whose pods tolerate the taint is placed: 4 GPUs on the first node (binpack).
  f.scheduler.pod_changed(tolerating(pod_json("ok-0", "ok", 1, 4)));
  f.settle_loop();
  ASSERT_EQ(f.binder.calls.size(), 1u);
  EXPECT_EQ(f.binder.calls[0].binding.pod.key(), "ml/ok-0");
  // The taint leaves r1-n001: gang t is placed there, both pods.
  f.scheduler.node_changed(node_json("r1-n001"));
  f.settle_loop();
  ASSERT_EQ(f.binder.calls.size(), 3u);
  EXPECT_EQ(f.binder.calls[1].binding.node, "r1-n001");
  EXPECT_EQ(f.binder.calls[2].binding.node, "r1-n001");
  EXPECT_EQ(f.scheduler.pending_reason(0), "") << "placed: not pending";
}

// What the queue API shows follows the cluster, not the Event sent once: a 3-pod gang of 8 GPUs
// each is kept off both nodes by the taint, then, the taint gone from one node, by capacity.
TEST(LiveScheduler, ThePendingReasonIsTheClustersNow) {
  Fixture f;
  f.scheduler.node_changed(tainted_node_json("r1-n000"));
  f.scheduler.node_changed(tainted_node_json("r1-n001"));
  for (int i = 0; i < 3; ++i)
    f.scheduler.pod_changed(pod_json("big-" + std::to_string(i), "big", 3, 8));
  f.settle_loop();
  EXPECT_EQ(f.scheduler.pending_reason(0),
            "none of the 2 nodes is eligible (2 tainted node.kubernetes.io/not-ready:NoSchedule)");
  f.scheduler.node_changed(node_json("r1-n001"));
  f.settle_loop();
  EXPECT_EQ(f.binder.events.size(), 3u) << "the Event is not repeated";
  // r1-n001 eligible: 8 GPUs and 128 cores free on it, room for one of the three 8-GPU pods.
  EXPECT_EQ(f.scheduler.pending_reason(0),
            "needs 3 pods of 8 GPUs: room for 1; 1 of 2 nodes eligible (1 tainted "
            "node.kubernetes.io/not-ready:NoSchedule); 8 GPUs free on 1 "
            "eligible node, 128 cores free");
  f.scheduler.node_changed(node_json("r1-n000"));
  f.settle_loop();
  // Both eligible: 16 GPUs, at most 8 on one node, 2 x 128 = 256 cores; room for 2 of 3 pods.
  EXPECT_EQ(f.scheduler.pending_reason(0),
            "needs 3 pods of 8 GPUs: room for 2; 16 GPUs "
            "free on 2 eligible nodes, at most 8 on one node, 256 cores free");
  EXPECT_EQ(f.scheduler.pending_reason(7), "") << "no such workload";
}

TEST(LiveScheduler, OtherPodsTakeTheirShareAndAFailedPodStopsItsGang) {
  Fixture f;
  // Another scheduler's pod holds all of r1-n000.
  f.scheduler.pod_changed(
      with(pod_json("other", "", 1, 8, "default-scheduler"), "r1-n000", "Running"));
  f.scheduler.pod_changed(pod_json("w-0", "w", 2, 2));
  f.scheduler.pod_changed(pod_json("w-1", "w", 2, 2));
  f.settle_loop();
  ASSERT_EQ(f.binder.calls.size(), 2u);
  EXPECT_EQ(f.binder.calls[0].binding.node, "r1-n001");
  EXPECT_EQ(f.binder.calls[1].binding.node, "r1-n001");
  f.binder.settle();
  f.binder.settle();
  f.scheduler.pod_changed(with(pod_json("w-0", "w", 2, 2), "r1-n001", "Running"));
  f.scheduler.pod_changed(with(pod_json("w-1", "w", 2, 2), "r1-n001", "Running"));
  ASSERT_EQ(f.state(0), WorkloadState::kRunning);
  nlohmann::json failed = with(pod_json("w-1", "w", 2, 2), "r1-n001", "Failed");
  failed["status"]["containerStatuses"] = {
      {{"name", "main"}, {"state", {{"terminated", {{"exitCode", 1}}}}}}};
  f.scheduler.pod_changed(failed);
  EXPECT_EQ(f.state(0), WorkloadState::kFailed);
  EXPECT_EQ(f.binder.evicted, (std::vector<std::string>{"ml/w-0"})) << "its gang mate is stopped";
  // w-0 still holds its 2 GPUs until its deletion arrives; w-1 ended; "other" holds 8.
  EXPECT_EQ(f.live.cluster().free_gpus(), 16 - 8 - 2);
  f.scheduler.pod_deleted(with(pod_json("w-0", "w", 2, 2), "r1-n001", "Running"));
  EXPECT_EQ(f.live.cluster().free_gpus(), 8);
  EXPECT_TRUE(f.live.cluster().check_invariants());
}

TEST(LiveScheduler, UnreadableObjectsAreSkippedAndCounted) {
  Fixture f;
  nlohmann::json bad = pod_json("x", "", 1, 1);
  bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "a lot";
  f.scheduler.pod_changed(bad);
  f.scheduler.node_changed(nlohmann::json::object());
  EXPECT_EQ(f.scheduler.skipped_objects(), 2u);
  f.settle_loop();
  EXPECT_TRUE(f.binder.calls.empty());
}

// Admission (live_scheduler.hpp): team-a and team-b, 8 GPUs of nominal quota each, in the
// cohort "lab"; team-a reclaims what it lent from any borrower.
SchedulerConfig admission_policy() {
  SchedulerConfig p;
  p.order = QueueOrder::kPriority;
  QueueSpec a;
  a.name = "team-a";
  a.cohort = "lab";
  a.nominal = {{kQuotaGpu, 8'000}};
  a.reclaim_within_cohort = PreemptionPolicy::kAny;
  QueueSpec b = a;
  b.name = "team-b";
  b.reclaim_within_cohort = PreemptionPolicy::kNever;
  p.admission.queues = {a, b};
  return p;
}

nlohmann::json in_queue(nlohmann::json p, const std::string& queue) {
  p["metadata"]["labels"]["gantry.dev/queue"] = queue;
  return p;
}

TEST(LiveScheduler, AGangWhosePodsNameDifferentQueuesIsRefusedUntilTheyAgree) {
  Fixture f(admission_policy());
  f.scheduler.pod_changed(in_queue(pod_json("mix-0", "mix", 2, 1), "team-a"));
  f.scheduler.pod_changed(in_queue(pod_json("mix-1", "mix", 2, 1), "team-b"));
  f.settle_loop();
  EXPECT_TRUE(f.binder.calls.empty());
  EXPECT_EQ(f.scheduler.scheduler().workloads().size(), 0u) << "not submitted";
  EXPECT_EQ(f.binder.events,
            (std::vector<std::string>{"FailedScheduling ml/mix-0", "FailedScheduling ml/mix-1"}));
  EXPECT_EQ(f.scheduler.refused_gangs(), 1u);
  // Told once: the same pods seen again say nothing more.
  f.scheduler.pod_changed(in_queue(pod_json("mix-0", "mix", 2, 1), "team-a"));
  f.settle_loop();
  EXPECT_EQ(f.binder.events.size(), 2u);
  // Relabelled into one queue: submitted and placed.
  f.scheduler.pod_changed(in_queue(pod_json("mix-1", "mix", 2, 1), "team-a"));
  f.settle_loop();
  EXPECT_EQ(f.binder.calls.size(), 2u);
  EXPECT_EQ(f.scheduler.refused_gangs(), 1u);
}

// Without admission queues the label means nothing: behaviour is what it was.
TEST(LiveScheduler, WithoutAdmissionTheQueueLabelIsIgnored) {
  Fixture f;
  f.scheduler.pod_changed(in_queue(pod_json("odd-0", "odd", 2, 1), "nope"));
  f.scheduler.pod_changed(in_queue(pod_json("odd-1", "odd", 2, 1), "other"));
  f.settle_loop();
  EXPECT_EQ(f.binder.calls.size(), 2u);
  EXPECT_EQ(f.scheduler.refused_gangs(), 0u);
}

// team-b's gang "borrow" (2 × 8 GPUs) is admitted, and while its binds are still in flight
// team-a's "reclaim" (8 GPUs) takes back the quota team-a lent it. The eviction waits for the
// binds: borrow-0's succeeds, borrow-1's is refused; only borrow-0 (bound) is evicted, borrow-1
// never ran. No kBindFailed: the scheduler waits for kEvicted, which comes when the informer
// shows borrow-0 gone, not when the Eviction API accepted it; then reclaim is placed.
TEST(LiveScheduler, AVictimStillBindingIsEvictedOnceItsBindsSettle) {
  Fixture f(admission_policy());
  f.scheduler.pod_changed(in_queue(pod_json("borrow-0", "borrow", 2, 8), "team-b"));
  f.scheduler.pod_changed(in_queue(pod_json("borrow-1", "borrow", 2, 8), "team-b"));
  f.settle_loop();
  ASSERT_EQ(f.binder.calls.size(), 2u);
  f.scheduler.pod_changed(in_queue(pod_json("reclaim-0", "reclaim", 1, 8), "team-a"));
  f.settle_loop();
  EXPECT_EQ(f.binder.calls.size(), 2u) << "no room for reclaim until borrow is gone";
  EXPECT_TRUE(f.evictor.calls.empty()) << "binds in flight: the eviction waits for them";
  EXPECT_EQ(f.binder.events, (std::vector<std::string>{"InCohortReclamation ml/borrow-0",
                                                       "InCohortReclamation ml/borrow-1",
                                                       "Preempting ml/reclaim-0"}));
  f.binder.settle();                           // borrow-0 bound
  f.binder.settle("pod ml/borrow-1 is gone");  // borrow-1 refused
  ASSERT_EQ(f.evictor.calls.size(), 1u);
  EXPECT_EQ(f.evictor.calls[0].pod.key(), "ml/borrow-0");
  EXPECT_TRUE(f.binder.evicted.empty()) << "no plain DELETE for a victim";
  EXPECT_EQ(f.state(0), WorkloadState::kAssumed);
  f.evictor.calls[0].done(Status::ok());
  f.settle_loop();
  EXPECT_EQ(f.state(0), WorkloadState::kAssumed) << "accepted is not gone";
  EXPECT_TRUE(f.binder.calls.empty());
  f.scheduler.pod_deleted(
      with(in_queue(pod_json("borrow-0", "borrow", 2, 8), "team-b"), "r1-n000", "Running"));
  EXPECT_EQ(f.state(0), WorkloadState::kPending) << "evicted, waiting again";
  EXPECT_EQ(f.scheduler.scheduler().workloads().find(0)->evictions, 1);
  f.settle_loop();
  ASSERT_EQ(f.binder.calls.size(), 1u);
  EXPECT_EQ(f.binder.calls[0].binding.pod.key(), "ml/reclaim-0");
  EXPECT_TRUE(f.live.cluster().check_invariants());
}

// An eviction the API refuses for good (not a disruption budget: the evictor has given up) is
// said in a Warning Event and the pod deleted instead, so the preemptor does not wait for ever.
TEST(LiveScheduler, AnEvictionGivenUpOnFallsBackToDeletingThePod) {
  Fixture f(admission_policy());
  f.scheduler.pod_changed(in_queue(pod_json("borrow-0", "borrow", 2, 8), "team-b"));
  f.scheduler.pod_changed(in_queue(pod_json("borrow-1", "borrow", 2, 8), "team-b"));
  f.settle_loop();
  f.binder.settle();
  f.binder.settle();
  f.scheduler.pod_changed(in_queue(pod_json("reclaim-0", "reclaim", 1, 8), "team-a"));
  f.settle_loop();
  ASSERT_EQ(f.evictor.calls.size(), 2u);
  f.evictor.calls[0].done(Status::ok());
  f.evictor.calls[1].done(Status::error("evicting pod ml/borrow-1: forbidden (gave up)"));
  EXPECT_EQ(f.binder.evicted, (std::vector<std::string>{"ml/borrow-1"}));
  EXPECT_EQ(f.binder.events.back(), "FailedEviction ml/borrow-1");
  EXPECT_EQ(f.scheduler.failed_evictions(), 1u);
  EXPECT_EQ(f.state(0), WorkloadState::kBound);
  f.scheduler.pod_deleted(
      with(in_queue(pod_json("borrow-0", "borrow", 2, 8), "team-b"), "r1-n000", "Running"));
  EXPECT_EQ(f.state(0), WorkloadState::kBound) << "borrow-1 still holds its node";
  f.scheduler.pod_deleted(
      with(in_queue(pod_json("borrow-1", "borrow", 2, 8), "team-b"), "r1-n001", "Running"));
  EXPECT_EQ(f.state(0), WorkloadState::kPending);
}

}  // namespace live_scheduler_test
}  // namespace gantry::kube
