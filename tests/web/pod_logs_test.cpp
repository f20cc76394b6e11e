// read_pod_logs() (kube_serve_world.hpp): the logs of an attempt's pods on a fake API server,
// each line prefixed with its pod's name; a refusal of the API server becomes a sentence
// saying so, never an exception or an empty answer.

#include <gtest/gtest.h>

#include "adapters/kube/kube_client.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "web/server/kube_serve_world.hpp"

namespace gantry::web {
namespace pod_logs_test {

const std::string kPods = "/api/v1/namespaces/default/pods";

nlohmann::json pod(const std::string& name, const std::string& attempt_id) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", {{"gantry.dev/attempt-id", attempt_id}}}}},
          {"spec", {{"containers", {{{"name", "main"}, {"image", "i"}}}}}}};
}

// A gang of two pods of attempt 7 (and a pod of attempt 8, not read): both logs, prefixed.
TEST(PodLogs, EveryPodOfTheGangPrefixed) {
  kube::testing::FakeApiServer api;
  api.apply(kPods, pod("fit-master-0", "7"));
  api.apply(kPods, pod("fit-worker-0", "7"));
  api.apply(kPods, pod("other", "8"));
  api.serve_pod_logs([](const std::string&, const std::string& name) {
    return std::optional<std::string>("epoch 1 of " + name + "\nepoch 2\n");
  });
  kube::KubeClient client(kube::testing::config_for(api.url()));
  EXPECT_EQ(read_pod_logs(client, "default", 7),
            "[fit-master-0] epoch 1 of fit-master-0\n[fit-master-0] epoch 2\n"
            "[fit-worker-0] epoch 1 of fit-worker-0\n[fit-worker-0] epoch 2\n");
  EXPECT_EQ(read_pod_logs(client, "default", 9),
            "no pod of attempt id 9 is left in namespace default: its logs are gone\n");
}

// RBAC refuses the log subresource, then the list: each is said in words.
TEST(PodLogs, RefusalsOfTheApiServerAreSaid) {
  kube::testing::FakeApiServer api;
  api.apply(kPods, pod("fit", "7"));
  api.serve_pod_logs(
      [](const std::string&, const std::string&) { return std::optional<std::string>("x\n"); });
  api.forbid({.verb = "get", .core = true, .resource = "pods/log"});
  kube::KubeClient client(kube::testing::config_for(api.url()));
  const std::string refused = read_pod_logs(client, "default", 7);
  EXPECT_EQ(refused.rfind("[fit] (its log could not be read: HTTP 403: ", 0), 0u) << refused;
  EXPECT_NE(refused.find("forbidden"), std::string::npos) << refused;
  api.forbid({.verb = "list", .core = true, .resource = "pods"});
  const std::string unlisted = read_pod_logs(client, "default", 7);
  EXPECT_EQ(unlisted.rfind("the API server did not list the pods of attempt id 7: HTTP 403: ", 0),
            0u)
      << unlisted;
}

}  // namespace pod_logs_test
}  // namespace gantry::web
