// The scrapers (adapters/kube/serving/metrics_scraper.hpp): which URLs they ask, which samples
// they keep, how a failure is reported; and one real round trip with libcurl over loopback to
// kubelet-sim's endpoint (metrics_endpoint.hpp) serving its simulated load.

#include "adapters/kube/serving/metrics_scraper.hpp"

#include <gtest/gtest.h>

#include <mutex>

#include "adapters/kube/kubelet_sim/metrics_endpoint.hpp"
#include "adapters/kube/kubelet_sim/serving_load.hpp"

namespace gantry::kube {
namespace metrics_scraper_test {

const Time kT = Time::from_micros(1'767'225'600'000'000);

// An HttpGet answering from a table, recording the URLs asked for. Thread-safe.
struct FakeGet {
  std::map<std::string, HttpAnswer> answers;
  std::vector<std::string> asked;
  std::mutex mutex;
  HttpGet get() {
    return [this](const std::string& url) {
      std::lock_guard lock(mutex);
      asked.push_back(url);
      const auto it = answers.find(url);
      return it == answers.end() ? HttpAnswer{0, "", "connection refused"} : it->second;
    };
  }
};

const char* kShared = R"(# TYPE gantry_serving_requests_total counter
gantry_serving_requests_total{namespace="ml",service="chat",predictor="v1",pod="activator"} 3
gantry_serving_requests_total{namespace="ml",service="chat",predictor="v1",pod="chat-v1-0"} 10
gantry_serving_requests_total{namespace="ml",service="chat",predictor="v2",pod="chat-v2-0"} 99
gantry_serving_requests_total{namespace="other",service="chat",predictor="v1",pod="chat-v1-0"} 98
# TYPE gantry_serving_request_concurrency_seconds_total counter
gantry_serving_request_concurrency_seconds_total{namespace="ml",service="chat",predictor="v1",pod="chat-v1-0"} 4.5
gantry_serving_request_concurrency_seconds_total{namespace="ml",service="chat",predictor="v1"} 1000
# TYPE unrelated_total counter
unrelated_total{namespace="ml",service="chat",predictor="v1",pod="chat-v1-0"} 7
)";

ScrapeRequest request_for_v1() {
  ScrapeRequest r;
  r.at = kT;
  r.namespace_name = "ml";
  r.service = "chat";
  r.predictor = "v1";
  r.pods = {{"chat-v1-0", "10.0.0.7"}, {"chat-v1-1", "fd00::9"}, {"chat-v1-2", ""}};
  return r;
}

TEST(MetricsScraper, OneEndpointForManyPods) {
  FakeGet fake;
  fake.answers["http://127.0.0.1:9400/metrics"] = HttpAnswer{200, kShared, ""};
  EndpointScraper scraper("http://127.0.0.1:9400/metrics", fake.get());
  const ScrapeResult r = scraper.scrape(request_for_v1());
  ASSERT_TRUE(r.ok);
  // The predictor's pods by their label, the activator too; not other predictors or
  // namespaces, not samples without a pod, not other metrics.
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods.at("activator").requests, 3);
  EXPECT_EQ(r.pods.at("chat-v1-0").requests, 10);
  EXPECT_EQ(r.pods.at("chat-v1-0").concurrency_seconds, 4.5);
  EXPECT_TRUE(r.failed.empty());
  EXPECT_EQ(fake.asked, (std::vector<std::string>{"http://127.0.0.1:9400/metrics"}));

  fake.answers["http://127.0.0.1:9400/metrics"] = HttpAnswer{503, "", ""};
  ScrapeResult failed = scraper.scrape(request_for_v1());
  EXPECT_FALSE(failed.ok);
  ASSERT_EQ(failed.errors.size(), 1u);
  EXPECT_EQ(failed.errors[0], "GET http://127.0.0.1:9400/metrics: HTTP 503");
  fake.answers["http://127.0.0.1:9400/metrics"] = HttpAnswer{200, "a 1\nb{ 2\n", ""};
  failed = scraper.scrape(request_for_v1());
  EXPECT_FALSE(failed.ok);
  ASSERT_EQ(failed.errors.size(), 1u);
  EXPECT_EQ(failed.errors[0].rfind("http://127.0.0.1:9400/metrics:2:", 0), 0u) << failed.errors[0];
}

TEST(MetricsScraper, EachPodsOwnEndpoint) {
  FakeGet fake;
  fake.answers["http://10.0.0.7:9090/metrics"] =
      HttpAnswer{200,
                 "gantry_serving_requests_total{code=\"200\"} 5\n"
                 "gantry_serving_requests_total{code=\"500\"} 1\n"
                 "gantry_serving_gpu_busy_seconds_total 2.5\n",
                 ""};
  PodEndpointScraper scraper(9090, "/metrics", fake.get());
  const ScrapeResult r = scraper.scrape(request_for_v1());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods.at("chat-v1-0").requests, 6);  // summed over its other labels
  EXPECT_EQ(r.pods.at("chat-v1-0").gpu_busy_seconds, 2.5);
  // The IPv6 pod did not answer, the third has no IP yet: both failed, neither forgotten.
  EXPECT_EQ(r.failed, (std::set<std::string>{"chat-v1-1", "chat-v1-2"}));
  EXPECT_EQ(fake.asked, (std::vector<std::string>{"http://10.0.0.7:9090/metrics",
                                                  "http://[fd00::9]:9090/metrics"}));
  // No pod at all is a round with nothing in it, not a failure.
  ScrapeRequest none = request_for_v1();
  none.pods.clear();
  EXPECT_TRUE(scraper.scrape(none).ok);
}

TEST(MetricsScraper, ReadsKubeletSimsEndpointOverLoopback) {
  VirtualClock clock(kT);
  ServingLoadSpec spec;
  spec.service = "chat";
  spec.qps = 1;
  spec.service_time = seconds(2);
  spec.periodic = true;
  ServingLoad load(clock, {spec});
  ServingDeployment d;
  d.namespace_name = "ml";
  d.name = "chat-v1";
  d.service = "chat";
  d.predictor = "v1";
  d.traffic = 100;
  load.deployment_changed(d, false);
  ServingPod p;
  p.namespace_name = "ml";
  p.name = "chat-v1-0";
  p.service = "chat";
  p.predictor = "v1";
  p.phase = "Running";
  p.ready = true;
  p.max_batch = 4;
  load.pod_changed(p, false);
  // The clock is moved here, before the scrape, on this thread.
  clock.jump_to(kT + seconds(10));
  MetricsEndpoint endpoint("127.0.0.1:0", [&load] { return load.exposition(); });
  ASSERT_GT(endpoint.port(), 0);
  EndpointScraper scraper(endpoint.url());
  const ScrapeResult r = scraper.scrape(request_for_v1());
  ASSERT_TRUE(r.ok) << (r.errors.empty() ? "" : r.errors[0]);
  // Requests at 1..10, 2 s each: 10 arrived; [1,2) 1, [2,10) 2 in the pod → 1 + 16 = 17 s;
  // GPU busy [1, 10) = 9 s; slots 17 / 4.
  const PodCounters& c = r.pods.at("chat-v1-0");
  EXPECT_EQ(c.requests, 10);
  EXPECT_DOUBLE_EQ(c.concurrency_seconds, 17.0);
  EXPECT_DOUBLE_EQ(c.gpu_busy_seconds, 9.0);
  EXPECT_DOUBLE_EQ(c.slots_busy_seconds, 17.0 / 4);
  EXPECT_EQ(endpoint.requests(), 1);
  // Anything but GET /metrics is refused.
  EXPECT_EQ(http_get("http://127.0.0.1:" + std::to_string(endpoint.port()) + "/other").status, 404);
}

TEST(MetricsScraper, NoAnswerIsAnError) {
  // Port 1 on loopback: nothing listens there (a privileged port no test binds).
  const HttpAnswer a = http_get("http://127.0.0.1:1/metrics", seconds(5));
  EXPECT_EQ(a.status, 0);
  EXPECT_FALSE(a.error.empty());
}

}  // namespace metrics_scraper_test
}  // namespace gantry::kube
