// The fake API server where a real kube-apiserver v1.24 is more than an object store (issue
// #23: a rehearsal against a real server found each of these missing from the fake): namespaces
// that must exist, the Priority admission, graceful deletion of pods, the strategic merge of
// conditions. The expected answers are the upstream code's (fake_api_rules.hpp names it); the
// defaults a Pod and a Node get are checked against the captured answers in captures_test.cpp.

#include "tests/adapters/kube/fake_api_server.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kube_error.hpp"
#include "tests/adapters/kube/strategic_merge.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace fake_api_server_test {

using nlohmann::json;
using testing::FakeApiServer;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

json pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox:1.36"}}}}}}};
}

// The server's answer to a POST, thrown or not.
KubeStatus refusal(KubeClient& client, const std::string& path, const json& body) {
  try {
    client.post(path, body);
  } catch (const KubeError& e) {
    return e.status();
  }
  ADD_FAILURE() << "accepted: " << body.dump();
  return {};
}

struct Fake : ::testing::Test {
  // The server's clock, moved by the test.
  std::atomic<int64_t> now_us{kT0.micros()};
  FakeApiServer fake{{.now = [this] { return Time::from_micros(now_us.load()); }}};
  KubeClient client{testing::config_for(fake.url())};
};

// Finding 4: the namespaces every cluster has exist; any other must be created first.
TEST_F(Fake, ACreateInANamespaceThatDoesNotExistIs404) {
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    EXPECT_TRUE(fake.get("/api/v1/namespaces", ns)) << ns;
  const KubeStatus s = refusal(client, "/api/v1/namespaces/ml/pods", pod("a"));
  EXPECT_EQ(s.code, 404);
  EXPECT_EQ(s.reason, "NotFound");
  EXPECT_EQ(s.message, "namespaces \"ml\" not found");
  EXPECT_EQ(s.kind, "namespaces");
  EXPECT_EQ(s.name, "ml");
  EXPECT_FALSE(fake.get("/api/v1/namespaces/ml/pods", "a"));
  // Created through the API, the namespace takes pods.
  const json ns =
      client.post("/api/v1/namespaces",
                  {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ml"}}}});
  EXPECT_EQ(ns["status"]["phase"], "Active");
  EXPECT_EQ(client.create("/api/v1/namespaces/ml/pods", pod("a")).outcome, WriteOutcome::kOk);
}

// Finding 3: the Priority admission computes spec.priority from spec.priorityClassName; a
// priority given with it must agree, and an unknown class is refused.
TEST_F(Fake, PodPrioritiesComeFromPriorityClasses) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  const std::string classes = "/apis/scheduling.k8s.io/v1/priorityclasses";
  json bare = pod("bare");
  bare["spec"]["priority"] = 100;
  KubeStatus s = refusal(client, pods, bare);
  EXPECT_EQ(s.code, 403);
  EXPECT_EQ(s.reason, "Forbidden");
  EXPECT_EQ(s.message,
            "pods \"bare\" is forbidden: the integer value of priority (100) must not be provided "
            "in pod spec; priority admission controller computed 0 from the given PriorityClass "
            "name");
  json unknown = pod("unknown");
  unknown["spec"]["priorityClassName"] = "high";
  s = refusal(client, pods, unknown);
  EXPECT_EQ(s.code, 403);
  EXPECT_EQ(s.message, "pods \"unknown\" is forbidden: no PriorityClass with name high was found");

  const json high = client.post(classes, {{"apiVersion", "scheduling.k8s.io/v1"},
                                          {"kind", "PriorityClass"},
                                          {"metadata", {{"name", "high"}}},
                                          {"value", 100}});
  EXPECT_EQ(high["preemptionPolicy"], "PreemptLowerPriority");
  EXPECT_EQ(client.post(pods, unknown)["spec"]["priority"], 100);
  bare["spec"]["priorityClassName"] = "high";  // 100 given and computed: accepted
  const json accepted = client.post(pods, bare);
  EXPECT_EQ(accepted["spec"]["priority"], 100);
  EXPECT_EQ(accepted["spec"]["preemptionPolicy"], "PreemptLowerPriority");
  // A globalDefault class names the pods that name none (the lowest value of several).
  for (const auto& [name, value] : {std::pair{"low", 5}, std::pair{"lower", 2}})
    client.post(classes, {{"apiVersion", "scheduling.k8s.io/v1"},
                          {"kind", "PriorityClass"},
                          {"metadata", {{"name", name}}},
                          {"value", value},
                          {"globalDefault", true},
                          {"preemptionPolicy", "Never"}});
  const json defaulted = client.post(pods, pod("plain"));
  EXPECT_EQ(defaulted["spec"]["priorityClassName"], "lower");
  EXPECT_EQ(defaulted["spec"]["priority"], 2);
  EXPECT_EQ(defaulted["spec"]["preemptionPolicy"], "Never");
}

// Finding 2: a bound pod that runs is only marked by a DELETE or an eviction, for its grace
// period, until a delete of grace 0 (its kubelet's); unbound or ended pods go at once.
TEST_F(Fake, BoundPodsAreDeletedGracefully) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  for (const char* name : {"bound", "evicted", "unbound", "ended"})
    ASSERT_EQ(client.create(pods, pod(name)).outcome, WriteOutcome::kOk);
  for (const char* name : {"bound", "evicted", "ended"})
    ASSERT_EQ(client.bind("default", name, "n1").outcome, WriteOutcome::kOk);
  json ended = *fake.get(pods, "ended");
  ended["status"]["phase"] = "Succeeded";
  fake.apply(pods, ended);
  now_us += seconds(60).micros();  // the deletions at 00:01:00

  // Unbound, ended: CheckGracefulDelete's grace 0.
  EXPECT_EQ(client.remove(pods + "/unbound").outcome, WriteOutcome::kOk);
  EXPECT_FALSE(fake.get(pods, "unbound"));
  EXPECT_EQ(client.remove(pods + "/ended").outcome, WriteOutcome::kOk);
  EXPECT_FALSE(fake.get(pods, "ended"));

  // Bound: the pod's terminationGracePeriodSeconds (defaulted to 30 at create).
  const WriteResult marked = client.remove(pods + "/bound");
  EXPECT_EQ(marked.outcome, WriteOutcome::kOk);
  EXPECT_EQ(marked.object["metadata"]["deletionTimestamp"], "2026-01-01T00:01:30Z");
  const json bound = *fake.get(pods, "bound");
  EXPECT_EQ(bound["metadata"]["deletionTimestamp"], "2026-01-01T00:01:30Z");
  EXPECT_EQ(bound["metadata"]["deletionGracePeriodSeconds"], 30);
  // Writes keep the mark; another delete without a shorter grace changes nothing.
  json relabelled = bound;
  relabelled["metadata"].erase("deletionTimestamp");
  relabelled["metadata"]["labels"]["x"] = "y";
  client.put(pods + "/bound", relabelled);
  EXPECT_EQ((*fake.get(pods, "bound"))["metadata"]["deletionTimestamp"], "2026-01-01T00:01:30Z");
  const int64_t rv = fake.resource_version();
  EXPECT_EQ(client.remove(pods + "/bound").outcome, WriteOutcome::kOk);
  EXPECT_EQ(fake.resource_version(), rv) << "a pending deletion is not written again";
  // A shorter grace moves the deadline back: 01:30 − 30 s + 10 s.
  client.remove(pods + "/bound", {.grace_period_seconds = 10});
  EXPECT_EQ((*fake.get(pods, "bound"))["metadata"]["deletionTimestamp"], "2026-01-01T00:01:10Z");
  // The kubelet's confirmation, with its uid.
  EXPECT_EQ(client
                .remove(pods + "/bound", {.uid = bound["metadata"]["uid"].get<std::string>(),
                                          .grace_period_seconds = 0})
                .outcome,
            WriteOutcome::kOk);
  EXPECT_FALSE(fake.get(pods, "bound"));

  // An eviction deletes the same way, with its deleteOptions' grace when it has one.
  EXPECT_EQ(client.evict("default", "evicted").outcome, WriteOutcome::kOk);
  EXPECT_EQ((*fake.get(pods, "evicted"))["metadata"]["deletionGracePeriodSeconds"], 30);
  json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", "evicted"}, {"namespace", "default"}}},
                   {"deleteOptions", {{"gracePeriodSeconds", 0}}}};
  client.post(pods + "/evicted/eviction", eviction);
  EXPECT_FALSE(fake.get(pods, "evicted"));
}

// Finding 5: a strategic merge patch merges status.conditions by type (a merge patch replaces
// the list); the binding sets PodScheduled among the others.
TEST_F(Fake, StrategicMergeKeepsConditionsByType) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  ASSERT_EQ(client.create(pods, pod("a")).outcome, WriteOutcome::kOk);
  client.patch(pods + "/a/status",
               {{"status", {{"conditions", {{{"type", "Initialized"}, {"status", "True"}}}}}}},
               PatchType::kStrategicMerge);
  ASSERT_EQ(client.bind("default", "a", "n1").outcome, WriteOutcome::kOk);
  const auto types = [&] {
    std::vector<std::string> out;
    const json p = *fake.get(pods, "a");
    for (const json& c : p["status"]["conditions"])
      out.push_back(c["type"].get<std::string>() + "=" + c["status"].get<std::string>());
    return out;
  };
  EXPECT_EQ(types(), (std::vector<std::string>{"Initialized=True", "PodScheduled=True"}));
  client.patch(pods + "/a/status",
               {{"status",
                 {{"conditions",
                   {{{"type", "Ready"}, {"status", "True"}},
                    {{"type", "Initialized"}, {"status", "False"}}}}}}},
               PatchType::kStrategicMerge);
  EXPECT_EQ(types(),
            (std::vector<std::string>{"Initialized=False", "PodScheduled=True", "Ready=True"}));
  client.patch(pods + "/a/status",
               {{"status", {{"conditions", {{{"type", "Ready"}, {"status", "False"}}}}}}},
               PatchType::kMerge);
  EXPECT_EQ(types(), (std::vector<std::string>{"Ready=False"}));
}

// The rest of the strategic merge: containers by name, a $patch delete, lists without a merge
// key replaced, null deleting a key.
TEST(StrategicMerge, ListsMergeOnTheirKeys) {
  const json target = {
      {"metadata", {{"labels", {{"a", "1"}, {"b", "2"}}}}},
      {"spec",
       {{"containers",
         {{{"name", "main"}, {"image", "x:1"}, {"env", {{{"name", "A"}, {"value", "1"}}}}},
          {{"name", "side"}, {"image", "y:1"}}}},
        {"tolerations", {{{"key", "k1"}}, {{"key", "k2"}}}}}}};
  const json patch = {{"metadata", {{"labels", {{"b", nullptr}, {"c", "3"}}}}},
                      {"spec",
                       {{"containers",
                         {{{"name", "main"}, {"env", {{{"name", "B"}, {"value", "2"}}}}},
                          {{"name", "side"}, {"$patch", "delete"}},
                          {{"name", "new"}, {"image", "z:1"}}}},
                        {"tolerations", {{{"key", "k3"}}}}}}};
  const json expected = {
      {"metadata", {{"labels", {{"a", "1"}, {"c", "3"}}}}},
      {"spec",
       {{"containers",
         {{{"name", "main"},
           {"image", "x:1"},
           {"env", {{{"name", "A"}, {"value", "1"}}, {{"name", "B"}, {"value", "2"}}}}},
          {{"name", "new"}, {"image", "z:1"}}}},
        {"tolerations", {{{"key", "k3"}}}}}}};
  EXPECT_EQ(testing::strategic_merge(target, patch), expected);
}

}  // namespace fake_api_server_test
}  // namespace gantry::kube
