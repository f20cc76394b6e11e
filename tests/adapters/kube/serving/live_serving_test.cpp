// LiveServing (adapters/kube/serving/live_serving.hpp) end to end on virtual time: the fake API
// server, kubelet-sim playing two A10 nodes with its Deployment stand-in (deployment_sim.hpp),
// the live world's scheduler binding the serving pods, and LiveServing scaling a KPA service on
// scripted metrics. Its decisions are checked against the same autoscaler called directly on
// the same rounds and counts, and the two writes against the arithmetic below.
//
// Service "chat", predictor "v1": one A10 per replica; KPA 1..3, target concurrency 10, Knative's
// windows (stable 60 s, panic 6 s, tick 2 s). Cold start: image pull 10 s, a model of 4 GB at
// 1 GB/s (4 s) kept on the node, load 6 s; kubelet-sim's start-up 5 s. Pods are Ready at odd
// seconds, ticks are even: no tick shares an instant with a pod becoming Ready.
//
// Scripted concurrency (one series, "script", whose concurrency-seconds counter is the exact
// integral): 8 before T0+20 s, 50 in [T0+20, T0+30), 5 from T0+30. A baseline round at T0 (once
// the pod informer has listed), then rounds every 2 s from T0+2.
//
//   T0       Deployment chat-v1 created with 1 replica (initial-scale 1); pod chat-v1-0 bound
//            to r1-n000 (binpack), Running at +5, image at +15, model at +19, Ready at +25.
//   +2..+20  concurrency 8: desire ceil(8 / 10) = 1.
//   +22      panic window [16, 22): (4·8 + 2·50) / 6 = 22 → ceil(2.2) = 3 ≥ 2 × 1 ready pod
//            (readyPods is max(1, ready) = 1): panic; desire max(stable ceil(11.8/10) = 2,
//            panic 3) = 3 → PATCH replicas 3. chat-v1-1 and -2 bound to r1-n000 at +22, Running
//            at +27, the image and the model already there: Ready at +33.
//   +24..+32 one ready pod, panic desires 4..5 ≥ 2: over the threshold; the desire stays at
//            max panic pods 5, clamped to 3.
//   +34      3 ready; panic window [28, 34): (2·50 + 4·5) / 6 = 20 → 2 < 2 × 3: not over. The
//            last tick over the threshold was +32.
//   +92      32 + 60 < 92 is false: still panicking (no scale-down).
//   +94      32 + 60 < 94: panic over; stable window [34, 94) all 5 → ceil(0.5) = 1; the
//            scale-down limit floor(3 / 2) = 1 → PATCH replicas 1. The Deployment stand-in
//            deletes the two highest indexes.

#include "adapters/kube/serving/live_serving.hpp"

#include <gtest/gtest.h>

#include <mutex>

#include "adapters/kube/kubelet_sim/deployment_sim.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/serving/serving_apply.hpp"
#include "engine/policy/serving/kpa_autoscaler.hpp"
#include "tests/adapters/kube/serving/serving_test_support.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace live_serving_test {

using nlohmann::json;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
constexpr const char* kPods = "/api/v1/namespaces/ml/pods";
constexpr const char* kDeployments = "/apis/apps/v1/namespaces/ml/deployments";

ServiceSpec kpa_service() {
  ServiceSpec s = testing::one_predictor_kpa_service();
  s.cold_start.image_pull = seconds(10);
  s.cold_start.model_download.size_bytes = 4'000'000'000;
  s.cold_start.model_download.cache = true;
  s.cold_start.load = seconds(6);
  return s;
}

// The scripted concurrency's integral from T0 to `at`, in concurrency-seconds.
double concurrency_seconds(Time at) {
  const double t = static_cast<double>((at - kT0).micros()) / 1e6;
  const auto part = [&](double from, double to, double level) {
    return level * std::max(0.0, std::min(t, to) - from);
  };
  return part(0, 20, 8) + part(20, 30, 50) + part(30, 1e9, 5);
}

PodCounters scripted(Time at) {
  PodCounters c;
  c.concurrency_seconds = concurrency_seconds(at);
  return c;
}

// Answers every scrape with the script, recording what was asked. Thread-safe.
class ScriptedScraper final : public MetricsScraper {
 public:
  ScrapeResult scrape(const ScrapeRequest& r) override {
    std::lock_guard lock(mutex_);
    requests_.push_back(r);
    ScrapeResult out;
    out.ok = true;
    out.pods["script"] = scripted(r.at);
    return out;
  }
  std::vector<ScrapeRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<ScrapeRequest> requests_;
};

struct Serving : ::testing::Test, testing::LiveStack {
  Serving() : LiveStack(kT0, testing::a10_nodes(), SchedulerConfig{}, seconds(5)) {
    fake.create_namespace("ml");
    deployments.start();
    serving.add_service(kpa_service());
    serving.start();
    harness.add(sim_workers);
    harness.add(serving_workers);
    harness.add(deployments.deployment_informer(), deployments.deployments_path(), "",
                std::string(kServingSelector));
    harness.add(deployments.pod_informer(), deployments.pods_path(), "",
                std::string(kServingSelector));
    harness.add(serving.pod_informer(), kPods, "", std::string(kServingSelector));
    const_cast<Informer&>(deployments.deployment_informer()).wait_for_sync();
    const_cast<Informer&>(serving.pod_informer()).wait_for_sync();
    fake.wait_for_watches_started(3 + 3);
    harness.settle();
  }
  ~Serving() override {
    serving.stop();
    deployments.stop();
  }

  // The replica counts LiveServing wrote, with when (seconds from T0).
  std::vector<std::pair<int64_t, int>> replica_writes() const {
    std::vector<std::pair<int64_t, int>> out;
    for (const auto& [at, replicas] : writes_)
      out.emplace_back((at - kT0).micros() / 1'000'000, replicas);
    return out;
  }
  // When a pod's Ready condition last turned True (kubelet-sim writes the planned instant).
  Time ready_at(const std::string& pod) const {
    const json p = *fake.get(kPods, pod);
    for (const json& c : p["status"]["conditions"])
      if (c["type"] == "Ready" && c["status"] == "True")
        return *parse_kube_time(c["lastTransitionTime"].get<std::string>());
    return Time::from_micros(0);
  }

  // The scraper before the workers that call it, so that it outlives them.
  ScriptedScraper scraper;
  ApiWorkers sim_workers{2};
  ApiWorkers serving_workers{2};
  DeploymentSim deployments{client, sim_workers, *loop, {.namespace_name = "ml"}};
  LiveServing serving{client, serving_workers, *loop, scraper,
                      LiveServingOptions{.objects = {.namespace_name = "ml"}}};
  std::vector<std::pair<Time, int>> writes_;
};

TEST_F(Serving, ScalesOneToThreeToOneAsTheAutoscalerDecides) {
  serving.on_decision([this](const ScaleDecision& d) {
    if (d.desired != d.counts.desired) writes_.emplace_back(d.at, d.desired);
  });
  harness.run_until(kT0 + seconds(100));

  // The two writes worked out above, and what the API server was sent.
  EXPECT_EQ(replica_writes(), (std::vector<std::pair<int64_t, int>>{{22, 3}, {94, 1}}));
  std::vector<int> patched;
  for (const auto& r : fake.requests())
    if (r.method == "PATCH" && r.path == std::string(kDeployments) + "/chat-v1")
      patched.push_back(json::parse(r.body)["spec"]["replicas"].get<int>());
  EXPECT_EQ(patched, (std::vector<int>{3, 1}));
  EXPECT_EQ((*fake.get(kDeployments, "chat-v1"))["spec"]["replicas"], 1);
  EXPECT_EQ(serving.stats().replica_writes, 2);
  EXPECT_EQ(serving.stats().write_errors, 0);
  EXPECT_EQ(serving.desired("chat", "v1"), 1);

  // The pods' lives: the cold starts worked out above, the scale-down's victims deleted at +94
  // (gracefully: bound, with the default 30 s of grace, until kubelet-sim confirms; below).
  EXPECT_EQ(ready_at("chat-v1-0"), kT0 + seconds(25));
  for (const char* victim : {"chat-v1-1", "chat-v1-2"}) {
    const std::optional<json> p = fake.get(kPods, victim);
    ASSERT_TRUE(p) << victim;
    EXPECT_EQ((*p)["metadata"].value("deletionGracePeriodSeconds", 0), 30) << victim;
  }
  EXPECT_EQ((*fake.get(kPods, "chat-v1-0"))["spec"]["nodeName"], "r1-n000");

  // Every tick from +2 to +100 decided, on a scrape, with the counts of the moment.
  const std::vector<ScaleDecision>& d = serving.decisions();
  ASSERT_EQ(d.size(), 50u);
  for (size_t i = 0; i < d.size(); ++i) {
    EXPECT_EQ(d[i].at, kT0 + seconds(2 * static_cast<int64_t>(i + 1)));
    EXPECT_TRUE(d[i].scraped);
  }
  const auto counts_at = [&](int second) { return d[static_cast<size_t>(second / 2 - 1)].counts; };
  const auto expect_counts = [&](int second, int desired, int ready, int starting) {
    const ReplicaCounts c = counts_at(second);
    EXPECT_EQ(c.desired, desired) << "+" << second;
    EXPECT_EQ(c.ready, ready) << "+" << second;
    EXPECT_EQ(c.starting, starting) << "+" << second;
  };
  expect_counts(22, 1, 0, 1);  // chat-v1-0 in its cold start until +25
  expect_counts(26, 3, 1, 2);
  expect_counts(32, 3, 1, 2);
  expect_counts(34, 3, 3, 0);  // Ready at +33
  expect_counts(94, 3, 3, 0);
  expect_counts(96, 1, 1, 0);
  // The scrapes asked for the ready pods of the moment.
  const std::vector<ScrapeRequest> asked = scraper.requests();
  ASSERT_EQ(asked.size(), 51u);
  EXPECT_EQ(asked[0].at, kT0);           // the baseline
  EXPECT_TRUE(asked[11].pods.empty());   // +22
  ASSERT_EQ(asked[17].pods.size(), 3u);  // +34
  EXPECT_EQ(asked[17].pods[2].pod, "chat-v1-2");

  // The same autoscaler, called directly on the same rounds and counts, decides the same.
  auto direct = make_serving_autoscaler(kpa_service().autoscaler);
  ScrapedServingMetrics metrics(seconds(60));
  metrics.add_scrape(kT0, {{"script", scripted(kT0)}});
  for (const ScaleDecision& x : d) {
    metrics.add_scrape(x.at, {{"script", scripted(x.at)}});
    EXPECT_EQ(direct->decide(x.at, x.counts, metrics), x.desired) << format_rfc3339(x.at);
  }
  // The rounds read back as the script: over [T0+20, T0+30) the concurrency was 50.
  EXPECT_DOUBLE_EQ(serving.metrics("chat", "v1")
                       ->average(ServingMetric::kConcurrency, kT0 + seconds(94), seconds(60)),
                   5.0);

  // The victims' grace ends at +94 + 30 = +124: kubelet-sim ends and deletes them then.
  harness.run_until(kT0 + seconds(124) - Duration(1));
  EXPECT_TRUE(fake.get(kPods, "chat-v1-1"));
  harness.run_until(kT0 + seconds(124));
  EXPECT_FALSE(fake.get(kPods, "chat-v1-1"));
  EXPECT_FALSE(fake.get(kPods, "chat-v1-2"));
}

TEST_F(Serving, AppliesItsObjectsOnce) {
  harness.run_until(kT0 + seconds(1));
  ASSERT_TRUE(fake.get(kDeployments, "chat-v1"));
  ASSERT_TRUE(fake.get("/api/v1/namespaces/ml/services", "chat-v1"));
  EXPECT_EQ(serving.stats().applied, 1);
  EXPECT_EQ(serving.desired("chat", "v1"), 1);
  EXPECT_EQ(serving.desired("chat", "v2"), std::nullopt);
  // A second LiveServing (a restart) finds the objects and starts from their replica count.
  write_replicas(client, "ml", "chat-v1", 2);
  harness.settle();
  ScriptedScraper quiet;
  ApiWorkers workers(1);
  LiveServing again(client, workers, *loop, quiet,
                    LiveServingOptions{.objects = {.namespace_name = "ml"}});
  again.add_service(kpa_service());
  EXPECT_THROW(again.add_service(kpa_service()), std::invalid_argument);
  again.start();
  harness.add(workers);
  harness.add(again.pod_informer(), kPods, "", std::string(kServingSelector));
  const_cast<Informer&>(again.pod_informer()).wait_for_sync();
  fake.wait_for_watches_started(3 + 3 + 1);
  harness.settle();
  EXPECT_EQ(again.desired("chat", "v1"), 2);
  EXPECT_EQ((*fake.get(kDeployments, "chat-v1"))["spec"]["replicas"], 2);
  again.stop();
}

// Leader election: a second replica, inactive, scrapes but writes and decides nothing; when the
// first stops and the second becomes active at +20, its windows are warm (rounds from +12), so
// at +22 it decides what the first would have: 3 (the +22 arithmetic above).
TEST_F(Serving, AnInactiveReplicaKeepsItsWindowsWarmAndTakesOver) {
  harness.run_until(kT0 + seconds(10));
  ScriptedScraper script;
  ApiWorkers workers(1);
  LiveServing standby(client, workers, *loop, script,
                      LiveServingOptions{.objects = {.namespace_name = "ml"}, .active = false});
  standby.add_service(kpa_service());
  standby.start();
  harness.add(workers);
  harness.add(standby.pod_informer(), kPods, "", std::string(kServingSelector));
  const_cast<Informer&>(standby.pod_informer()).wait_for_sync();
  fake.wait_for_watches_started(3 + 3 + 1);
  harness.run_until(kT0 + seconds(20));
  EXPECT_TRUE(standby.decisions().empty());
  EXPECT_EQ(standby.stats().applied, 0);
  EXPECT_EQ(standby.desired("chat", "v1"), std::nullopt);
  EXPECT_EQ(standby.metrics("chat", "v1")->last_round(), kT0 + seconds(20));
  EXPECT_EQ(script.requests().size(), 6u);  // the baseline at +10, then +12 .. +20

  serving.stop();
  standby.set_active(true);
  harness.run_until(kT0 + seconds(23));
  EXPECT_EQ(standby.stats().applied, 1);
  ASSERT_EQ(standby.decisions().size(), 1u);  // +22
  EXPECT_EQ(standby.decisions()[0].at, kT0 + seconds(22));
  EXPECT_EQ(standby.decisions()[0].desired, 3);
  EXPECT_EQ(standby.stats().replica_writes, 1);
  EXPECT_EQ((*fake.get(kDeployments, "chat-v1"))["spec"]["replicas"], 3);
  EXPECT_TRUE(serving.decisions().back().at < kT0 + seconds(22));
  standby.stop();
}

}  // namespace live_serving_test
}  // namespace gantry::kube
