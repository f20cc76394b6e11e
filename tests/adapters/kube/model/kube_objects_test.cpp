// Nodes and pods as Gantry reads them. The objects are written like the API server returns
// them (the shapes of ../shared/data/k8s-captures); expected values by hand.

#include <gtest/gtest.h>

#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {
namespace {

using nlohmann::json;

json dgx_node() {
  return json::parse(R"({"apiVersion":"v1","kind":"Node",
    "metadata":{"name":"dgx-007","uid":"u-7","resourceVersion":"42",
      "labels":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB","gantry.dev/rack":"rack-2",
                "topology.kubernetes.io/zone":"z1","gantry.dev/nvlink-island":"4"}},
    "spec":{"unschedulable":true,"taints":[{"key":"gpu","value":"a100","effect":"NoSchedule"}]},
    "status":{"capacity":{"cpu":"128","memory":"2Ti","nvidia.com/gpu":"8"},
      "allocatable":{"cpu":"126500m","memory":"2000Gi","nvidia.com/gpu":"8","pods":"110"},
      "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}]}})");
}

TEST(KubeNode, ReadsCapacityTopologyAndState) {
  const KubeNode n = parse_node(dgx_node());
  EXPECT_EQ(n.name, "dgx-007");
  EXPECT_EQ(n.resource_version, "42");
  EXPECT_EQ(n.allocatable.cpu_milli, 126'500);
  EXPECT_EQ(n.allocatable.memory_bytes, int64_t{2000} << 30);
  EXPECT_EQ(n.allocatable.gpus, 8);
  EXPECT_EQ(n.gpu_product, "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(n.rack, "rack-2") << "the rack label wins over the zone";
  EXPECT_EQ(n.island_size, 4);
  EXPECT_TRUE(n.ready);
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0], (Taint{"gpu", "a100", TaintEffect::kNoSchedule}));
}

TEST(KubeNode, DefaultsForAPlainNode) {
  json j =
      json::parse(R"({"metadata":{"name":"cpu-1","labels":{"topology.kubernetes.io/zone":"z9"}},
    "status":{"allocatable":{"cpu":"8","memory":"32Gi"},
              "conditions":[{"type":"Ready","status":"Unknown"}]}})");
  const KubeNode n = parse_node(j);
  EXPECT_EQ(n.allocatable.gpus, 0);
  EXPECT_EQ(n.island_size, 0);
  EXPECT_EQ(n.rack, "z9") << "a zone stands in for a missing rack label";
  EXPECT_FALSE(n.ready) << "Unknown is not ready";
  EXPECT_FALSE(n.unschedulable);
}

// A node with GPUs 1 and 5 out of service: allocatable says 6, the annotation which two; its
// islands are of all 8 (2 islands of 4, as the label says).
TEST(KubeNode, ReadsGpusOutOfService) {
  json j = dgx_node();
  j["metadata"]["annotations"] = {{"gantry.dev/unhealthy-gpus", "1,5"}};
  j["status"]["allocatable"]["nvidia.com/gpu"] = "6";
  const KubeNode n = parse_node(j);
  EXPECT_EQ(n.allocatable.gpus, 6);
  EXPECT_EQ(n.unhealthy_gpus, (uint64_t{1} << 1) | (uint64_t{1} << 5));
  EXPECT_EQ(n.island_size, 4);
  EXPECT_EQ(parse_node(dgx_node()).unhealthy_gpus, 0u);
}

// Each malformed field is named, with the object.
void expect_error(const json& object, bool node, const std::string& field,
                  const std::string& detail_part) {
  try {
    if (node) {
      parse_node(object);
    } else {
      parse_pod(object);
    }
    ADD_FAILURE() << "accepted: " << object.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(e.detail().find(detail_part), std::string::npos) << e.what();
  }
}

// gantry kube drain's request (kube_node.hpp): written and read back; a malformed one names the
// node and the field, and leaves the node itself readable.
TEST(KubeNode, ReadsADrainRequest) {
  EXPECT_EQ(drain_request_value(hours(2), minutes(90), "2026-01-01T00:00:00.000000Z"),
            R"({"deadline":"2h","for":"90m","requested":"2026-01-01T00:00:00.000000Z"})");
  json j = dgx_node();
  j["metadata"]["annotations"] = {
      {"gantry.dev/drain-request",
       drain_request_value(Duration(0), hours(4), "2026-01-01T00:00:00.000000Z")},
      {"gantry.dev/drain-state", drain_state_value("2026-01-01T00:00:00.000000Z", "draining",
                                                   Time::from_micros(1'767'225'660'000'000))}};
  const KubeNode n = parse_node(j);
  const DrainRequest r = parse_drain_request(n);
  EXPECT_EQ(r.deadline, Duration(0));
  EXPECT_EQ(r.maintenance, hours(4));
  EXPECT_EQ(r.requested, "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(n.drain_state, R"({"requested":"2026-01-01T00:00:00.000000Z","state":"draining",)"
                           R"("at":"2026-01-01T00:01:00Z"})");
  EXPECT_EQ(drain_state_requested(n), "2026-01-01T00:00:00.000000Z");

  const auto refused = [&](const std::string& value, const std::string& field,
                           const std::string& part) {
    json k = dgx_node();
    k["metadata"]["annotations"] = {{"gantry.dev/drain-request", value}};
    const KubeNode node = parse_node(k);  // the node itself is readable
    try {
      parse_drain_request(node);
      ADD_FAILURE() << value;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, "Node dgx-007");
      EXPECT_EQ(e.field(), "metadata.annotations.gantry.dev/drain-request" + field) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  const std::string at = R"("requested":"2026-01-01T00:00:00Z")";
  refused(R"({"deadline":"2x","for":"4h",)" + at + "}", ".deadline", "2x");
  refused(R"({"deadline":"2h","for":"0s",)" + at + "}", ".for", "above 0");
  refused(R"({"deadline":"2h","for":"400d",)" + at + "}", ".for", "365d");
  refused(R"({"deadline":"2h",)" + at + "}", ".for", "expected a string");
  refused(R"({"deadline":"2h","for":"4h","requested":"yesterday"})", ".requested", "YYYY");
  refused(R"({"deadline":"2h","for":"4h","by":"me",)" + at + "}", ".by", "unknown field");
  refused("drain it please", "", "expected {");
  EXPECT_EQ(drain_state_requested(parse_node(dgx_node())), "") << "no state";
}

TEST(KubeNode, MalformedFieldsAreNamed) {
  json j = dgx_node();
  j["status"]["allocatable"]["cpu"] = "lots";
  expect_error(j, true, "status.allocatable.cpu", "'lots' is not a non-negative quantity");
  j = dgx_node();
  j["metadata"]["labels"]["gantry.dev/nvlink-island"] = "3";
  expect_error(j, true, "metadata.labels.gantry.dev/nvlink-island", "divides the node's 8");
  j = dgx_node();
  j["spec"]["taints"][0]["effect"] = "NoWay";
  expect_error(j, true, "spec.taints[0].effect", "'NoWay'");
  j = dgx_node();
  j["metadata"]["annotations"] = {{"gantry.dev/unhealthy-gpus", "1,x"}};
  expect_error(j, true, "metadata.annotations.gantry.dev/unhealthy-gpus",
               "'x' is not a GPU index from 0 to 63");
  j["metadata"]["annotations"] = {{"gantry.dev/unhealthy-gpus", "64"}};
  expect_error(j, true, "metadata.annotations.gantry.dev/unhealthy-gpus", "'64'");
  j = dgx_node();
  j["spec"]["unschedulable"] = "yes";
  expect_error(j, true, "spec.unschedulable", "expected true or false");
  j = dgx_node();
  j["status"]["conditions"][1]["type"] = 7;
  expect_error(j, true, "status.conditions[1].type", "expected a string");
  try {
    parse_node(json::parse(R"({"metadata":{}})"));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "metadata.name");
  }
}

json training_pod() {
  return json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"llm-worker-1","namespace":"team-a","uid":"p-1","resourceVersion":"9",
      "labels":{"gantry.dev/gang":"llm"},
      "annotations":{"gantry.dev/gang-size":"4","gantry.dev/gpu-index":"0,1,2,3"},
      "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"llm","uid":"j-1","controller":true}]},
    "spec":{"schedulerName":"gantry","priority":100,"nodeName":"dgx-007",
      "nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB"},
      "tolerations":[{"key":"gpu","operator":"Exists"},{"key":"x","value":"y","effect":"NoExecute"}],
      "initContainers":[{"name":"fetch","resources":{"requests":{"cpu":"12","memory":"1Gi"}}}],
      "containers":[
        {"name":"main","resources":{"requests":{"cpu":"8","memory":"64Gi"},"limits":{"nvidia.com/gpu":"4"}}},
        {"name":"sidecar","resources":{"requests":{"cpu":"500m","memory":"512Mi"}}}],
      "overhead":{"cpu":"250m"}},
    "status":{"phase":"Failed","containerStatuses":[
      {"name":"main","state":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]}})");
}

TEST(KubePod, ReadsRequestGangAndEnd) {
  const KubePod p = parse_pod(training_pod());
  EXPECT_EQ(p.key(), "team-a/llm-worker-1");
  EXPECT_EQ(p.scheduler_name, "gantry");
  EXPECT_EQ(p.node_name, "dgx-007");
  EXPECT_EQ(p.priority, 100);
  // CPU: containers 8 + 0.5 = 8.5 cores, init 12 -> max 12 cores, + 0.25 overhead = 12250m.
  EXPECT_EQ(p.request.cpu_milli, 12'250);
  // Memory: 64Gi + 512Mi (the init container's 1Gi is smaller).
  EXPECT_EQ(p.request.memory_bytes, (int64_t{64} << 30) + (int64_t{512} << 20));
  EXPECT_EQ(p.request.gpus, 4) << "a GPU limit without a request requests the limit";
  EXPECT_EQ(p.request.gpu_milli, 0);
  EXPECT_EQ(p.gang, "llm");
  EXPECT_EQ(p.gang_size, 4);
  EXPECT_EQ(p.gpu_index, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_TRUE(p.controller.has_value());
  EXPECT_EQ(p.controller->kind, "Job");
  ASSERT_EQ(p.tolerations.size(), 2u);
  EXPECT_EQ(p.tolerations[0].op, Toleration::Operator::kExists);
  EXPECT_TRUE(p.tolerations[0].any_effect);
  EXPECT_FALSE(p.tolerations[1].any_effect);
  EXPECT_EQ(p.tolerations[1].effect, TaintEffect::kNoExecute);
  EXPECT_EQ(p.phase, "Failed");
  EXPECT_EQ(p.exit_code, 137);
  EXPECT_EQ(p.termination_reason, "OOMKilled");
}

TEST(KubePod, SharesOwnersAndDefaults) {
  json j = json::parse(R"({"metadata":{"name":"infer-0",
      "annotations":{"gantry.dev/gpu-milli":"250","gantry.dev/gpu-mem":"10Gi",
                     "gantry.dev/simulate-duration":"1h30m"},
      "ownerReferences":[{"kind":"ReplicaSet","name":"rs","uid":"rs-1","controller":true}]},
    "spec":{"containers":[{"name":"c"}]}})");
  const KubePod p = parse_pod(j);
  EXPECT_EQ(p.namespace_name, "default");
  EXPECT_EQ(p.scheduler_name, "default-scheduler");
  EXPECT_EQ(p.request.gpus, 0);
  EXPECT_EQ(p.request.gpu_milli, 250);
  EXPECT_EQ(p.gpu_memory_bytes, int64_t{10} << 30);
  EXPECT_EQ(p.simulate_duration, minutes(90));
  EXPECT_EQ(p.gang, "owner:rs-1") << "no gang label: the controller's gang, size unknown";
  EXPECT_EQ(p.gang_size, 0);
  {
    // A replica of an inference service is placed on its own, whatever its controller.
    json replica = j;
    replica["metadata"]["labels"] = {{"gantry.dev/service", "chat"}};
    EXPECT_EQ(parse_pod(replica).gang, "");
    EXPECT_EQ(parse_pod(replica).gang_size, 1);
  }
  j["metadata"]["annotations"]["gantry.dev/gpu-milli"] = "1000";
  EXPECT_EQ(parse_pod(j).request.gpus, 1) << "a whole share is one whole GPU";
  j["metadata"].erase("ownerReferences");
  EXPECT_EQ(parse_pod(j).gang, "") << "alone";
  EXPECT_EQ(parse_pod(j).gang_size, 1);
}

TEST(KubePod, MalformedFieldsAreNamed) {
  json j = training_pod();
  j["metadata"]["annotations"]["gantry.dev/gpu-milli"] = "300";
  expect_error(j, false, "metadata.annotations.gantry.dev/gpu-milli", "one or the other");
  j = training_pod();
  j["metadata"]["annotations"]["gantry.dev/gang-size"] = "four";
  expect_error(j, false, "metadata.annotations.gantry.dev/gang-size", "'four'");
  j = training_pod();
  j["metadata"]["annotations"]["gantry.dev/gpu-index"] = "0,,1";
  expect_error(j, false, "metadata.annotations.gantry.dev/gpu-index", "''");
  j = training_pod();
  j["spec"]["containers"][1]["resources"]["requests"]["memory"] = "1 Gi";
  expect_error(j, false, "spec.containers[1].resources.requests.memory", "'1 Gi'");
  j = training_pod();
  j["spec"]["priority"] = "high";
  expect_error(j, false, "spec.priority", "expected an integer");
  j = training_pod();
  j["metadata"]["annotations"]["gantry.dev/simulate-duration"] = "90";
  expect_error(j, false, "metadata.annotations.gantry.dev/simulate-duration", "");
  j = training_pod();
  j["status"]["containerStatuses"][0]["state"] = "done";
  expect_error(j, false, "status.containerStatuses[0].state", "expected an object");
  try {
    parse_pod(j);
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "Pod team-a/llm-worker-1");
  }
}

// The elastic annotations (kube_pod.hpp): the values as written, defaults when absent.
TEST(KubePod, ReadsElasticity) {
  json j = training_pod();
  EXPECT_FALSE(parse_pod(j).elastic.enabled());
  EXPECT_FALSE(parse_pod(j).restart_policy);
  auto& a = j["metadata"]["annotations"];
  a["gantry.dev/elastic-min"] = "2";
  a["gantry.dev/elastic-max"] = "8";
  KubePod p = parse_pod(j);
  EXPECT_TRUE(p.elastic.enabled());
  EXPECT_EQ(p.elastic.min_replicas, 2);
  EXPECT_EQ(p.elastic.max_replicas, 8);
  EXPECT_EQ(p.elastic.scale_step, 1);
  EXPECT_EQ(p.elastic.resize_cost, Duration(0));
  a["gantry.dev/elastic-step"] = "2";
  a["gantry.dev/resize-cost"] = "90s";
  a["gantry.dev/restart-policy"] = "ExitCode";
  p = parse_pod(j);
  EXPECT_EQ(p.elastic.scale_step, 2);
  EXPECT_EQ(p.elastic.resize_cost, seconds(90));
  EXPECT_EQ(p.restart_policy, RestartPolicy::kExitCode);
}

TEST(KubePod, MalformedElasticityIsNamed) {
  const auto with = [](std::map<std::string, std::string> annotations) {
    json j = training_pod();
    for (const auto& [k, v] : annotations) j["metadata"]["annotations"][k] = v;
    return j;
  };
  expect_error(with({{"gantry.dev/elastic-min", "2"}}), false,
               "metadata.annotations.gantry.dev/elastic-max", "missing");
  expect_error(with({{"gantry.dev/elastic-max", "2"}}), false,
               "metadata.annotations.gantry.dev/elastic-min", "missing");
  expect_error(with({{"gantry.dev/elastic-min", "3"}, {"gantry.dev/elastic-max", "2"}}), false,
               "metadata.annotations.gantry.dev/elastic-min", "more than");
  expect_error(with({{"gantry.dev/elastic-min", "0"}, {"gantry.dev/elastic-max", "2"}}), false,
               "metadata.annotations.gantry.dev/elastic-min", "'0'");
  expect_error(with({{"gantry.dev/elastic-step", "2"}}), false,
               "metadata.annotations.gantry.dev/elastic-step", "elastic-min");
  expect_error(with({{"gantry.dev/elastic-min", "1"},
                     {"gantry.dev/elastic-max", "2"},
                     {"gantry.dev/resize-cost", "2d"}}),
               false, "metadata.annotations.gantry.dev/resize-cost", "'2d'");
  expect_error(with({{"gantry.dev/restart-policy", "Always"}}), false,
               "metadata.annotations.gantry.dev/restart-policy", "'Always'");
}

}  // namespace
}  // namespace gantry::kube
