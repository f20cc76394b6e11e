// Create-or-update of a predictor's objects and the replica writes
// (adapters/kube/serving/serving_apply.hpp) against the fake API server.

#include "adapters/kube/serving/serving_apply.hpp"

#include <gtest/gtest.h>

#include "adapters/kube/serving/serving_objects.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/serving/serving_test_support.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace serving_apply_test {

using nlohmann::json;
using testing::chat_service;

constexpr const char* kDeployments = "/apis/apps/v1/namespaces/ml/deployments";
constexpr const char* kServices = "/api/v1/namespaces/ml/services";

struct Apply : ::testing::Test {
  testing::FakeApiServer fake;
  KubeClient client{testing::config_for(fake.url())};
  ServiceSpec spec = chat_service();
  ServingObjectOptions options{.namespace_name = "ml"};

  Apply() {
    fake.create_namespace("ml");
    fake.clear_requests();
  }
  json deployment(int replicas) const {
    return deployment_body(spec, spec.predictors[0], replicas, options);
  }
  // "METHOD path" of every request since the last clear.
  std::vector<std::string> writes() const {
    std::vector<std::string> out;
    for (const auto& r : fake.requests()) out.push_back(r.method + " " + r.path);
    return out;
  }
};

TEST_F(Apply, CreatesThenFindsNothingToChange) {
  const ApplyResult created = apply_deployment(client, deployment(1));
  EXPECT_EQ(created.outcome, ApplyOutcome::kCreated);
  const auto stored = fake.get(kDeployments, "chat-v1");
  ASSERT_TRUE(stored);
  EXPECT_EQ((*stored)["spec"]["replicas"], 1);
  EXPECT_EQ((*stored)["spec"]["template"], deployment(1)["spec"]["template"]);
  EXPECT_EQ(apply_service(client, service_body(spec, spec.predictors[0], options)).outcome,
            ApplyOutcome::kCreated);
  ASSERT_TRUE(fake.get(kServices, "chat-v1"));

  // Again: the POST finds it (409), one GET, and no write.
  fake.clear_requests();
  EXPECT_EQ(apply_deployment(client, deployment(1)).outcome, ApplyOutcome::kUnchanged);
  EXPECT_EQ(apply_service(client, service_body(spec, spec.predictors[0], options)).outcome,
            ApplyOutcome::kUnchanged);
  EXPECT_EQ(writes(), (std::vector<std::string>{
                          std::string("POST ") + kDeployments,
                          std::string("GET ") + kDeployments + "/chat-v1",
                          std::string("POST ") + kServices,
                          std::string("GET ") + kServices + "/chat-v1",
                      }));
}

TEST_F(Apply, AnUpdateKeepsTheReplicasAndWhatOthersWrote) {
  apply_deployment(client, deployment(1));
  // The autoscaler scaled to 3 (a merge PATCH of spec.replicas) ...
  fake.clear_requests();
  EXPECT_EQ(write_replicas(client, "ml", "chat-v1", 3), WriteOutcome::kOk);
  const auto requests = fake.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "PATCH");
  EXPECT_EQ(requests[0].path, std::string(kDeployments) + "/chat-v1");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/merge-patch+json");
  EXPECT_EQ(json::parse(requests[0].body), json::parse(R"({"spec":{"replicas":3}})"));
  // ... and someone added a label of their own.
  json stored = *fake.get(kDeployments, "chat-v1");
  EXPECT_EQ(stored["spec"]["replicas"], 3);
  stored["metadata"]["labels"]["team"] = "nlp";
  const json labelled = fake.apply(kDeployments, stored);

  // A new image: one PUT with the resourceVersion read; replicas stay 3, the label stays.
  spec.predictors[0].image = "llama:2";
  fake.clear_requests();
  const ApplyResult r = apply_deployment(client, deployment(1));
  EXPECT_EQ(r.outcome, ApplyOutcome::kUpdated);
  const auto after = *fake.get(kDeployments, "chat-v1");
  EXPECT_EQ(after["spec"]["replicas"], 3);
  EXPECT_EQ(after["metadata"]["labels"]["team"], "nlp");
  EXPECT_EQ(after["spec"]["template"]["spec"]["containers"][0]["image"], "llama:2");
  int puts = 0;
  for (const auto& q : fake.requests()) {
    if (q.method != "PUT") continue;
    ++puts;
    EXPECT_EQ(json::parse(q.body)["metadata"]["resourceVersion"],
              labelled["metadata"]["resourceVersion"]);
  }
  EXPECT_EQ(puts, 1);
}

TEST_F(Apply, AServiceUpdateKeepsItsClusterIp) {
  apply_service(client, service_body(spec, spec.predictors[0], options));
  // What a real API server fills in.
  json stored = *fake.get(kServices, "chat-v1");
  stored["spec"]["clusterIP"] = "10.96.0.12";
  stored["spec"]["type"] = "ClusterIP";
  stored["spec"]["ports"][0]["protocol"] = "TCP";
  stored["spec"]["ports"][1]["protocol"] = "TCP";
  fake.apply(kServices, stored);
  EXPECT_EQ(apply_service(client, service_body(spec, spec.predictors[0], options)).outcome,
            ApplyOutcome::kUnchanged);
  options.metrics_port = 9100;
  EXPECT_EQ(apply_service(client, service_body(spec, spec.predictors[0], options)).outcome,
            ApplyOutcome::kUpdated);
  const json after = *fake.get(kServices, "chat-v1");
  EXPECT_EQ(after["spec"]["clusterIP"], "10.96.0.12");
  EXPECT_EQ(after["spec"]["ports"][1]["port"], 9100);
}

TEST_F(Apply, AConflictReadsAgain) {
  apply_deployment(client, deployment(1));
  spec.predictors[0].image = "llama:2";
  testing::Fault conflict;
  conflict.method = "PUT";
  conflict.path_prefix = std::string(kDeployments) + "/chat-v1";
  conflict.status = 409;
  fake.inject(conflict);
  fake.clear_requests();
  EXPECT_EQ(apply_deployment(client, deployment(1)).outcome, ApplyOutcome::kUpdated);
  int gets = 0;
  int puts = 0;
  for (const auto& q : fake.requests()) {
    gets += q.method == "GET";
    puts += q.method == "PUT";
  }
  EXPECT_EQ(gets, 2);  // read, conflict, read again
  EXPECT_EQ(puts, 2);
  EXPECT_EQ(
      (*fake.get(kDeployments, "chat-v1"))["spec"]["template"]["spec"]["containers"][0]["image"],
      "llama:2");
}

TEST_F(Apply, ScalingADeploymentThatIsGoneSaysSo) {
  EXPECT_EQ(write_replicas(client, "ml", "nothing", 2), WriteOutcome::kNotFound);
}

}  // namespace serving_apply_test
}  // namespace gantry::kube
