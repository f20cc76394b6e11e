// kubelet-sim's stand-in for the Deployment controller (adapters/kube/kubelet_sim/
// deployment_sim.hpp) against the fake API server, on virtual time: pods created up to
// spec.replicas under the lowest free indexes, deleted in a ReplicaSet's order, replaced when
// deleted by hand, gone with their Deployment; the status written. No kubelet plays the pods:
// the test binds them and writes their status, and confirms the graceful deletions of bound
// pods (testing::confirm_deletions) as their kubelets would.

#include "adapters/kube/kubelet_sim/deployment_sim.hpp"

#include <gtest/gtest.h>

#include "adapters/kube/serving/serving_apply.hpp"
#include "adapters/kube/serving/serving_objects.hpp"
#include "tests/adapters/kube/fake_api_rules.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/serving/serving_test_support.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "tests/adapters/kube/world/live_harness.hpp"

namespace gantry::kube {
namespace deployment_sim_test {

using nlohmann::json;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
constexpr const char* kDeployments = "/apis/apps/v1/namespaces/ml/deployments";
constexpr const char* kPods = "/api/v1/namespaces/ml/pods";

struct Recorder final : ServingObjectsListener {
  void deployment_changed(const ServingDeployment& d, bool deleted) override {
    events.push_back("deployment " + d.name + (deleted ? " deleted" : ""));
  }
  void pod_changed(const ServingPod& p, bool deleted) override {
    events.push_back("pod " + p.name + (deleted ? " deleted" : ""));
  }
  std::vector<std::string> events;
};

struct Deployments : ::testing::Test {
  Deployments() {
    fake.create_namespace("ml");
    sim.set_listener(&recorder);
    sim.start();
    harness.add(workers);
    harness.add(sim.deployment_informer(), "/apis/apps/v1/deployments", "",
                std::string(kServingSelector));
    harness.add(sim.pod_informer(), "/api/v1/pods", "", std::string(kServingSelector));
    const_cast<Informer&>(sim.deployment_informer()).wait_for_sync();
    fake.wait_for_watches_started(2);
    harness.settle();
  }
  ~Deployments() override { sim.stop(); }

  // The names of the deployment's pods the server has, in name order.
  std::vector<std::string> pods() const {
    std::vector<std::string> out;
    for (const char* name : {"chat-v1-0", "chat-v1-1", "chat-v1-2", "chat-v1-3"})
      if (fake.get(kPods, name)) out.push_back(name);
    return out;
  }
  void scale(int replicas) {
    write_replicas(client, "ml", "chat-v1", replicas);
    harness.settle();
  }
  // As kubelet-sim and the scheduler would: bound to a node, Ready or not.
  void play(const std::string& pod, bool bound, bool ready) {
    json p = *fake.get(kPods, pod);
    if (bound) p["spec"]["nodeName"] = "n0";
    p["status"] = {{"phase", bound ? "Running" : "Pending"},
                   {"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}};
    fake.apply(kPods, p);
    harness.settle();
  }
  json status() const { return (*fake.get(kDeployments, "chat-v1"))["status"]; }
  // The pods marked for deletion, in name order.
  std::vector<std::string> terminating() const {
    std::vector<std::string> out;
    for (const std::string& name : pods())
      if ((*fake.get(kPods, name))["metadata"].contains("deletionTimestamp")) out.push_back(name);
    return out;
  }
  // Their kubelets' confirmations, once their grace periods are over.
  std::vector<std::string> confirm() {
    std::vector<std::string> done = testing::confirm_deletions(client, kPods);
    harness.settle();
    return done;
  }

  testing::FakeApiServer fake;
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(kT0);
  KubeClient client{testing::config_for(fake.url())};
  ApiWorkers workers{2};
  DeploymentSim sim{client, workers, *loop};
  Recorder recorder;
  testing::LiveHarness harness{*loop, fake};
  ServiceSpec spec = testing::chat_service();
  ServingObjectOptions options{.namespace_name = "ml"};
};

TEST_F(Deployments, MakesScalesAndReplacesPods) {
  apply_deployment(client, deployment_body(spec, spec.predictors[0], 2, options));
  harness.settle();
  EXPECT_EQ(pods(), (std::vector<std::string>{"chat-v1-0", "chat-v1-1"}));
  // A pod is the template's, with an owner reference that is not a controller's: its spec is
  // what the API server makes of the template's (fake_api_rules.hpp), its token volume named
  // as the server named it.
  const json pod = *fake.get(kPods, "chat-v1-0");
  const json deployment = *fake.get(kDeployments, "chat-v1");
  const json& t = deployment["spec"]["template"];
  EXPECT_EQ(pod["metadata"]["labels"], t["metadata"]["labels"]);
  EXPECT_EQ(pod["metadata"]["annotations"], t["metadata"]["annotations"]);
  const std::string volume = pod["spec"]["volumes"][0]["name"];
  const auto made =
      testing::admit_pod({{"metadata", {{"name", "chat-v1-0"}}}, {"spec", t["spec"]}},
                         testing::system_priority_classes(), volume.substr(volume.size() - 5));
  ASSERT_TRUE(std::holds_alternative<json>(made));
  EXPECT_EQ(pod["spec"], std::get<json>(made)["spec"]);
  EXPECT_EQ(pod["metadata"]["ownerReferences"],
            json::parse(R"([{"apiVersion":"apps/v1","kind":"Deployment","name":"chat-v1","uid":)" +
                        deployment["metadata"]["uid"].dump() + "}]"));
  EXPECT_EQ(status()["replicas"], 2);
  EXPECT_EQ(status()["readyReplicas"], 0);

  scale(3);
  EXPECT_EQ(pods(), (std::vector<std::string>{"chat-v1-0", "chat-v1-1", "chat-v1-2"}));
  // 0 and 2 run and are Ready, 1 runs and is not Ready yet.
  play("chat-v1-0", true, true);
  play("chat-v1-1", true, false);
  play("chat-v1-2", true, true);
  EXPECT_EQ(status()["replicas"], 3);
  EXPECT_EQ(status()["readyReplicas"], 2);
  EXPECT_EQ(status()["availableReplicas"], 2);

  // Down to 1: the one not Ready goes first, then the highest index. Both are bound: the API
  // server keeps them, marked, until their kubelets confirm; they count no more.
  scale(1);
  EXPECT_EQ(terminating(), (std::vector<std::string>{"chat-v1-1", "chat-v1-2"}));
  EXPECT_EQ(status()["replicas"], 1);
  EXPECT_EQ(status()["readyReplicas"], 1);
  EXPECT_EQ(confirm(), (std::vector<std::string>{"chat-v1-1", "chat-v1-2"}));
  EXPECT_EQ(pods(), (std::vector<std::string>{"chat-v1-0"}));
  EXPECT_EQ(status()["replicas"], 1);
  // Up to 2: the lowest free index.
  scale(2);
  EXPECT_EQ(pods(), (std::vector<std::string>{"chat-v1-0", "chat-v1-1"}));
  // A pod deleted by hand is made again.
  fake.remove(kPods, "chat-v1-0");
  harness.settle();
  EXPECT_EQ(pods(), (std::vector<std::string>{"chat-v1-0", "chat-v1-1"}));
  EXPECT_EQ(sim.stats().pods_created, 2 + 1 + 1 + 1);
  EXPECT_EQ(sim.stats().pods_deleted, 2);
  EXPECT_EQ(sim.stats().write_errors, 0);

  // The Deployment deleted: its pods go with it.
  fake.remove(kDeployments, "chat-v1");
  harness.settle();
  EXPECT_TRUE(pods().empty());
  EXPECT_NE(std::find(recorder.events.begin(), recorder.events.end(), "deployment chat-v1 deleted"),
            recorder.events.end());
}

TEST_F(Deployments, UnboundPodsGoFirst) {
  apply_deployment(client, deployment_body(spec, spec.predictors[0], 3, options));
  harness.settle();
  play("chat-v1-0", true, true);
  play("chat-v1-1", false, false);
  play("chat-v1-2", true, false);
  // Unbound (1: deleted at once), then not Ready (2: bound, gone once its kubelet confirms):
  // 0 stays.
  scale(1);
  EXPECT_EQ(pods(), (std::vector<std::string>{"chat-v1-0", "chat-v1-2"}));
  EXPECT_EQ(terminating(), (std::vector<std::string>{"chat-v1-2"}));
  EXPECT_EQ(confirm(), (std::vector<std::string>{"chat-v1-2"}));
  EXPECT_EQ(pods(), (std::vector<std::string>{"chat-v1-0"}));
}

TEST_F(Deployments, LeavesOtherDeploymentsAlone) {
  json other = deployment_body(spec, spec.predictors[0], 2, options);
  other["metadata"]["name"] = "plain";
  other["metadata"]["labels"] = {{"app", "plain"}};
  fake.apply(kDeployments, other);
  harness.settle();
  EXPECT_TRUE(pods().empty());
  EXPECT_FALSE(fake.get(kPods, "plain-0"));
  EXPECT_EQ(sim.stats().pods_created, 0);
}

}  // namespace deployment_sim_test
}  // namespace gantry::kube
