// The whole live serving path with nothing scripted: kubelet-sim's serving parts (serving_sim.hpp:
// the Deployment stand-in, a periodic load of 10 requests a second taking 2 s each, its loopback
// /metrics endpoint) and LiveServing scraping that endpoint with libcurl (EndpointScraper), on
// virtual time with the live world placing the pods (live_stack.hpp).
//
// KPA 1..3 at target concurrency 10; 16 batch slots per replica. Cold start: image pull 2 s,
// load 2 s, kubelet-sim's start-up 5 s: chat-v1-0 (created at T0) is Ready at +9, replicas
// created at an even tick on its node at tick + 7: never at a tick's instant.
//
// What must happen: until +9 the activator holds the requests (10 a second, from 0.1 s), so
// with the baseline round at T0 the windows see the backlog grow: over [0, 2) 19 requests held
// for Σ(2 − a) = 19 request-seconds, 9.5 on average: 1 replica; over [0, 4) 78 / 4 = 19.5: 2,
// twice the one pod (none ready counts as one): panic, 2 at +4; over [0, 6) 177 / 6 = 29.5: 3
// at +6. Once the backlog has drained,
// the load is 10/s × 2 s = 20 in flight: ceil(20 / 10) = 2 replicas when the panic is over. The
// decisions are the autoscaler's on the rounds as scraped (checked by calling it directly).

#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "adapters/kube/kubelet_sim/serving_sim.hpp"
#include "adapters/kube/serving/live_serving.hpp"
#include "tests/adapters/kube/serving/serving_test_support.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace live_serving_load_test {

using nlohmann::json;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
constexpr const char* kPods = "/api/v1/namespaces/ml/pods";

ServiceSpec service() {
  ServiceSpec s = testing::one_predictor_kpa_service();
  s.cold_start.image_pull = seconds(2);
  s.cold_start.load = seconds(2);
  return s;
}

ServingSimOptions load_options() {
  ServingSimOptions o;
  ServingLoadSpec l;
  l.service = "chat";
  l.qps = 10;
  l.service_time = seconds(2);
  l.periodic = true;
  o.loads = {l};
  o.metrics_listen = "127.0.0.1:0";
  o.deployments.namespace_name = "ml";
  return o;
}

// Keeps every round another scraper read, by tick. Thread-safe.
class RecordingScraper final : public MetricsScraper {
 public:
  explicit RecordingScraper(MetricsScraper& inner) : inner_(inner) {}
  ScrapeResult scrape(const ScrapeRequest& r) override {
    ScrapeResult out = inner_.scrape(r);
    std::lock_guard lock(mutex_);
    rounds_[r.at] = out;
    return out;
  }
  std::map<Time, ScrapeResult> rounds() const {
    std::lock_guard lock(mutex_);
    return rounds_;
  }

 private:
  MetricsScraper& inner_;
  mutable std::mutex mutex_;
  std::map<Time, ScrapeResult> rounds_;
};

struct Loaded : ::testing::Test, testing::LiveStack {
  Loaded() : LiveStack(kT0, testing::a10_nodes(), SchedulerConfig{}, seconds(5)) {
    fake.create_namespace("ml");
    sim.start();
    endpoint = std::make_unique<EndpointScraper>(sim.metrics_url());
    scraper = std::make_unique<RecordingScraper>(*endpoint);
    serving =
        std::make_unique<LiveServing>(client, serving_workers, *loop, *scraper,
                                      LiveServingOptions{.objects = {.namespace_name = "ml"}});
    serving->add_service(service());
    serving->start();
    harness.add(sim_workers);
    harness.add(serving_workers);
    harness.add(sim.deployments().deployment_informer(), sim.deployments().deployments_path(), "",
                std::string(kServingSelector));
    harness.add(sim.deployments().pod_informer(), sim.deployments().pods_path(), "",
                std::string(kServingSelector));
    harness.add(serving->pod_informer(), kPods, "", std::string(kServingSelector));
    const_cast<Informer&>(sim.deployments().deployment_informer()).wait_for_sync();
    const_cast<Informer&>(serving->pod_informer()).wait_for_sync();
    fake.wait_for_watches_started(3 + 3);
    harness.settle();
  }
  ~Loaded() override {
    serving->stop();
    sim.stop();
  }

  // The scrapers before the workers that call them, so that they outlive them.
  std::unique_ptr<EndpointScraper> endpoint;
  std::unique_ptr<RecordingScraper> scraper;
  ApiWorkers sim_workers{2};
  ApiWorkers serving_workers{2};
  ServingSim sim{client, sim_workers, *loop, load_options()};
  std::unique_ptr<LiveServing> serving;
};

TEST_F(Loaded, ScalesWithKubeletSimsLoadAsTheAutoscalerDecides) {
  harness.run_until(kT0 + seconds(160));
  const std::vector<ScaleDecision>& d = serving->decisions();
  ASSERT_EQ(d.size(), 80u);
  std::vector<std::pair<int64_t, int>> writes;
  for (const ScaleDecision& x : d) {
    EXPECT_TRUE(x.scraped) << format_rfc3339(x.at);
    if (x.desired != x.counts.desired)
      writes.emplace_back((x.at - kT0).micros() / 1'000'000, x.desired);
  }
  // +4 and +6: panic from the activator's backlog, 2 then 3 (above). +84: the panic over (the
  // last tick over the threshold was +22, checked below; 22 + 60 < 84), the stable window
  // [24, 84) at 20 in flight: 2.
  EXPECT_EQ(writes, (std::vector<std::pair<int64_t, int>>{{4, 2}, {6, 3}, {84, 2}}));
  EXPECT_EQ(serving->desired("chat", "v1"), 2);
  EXPECT_NEAR(serving->metrics("chat", "v1")
                  ->average(ServingMetric::kConcurrency, kT0 + seconds(160), seconds(60)),
              20.0, 1e-9);
  // The activator held the first requests; every request was counted once.
  EXPECT_EQ(sim.load().activator("ml/chat-v1").requests, 90);  // 0.1 s .. 9.0 s
  EXPECT_EQ(sim.load().dropped(), 0);
  EXPECT_TRUE(fake.get(kPods, "chat-v1-0"));
  EXPECT_TRUE(fake.get(kPods, "chat-v1-1"));
  EXPECT_FALSE(fake.get(kPods, "chat-v1-2"));

  // The same autoscaler on the same rounds (the counters as LiveServing read them) and counts.
  auto direct = make_serving_autoscaler(service().autoscaler);
  ScrapedServingMetrics metrics(seconds(60));
  const std::map<Time, ScrapeResult> rounds = scraper->rounds();
  ASSERT_EQ(rounds.size(), d.size() + 1);  // the baseline at T0
  metrics.add_scrape(kT0, rounds.at(kT0).pods, rounds.at(kT0).failed);
  for (const ScaleDecision& x : d) {
    const ScrapeResult& r = rounds.at(x.at);
    metrics.add_scrape(x.at, r.pods, r.failed);
    EXPECT_EQ(direct->decide(x.at, x.counts, metrics), x.desired) << format_rfc3339(x.at);
    const double panic = metrics.average(ServingMetric::kConcurrency, x.at, seconds(6));
    // Over the threshold: ceil(panic / 10) >= 2 × ready pods (3 from +13 on): panic > 50.
    if (x.at == kT0 + seconds(22)) {
      EXPECT_GT(panic, 50.0);
    }
    if (x.at >= kT0 + seconds(24)) {
      EXPECT_LE(panic, 50.0) << format_rfc3339(x.at);
    }
    if (x.at == kT0 + seconds(84)) {
      EXPECT_EQ(x.counts.ready, 3);
      EXPECT_NEAR(metrics.average(ServingMetric::kConcurrency, x.at, seconds(60)), 20.0, 0.5);
    }
  }
}

}  // namespace live_serving_load_test
}  // namespace gantry::kube
