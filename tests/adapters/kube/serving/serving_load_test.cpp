// kubelet-sim's simulated requests (adapters/kube/kubelet_sim/serving_load.hpp): periodic
// arrivals worked through by hand, the activator, routing by traffic, the exposition, and the
// --serving-load flag.

#include "adapters/kube/kubelet_sim/serving_load.hpp"

#include <gtest/gtest.h>

#include <map>

#include "adapters/kube/serving/prometheus_text.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {
namespace serving_load_test {

const Time kT = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

ServingDeployment deployment(const std::string& predictor, double traffic) {
  ServingDeployment d;
  d.namespace_name = "ml";
  d.name = "chat-" + predictor;
  d.service = "chat";
  d.predictor = predictor;
  d.traffic = traffic;
  return d;
}

ServingPod pod(const std::string& name, const std::string& predictor, bool ready, int batch) {
  ServingPod p;
  p.namespace_name = "ml";
  p.name = name;
  p.service = "chat";
  p.predictor = predictor;
  p.phase = "Running";
  p.ready = ready;
  p.max_batch = batch;
  return p;
}

// One request a second from T+1, each 1.5 s in a slot.
ServingLoadSpec one_a_second() {
  ServingLoadSpec s;
  s.service = "chat";
  s.qps = 1;
  s.service_time = Duration(1'500'000);
  s.periodic = true;
  return s;
}

TEST(ServingLoad, TwoSlotsWorkedByHand) {
  VirtualClock clock(kT);
  ServingLoad load(clock, {one_a_second()});
  load.deployment_changed(deployment("v1", 100), false);
  load.pod_changed(pod("chat-v1-0", "v1", true, 2), false);
  clock.jump_to(kT + seconds(4));
  // Requests at 1, 2, 3, 4 run [1, 2.5), [2, 3.5), [3, 4.5), [4, 5.5). In the pod over [0, 4):
  //   [1,2) 1, [2,2.5) 2, [2.5,3) 1, [3,3.5) 2, [3.5,4) 1 → 1 + 1 + 0.5 + 1 + 0.5 = 4 s
  // GPU busy [1, 4) = 3 s; slots = running / 2 → 2 s.
  const PodCounters c = load.counters("ml/chat-v1-0");
  EXPECT_EQ(c.requests, 4);
  EXPECT_DOUBLE_EQ(c.concurrency_seconds, 4.0);
  EXPECT_DOUBLE_EQ(c.gpu_busy_seconds, 3.0);
  EXPECT_DOUBLE_EQ(c.slots_busy_seconds, 2.0);
}

TEST(ServingLoad, OneSlotQueuesWorkedByHand) {
  VirtualClock clock(kT);
  ServingLoad load(clock, {one_a_second()});
  load.deployment_changed(deployment("v1", 100), false);
  load.pod_changed(pod("chat-v1-0", "v1", true, 1), false);
  clock.jump_to(kT + seconds(4));
  // 1 runs [1, 2.5); 2 waits, runs [2.5, 4); 3 waits, runs [4, 5.5); 4 (at 4, after 2's finish
  // there) waits. In the pod: [1,2) 1, [2,2.5) 2, [2.5,3) 1, [3,4) 2 → 1 + 1 + 0.5 + 2 = 4.5 s;
  // GPU busy and slots (one slot) [1, 4) = 3 s.
  const PodCounters c = load.counters("ml/chat-v1-0");
  EXPECT_EQ(c.requests, 4);
  EXPECT_DOUBLE_EQ(c.concurrency_seconds, 4.5);
  EXPECT_DOUBLE_EQ(c.gpu_busy_seconds, 3.0);
  EXPECT_DOUBLE_EQ(c.slots_busy_seconds, 3.0);
  // The gauges at 4: request 3 runs, request 4 waits.
  const PromExposition e = parse_prometheus_text(load.exposition());
  std::map<std::string, double> gauges;
  for (const PromSample& s : e.samples)
    if (s.label("pod") == "chat-v1-0") gauges[s.name] = s.value;
  EXPECT_EQ(gauges.at("gantry_serving_requests_running"), 1);
  EXPECT_EQ(gauges.at("gantry_serving_requests_waiting"), 1);
}

TEST(ServingLoad, TheActivatorHoldsRequestsUntilAPodIsReady) {
  VirtualClock clock(kT);
  ServingLoad load(clock, {one_a_second()});
  load.deployment_changed(deployment("v1", 100), false);
  load.pod_changed(pod("chat-v1-0", "v1", false, 2), false);  // starting
  clock.jump_to(kT + Duration(2'500'000));
  // Requests at 1 and 2 are held; at 2.5 the pod is Ready and runs both [2.5, 4).
  load.pod_changed(pod("chat-v1-0", "v1", true, 2), false);
  clock.jump_to(kT + seconds(4));
  // Activator: 2 requests; held [1,2) 1 and [2,2.5) 2 → 2 s.
  const PodCounters a = load.activator("ml/chat-v1");
  EXPECT_EQ(a.requests, 2);
  EXPECT_DOUBLE_EQ(a.concurrency_seconds, 2.0);
  // Pod: the requests at 3 (waits: two slots full) and 4 (at 4 the two finish first, then 3
  // starts and 4 takes the other slot). [2.5,3) 2, [3,4) 3 → 1 + 3 = 4 s; busy [2.5, 4) 1.5 s;
  // slots [2.5, 4) at 2 / 2 → 1.5 s.
  const PodCounters c = load.counters("ml/chat-v1-0");
  EXPECT_EQ(c.requests, 2);
  EXPECT_DOUBLE_EQ(c.concurrency_seconds, 4.0);
  EXPECT_DOUBLE_EQ(c.gpu_busy_seconds, 1.5);
  EXPECT_DOUBLE_EQ(c.slots_busy_seconds, 1.5);
}

TEST(ServingLoad, RoutesByTrafficAndDropsWithoutAPredictor) {
  VirtualClock clock(kT);
  ServingLoad load(clock, {one_a_second()});
  clock.jump_to(kT + seconds(2));  // requests at 1 and 2: no predictor yet
  EXPECT_EQ(load.dropped(), 2);
  load.deployment_changed(deployment("v1", 0), false);
  load.deployment_changed(deployment("v2", 100), false);
  load.pod_changed(pod("chat-v1-0", "v1", true, 4), false);
  load.pod_changed(pod("chat-v2-0", "v2", true, 4), false);
  clock.jump_to(kT + seconds(10));
  EXPECT_EQ(load.counters("ml/chat-v1-0").requests, 0);
  EXPECT_EQ(load.counters("ml/chat-v2-0").requests, 8);
}

TEST(ServingLoad, TheExpositionReadsBackAsTheCounters) {
  VirtualClock clock(kT);
  ServingLoadSpec poisson;
  poisson.service = "chat";
  poisson.qps = 5;
  ServingLoad load(clock, {poisson}, 7);
  load.deployment_changed(deployment("v1", 100), false);
  load.pod_changed(pod("chat-v1-0", "v1", true, 2), false);
  load.pod_changed(pod("chat-v1-1", "v1", true, 2), false);
  clock.jump_to(kT + seconds(30));
  const std::string text = load.exposition();
  const auto counters = serving_counters(
      parse_prometheus_text(text), {{"namespace", "ml"}, {"service", "chat"}, {"predictor", "v1"}});
  ASSERT_EQ(counters.size(), 3u);  // the activator and the two pods
  for (const char* p : {"chat-v1-0", "chat-v1-1"}) {
    const PodCounters want = load.counters(std::string("ml/") + p);
    EXPECT_GT(want.requests, 0);
    EXPECT_EQ(counters.at(p).requests, want.requests);
    EXPECT_EQ(counters.at(p).concurrency_seconds, want.concurrency_seconds);
    EXPECT_EQ(counters.at(p).gpu_busy_seconds, want.gpu_busy_seconds);
    EXPECT_EQ(counters.at(p).slots_busy_seconds, want.slots_busy_seconds);
  }
  EXPECT_EQ(counters.at("activator").requests, 0);
  // Deterministic: the same seed draws the same arrivals; another seed others.
  VirtualClock clock2(kT);
  ServingLoad again(clock2, {poisson}, 7);
  again.deployment_changed(deployment("v1", 100), false);
  again.pod_changed(pod("chat-v1-0", "v1", true, 2), false);
  again.pod_changed(pod("chat-v1-1", "v1", true, 2), false);
  clock2.jump_to(kT + seconds(30));
  EXPECT_EQ(again.exposition(), text);
  VirtualClock clock3(kT);
  ServingLoad other(clock3, {poisson}, 8);
  other.deployment_changed(deployment("v1", 100), false);
  other.pod_changed(pod("chat-v1-0", "v1", true, 2), false);
  other.pod_changed(pod("chat-v1-1", "v1", true, 2), false);
  clock3.jump_to(kT + seconds(30));
  EXPECT_NE(other.exposition(), text);
}

TEST(ServingLoad, ReadsTheFlag) {
  ServingLoadSpec s = parse_serving_load("chat=50");
  EXPECT_EQ(s.service, "chat");
  EXPECT_EQ(s.qps, 50);
  EXPECT_EQ(s.service_time, seconds(1));
  EXPECT_FALSE(s.periodic);
  s = parse_serving_load("chat=0.5:500ms:periodic");
  EXPECT_EQ(s.qps, 0.5);
  EXPECT_EQ(s.service_time, Duration(500'000));
  EXPECT_TRUE(s.periodic);
  for (const char* bad : {"chat", "=5", "chat=0", "chat=-1", "chat=x", "chat=5:soon", "chat=5:0s",
                          "chat=5:1s:sometimes", "chat=5:1s:periodic:x"}) {
    try {
      parse_serving_load(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--serving-load") << bad;
    }
  }
}

}  // namespace serving_load_test
}  // namespace gantry::kube
