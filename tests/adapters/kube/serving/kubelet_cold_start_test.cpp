// kubelet-sim's cold start of serving pods (kubelet_sim.hpp): Running after the start-up delay
// with Ready False, Ready after image pull + model download + load, the node's image and model
// caches as the simulator keeps them (sim/serving/service_run.cpp, cold_start_us). On virtual
// time with the live world placing the pods (live_stack.hpp), binpack on two nodes of 4 A10s.
//
//   T0      a and b (1 GPU each, model cached) bound to r1-n000, Running at +5. The first one
//           played pulls the image (until +15) and fetches the model (until +19); the other
//           finds both coming and waits for them. Load 6 s: both Ready at +25.
//   T0+100  c (1 GPU, model not cached: model-cache false) on r1-n000, Running at +105: the image
//           is there, the model is fetched again (+109) → Ready +115.
//           d (4 GPUs: r1-n000 has 1 left) on r1-n001: its own pull +115, fetch +119 → +125.
//   Without the annotations a pod is Ready when Running (+105 for e).

#include <gtest/gtest.h>

#include "adapters/kube/request_bodies.hpp"
#include "tests/adapters/kube/serving/serving_test_support.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace kubelet_cold_start_test {

using nlohmann::json;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
constexpr const char* kPods = "/api/v1/namespaces/ml/pods";

json serving_pod(const std::string& name, int gpus, bool cache, bool cold = true) {
  json annotations = json::object();
  if (cold) {
    annotations = {{"gantry.dev/image-pull", "10s"},
                   {"gantry.dev/model", "llama-7b"},
                   {"gantry.dev/model-download", "4s"},
                   {"gantry.dev/model-cache", cache ? "true" : "false"},
                   {"gantry.dev/model-load", "6s"}};
  }
  const std::string g = std::to_string(gpus);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"labels",
             {{"app.kubernetes.io/component", "serving"},
              {"gantry.dev/service", "chat"},
              {"gantry.dev/predictor", "v1"}}},
            {"annotations", annotations}}},
          {"spec",
           {{"schedulerName", "gantry"},
            {"containers",
             {{{"name", "server"},
               {"image", "llama-7b-server"},
               {"resources",
                {{"requests", {{"cpu", "1"}, {"nvidia.com/gpu", g}}},
                 {"limits", {{"nvidia.com/gpu", g}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

struct ColdStart : ::testing::Test, testing::LiveStack {
  ColdStart() : LiveStack(kT0, testing::a10_nodes(), SchedulerConfig{}, seconds(5)) {
    fake.create_namespace("ml");
  }
  // The pod's Ready condition: its status and when it last changed.
  std::pair<std::string, Time> ready(const std::string& pod) const {
    const json p = *fake.get(kPods, pod);
    for (const json& c : p["status"].value("conditions", json::array()))
      if (c["type"] == "Ready")
        return {c["status"].get<std::string>(),
                *parse_kube_time(c["lastTransitionTime"].get<std::string>())};
    return {"", Time::from_micros(0)};
  }
  std::string node(const std::string& pod) const {
    return (*fake.get(kPods, pod))["spec"].value("nodeName", "");
  }
};

TEST_F(ColdStart, ReadyAfterPullDownloadAndLoadWithTheNodesCaches) {
  fake.apply(kPods, serving_pod("a", 1, true));
  fake.apply(kPods, serving_pod("b", 1, true));
  harness.run_until(kT0 + seconds(10));
  EXPECT_EQ(node("a"), "r1-n000");
  EXPECT_EQ(node("b"), "r1-n000");
  EXPECT_EQ((*fake.get(kPods, "a"))["status"]["phase"], "Running");
  EXPECT_EQ(ready("a"), std::make_pair(std::string("False"), kT0 + seconds(5)));
  harness.run_until(kT0 + seconds(30));
  EXPECT_EQ(ready("a"), std::make_pair(std::string("True"), kT0 + seconds(25)));
  EXPECT_EQ(ready("b"), std::make_pair(std::string("True"), kT0 + seconds(25)));

  harness.run_until(kT0 + seconds(100));
  fake.apply(kPods, serving_pod("c", 1, false));
  fake.apply(kPods, serving_pod("d", 4, true));
  fake.apply(kPods, serving_pod("e", 1, true, false));
  harness.run_until(kT0 + seconds(130));
  EXPECT_EQ(node("c"), "r1-n000");
  EXPECT_EQ(node("d"), "r1-n001");
  EXPECT_EQ(ready("c"), std::make_pair(std::string("True"), kT0 + seconds(115)));
  EXPECT_EQ(ready("d"), std::make_pair(std::string("True"), kT0 + seconds(125)));
  EXPECT_EQ(ready("e"), std::make_pair(std::string("True"), kT0 + seconds(105)));
}

}  // namespace kubelet_cold_start_test
}  // namespace gantry::kube
